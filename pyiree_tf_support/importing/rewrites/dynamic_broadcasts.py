"""StableHLO-side rewrite of TF's dynamic broadcasts, so that IREE compiles them without ever
computing a wrong answer.

TF's lowering turns a binary op broadcasting on `None` dims into
`stablehlo.dynamic_broadcast_in_dim` ops that do not say, for a dynamic operand dim, whether it
expands (is 1 and stretched) or not. IREE's only converter for the op refuses such dims
("explicitly marked illegal"). Telling it "non-expanding" is true only when the dim cannot be 1
while the broadcast result is larger: forced on [1] + [3] the compiled module silently returns a
one-element answer.

So, for every operand dim the converter will treat as non-expanding (all but static 1s):
- proven: the broadcast extent at that dim has no source but this very dim and static 1s (or,
  for a static dim, equal static sizes), read off the shape computation (shape_sources).
  `x @ w + b` and `[None, 4] + [4]` are proven; nothing is checked at run time.
- decided at run time (a dynamic dim, up to MAX_BRANCHED_DIMS per operand): `scf.if dim == 1`
  picks a copy of the op annotated expanding there (exact for a size-1 dim) or one annotated
  non-expanding behind `cf.assert(dim == 1 or dim == extent)` (true for compatible shapes).
  [None] + [None] fed [1] and [3], a batch matmul fed batches 1 and 4 give TF's answer.
- otherwise asserted: non-expanding behind `cf.assert(dim == extent)`; an expanding case fails at
  run time with the assertion's message instead of computing a wrong answer.
The output shape is rebuilt from index scalars (IREE lowers neither `!shape.shape` values nor
index tensors read back at run time). `shape.cstr_broadcastable`, which IREE lowers to an op it
cannot compile (`shape.cstr_require`), becomes the same check as a `cf.assert`. A broadcast whose
shape computation is not understood is left as it is (it keeps failing to compile).

The same parse also turns unit-dim-only `dynamic_reshape`s into expand_shape (unit_dim_reshapes).
Texts without these ops come back unchanged (not reprinted).
"""

import dataclasses
from typing import List, Optional, Tuple

from iree.compiler import ir
from iree.compiler.dialects import arith
from iree.compiler.dialects import cf
from iree.compiler.dialects import scf
from iree.compiler.dialects import shape
from iree.compiler.dialects import tensor

from pyiree_tf_support.importing.rewrites import dynamic_ops
from pyiree_tf_support.importing.rewrites import shape_sources
from pyiree_tf_support.importing.rewrites import unit_dim_reshapes

REWRITE_STEP = dynamic_ops.REWRITE_STEP

# An operand with more dims that may expand is only asserted not to (2^n copies otherwise).
MAX_BRANCHED_DIMS = 3

_BROADCAST = dynamic_ops.BROADCAST
_CSTR_BROADCASTABLE = dynamic_ops.CSTR_BROADCASTABLE
_ANNOTATIONS = ("known_expanding_dimensions", "known_nonexpanding_dimensions")
_OPS = dynamic_ops.HANDLED
# Pure shape ops, some on `!shape.shape` values which IREE cannot lower (a batch matmul's
# split_at, broadcast, concat): erased once the rebuilt shapes leave them unused.
_SHAPE_VALUE_OPS = ("shape.split_at", "shape.broadcast", "shape.concat", "shape.to_extent_tensor",
                    "shape.const_shape", "shape.shape_of")


@dataclasses.dataclass(frozen=True)
class BroadcastRewrite:
  """The rewritten text and what was done to it."""
  text: str
  broadcasts: int = 0  # dynamic_broadcast_in_dim ops rewritten (output shape rebuilt)
  proven: int = 0  # dynamic operand dims marked non-expanding from the shape computation alone
  branched: int = 0  # dynamic operand dims that expand or not as they are 1 or not at run time
  guarded: int = 0  # operand dims marked non-expanding behind a runtime assertion only
  constraints: int = 0  # shape.cstr_broadcastable turned into runtime assertions
  reshapes: int = 0  # unit-dim dynamic_reshapes turned into tensor.expand_shape

  @property
  def changed(self) -> bool:
    return bool(self.broadcasts or self.constraints or self.reshapes)


@dataclasses.dataclass(frozen=True)
class _Decisions:
  """What _annotate did to one dynamic_broadcast_in_dim (counts as in BroadcastRewrite)."""
  broadcasts: int = 0
  proven: int = 0
  branched: int = 0
  guarded: int = 0


def rewrite_dynamic_broadcasts(mlir_text: str) -> BroadcastRewrite:
  """The text with its dynamic broadcasts made compilable where that is safe (module docstring)."""
  if not dynamic_ops.may_rewrite(mlir_text):
    return BroadcastRewrite(mlir_text)
  with ir.Context() as context, ir.Location.unknown():
    context.allow_unregistered_dialects = True  # leftover tf.* ops are reported elsewhere.
    try:
      module = ir.Module.parse(mlir_text)
    except ir.MLIRError:  # iree-compile cannot read it either and reports it as it is.
      return BroadcastRewrite(mlir_text)
    found = {name: [] for name in _OPS}

    def collect(op):
      if op.name in found:
        found[op.name].append(op)
      return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    decisions = [_annotate(op) for op in found[_BROADCAST]]
    counts = {field.name: sum(getattr(d, field.name) for d in decisions)
              for field in dataclasses.fields(_Decisions)}
    constraints = sum(_assert_broadcastable(op) for op in found[_CSTR_BROADCASTABLE])
    reshapes = unit_dim_reshapes.rewrite_unit_dim_reshapes(found[unit_dim_reshapes.DYNAMIC_RESHAPE])
    if not (counts["broadcasts"] or constraints or reshapes):
      return BroadcastRewrite(mlir_text)
    _erase_unused_shape_values(module)
    return BroadcastRewrite(str(module), constraints=constraints, reshapes=reshapes, **counts)


def _annotate(op: ir.Operation) -> _Decisions:
  """Rebuilds op's output shape from index scalars and says for each operand dim whether it
  expands: proven, decided at run time, or asserted."""
  operand, shape_value = op.operands[0], op.operands[1]
  operand_type = operand.type
  if any(name in op.attributes for name in _ANNOTATIONS) or \
     not isinstance(operand_type, ir.RankedTensorType):
    return _Decisions()
  # A static operand needs no annotation (the converter decides static dims itself), only a
  # shape IREE can lower.
  static = operand_type.has_static_shape
  extents = shape_sources.extents(shape_value)
  if extents is None or (static and not shape_sources.uses_shape_values(shape_value)):
    return _Decisions()
  with ir.InsertionPoint(op):
    scalars = [shape_sources.broadcast_extent(sources) for sources in extents]
    op.operands[1] = tensor.from_elements(
        ir.RankedTensorType.get([len(scalars)], ir.IndexType.get()), scalars)
  result_type = op.results[0].type
  nonexpanding, proven, unproven = [], [], []
  for i, r in enumerate(op.attributes["broadcast_dimensions"]):
    size = None if operand_type.is_dynamic_dim(i) else operand_type.get_dim_size(i)
    if size == 1:
      continue
    nonexpanding.append(i)
    if _provably_nonexpanding(operand, i, size, extents[r], result_type.is_dynamic_dim(r)):
      proven.append(i)
    else:
      unproven.append((i, r))
  may_expand = [(i, r) for i, r in unproven if operand_type.is_dynamic_dim(i)]
  if len(may_expand) > MAX_BRANCHED_DIMS:
    may_expand = []
  size_one = [(i, _guard(op, operand, i, r, scalars[r], (i, r) in may_expand))
              for i, r in unproven]
  if not static:
    op.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(nonexpanding)
  if may_expand:
    _branch_on_expansion(op, [(i, is_one) for i, is_one in size_one if is_one is not None],
                         nonexpanding)
  return _Decisions(1, sum(operand_type.is_dynamic_dim(i) for i in proven), len(may_expand),
                    len(unproven) - len(may_expand))


def _branch_on_expansion(op: ir.Operation, size_one: List[Tuple[int, ir.Value]],
                         nonexpanding: List[int]) -> None:
  """Replaces op by scf.ifs on whether each of these operand dims is 1, with op's copy in each
  branch annotated accordingly: expanding where it is 1, non-expanding elsewhere."""
  result_type = op.results[0].type

  def variant(pending: List[Tuple[int, ir.Value]], expanding: List[int]) -> ir.Value:
    if not pending:
      copy = op.clone()
      copy.attributes["known_expanding_dimensions"] = ir.DenseI64ArrayAttr.get(expanding)
      copy.attributes["known_nonexpanding_dimensions"] = ir.DenseI64ArrayAttr.get(
          [i for i in nonexpanding if i not in expanding])
      return copy.results[0]
    (i, is_one), rest = pending[0], pending[1:]
    branch = scf.IfOp(is_one, [result_type], has_else=True)
    with ir.InsertionPoint(branch.then_block):
      scf.YieldOp([variant(rest, expanding + [i])])
    with ir.InsertionPoint(branch.else_block):
      scf.YieldOp([variant(rest, expanding)])
    return branch.results[0]

  with ir.InsertionPoint(op):
    chosen = variant(size_one, [])
  op.results[0].replace_all_uses_with(chosen)
  op.erase()


def _provably_nonexpanding(operand: ir.Value, i: int, size, sources: List[shape_sources.Source],
                           dynamic_result: bool) -> bool:
  """Whether the broadcast extent from `sources` must equal operand dim i's extent."""
  if size is not None and not dynamic_result:
    return True  # a static result dim equal to a static operand dim (or the op is invalid).
  for source in sources:
    if source == ("static", 1) or source == ("static", size):
      continue
    if size is None and shape_sources.is_dim(source, operand, i):
      continue
    return False
  return True


def _guard(op: ir.Operation, operand: ir.Value, i: int, r: int, extent: ir.Value,
           may_expand: bool) -> Optional[ir.Value]:
  """Inserts, before op, an assertion that operand dim i equals the broadcast extent at r (or,
  when it may expand, is 1); returns `dim == 1` when it may expand."""
  function = shape_sources.function_name(op)
  with ir.InsertionPoint(op):
    index = ir.IndexType.get()
    own = tensor.dim(operand, arith.constant(index, i))
    equal = arith.cmpi(arith.CmpIPredicate.eq, own, extent)
    if not may_expand:
      cf.assert_(equal, f"{function}: a dynamic broadcast's operand dim {i} differs from result "
                        f"dim {r} (a size-1 dim expanding, or incompatible shapes); "
                        "pyiree_tf_support compiles this broadcast for equal extents only")
      return None
    is_one = arith.cmpi(arith.CmpIPredicate.eq, own, arith.constant(index, 1))
    cf.assert_(arith.ori(is_one, equal),
               f"{function}: a dynamic broadcast's operand dim {i} is neither 1 nor result dim "
               f"{r}'s extent (incompatible shapes)")
    return is_one


def _assert_broadcastable(op: ir.Operation) -> bool:
  """Replaces a shape.cstr_broadcastable witness by a runtime assertion of the same check on index
  scalars (IREE 3.13 crashes lowering shape.is_broadcastable of [?, 4] and [?, 1]); False, leaving
  it, when the shapes' sources are not understood."""
  extents = shape_sources.broadcast_extents(
      [shape_sources.extents(operand) for operand in op.operands])
  if extents is None:
    return False
  with ir.InsertionPoint(op):
    checks = [check for check in map(shape_sources.broadcast_compatible, extents) if check]
    ok = checks[0] if checks else arith.constant(ir.IntegerType.get_signless(1), 1)
    for check in checks[1:]:
      ok = arith.andi(ok, check)
    cf.assert_(ok, f"{shape_sources.function_name(op)}: shapes are not broadcastable (TensorFlow "
                   "raises an InvalidArgumentError here)")
    witness = shape.const_witness(True)
  op.results[0].replace_all_uses_with(witness)
  op.erase()
  return True


def _erase_unused_shape_values(module: ir.Module) -> None:
  """Erases shape ops on `!shape.shape` values whose results nothing uses any more."""
  while True:
    unused = []

    def collect(op):
      if op.name in _SHAPE_VALUE_OPS and not any(list(result.uses) for result in op.results):
        unused.append(op)
      return ir.WalkResult.ADVANCE

    module.operation.walk(collect)
    if not unused:
      return
    for op in unused:
      op.erase()
