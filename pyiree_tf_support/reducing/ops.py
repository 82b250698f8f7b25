"""One function of a StableHLO module as a list of ops, and candidates built from a subset of them.

The op level of a reduction works on structure, not text: which op uses which value, which
values come from outside a kept set of ops (they become the candidate's inputs), which results
it returns. IREE's MLIR Python bindings (`iree.compiler.ir`) parse the module; a candidate is
the same module with the function's body rebuilt from clones of the kept ops, every operand
from outside the set turned into an argument. Everything else in the module (globals, private
callees) stays; the compiler drops what nothing uses. No TensorFlow, no device.

Values are named by `Ref`s: `("arg", i)` for the function's argument i, `(j, k)` for result k
of op j (j counts the top-level ops of the function's body in program order).
"""

import dataclasses
from typing import Any, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union

Ref = Tuple[Union[Literal["arg"], int], int]
CONSTANT = "stablehlo.constant"


def is_value(type_text: str) -> bool:
  """Whether a value of this type can be a function's input or result: a tensor of numbers
  (index tensors may not cross a dispatch boundary, so a function cannot take or return them)."""
  return type_text.startswith("tensor<") and not type_text.endswith("index>")


class OpsError(ValueError):
  """The function cannot be reduced at the op level; the message says why in one line."""


@dataclasses.dataclass(frozen=True)
class Op:
  """One top-level op: its name, the values it uses (those captured by its regions too), its
  result types, and its line in the module's text (its loc())."""
  name: str
  operands: Tuple[Ref, ...]
  results: Tuple[str, ...]
  line: int
  regions: int = 0


@dataclasses.dataclass(frozen=True)
class Function:
  """The function's argument types, its ops in program order and the values it returns."""
  name: str
  arguments: Tuple[str, ...]
  ops: Tuple[Op, ...]
  returns: Tuple[Ref, ...]

  def type_of(self, ref: Ref) -> str:
    if ref[0] == "arg":
      return self.arguments[ref[1]]
    return self.ops[ref[0]].results[ref[1]]

  def slice_of(self, outputs: Sequence[Ref], within: Optional[Sequence[int]] = None
               ) -> List[int]:
    """The ops (of `within`, default all) that `outputs` need, in program order."""
    allowed = set(range(len(self.ops)) if within is None else within)
    needed, pending = set(), [r[0] for r in outputs if r[0] != "arg"]
    while pending:
      index = pending.pop()
      if index in needed or index not in allowed:
        continue
      needed.add(index)
      pending.extend(r[0] for r in self.ops[index].operands if r[0] != "arg")
    return sorted(needed)

  def results_of(self, index: int) -> Tuple[Ref, ...]:
    return tuple((index, k) for k in range(len(self.ops[index].results)))

  def leaves(self, kept: Sequence[int]) -> Tuple[Ref, ...]:
    """The results of `kept` that no op of `kept` uses (what a compile-only candidate returns,
    so that nothing kept is dead)."""
    used = {r for index in kept for r in self.ops[index].operands}
    return tuple(r for index in kept for r in self.results_of(index) if r not in used)


def bindings():
  """IREE's MLIR Python bindings (`iree.compiler.ir`), imported when first needed."""
  from iree.compiler import ir
  return ir


def walk(operation, found: List) -> List:
  """`found` extended by every operation nested in `operation`'s regions, in text order."""
  for region in operation.regions:
    for block in region.blocks:
      for op in block.operations:
        found.append(op.operation)
        walk(op.operation, found)
  return found


def _find(module, name: str):
  ir = bindings()
  for op in module.body.operations:
    if op.operation.name == "func.func" and \
        ir.StringAttr(op.operation.attributes["sym_name"]).value == name:
      return op.operation
  raise OpsError(f"the module has no function @{name}")


def _line(operation) -> int:
  text = str(operation.location)
  parts = text.split(":")
  try:
    return int(parts[1]) if len(parts) >= 3 else 0
  except ValueError:
    return 0


def _inline_assumings(block) -> None:
  """Moves the body of each top-level `shape.assuming` of an always-true witness (what the
  import's dynamic-broadcast rewrite wraps a function's body in) into the function itself:
  the ops inside become top-level ops a reduction can take apart."""
  for op in list(block.operations):
    operation = op.operation
    if operation.name != "shape.assuming" or len(operation.operands) != 1:
      continue
    witness = operation.operands[0].owner
    if getattr(witness, "name", None) != "shape.const_witness" or \
        str(witness.attributes["passing"]) != "true":
      continue
    inner = list(operation.regions[0].blocks[0].operations)
    for nested in inner[:-1]:
      nested.operation.move_before(operation)
    for result, value in zip(operation.results, inner[-1].operation.operands):
      result.replace_all_uses_with(value)
    operation.erase()
  for op in list(block.operations):
    if op.operation.name == "shape.const_witness" and \
        all(False for _ in op.operation.results[0].uses):
      op.operation.erase()


def _refs(function_op) -> Tuple[Any, Dict[object, Ref]]:
  """The function's entry block (shape.assuming bodies inlined) and every value of its top
  level, by Ref."""
  regions = list(function_op.regions)
  if not regions or len(list(regions[0].blocks)) != 1:
    raise OpsError("the function's body is not one block")
  block = regions[0].blocks[0]
  _inline_assumings(block)
  refs: Dict[object, Ref] = {v: ("arg", i) for i, v in enumerate(block.arguments)}
  for index, op in enumerate(list(block.operations)[:-1]):
    for k, value in enumerate(op.operation.results):
      refs[value] = (index, k)
  return block, refs


def _uses(operation, refs: Mapping[object, Ref]) -> Tuple[Ref, ...]:
  found = [refs[v] for v in operation.operands if v in refs]
  for nested in walk(operation, []):
    found += [refs[v] for v in nested.operands if v in refs]
  return tuple(dict.fromkeys(found))


def parse(text: str, name: str) -> Function:
  """The function `name` of the module `text`, as ops (OpsError when it is not one block)."""
  ir = bindings()
  with ir.Context():
    module = ir.Module.parse(text)
    block, refs = _refs(_find(module, name))
    operations = [op.operation for op in block.operations]
    if not operations or operations[-1].name != "func.return":
      raise OpsError("the function's body does not end in a return")
    ops = tuple(Op(op.name, _uses(op, refs), tuple(str(r.type) for r in op.results), _line(op),
                   len(op.regions)) for op in operations[:-1])
    returns = tuple(refs[v] for v in operations[-1].operands)
    return Function(name, tuple(str(a.type) for a in block.arguments), ops, returns)


def inputs_of(function: Function, kept: Sequence[int], outputs: Sequence[Ref]
              ) -> Tuple[Ref, ...]:
  """The values a candidate keeping `kept` and returning `outputs` takes as arguments, in the
  order of their first use: function arguments and the results of ops not kept."""
  inside = set(kept)
  used: List[Ref] = []
  for index in sorted(kept):
    used += function.ops[index].operands
  used += list(outputs)
  return tuple(dict.fromkeys(r for r in used if r[0] == "arg" or r[0] not in inside))


def _splat_attribute(ir, result_type: str, value):
  tensor = ir.RankedTensorType(ir.Type.parse(result_type))
  element = tensor.element_type
  if isinstance(element, ir.IntegerType):
    scalar = ir.IntegerAttr.get(element, int(value))
  elif isinstance(element, ir.FloatType):
    scalar = ir.FloatAttr.get(element, float(value))
  else:
    raise OpsError(f"no splat of {result_type}")
  return ir.DenseElementsAttr.get_splat(tensor, scalar)


def _symbols(ir, operation) -> List[str]:
  """The symbols an op and the ops inside it refer to (a global it loads, a callee)."""
  found = []
  for op in [operation] + walk(operation, []):
    for key in op.attributes:
      attribute = op.attributes[key] if isinstance(key, str) else key.attr
      if isinstance(attribute, ir.FlatSymbolRefAttr):
        found.append(attribute.value)
  return found


def _drop_unused(ir, module, name: str) -> None:
  """Removes the private globals and functions nothing the function `name` reaches refers to:
  a cut program should not carry a model's weights it no longer reads."""
  by_name = {}
  for op in module.body.operations:
    if "sym_name" in op.operation.attributes:
      by_name[ir.StringAttr(op.operation.attributes["sym_name"]).value] = op.operation
  reached, pending = set(), [name]
  while pending:
    symbol = pending.pop()
    if symbol in reached or symbol not in by_name:
      continue
    reached.add(symbol)
    pending.extend(_symbols(ir, by_name[symbol]))
  for symbol, op in by_name.items():
    visibility = op.attributes["sym_visibility"] if "sym_visibility" in op.attributes else None
    if symbol not in reached and visibility is not None and \
        ir.StringAttr(visibility).value == "private":
      op.erase()


Shape = Tuple[int, ...]


def shape_of(type_text: str) -> Optional[Shape]:
  """The static shape of a tensor type's text, None when it is not one (`?` dims, no tensor)."""
  if not type_text.startswith("tensor<"):
    return None
  dims = type_text[len("tensor<"):].split("x")[:-1]
  return tuple(int(d) for d in dims) if all(d.isdigit() for d in dims) else None


def _retype(ir, type_text: str, reshape: Optional[Tuple[Shape, Shape]]):
  """The type, its shape replaced when it is `reshape`'s first."""
  parsed = ir.Type.parse(type_text)
  if reshape and shape_of(type_text) == reshape[0]:
    return ir.RankedTensorType.get(list(reshape[1]), ir.RankedTensorType(parsed).element_type)
  return parsed


def _recreated(ir, operation, types, operands, splat=None):
  """`operation` made anew with other result types (an op of one shape given another); a
  constant keeps its splat value, or takes `splat`."""
  attributes = {}
  for key in operation.attributes:
    named = operation.attributes[key] if isinstance(key, str) else key.attr
    attributes[key if isinstance(key, str) else key.name] = named
  if operation.name == CONSTANT and splat is not None:
    attributes["value"] = _splat_attribute(ir, str(types[0]), splat)
  elif operation.name == CONSTANT:
    value = ir.DenseElementsAttr(attributes["value"])
    if not value.is_splat:
      raise OpsError("a constant that is not a splat keeps its shape")
    attributes["value"] = ir.DenseElementsAttr.get_splat(types[0], value.get_splat_value())
  return ir.Operation.create(operation.name, results=types, operands=operands,
                             attributes=attributes)


def build(text: str, function: Function, kept: Sequence[int], outputs: Sequence[Ref],
          splats: Optional[Mapping[int, object]] = None,
          reshape: Optional[Tuple[Shape, Shape]] = None) -> Tuple[str, Tuple[Ref, ...]]:
  """(the module text with `function`'s body made of the ops `kept` returning `outputs`, the
  Refs its arguments stand for). `splats`: constant ops (by index) whose value becomes a splat
  of the given scalar. `reshape` (old shape, new shape): every value of the old shape takes
  the new one, the ops made anew (only ops without regions). The function keeps its name;
  every other op of the module stays."""
  ir = bindings()
  kept = sorted(set(kept))
  inputs = inputs_of(function, kept, outputs)
  for ref in inputs:
    if not is_value(function.type_of(ref)):
      raise OpsError(f"an input would be of type {function.type_of(ref)}, not a tensor of "
                     "numbers")
  with ir.Context(), ir.Location.unknown():
    module = ir.Module.parse(text)
    original = _find(module, function.name)
    block, refs = _refs(original)
    by_ref = {ref: value for value, ref in refs.items()}
    operations = [op.operation for op in block.operations]
    argument_types = [_retype(ir, function.type_of(r), reshape) for r in inputs]
    result_types = [_retype(ir, function.type_of(r), reshape) for r in outputs]
    function_type = ir.FunctionType.get(argument_types, result_types)
    attributes = {"sym_name": ir.StringAttr.get(function.name),
                  "function_type": ir.TypeAttr.get(function_type)}
    with ir.InsertionPoint(original):
      rebuilt = ir.Operation.create("func.func", regions=1, attributes=attributes)
    body = rebuilt.regions[0].blocks.append(*argument_types)
    mapping = {by_ref[r]: body.arguments[i] for i, r in enumerate(inputs)}
    with ir.InsertionPoint(body):
      for index in kept:
        types = [_retype(ir, t, reshape) for t in function.ops[index].results]
        if reshape and function.ops[index].regions:
          raise OpsError("an op with regions keeps its shape")
        if reshape:
          clone = _recreated(ir, operations[index], types,
                             [mapping.get(v, v) for v in operations[index].operands],
                             (splats or {}).get(index))
        else:
          clone = operations[index].clone()
        for nested in [clone] + walk(clone, []):
          for position, value in enumerate(list(nested.operands)):
            if value in mapping:
              nested.operands[position] = mapping[value]
        if splats and index in splats:
          clone.attributes["value"] = _splat_attribute(ir, str(types[0]), splats[index])
        for k, value in enumerate(operations[index].results):
          mapping[value] = clone.results[k]
      ir.Operation.create("func.return", operands=[mapping[by_ref[r]] for r in outputs])
    original.erase()
    _drop_unused(ir, module, function.name)
    try:
      verified = module.operation.verify()
    except ir.MLIRError as e:
      raise OpsError(f"the candidate does not verify: {e}") from None
    if not verified:
      raise OpsError("the candidate does not verify")
    return module.operation.get_asm(enable_debug_info=False), inputs
