"""An oracle outside IREE: a trace's calls on the StableHLO reference interpreter.

When every IREE backend gets a call wrong alike (a bug in IREE's target-independent pipeline),
no backend can be diffed against; the interpreter, which shares none of IREE's code, can
(docs/localizing.md, "Oracle"). `run` evaluates calls 0..K of the module (rewritten by
oracle_module: globals threaded as state, `dot` as `dot_general`, a probe at every value) in a
child process (oracle_run: the interpreter aborts its process on an unsupported op), and reads
back each call's results, globals and probed values. `judge` (below) maps each traced dispatch
output to the probe of the StableHLO op it computes and names the first that disagrees.
"""

import dataclasses
import json
import os
import subprocess
import sys
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing import oracle_module
from pyiree_tf_support.localizing import oracle_run
from pyiree_tf_support.localizing import oracle_sites
from pyiree_tf_support.localizing import tensors
from pyiree_tf_support.runtime import worker_client

NAME = "oracle"  # what --trusted_backend names it by.


class OracleError(Exception):
  """The oracle could not run (jaxlib missing or failing to import, an op it does not support);
  one line."""


@dataclasses.dataclass(frozen=True)
class Call:
  """One call on the oracle: its flat results, the globals after it (in the module's order) and
  each probe's values, one per execution, in the order they ran."""
  results: Tuple[np.ndarray, ...]
  state: Tuple[np.ndarray, ...]
  probes: Dict[str, Tuple[np.ndarray, ...]]


@dataclasses.dataclass(frozen=True)
class OracleRun:
  """The oracle's calls 0..K, the rewritten module (its globals and probes), its error."""
  calls: Tuple[Call, ...]
  module: oracle_module.OracleModule
  error: Optional[str]


def run(source: str, calls: Sequence[dict], inputs: Dict[str, np.ndarray], run_dir: str,
        limit: Optional[float] = None) -> OracleRun:
  """Evaluates `calls` (function name and flat input count, inputs as c<call>_<input>) of the
  module `source` (iree_input.mlir's text) in a child process; OracleError says why not."""
  try:
    module = oracle_module.rewrite(source)
  except oracle_module.OracleUnsupported as e:
    raise OracleError(f"the oracle cannot evaluate this module: {e}") from None
  for call in calls:
    if call["function"] in module.refused:
      raise OracleError(f"the oracle cannot evaluate {call['function']}: "
                        f"{module.refused[call['function']]}")
  safe_files.make_dirs(run_dir)
  request_calls = []
  for call in calls:
    name = call["function"]
    path = os.path.join(run_dir, f"oracle_{name}.mlir")
    if not os.path.exists(path):
      safe_files.write_text(path, module.functions[name])
    request_calls.append({"module": path, "inputs": call["inputs"],
                          "results": module.results[name]})
  initial = None
  if module.initial:
    initial = os.path.join(run_dir, "oracle_initial.mlir")
    safe_files.write_text(initial, module.initial)
  # The names are c<call>_<input>, never savez's own allow_pickle keyword.
  safe_files.write_with(os.path.join(run_dir, oracle_run.INPUTS),
                       lambda f: np.savez(f, **inputs))  # pyright: ignore[reportArgumentType]
  safe_files.write_text(os.path.join(run_dir, oracle_run.REQUEST),
                       json.dumps({"calls": request_calls, "initial": initial}))
  try:
    completed = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localizing.oracle_run", run_dir],
        env=oracle_run.child_env(worker_client.worker_env()), capture_output=True, timeout=limit,
        check=False)
  except subprocess.TimeoutExpired:
    raise OracleError(f"the oracle did not finish in {limit:g} s (the reference interpreter "
                      "is written for clarity, not speed)") from None
  lines = completed.stderr.decode("utf-8", "replace").strip().splitlines()
  if completed.returncode == oracle_run.MISSING:
    raise OracleError(oracle_run.MISSING_MESSAGE)
  if completed.returncode == oracle_run.BROKEN and lines:
    raise OracleError(lines[-1])
  result_path = os.path.join(run_dir, oracle_run.RESULT)
  if completed.returncode != 0 or not os.path.exists(result_path):
    aborted = next((line for line in lines if line.startswith("LLVM ERROR")), None)
    raise OracleError("the reference interpreter " + (
        f"aborted: {aborted}" if aborted else
        f"failed (exit status {completed.returncode}): {lines[-1] if lines else 'no message'}"))
  with open(result_path) as f:
    document = json.load(f)
  error = document["error"]
  if error and lines:  # the interpreter's own reason is on stderr, its exception says little.
    error += ": " + next((line for line in lines if "error:" in line), lines[-1])
  return OracleRun(tuple(_call(entry) for entry in document["calls"]), module, error)


def _branch_taken(selector: np.ndarray, count: int) -> int:
  """The branch an `if` (an i1 predicate: 0 when true) or a `case` (an index: out of range
  is the last) took."""
  if selector.dtype == np.bool_:
    return 0 if bool(selector) else 1
  index = int(selector)
  return index if 0 <= index < count else count - 1


def _call(entry: dict) -> Call:
  raw: Dict[str, List[np.ndarray]] = {}
  for name, path in entry["probes"]:
    raw.setdefault(name, []).append(tensors.load(path))
  probes: Dict[str, List[np.ndarray]] = {}
  for name, values in raw.items():
    if "@" not in name:
      probes.setdefault(name, []).extend(values)
  for name, values in raw.items():  # a branch's values, lifted out of it (oracle_module)
    if "@" in name:
      value, where = name.split("@")
      branch_op, branch = where.split("B", 1)
      taken, count = (int(n) for n in branch.split("of"))
      chosen = [_branch_taken(b, count) for b in raw.get(branch_op + "BR", ())]
      probes.setdefault(value, []).extend(
          v for v, c in zip(values, chosen) if c == taken)
  return Call(tuple(tensors.load(p) for p in entry["results"]),
              tuple(tensors.load(p) for p in entry["state"]),
              {name: tuple(values) for name, values in probes.items()})


@dataclasses.dataclass(frozen=True)
class Judged:
  """The dispatches judged against the oracle: the finding (rows up to the divergence), and
  each traced tensor that had no counterpart, said (never counted as agreeing)."""
  finding: events.Finding
  unmatched: Tuple[str, ...]


def _site(candidates: Sequence[oracle_sites.Site],
          occurrence: int) -> Optional[oracle_sites.Site]:
  """The trace op an event came from: the only one with its key, or the occurrence-th of
  several in straight-line code (in a loop or branch the order is not known: None)."""
  if len(candidates) == 1:
    return candidates[0]
  if candidates and not any(c.in_region for c in candidates) and occurrence < len(candidates):
    return candidates[occurrence]
  return None


class _Matcher:
  """Pairs each traced tensor with the oracle's value of the StableHLO op it computes."""

  def __init__(self, result: OracleRun, sites, functions: Sequence[str]):
    self.result = result
    self.sites = sites
    self.functions = functions
    self.produced: Dict[Tuple[int, str], int] = {}
    self.unmatched: List[str] = []
    self.sources: Dict[int, oracle_sites.Source] = {}  # of the last event's compared tensors

  def _missing(self, event: events.Event, position: int, why: str) -> None:
    self.unmatched.append(f"call {event.call} {event.key} {event.kind}[{position}]: {why}")

  def values(self, event: events.Event) -> List[Tuple[int, np.ndarray, np.ndarray, str]]:
    """(position, traced, oracle's, source) of the event's tensors that have a counterpart."""
    self.sources = {}
    if event.call < 0:
      self._missing(event, 0, "an initializer's dispatch (at load: the oracle has none)")
      return []
    function = self.functions[event.call]
    site = _site(self.sites.get((function, event.key, event.kind), []), event.occurrence)
    if site is None:
      self._missing(event, 0, "its trace op is not known (several with this key inside "
                    "control flow)")
      return []
    probes = self.result.calls[event.call].probes
    out = []
    for position, array in enumerate(event.arrays):
      if position >= len(site.sources):
        self._missing(event, position, "not in the flow IR's trace op")
        continue
      source = site.sources[position]
      if source.kind == "argument":
        continue  # the call's own input: the same on both sides.
      if source.probe is None or source.probe not in probes:
        self._missing(event, position, f"{source.describe()} has no oracle value (a value "
                      "the interpreter cannot probe: inside nested branches, no location)")
        continue
      executions = probes[source.probe]
      if not executions:
        self._missing(event, position, f"{source.describe()} never ran in the oracle's call "
                      f"{event.call} (a branch it did not take)")
        continue
      slot = (event.call, source.probe)
      if event.kind == "outputs":
        index = self.produced.get(slot, 0)
        self.produced[slot] = index + 1
      elif source.kind == "dispatch output":
        index = max(0, self.produced.get(slot, 1) - 1)
      else:
        index = min(event.occurrence, len(executions) - 1)
      if index >= len(executions):
        self._missing(event, position, f"{source.describe()} ran {len(executions)} times in "
                      "the oracle, fewer than traced")
        continue
      value = executions[index]
      if events.is_digest(array):
        self._missing(event, position, "kept as a digest only (over the memory budget)")
        continue
      if value.size != array.size or value.dtype != array.dtype:
        self._missing(event, position, f"{source.describe()} is {value.dtype}"
                      f"{list(value.shape)} in the oracle, {array.dtype}{list(array.shape)} "
                      "traced (a fused or rematerialized value)")
        continue
      said = source.describe()
      if value.shape != array.shape:  # IREE collapsed it (a reshape: the same row-major order)
        said += (f", compared as {list(array.shape)} (it is {list(value.shape)} in the "
                 "oracle)")
        value = value.reshape(array.shape)
      self.sources[position] = source
      out.append((position, np.asarray(array), value, said))
    return out


def _worst(pairs, policy, names) -> Tuple[float, Optional[int], events.TensorError]:
  worst: Tuple[float, Optional[int], events.TensorError] = (0.0, None, events.TensorError(0.0))
  for position, traced, expected, source in pairs:
    error = events.tensor_error(traced, expected, policy, names)
    if error.error > worst[0]:
      worst = (error.error, position, dataclasses.replace(
          error, note=f"{error.describe()}; from {source}"))
  return worst


def _unpaired_writer(source: Optional[oracle_sites.Source], event: events.Event,
                     unpaired: Dict[Tuple[int, str], events.DispatchRow]
                     ) -> Optional[events.DispatchRow]:
  """The last run of the dispatch that wrote a diverging input, when its outputs had no
  counterpart (then nothing was compared there and the divergence is first seen here), or
  None. A reshape or bitcast between them moves no values: it is never the one to blame."""
  if source is None or not source.dispatch:
    return None
  return unpaired.get((event.call, source.dispatch))


def judge(suspect_events: Sequence[events.Event], result: OracleRun,
          sites: Dict[Tuple[str, str, str], List[oracle_sites.Site]],
          functions: Sequence[str], policy: tolerances.TolerancePolicy,
          names: Sequence[str], floor: float = 1.0) -> Judged:
  """The suspect's traced dispatches against the oracle, by events.compare's rules: a dispatch
  whose outputs are over `floor` and AMPLIFICATION x its inputs' error is to blame; inputs
  over it and AMPLIFICATION x every earlier output's error were changed outside any dispatch,
  unless a dispatch whose output had no counterpart wrote them (that dispatch is named, seen
  at the inputs of the next). `functions`: each call's function."""
  floor = max(1.0, floor)
  matcher = _Matcher(result, sites, functions)
  rows: List[events.DispatchRow] = []
  pending: Dict[Tuple[int, str, int], float] = {}
  earlier = 0.0
  drift = None
  unpaired: Dict[Tuple[int, str], events.DispatchRow] = {}  # last run had an output unpaired
  for event in suspect_events:
    if event.call >= len(result.calls):
      break
    missing = len(matcher.unmatched)
    pairs = matcher.values(event)
    error, position, worst = _worst(pairs, policy, names)
    slot = (event.call, event.key, event.occurrence)
    if event.kind == "inputs":
      pending[slot] = error
      if error > floor and error > events.AMPLIFICATION * earlier:
        row = events.DispatchRow(event.call, event.key, event.occurrence, error, float("nan"),
                                 worst, position)
        rows.append(row)
        source = None if position is None else matcher.sources.get(position)
        writer = _unpaired_writer(source, event, unpaired)
        if writer is not None:
          culprit = dataclasses.replace(writer, output_error=error, worst=dataclasses.replace(
              worst, note=f"{worst.describe()}; its output had no counterpart; seen at the "
              f"inputs of {event.key}"), tensor=None)
          return Judged(events.Finding(events.Kind.DISPATCH, tuple(rows), culprit),
                        tuple(matcher.unmatched))
        return Judged(events.Finding(events.Kind.OUTSIDE, tuple(rows), row),
                      tuple(matcher.unmatched))
      continue
    inputs = pending.pop(slot, 0.0)
    row = events.DispatchRow(event.call, event.key, event.occurrence, inputs, error, worst,
                             position)
    rows.append(row)
    if len(matcher.unmatched) > missing:
      unpaired[(event.call, event.key)] = row
    else:
      unpaired.pop((event.call, event.key), None)
    if error > floor and error > events.AMPLIFICATION * inputs:
      return Judged(events.Finding(events.Kind.DISPATCH, tuple(rows), row),
                    tuple(matcher.unmatched))
    if error > floor and drift is None:
      drift = row
    earlier = max(earlier, error)
  kind = events.Kind.DRIFT if drift is not None else events.Kind.NONE
  return Judged(events.Finding(kind, tuple(rows), drift), tuple(matcher.unmatched))


def results_outside(suspect_outputs: Sequence[Sequence[np.ndarray]], result: OracleRun,
                    sources: Dict[str, Tuple[oracle_sites.Source, ...]],
                    functions: Sequence[str], policy: tolerances.TolerancePolicy,
                    names: Sequence[str], worst_output: float,
                    floor: float = 1.0, only: Optional[int] = None) -> Optional[str]:
  """Why a call's results (`only`: call `only`'s) differ from the oracle's though no traced
  dispatch output did (what the result comes from: a global load, a copy), or None."""
  for index, (outputs, call) in enumerate(zip(suspect_outputs, result.calls)):
    if only is not None and index != only:
      continue
    for position, (got, expected) in enumerate(zip(outputs, call.results)):
      error = events.tensor_error(np.asarray(got), expected, policy, names)
      if error.error > max(1.0, floor) and error.error > events.AMPLIFICATION * worst_output:
        made = sources.get(functions[index], ())
        where = (made[position].describe() if position < len(made)
                 else "a step the flow IR does not show")
        return (f"call {index}'s result {position} differs from the oracle's "
                f"({error.describe()}) though no traced dispatch output did (worst "
                f"{worst_output:.3g}x tolerance): it is {where}, outside any dispatch")
  return None


def _stored_where(result: OracleRun, function: str, name: str) -> str:
  """Where `function` stores the global `name` (iree_input.mlir locations), said."""
  found = [oracle_module.line_column(where) for where in
           result.module.stores.get(function, {}).get(name, ())]
  places = [f"iree_input.mlir:{line}:{column}" for line, column in filter(None, found)]
  if not places:
    return f"{function} does not store it: it changed without a store"
  return f"stored at {', '.join(places)} ({function})"


def state_outside(suspect_states: Sequence[Dict[str, np.ndarray]], result: OracleRun,
                  functions: Sequence[str], policy: tolerances.TolerancePolicy,
                  names: Sequence[str], worst_output: float, floor: float,
                  call: int) -> Optional[str]:
  """Why call `call`'s state (the globals the suspect holds after it, read back through its
  `global$<name>$get` exports) differs from the oracle's though no traced dispatch output did
  (the global and where the call stores it), or None. A global the suspect exports no getter
  for (an immutable one, made private at import) is not compared."""
  if call >= len(suspect_states) or call >= len(result.calls):
    return None
  held = suspect_states[call]
  for position, wanted in enumerate(result.module.globals):
    if wanted.name not in held or position >= len(result.calls[call].state):
      continue
    error = events.tensor_error(np.asarray(held[wanted.name]),
                                result.calls[call].state[position], policy, names)
    if error.error > max(1.0, floor) and error.error > events.AMPLIFICATION * worst_output:
      return (f"call {call}'s state differs from the oracle's: @{wanted.name} "
              f"({error.describe()}) though no traced dispatch output did (worst "
              f"{worst_output:.3g}x tolerance): "
              f"{_stored_where(result, functions[call], wanted.name)}, outside any dispatch")
  return None


def outside(suspect_outputs: Sequence[Sequence[np.ndarray]],
            suspect_states: Sequence[Dict[str, np.ndarray]], result: OracleRun,
            sources: Dict[str, Tuple[oracle_sites.Source, ...]], functions: Sequence[str],
            policy: tolerances.TolerancePolicy, names: Sequence[str], worst_output: float,
            floor: float = 1.0, before: Optional[int] = None) -> Optional[str]:
  """The first call, in order, whose results (results_outside) or, after them, whose state
  (state_outside) differ from the oracle's though no traced dispatch output did, or None.
  `before`: only calls before it, and only their state (a dispatch of that call is to blame:
  a state that went wrong earlier is the earlier divergence)."""
  last = len(result.calls) if before is None else min(before, len(result.calls))
  for index in range(last):
    if before is None:
      found = results_outside(suspect_outputs, result, sources, functions, policy, names,
                              worst_output, floor, index)
      if found is not None:
        return found
    found = state_outside(suspect_states, result, functions, policy, names, worst_output,
                          floor, index)
    if found is not None:
      return found
  return None
