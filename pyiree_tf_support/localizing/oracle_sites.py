"""Where each traced tensor of the flow IR comes from, as a StableHLO value the oracle probes.

A trace op before a dispatch names its inputs, one after it its outputs (formation). Each
tensor is traced back in the flow IR to what made it: a dispatch's output is the value its
executable stores into that result's binding, whose op's loc() is the iree_input.mlir line
and column of the StableHLO op it was formed from (the dispatch root for its main result); a
global load's loc() is the `ml_program.global_load` it came from; a function argument is the
call's input. Those locations are the probe names oracle_module gave the same ops, so a
traced tensor pairs with the oracle's value by location, checked by shape and dtype. What
cannot be paired (a block argument of a loop, an op with no location) says so.

A flow.tensor.reshape or flow.tensor.bitcast moves no values: IREE wraps a dispatch it
collapsed to one dimension in them (an elementwise chain over [64, 64] writes a [4096] value),
and gives them the consumer's location, not the producer's. A tensor made by one is traced on
to its operand, and its Source keeps the dispatch that wrote it (`dispatch`) and the op it went
through (`through`), so the oracle compares the producer's value and never blames the op.
"""

import dataclasses
from typing import Dict, List, Optional, Tuple

from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing import oracle_module


@dataclasses.dataclass(frozen=True)
class Source:
  """What made one traced tensor: `kind` is "dispatch", "global load", "argument", "op" or
  "unknown"; `probe` the oracle's probe id for it (None when there is none); `where` a
  location to print (iree_input.mlir:<line>:<column>)."""
  kind: str
  probe: Optional[str]
  where: str
  dispatch: str = ""  # the dispatch key that wrote it, for a dispatch output.
  through: str = ""  # the metadata-only op (reshape, bitcast) between it and its use.

  def describe(self) -> str:
    said = f"the {self.kind} at {self.where}" if self.where else f"a {self.kind}"
    return f"{said} (through a {self.through})" if self.through else said


# Ops that change a tensor's shape or element type but move no values.
METADATA_ONLY = ("flow.tensor.reshape", "flow.tensor.bitcast")


@dataclasses.dataclass(frozen=True)
class Site:
  """One trace op: its function, dispatch key, inputs/outputs, its tensors' sources, and
  whether it sits inside a loop or branch (executed any number of times per call)."""
  function: str
  key: str
  kind: str
  sources: Tuple[Source, ...]
  in_region: bool


def _where(location: str) -> str:
  found = oracle_module.line_column(location)
  return f"iree_input.mlir:{found[0]}:{found[1]}" if found else ""


def _stored(module, ir) -> Dict[str, List[Tuple[str, int]]]:
  """For each `exec::export`, the (location, result number) of the value each output binding
  is stored from, by binding index."""
  out: Dict[str, List[Tuple[str, int]]] = {}
  for op in module.body.operations:
    op = op.operation
    if op.name != "flow.executable":
      continue
    executable = ir.StringAttr(op.attributes["sym_name"]).value
    for inner in op.regions[0].blocks[0].operations:
      inner = inner.operation
      if inner.name != "builtin.module":
        continue
      for function in inner.regions[0].blocks[0].operations:
        function = function.operation
        if function.name != "func.func":
          continue
        name = ir.StringAttr(function.attributes["sym_name"]).value
        bindings: Dict[int, Tuple[str, int]] = {}
        for store in oracle_module.walk(function):
          if store.name != "iree_tensor_ext.dispatch.tensor.store":
            continue
          target = store.operands[1]
          if not isinstance(target.owner, ir.Block):
            continue
          value = store.operands[0]
          number = 0 if isinstance(value.owner, ir.Block) else ir.OpResult(value).result_number
          where = "" if isinstance(value.owner, ir.Block) else str(value.owner.location)
          bindings[ir.BlockArgument(target).arg_number] = (where, number)
        count = len(function.regions[0].blocks[0].arguments)
        out[f"{executable}::{name}"] = [bindings.get(i, ("", 0)) for i in range(count)]
  return out


def _source(value, ir, stored) -> Source:
  owner = value.owner
  if isinstance(owner, ir.Block):
    return Source("loop or branch argument", None, "")
  op = owner.operation
  location = str(op.location)
  if op.name == "hal.tensor.import":
    return Source("argument", None, "")
  if op.name in METADATA_ONLY and op.operands:
    made = _source(op.operands[0], ir, stored)
    return made if made.kind == "argument" else dataclasses.replace(made, through=op.name)
  if op.name == "util.global.load":
    name = ir.FlatSymbolRefAttr(op.attributes["global"]).value
    return Source("global load", oracle_module.probe_id(location, 0),
                  f"{_where(location)} (of @{name})")
  if op.name == "flow.dispatch":
    entry = str(ir.ArrayAttr(op.attributes["entry_points"])[0])
    key = entry.lstrip("@").replace("::@", "::")
    number = ir.OpResult(value).result_number
    bindings = stored.get(key, [])
    results = len(op.results)
    tied = [int(str(a).split(" ")[0]) for a in ir.ArrayAttr(op.attributes["tied_operands"])] \
        if "tied_operands" in op.attributes else []
    binding = (tied[number] if number < len(tied) and tied[number] >= 0
               else len(bindings) - results + number)
    where, result = bindings[binding] if 0 <= binding < len(bindings) else ("", 0)
    probe = oracle_module.probe_id(where, result) if where else None
    return Source("dispatch output", probe, _where(where or location), key)
  return Source(op.name, oracle_module.probe_id(location, ir.OpResult(value).result_number),
                _where(location))


def sites(flow_bytecode_path: str) -> Tuple[Dict[Tuple[str, str, str], List[Site]],
                                            Dict[str, Tuple[Source, ...]]]:
  """The flow IR's trace ops by (function, key, kind), in program text order, and each public
  function's results' sources."""
  from iree.compiler import ir
  by_key: Dict[Tuple[str, str, str], List[Site]] = {}
  results: Dict[str, Tuple[Source, ...]] = {}
  with ir.Context():
    with open(flow_bytecode_path, "rb") as f:
      module = ir.Module.parse(f.read())
    stored = _stored(module, ir)
    for op in module.body.operations:
      op = op.operation
      if op.name != "util.func" or not op.regions[0].blocks:
        continue
      function = ir.StringAttr(op.attributes["sym_name"]).value
      _function_sites(op, function, ir, stored, by_key, results)
  return by_key, results


def _function_sites(op, function: str, ir, stored, by_key, results) -> None:
  top = {inner.operation for inner in op.regions[0].blocks[0].operations}
  for inner in oracle_module.walk(op):
    if inner.name == "flow.tensor.trace":
      key, kind = events.parse_key(ir.StringAttr(inner.attributes["key"]).value)
      tensors = [v for v in inner.operands if isinstance(v.type, ir.RankedTensorType)]
      by_key.setdefault((function, key, kind), []).append(Site(
          function, key, kind, tuple(_source(v, ir, stored) for v in tensors),
          inner not in top))
    elif inner.name == "util.return" and inner in top:
      sources = []
      for value in inner.operands:
        owner = value.owner
        if not isinstance(owner, ir.Block) and owner.operation.name == "hal.tensor.export":
          value = owner.operation.operands[0]
        sources.append(_source(value, ir, stored))
      results[function] = tuple(sources)
