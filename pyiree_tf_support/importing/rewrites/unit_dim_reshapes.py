"""`stablehlo.dynamic_reshape` that only inserts unit dims becomes `tensor.expand_shape`.

TF's lowering of a reduction with keepdims (softmax on a dynamic batch: `reduce_max(x, axis=1,
keepdims=True)`) reshapes `tensor<?xf32>` to `tensor<?x1xf32>` with a shape built from the
operand's own dims: `dynamic_reshape %r, from_elements(dim(%r, 0), 1)`. IREE 3.13 refuses
`stablehlo.dynamic_reshape` ("explicitly marked illegal"). Where every extent of the new shape is
provably the operand's own dim (in order) or a static 1, the reshape is an expand_shape with no
run-time condition; any other dynamic reshape is left as it is.
"""

from typing import List, Optional

from iree.compiler import ir
from iree.compiler.dialects import arith
from iree.compiler.dialects import tensor

from pyiree_tf_support.importing.rewrites import dynamic_ops
from pyiree_tf_support.importing.rewrites import shape_sources

DYNAMIC_RESHAPE = dynamic_ops.DYNAMIC_RESHAPE


def rewrite_unit_dim_reshapes(reshapes: List[ir.Operation]) -> int:
  """Rewrites each dynamic_reshape that only inserts unit dims; how many were rewritten."""
  return sum(_rewrite(op) for op in reshapes)


def _rewrite(op: ir.Operation) -> bool:
  operand, shape = op.operands[0], op.operands[1]
  operand_type, result_type = operand.type, op.results[0].type
  if not isinstance(operand_type, ir.RankedTensorType) or \
     not isinstance(result_type, ir.RankedTensorType):
    return False
  extents = shape_sources.extents(shape)
  if extents is None or len(extents) != result_type.rank:
    return False
  groups = _reassociation(operand, [sources[0] for sources in extents if len(sources) == 1],
                          result_type)
  if groups is None:
    return False
  index = ir.IndexType.get()
  with ir.InsertionPoint(op):
    dynamic_sizes = [tensor.dim(operand, arith.constant(index, j))
                     for j, group in enumerate(groups) for k in group
                     if result_type.is_dynamic_dim(k)]
    reassociation = ir.ArrayAttr.get([
        ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), k) for k in group])
        for group in groups])
    expanded = tensor.expand_shape(result_type, operand, reassociation, dynamic_sizes,
                                   list(result_type.shape))
  op.results[0].replace_all_uses_with(expanded)
  op.erase()
  return True


def _reassociation(operand: ir.Value, sources: List[shape_sources.Source],
                   result_type: ir.RankedTensorType) -> Optional[List[List[int]]]:
  """Per operand dim, the result dims it becomes (itself plus unit dims), if the new shape is the
  operand's dims in order with static 1s inserted; else None."""
  operand_type = operand.type
  if len(sources) != result_type.rank:
    return None
  groups: List[List[int]] = [[] for _ in range(operand_type.rank)]
  leading_units: List[int] = []
  j = 0
  for k, source in enumerate(sources):
    if j < operand_type.rank and _is_operand_dim(source, operand, j) and \
       result_type.is_dynamic_dim(k) == operand_type.is_dynamic_dim(j):
      groups[j] = leading_units + [k]
      leading_units = []
      j += 1
    elif source == ("static", 1) and result_type.is_static_dim(k):
      (groups[j - 1] if j else leading_units).append(k)
    else:
      return None
  if j != operand_type.rank or (leading_units and operand_type.rank):
    return None
  return groups


def _is_operand_dim(source: shape_sources.Source, operand: ir.Value, j: int) -> bool:
  operand_type = operand.type
  if operand_type.is_dynamic_dim(j):
    return shape_sources.is_dim(source, operand, j)
  return source == ("static", operand_type.get_dim_size(j))
