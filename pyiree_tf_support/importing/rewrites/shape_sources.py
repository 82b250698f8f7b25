"""Where the extents of a StableHLO shape value come from, read off TF's shape computation, and
index-scalar builders for them (IREE's MLIR Python bindings).

TF's lowering computes the output shape of a dynamic broadcast with the `shape` dialect
(`shape_of`, `broadcast`, `split_at`, `concat`, ...) or `tensor.from_elements`. For each extent
this module lists its sources: a static size, a dim of a tensor value, or an opaque index scalar;
a broadcast extent has several. IREE lowers neither `!shape.shape` values nor index tensors read
back at run time, so rewrites rebuild extents from these sources as index scalars.
"""

from typing import List, Optional

from iree.compiler import ir
from iree.compiler.dialects import arith
from iree.compiler.dialects import tensor

# One source of an extent: ("static", size), ("dim", tensor value, dim index) or
# ("scalar", index value) for an extent computed some other way.
Source = tuple
# Per dim of a shape value, the sources its extent is broadcast from (one unless broadcast).
Extents = List[List[Source]]


def extents(value: ir.Value) -> Optional[Extents]:
  """The sources of each extent of a shape value (None where the computation is not understood)."""
  op = _defining_op(value)
  if op is None:
    return None
  name = op.name
  if name == "shape.shape_of":
    source_type = op.operands[0].type
    if not isinstance(source_type, ir.RankedTensorType):
      return None
    return [[_dim_source(op.operands[0], j)] for j in range(source_type.rank)]
  if name == "tensor.from_elements":
    if not all(isinstance(element.type, ir.IndexType) for element in op.operands):
      return None
    return [[scalar_source(element)] for element in op.operands]
  if name == "shape.const_shape":
    return [[("static", int(size))] for size in ir.DenseIntElementsAttr(op.attributes["shape"])]
  if name in ("shape.to_extent_tensor", "tensor.cast"):
    return extents(op.operands[0])
  if name == "shape.broadcast":
    return broadcast_extents([extents(shape_value) for shape_value in op.operands])
  if name == "shape.concat":
    head, tail = extents(op.operands[0]), extents(op.operands[1])
    return None if head is None or tail is None else head + tail
  if name == "shape.split_at":
    whole, index = extents(op.operands[0]), constant_index(op.operands[1])
    if whole is None or index is None:
      return None
    index = index + len(whole) if index < 0 else index
    return whole[:index] if ir.OpResult(value).result_number == 0 else whole[index:]
  return None


def uses_shape_values(value: ir.Value) -> bool:
  """Whether value is computed through `!shape.shape` values (which IREE cannot lower)."""
  op = _defining_op(value)
  if op is None or not op.name.startswith("shape."):
    return False
  return any(str(result.type) == "!shape.shape" for result in op.results) or \
      any(uses_shape_values(operand) for operand in op.operands)


def broadcast_extents(operands: List[Optional[Extents]]) -> Optional[Extents]:
  """The extents of the broadcast of shapes (aligned at their last dims)."""
  known = [operand for operand in operands if operand is not None]
  if not operands or len(known) != len(operands):
    return None
  rank = max(len(operand) for operand in known)
  result: Extents = [[] for _ in range(rank)]
  for operand in known:
    for j, sources in enumerate(operand):
      result[rank - len(operand) + j].extend(sources)
  return result


def scalar_source(value: ir.Value) -> Source:
  """The source of an index scalar: a constant, a tensor.dim at a constant index, or itself."""
  op = _defining_op(value)
  if op is not None and op.name == "arith.constant":
    return ("static", ir.IntegerAttr(op.attributes["value"]).value)
  if op is not None and op.name == "tensor.dim":
    index = constant_index(op.operands[1])
    if index is not None and isinstance(op.operands[0].type, ir.RankedTensorType):
      return _dim_source(op.operands[0], index)
  return ("scalar", value)


def constant_index(value: ir.Value) -> Optional[int]:
  """The value of an arith.constant, else None."""
  op = _defining_op(value)
  if op is None or op.name != "arith.constant":
    return None
  return ir.IntegerAttr(op.attributes["value"]).value


def is_dim(source: Source, value: ir.Value, index: int) -> bool:
  """Whether source is dim `index` of `value`."""
  return source[0] == "dim" and source[1] == value and source[2] == index


def source_value(source: Source) -> ir.Value:
  """An index scalar holding the source's extent, built at the insertion point."""
  if source[0] == "static":
    return arith.constant(ir.IndexType.get(), source[1])
  if source[0] == "dim":
    return tensor.dim(source[1], arith.constant(ir.IndexType.get(), source[2]))
  return source[1]


def broadcast_extent(sources: List[Source]) -> ir.Value:
  """The extent of one broadcast dim, built at the insertion point: the first source that is not
  1, else 1 (so [0] with [1] is 0, as in TF)."""
  values = [source_value(source) for source in _distinct(sources)]
  if not values:
    return arith.constant(ir.IndexType.get(), 1)
  one = arith.constant(ir.IndexType.get(), 1)
  extent = values[0]
  for value in values[1:]:
    extent = arith.select(arith.cmpi(arith.CmpIPredicate.eq, extent, one), value, extent)
  return extent


def broadcast_compatible(sources: List[Source]) -> Optional[ir.Value]:
  """Whether one broadcast dim's sources are compatible (each is 1 or the extent), built at the
  insertion point; None when they always are (at most one source other than static 1)."""
  distinct = _distinct(sources)
  if len(distinct) <= 1:
    return None
  extent = broadcast_extent(distinct)
  one = arith.constant(ir.IndexType.get(), 1)
  fits = [arith.ori(arith.cmpi(arith.CmpIPredicate.eq, value, one),
                    arith.cmpi(arith.CmpIPredicate.eq, value, extent))
          for value in map(source_value, distinct)]
  compatible = fits[0]
  for fit in fits[1:]:
    compatible = arith.andi(compatible, fit)
  return compatible


def _distinct(sources: List[Source]) -> List[Source]:
  """The sources without static 1s (they never change an extent) and repeats."""
  distinct: List[Source] = []
  for source in sources:
    if source != ("static", 1) and not any(_same(source, seen) for seen in distinct):
      distinct.append(source)
  return distinct


def _same(a: Source, b: Source) -> bool:
  if a[0] != b[0]:
    return False
  if a[0] == "static":
    return a[1] == b[1]
  if a[0] == "dim":
    return is_dim(b, a[1], a[2])
  return a[1] == b[1]


def function_name(op: ir.Operation) -> str:
  """The name of the func.func around op (for messages)."""
  parent = op.parent
  while parent is not None and parent.name != "func.func":
    parent = parent.parent
  return "?" if parent is None else ir.StringAttr(parent.attributes["sym_name"]).value


def _dim_source(value: ir.Value, index: int) -> Source:
  value_type = value.type
  if value_type.is_static_dim(index):
    return ("static", value_type.get_dim_size(index))
  return ("dim", value, index)


def _defining_op(value: ir.Value) -> Optional[ir.Operation]:
  owner = value.owner
  if isinstance(owner, (ir.Operation, ir.OpView)):
    return owner.operation
  return None  # a block argument.
