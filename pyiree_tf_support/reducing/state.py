"""A stateful module made fit for the op level: its variables as inputs and results, their
values read from a trusted backend, and globals started from a given state.

A failing call of a stateful trace depends on the calls before it only through the module's
mutable globals (tf.Variables). Three rewrites, with IREE's MLIR bindings, take that
dependence apart:
- `thread`: every public function takes the mutable globals as extra arguments after its own
  and returns their final values after its results; a load is the value last stored (or the
  argument), a store the new value. Such a function keeps no state: one call, fed the state it
  starts from, computes what the stateful call computed. Refused (StateError) when a mutable
  global is read or written inside a region (an `if`, a loop) or by a called function: the
  value a branch leaves is not one SSA value, and guessing it would change the program;
- `reader`: the globals and one function `@__reduce_state` returning their values (run on a
  trusted backend, it gives the initial state, whatever form the initial values are written in);
- `initialized`: the module with the globals' initial values replaced by a given state, so that
  one call of it starts where the earlier calls left the original.
`starting_state` runs the threaded calls before the failing one on a trusted backend with
iree-run-module (each a child process; the state goes from one to the next as .npy files), and
trusts a backend only while its outputs of those calls agree with the reference's.
"""

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.reducing import ops

READER = "__reduce_state"
_LOAD, _STORE = "ml_program.global_load", "ml_program.global_store"


class StateError(ValueError):
  """The module's state cannot be threaded through its functions; the message says why."""


@dataclasses.dataclass(frozen=True)
class Global:
  """One mutable global: its symbol and its type's text."""
  name: str
  type: str


def _name(ir, operation) -> str:
  return ir.StringAttr(operation.attributes["sym_name"]).value


def _global_of(ir, operation) -> str:
  return ir.FlatSymbolRefAttr(operation.attributes["global"]).value


def _mutable(ir, module) -> List[Global]:
  return [Global(_name(ir, op.operation), str(ir.TypeAttr(op.operation.attributes["type"]).value))
          for op in module.body.operations
          if op.operation.name == "ml_program.global" and "is_mutable" in op.operation.attributes]


def mutable_globals(text: str) -> Tuple[Global, ...]:
  """The module's mutable globals, in the module's order."""
  ir = ops.bindings()
  with ir.Context():
    return tuple(_mutable(ir, ir.Module.parse(text)))


def _functions(module) -> List:
  return [op.operation for op in module.body.operations if op.operation.name == "func.func"]


def _is_public(ir, function) -> bool:
  return "sym_visibility" not in function.attributes or \
      ir.StringAttr(function.attributes["sym_visibility"]).value == "public"


def _touching(ir, module, names: set) -> set:
  """The functions that read or write one of `names`, themselves or through a call."""
  calls: Dict[str, set] = {}
  touching = set()
  for function in _functions(module):
    own = _name(ir, function)
    calls[own] = set()
    for op in ops.walk(function, []):
      if op.name in (_LOAD, _STORE) and _global_of(ir, op) in names:
        touching.add(own)
      if "callee" in op.attributes:
        calls[own].add(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
  changed = True
  while changed:
    changed = False
    for own, callees in calls.items():
      if own not in touching and callees & touching:
        touching.add(own)
        changed = True
  return touching


def _thread_one(ir, function, state: Sequence[Global], touching: set) -> None:
  names = {g.name for g in state}
  block = function.regions[0].blocks[0]
  own = _name(ir, function)
  for op in list(block.operations):
    for nested in ops.walk(op.operation, []):
      if nested.name in (_LOAD, _STORE) and _global_of(ir, nested) in names:
        raise StateError(f"@{own} reads or writes @{_global_of(ir, nested)} inside "
                         f"{op.operation.name}")
      if "callee" in nested.attributes and \
          ir.FlatSymbolRefAttr(nested.attributes["callee"]).value in touching:
        raise StateError(f"@{own} reaches a global through a call")
    if "callee" in op.operation.attributes and \
        ir.FlatSymbolRefAttr(op.operation.attributes["callee"]).value in touching:
      raise StateError(f"@{own} reaches a global through a call")
  current = {g.name: block.add_argument(ir.Type.parse(g.type), ir.Location.unknown())
             for g in state}
  for op in list(block.operations):
    operation = op.operation
    if operation.name == _LOAD and _global_of(ir, operation) in names:
      operation.results[0].replace_all_uses_with(current[_global_of(ir, operation)])
      operation.erase()
    elif operation.name == _STORE and _global_of(ir, operation) in names:
      current[_global_of(ir, operation)] = operation.operands[0]
      operation.erase()
  returned = list(block.operations)[-1].operation
  values = list(returned.operands) + [current[g.name] for g in state]
  with ir.InsertionPoint(returned), ir.Location.unknown():
    ir.Operation.create("func.return", operands=values)
  returned.erase()
  kind = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
  function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
      list(kind.inputs) + [ir.Type.parse(g.type) for g in state],
      list(kind.results) + [ir.Type.parse(g.type) for g in state]))


def _symbols_used(ir, module) -> set:
  used = set()
  for op in ops.walk(module.operation, []):
    for named in op.attributes:
      attribute = op.attributes[named] if isinstance(named, str) else named.attr
      if isinstance(attribute, ir.FlatSymbolRefAttr):
        used.add(attribute.value)
  return used


def _drop_unread(ir, module) -> None:
  used = _symbols_used(ir, module)
  for op in list(module.body.operations):
    operation = op.operation
    if operation.name == "ml_program.global" and _name(ir, operation) not in used:
      operation.erase()


def without_unread(text: str) -> str:
  """The module without the globals no op refers to (another function's variables)."""
  ir = ops.bindings()
  with ir.Context():
    module = ir.Module.parse(text)
    _drop_unread(ir, module)
    return module.operation.get_asm(enable_debug_info=False)


def thread(text: str, only: Optional[str] = None) -> str:
  """The module with its mutable globals threaded through every public function (see the
  module's docstring); `only`: every other public function removed too."""
  ir = ops.bindings()
  with ir.Context():
    module = ir.Module.parse(text)
    state = _mutable(ir, module)
    touching = _touching(ir, module, {g.name for g in state})
    for function in _functions(module):
      if not _is_public(ir, function):
        continue
      if only is not None and _name(ir, function) != only:
        function.erase()
        continue
      _thread_one(ir, function, state, touching)
    _drop_unread(ir, module)
    if not module.operation.verify():
      raise StateError("the module with its globals threaded does not verify")
    return module.operation.get_asm(enable_debug_info=False)


def reader(text: str) -> str:
  """The module's globals and `@__reduce_state`, returning the mutable ones' values."""
  ir = ops.bindings()
  with ir.Context():
    module = ir.Module.parse(text)
    state = _mutable(ir, module)
    for function in _functions(module):
      function.erase()
    kept = "\n".join(op.operation.get_asm(enable_debug_info=False)
                     for op in module.body.operations
                     if op.operation.name == "ml_program.global")
  types = ", ".join(g.type for g in state)
  loads = "\n".join(f'    %{i} = ml_program.global_load @"{g.name}" : {g.type}'
                    for i, g in enumerate(state))
  values = ", ".join(f"%{i}" for i in range(len(state)))
  return (f"module {{\n{kept}\n  func.func @{READER}() -> ({types}) {{\n{loads}\n"
          f"    return {values} : {types}\n  }}\n}}\n")


def initialized(text: str, values: Dict[str, np.ndarray]) -> str:
  """The module with each named global's initial value replaced by `values[name]`."""
  ir = ops.bindings()
  with ir.Context(), ir.Location.unknown():
    module = ir.Module.parse(text)
    for op in module.body.operations:
      operation = op.operation
      if operation.name != "ml_program.global" or _name(ir, operation) not in values:
        continue
      kind = ir.TypeAttr(operation.attributes["type"]).value
      array = np.ascontiguousarray(values[_name(ir, operation)])
      operation.attributes["value"] = ir.DenseElementsAttr.get(array, type=kind)
    return module.operation.get_asm(enable_debug_info=False)


@dataclasses.dataclass(frozen=True)
class Start:
  """The state a call starts from as a trusted backend computes it (by global), or why not."""
  values: Optional[Dict[str, np.ndarray]]
  trusted: str = ""
  note: str = ""


def starting_state(text: str, calls: Sequence[Tuple[str, Sequence[np.ndarray],
                                                    Sequence[np.ndarray]]],
                   trusted: Sequence, runner, policy: tolerances.TolerancePolicy) -> Start:
  """The mutable globals' values after `calls` ((method, flat inputs, the reference's flat
  outputs), in order) on the first of `trusted` (op_level.Side) whose outputs agree with the
  reference's; `runner`: op_level.Runner."""
  state = mutable_globals(text)
  try:
    threaded = thread(text) if calls else ""
  except StateError as e:
    return Start(None, note=str(e))
  reasons = []
  for side in trusted:
    try:
      read, error = runner.run(runner.compile(reader(text), side), side, READER, [], len(state))
      vmfb = runner.compile(threaded, side) if calls else b""
    except compiler.CompileError as e:
      reasons.append(f"{side.spec.name} does not compile it ({e.reason})")
      continue
    if read is None:
      reasons.append(f"{side.spec.name}: {error}")
      continue
    names = (side.name, side.spec.name) + side.spec.aliases
    for index, (method, inputs, reference) in enumerate(calls):
      runner.tried += 1
      got, error = runner.run(vmfb, side, method, list(inputs) + read,
                              len(reference) + len(state))
      if got is None:
        reasons.append(f"{side.spec.name}: {error}")
        break
      wrong = comparison.compare(tuple(np.asarray(r) for r in reference),
                                 tuple(got[:len(reference)]), "outputs",
                                 lambda dtype: policy.for_dtype(dtype, names))
      if wrong:
        reasons.append(f"{side.spec.name} gets call {index} wrong too")
        break
      read = got[len(reference):]
    else:
      return Start({g.name: v for g, v in zip(state, read)}, side.spec.name)
  return Start(None, note="; ".join(reasons) or "no trusted backend is available")


def reduce_mismatch(text: str, function_name: str, failure, suspect, trusted: Sequence,
                    arguments: Sequence[np.ndarray], reference: Sequence[np.ndarray],
                    origin: str, work_dir: str, cache, policy: tolerances.TolerancePolicy,
                    limits, deadline: float):
  """The op level of one stateful call (`text`'s globals start where the call starts; `origin`
  says where that state came from): threaded, its globals inputs fed that state, and reduced
  as a stateless call; when that does not fail the same way, the program as it is, its globals
  kept (op_level.as_called). Returns an op_level.OpReduction."""
  from pyiree_tf_support.reducing import op_level
  runner = op_level.Runner(work_dir, cache, limits, deadline)
  start = starting_state(text, [], trusted, runner, policy)
  if start.values is None:
    return op_level.OpReduction(f"not at the op level: the globals' values could not be read "
                                f"({start.note})", tried=runner.tried)
  try:
    threaded = thread(text, only=function_name)
  except StateError as e:
    why = f"made stateless it changes ({e})"
  else:
    sides = [s for s in trusted if s.spec.name == start.trusted]
    result = op_level.reduce_mismatch(
        threaded, function_name, failure, suspect, sides,
        list(arguments) + list(start.values.values()), reference, work_dir, cache, policy,
        limits, deadline)
    if result.program:
      return dataclasses.replace(
          result, tried=result.tried + runner.tried,
          state=("made stateless: the globals it reads and writes are inputs and results, "
                 f"the inputs fed the state it starts from ({origin})"))
    if result.timed_out:
      return dataclasses.replace(result, tried=result.tried + runner.tried)
    why = ("made stateless (its globals inputs, fed the state it starts from) it does not fail "
           f"the same way ({result.note.replace('not at the op level: ', '')})")
  result = op_level.as_called(
      without_unread(text), function_name, failure, suspect, arguments, reference, work_dir,
      cache, policy, limits, deadline,
      f"the failure needs its globals: {why}; the program keeps them, their initial values the "
      f"state the call starts from ({origin})")
  return dataclasses.replace(result, tried=result.tried + runner.tried)
