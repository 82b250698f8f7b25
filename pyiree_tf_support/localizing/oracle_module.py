"""iree_input.mlir made fit for the StableHLO reference interpreter, with a probe at every value.

The interpreter (jaxlib's `stablehlo.eval_module`, run by oracle_run in a child process) takes
a module whose entry function is `@main`, of StableHLO and func ops only; what our import
produces needs three rewrites first, done here with IREE's MLIR bindings (which know every
dialect of iree_input.mlir; the interpreter's do not know ml_program):
- `ml_program` globals become state threaded through each call: every exported function takes
  the module's globals as extra arguments after its own and returns their final values after
  its results; a load is the value last stored on that path, a store inside a `stablehlo.if`
  or `case` makes the branch op yield the global's value on every branch. A global read or
  written inside a `stablehlo.while` or a called function is refused (OracleUnsupported), never
  guessed.
- `stablehlo.dot` (TF's lowering of `tf.matmul`) becomes `dot_general`: the interpreter aborts
  the process on `dot` (openxla/stablehlo#1571).
- every tensor a top-level or loop-body op makes, and every value a global load reads, gets an
  `interpreter.probe` named after the op's iree_input.mlir line and column (`L<line>C<col>R<n>`,
  the n-th result), which the interpreter saves as .npy each time it runs. The interpreter
  aborts on a probe inside an `if`/`case` branch, so a branch's values (static shapes) are
  yielded out of the branch op and probed after it (see _Rewriter.branches); values inside
  nested branches get none, and are reported as having no counterpart (localizing/oracle.py),
  never as agreeing.
Each exported function becomes its own module (`@main`, with the private functions it may
call), and the globals' initial values a module of their own (`@main` returning them).
"""

import dataclasses
import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

PROBE_OP = "interpreter.probe"
_LINE_COLUMN = re.compile(r":(\d+):(\d+)")
_BRANCHES = ("stablehlo.if", "stablehlo.case")


class OracleUnsupported(Exception):
  """The module uses something the oracle cannot evaluate faithfully; says what."""


@dataclasses.dataclass(frozen=True)
class Global:
  """One ml_program global: its symbol, its tensor type (as MLIR spells it)."""
  name: str
  type: str


@dataclasses.dataclass(frozen=True)
class OracleModule:
  """What oracle_run evaluates: one module text per exported function (its `@main` takes the
  function's arguments then the globals, returns its results then the globals), the initial
  values' module, the globals in order, each probe's type, and where each function stores
  each global (iree_input.mlir locations, in program order: what a diverging state names)."""
  functions: Dict[str, str]
  results: Dict[str, int]  # each function's own result count (the globals come after them).
  initial: Optional[str]
  globals: Tuple[Global, ...]
  probes: Dict[str, str]
  stores: Dict[str, Dict[str, Tuple[str, ...]]] = dataclasses.field(default_factory=dict)
  # Why a function cannot be evaluated (a dynamic shape or a shape computation), by function.
  refused: Dict[str, str] = dataclasses.field(default_factory=dict)


def _unevaluable(ir, function) -> Optional[str]:
  """What of `function` (a func.func op) the interpreter cannot evaluate, or None: a tensor of
  a dynamic shape (it aborts: "dynamic result types are not supported at the moment"), a shape
  computation (`shape.shape_of` and its `tensor<Nxindex>`: "Unsupported op"; its probe would
  not even parse)."""
  def why(value_type) -> Optional[str]:
    if not isinstance(value_type, ir.RankedTensorType):
      return None
    tensor = ir.RankedTensorType(value_type)
    if not tensor.has_static_shape:
      return "a dynamic shape"
    return "a shape value" if isinstance(tensor.element_type, ir.IndexType) else None

  def walk(region) -> Optional[str]:
    for block in region.blocks:
      for argument in block.arguments:
        if why(argument.type):
          return f"{why(argument.type)}: an argument of type {argument.type}"
      for op in block.operations:
        op = op.operation
        if op.name.startswith("shape."):
          return f"a shape computation: {op.name} at {op.location}"
        for result in op.results:
          if why(result.type):
            return f"{why(result.type)}: {op.name} at {op.location} gives {result.type}"
        for inner in op.regions:
          found = walk(inner)
          if found:
            return found
    return None

  return walk(function.regions[0])


def probe_id(location: str, result: int) -> Optional[str]:
  """`L<line>C<column>R<result>` of an op's location in iree_input.mlir, None when it has none."""
  match = _LINE_COLUMN.search(location)
  if not match:
    return None
  return f"L{match.group(1)}C{match.group(2)}R{result}"


def line_column(location: str) -> Optional[Tuple[int, int]]:
  """The first (line, column) a location names (a call site's callee comes first)."""
  match = _LINE_COLUMN.search(location)
  return (int(match.group(1)), int(match.group(2))) if match else None


def _symbol(op, attribute: str) -> str:
  from iree.compiler import ir
  return ir.FlatSymbolRefAttr(op.attributes[attribute]).value


def walk(op) -> Iterator:
  """Every operation nested in `op`'s regions, in program text order."""
  for region in op.regions:
    for block in region.blocks:
      for inner in block.operations:
        inner = inner.operation
        yield inner
        yield from walk(inner)


def _touches_globals(op) -> bool:
  return any(inner.name.startswith("ml_program.") for inner in walk(op))


# An MLIR value (ir.Value): the bindings are typed Any.
_Value = Any


class _Rewriter:
  """Threads the globals through one function's body and adds the probes."""

  def __init__(self, ir, globals_: Sequence[Global], callees_with_state: Sequence[str],
               probes: Dict[str, str]):
    self.ir = ir
    self.globals = [g.name for g in globals_]
    self.callees_with_state = set(callees_with_state)
    self.probes = probes
    self.stores: Dict[str, List[str]] = {}  # each global's stores' locations

  def probe(self, value, name: Optional[str], anchor, after: bool = True) -> None:
    """A probe named `name` of `value` right after `anchor` (or before it)."""
    if name is None or not isinstance(value.type, self.ir.RankedTensorType):
      return
    self.probes[name] = str(value.type)
    op = self.ir.Operation.create(PROBE_OP, results=[value.type], operands=[value],
                                  attributes={"probe_id": self.ir.StringAttr.get(name)},
                                  loc=anchor.location, ip=self.ir.InsertionPoint(anchor))
    if after:
      op.move_after(anchor)

  def block(self, block, current: Dict[str, _Value], probing: bool,
            lifted: Optional[List[Tuple[_Value, str]]] = None) -> Dict[str, _Value]:
    """Rewrites `block` in place given the globals' values on entry; their values at its end.
    `probing`: probe every value; `lifted`: a branch's, collected instead (see branches)."""
    current = dict(current)

    def observe(value, name, anchor, after=True):
      if lifted is not None:
        if name is not None and _static(self.ir, value.type):
          lifted.append((value, name))
      elif probing:
        self.probe(value, name, anchor, after)

    for op in list(block.operations):
      op = op.operation
      name = op.name
      if name == "ml_program.global_load":
        value = current[_symbol(op, "global")]
        op.results[0].replace_all_uses_with(value)
        observe(value, probe_id(str(op.location), 0), op, after=False)
        op.erase()
        continue
      if name == "ml_program.global_store":
        current[_symbol(op, "global")] = op.operands[0]
        self.stores.setdefault(_symbol(op, "global"), []).append(str(op.location))
        op.erase()
        continue
      if name.startswith("ml_program."):
        raise OracleUnsupported(f"{name} at {op.location} is not a global load or store")
      if name in ("func.call", "call") and _symbol(op, "callee") in self.callees_with_state:
        raise OracleUnsupported(f"a call at {op.location} of a function that reads or writes "
                                "a global (only the called function's own body is threaded)")
      if name == "stablehlo.dot":
        op = self.dot_general(op)
      if name == "stablehlo.while" and _touches_globals(op):
        raise OracleUnsupported(f"a global read or written inside the stablehlo.while at "
                                f"{op.location}")
      if name == "stablehlo.while":
        for region in op.regions[1:]:  # the body: probes record every iteration.
          self.block(region.blocks[0], current, probing and lifted is None)
      own = len(op.results)  # a branch op's extra results are probed by branches()
      if name in _BRANCHES:
        op = self.branches(op, current, probing and lifted is None)
      if name in ("func.return", "stablehlo.return"):
        if name == "func.return":
          self.return_(op, current)
        continue
      for index, result in enumerate(list(op.results)[:own]):
        observe(result, probe_id(str(op.location), index), op)
    return current

  def dot_general(self, op):
    ir = self.ir
    lhs, rhs = op.operands[0], op.operands[1]
    lhs_rank = ir.RankedTensorType(lhs.type).rank
    numbers = ir.Attribute.parse(
        f"#stablehlo.dot<lhs_contracting_dimensions = [{lhs_rank - 1}], "
        "rhs_contracting_dimensions = [0]>")
    attributes = {"dot_dimension_numbers": numbers}
    if "precision_config" in op.attributes:
      attributes["precision_config"] = op.attributes["precision_config"]
    new = ir.Operation.create("stablehlo.dot_general", results=[op.results[0].type],
                              operands=[lhs, rhs], attributes=attributes, loc=op.location,
                              ip=ir.InsertionPoint(op))
    op.results[0].replace_all_uses_with(new.results[0])
    op.erase()
    return new

  def branches(self, op, current: Dict[str, _Value], probing: bool):
    """An if/case whose branches store globals yields each one's value as extra results; when
    probing, each branch's values too (the interpreter aborts on a probe inside a branch): a
    branch yields its own and zeros for the others', and the probes after the op are named
    `<value>@<op>B<branch>of<branches>`, with the branch taken probed as `<op>BR` (oracle.py
    keeps a branch's values only from the executions that took it)."""
    ir = self.ir
    lifts: List[List[Tuple[_Value, str]]] = [[] for _ in op.regions]
    ends = [self.block(region.blocks[0], current, probing=False,
                       lifted=lifts[i] if probing else None)
            for i, region in enumerate(op.regions)]
    changed = [g for g in self.globals if any(end[g] != current[g] for end in ends)]
    here = probe_id(str(op.location), 0)
    if here is None:
      lifts = [[] for _ in op.regions]
    here = (here or "")[:-2]  # L<line>C<column>
    extra = [(branch, value, name) for branch, lift in enumerate(lifts) for value, name in lift]
    if not changed and not extra:
      return op
    types = ([r.type for r in op.results] + [current[g].type for g in changed]
             + [value.type for _, value, _ in extra])
    new = ir.Operation.create(op.name, results=types, operands=list(op.operands),
                              attributes={a: op.attributes[a] for a in op.attributes},
                              regions=len(op.regions), loc=op.location,
                              ip=ir.InsertionPoint(op))
    for index, (region, new_region, end) in enumerate(zip(op.regions, new.regions, ends)):
      old = region.blocks[0]
      block = new_region.blocks.append(*[arg.type for arg in old.arguments])
      for arg, new_arg in zip(old.arguments, block.arguments):
        arg.replace_all_uses_with(new_arg)
      for inner in list(old.operations):
        block.append(inner.operation)
      terminator = list(block.operations)[-1].operation
      yields = []
      for branch, value, _ in extra:
        yields.append(value if branch == index else self.zeros(value.type, terminator))
      ir.Operation.create(terminator.name, operands=list(terminator.operands)
                          + [end[g] for g in changed] + yields, loc=terminator.location,
                          ip=ir.InsertionPoint(terminator))
      terminator.erase()
    for old_result, new_result in zip(op.results, new.results):
      old_result.replace_all_uses_with(new_result)
    own = len(op.results)
    for index, g in enumerate(changed):
      current[g] = new.results[own + index]
    op.erase()
    if extra:
      first = own + len(changed)
      count = len(new.regions)
      for offset, (branch, _, name) in reversed(list(enumerate(extra))):
        self.probe(new.results[first + offset], f"{name}@{here}B{branch}of{count}", new)
      self.probe(new.operands[0], f"{here}BR", new)
    return new

  def zeros(self, tensor_type, before):
    ir = self.ir
    element = ir.RankedTensorType(tensor_type).element_type
    zero = (ir.FloatAttr.get(element, 0.0) if isinstance(element, (ir.F16Type, ir.F32Type,
                                                                    ir.F64Type, ir.BF16Type))
            else ir.IntegerAttr.get(element, 0))
    return ir.Operation.create(
        "stablehlo.constant", results=[tensor_type],
        attributes={"value": ir.DenseElementsAttr.get_splat(tensor_type, zero)},
        loc=before.location, ip=ir.InsertionPoint(before)).results[0]

  def return_(self, op, current: Dict[str, _Value]) -> None:
    ir = self.ir
    ir.Operation.create(op.name, operands=list(op.operands) + [current[g] for g in self.globals],
                        loc=op.location, ip=ir.InsertionPoint(op))
    op.erase()


def _static(ir, value_type) -> bool:
  """A tensor type a zero constant can be made of (a branch not taken yields one)."""
  if not isinstance(value_type, ir.RankedTensorType):
    return False
  tensor = ir.RankedTensorType(value_type)
  element = tensor.element_type
  return tensor.has_static_shape and (
      isinstance(element, (ir.F16Type, ir.F32Type, ir.F64Type, ir.BF16Type))
      or isinstance(element, ir.IntegerType))


def rewrite(text: str) -> OracleModule:
  """The interpreter's modules for iree_input.mlir's `text` (see the module docstring)."""
  from iree.compiler import ir
  functions: Dict[str, str] = {}
  results: Dict[str, int] = {}
  probes: Dict[str, str] = {}
  stores: Dict[str, Dict[str, Tuple[str, ...]]] = {}
  with ir.Context() as context, ir.Location.unknown():
    context.allow_unregistered_dialects = True
    module = ir.Module.parse(text)
    ops = [op.operation for op in module.body.operations]
    globals_ = tuple(Global(ir.StringAttr(op.attributes["sym_name"]).value,
                            str(ir.TypeAttr(op.attributes["type"]).value))
                     for op in ops if op.name == "ml_program.global")
    initial_values = [str(op.attributes["value"]) for op in ops if op.name == "ml_program.global"]
    funcs = [op for op in ops if op.name == "func.func"]
    exported = [ir.StringAttr(op.attributes["sym_name"]).value for op in funcs
                if "sym_visibility" not in op.attributes
                or ir.StringAttr(op.attributes["sym_visibility"]).value == "public"]
    with_state = [ir.StringAttr(op.attributes["sym_name"]).value for op in funcs
                  if _touches_globals(op)]
    others = [op for op in ops if op.name not in ("func.func", "ml_program.global")]
    if others:
      raise OracleUnsupported(f"{others[0].name} at module level")
    refused = {}
    for op in funcs:
      name = ir.StringAttr(op.attributes["sym_name"]).value
      where = _unevaluable(ir, op) if name in exported else None
      if where is not None:
        refused[name] = f"the StableHLO reference interpreter does not evaluate {where}"
    for name in exported:
      if name in refused:
        continue
      results[name] = _one_function(ir, text, name, globals_, with_state, probes, functions,
                                    stores)
  initial = None
  if globals_:
    types = ", ".join(g.type for g in globals_)
    body = "\n".join(f"    %g{i} = stablehlo.constant {value}"
                     for i, value in enumerate(initial_values))
    names = ", ".join(f"%g{i}" for i in range(len(globals_)))
    initial = (f"func.func @main() -> ({types}) {{\n{body}\n    return {names} : {types}\n}}\n")
  return OracleModule(functions, results, initial, globals_, probes, stores, refused)


def _one_function(ir, text: str, name: str, globals_: Sequence[Global],
                  with_state: Sequence[str], probes: Dict[str, str],
                  out: Dict[str, str], stores: Dict[str, Dict[str, Tuple[str, ...]]]) -> int:
  """Rewrites a fresh parse of `text` keeping `name` (as @main) and the private functions."""
  module = ir.Module.parse(text)
  keep = None
  for op in list(module.body.operations):
    op = op.operation
    if op.name == "ml_program.global":
      op.erase()
      continue
    symbol = ir.StringAttr(op.attributes["sym_name"]).value
    private = ("sym_visibility" in op.attributes
               and ir.StringAttr(op.attributes["sym_visibility"]).value == "private")
    if symbol == name:
      keep = op
    elif not private:
      op.erase()
  if keep is None:  # `name` is one of the module's exported functions (rewrite).
    raise ValueError(f"no function @{name} in the module")
  entry = keep.regions[0].blocks[0]
  function_type = ir.FunctionType(ir.TypeAttr(keep.attributes["function_type"]).value)
  state_types = [ir.Type.parse(g.type) for g in globals_]
  current = {g.name: entry.add_argument(t, keep.location) for g, t in zip(globals_, state_types)}
  rewriter = _Rewriter(ir, globals_, with_state, probes)
  rewriter.block(entry, current, probing=True)
  stores[name] = {g: tuple(where) for g, where in rewriter.stores.items()}
  keep.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
      list(function_type.inputs) + state_types, list(function_type.results) + state_types))
  keep.attributes["sym_name"] = ir.StringAttr.get("main")
  for attribute in ("arg_attrs", "res_attrs"):
    if attribute in keep.attributes:
      del keep.attributes[attribute]
  # Private functions: also rewrite their dots (they hold no state: see _Rewriter).
  for op in list(module.body.operations):
    op = op.operation
    if (op != keep and op.name == "func.func" and op.regions[0].blocks
        and ir.StringAttr(op.attributes["sym_name"]).value not in with_state):
      _Rewriter(ir, (), (), {}).block(op.regions[0].blocks[0], {}, probing=False)
  out[name] = module.operation.get_asm(print_generic_op_form=False, assume_verified=True)
  return len(function_type.results)
