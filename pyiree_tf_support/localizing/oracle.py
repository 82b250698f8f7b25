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

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.localizing import oracle_module
from pyiree_tf_support.localizing import oracle_run

NAME = "oracle"  # what --trusted_backend names it by.


class OracleError(Exception):
  """The oracle could not run (jaxlib missing, an op it does not support); one line."""


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
  artifacts.make_dirs(run_dir)
  request_calls = []
  for call in calls:
    name = call["function"]
    path = os.path.join(run_dir, f"oracle_{name}.mlir")
    if not os.path.exists(path):
      artifacts.write_text(path, module.functions[name])
    request_calls.append({"module": path, "inputs": call["inputs"],
                          "results": module.results[name]})
  initial = None
  if module.initial:
    initial = os.path.join(run_dir, "oracle_initial.mlir")
    artifacts.write_text(initial, module.initial)
  artifacts.write_with(os.path.join(run_dir, oracle_run.INPUTS),
                       lambda f: np.savez(f, **inputs))
  artifacts.write_text(os.path.join(run_dir, oracle_run.REQUEST),
                       json.dumps({"calls": request_calls, "initial": initial}))
  try:
    completed = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localizing.oracle_run", run_dir],
        capture_output=True, timeout=limit, check=False)
  except subprocess.TimeoutExpired:
    raise OracleError(f"the oracle did not finish in {limit:g} s (the reference interpreter "
                      "is written for clarity, not speed)") from None
  lines = completed.stderr.decode("utf-8", "replace").strip().splitlines()
  if completed.returncode == oracle_run.MISSING:
    raise OracleError(oracle_run.MISSING_MESSAGE)
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


def _call(entry: dict) -> Call:
  probes: Dict[str, List[np.ndarray]] = {}
  for name, path in entry["probes"]:
    probes.setdefault(name, []).append(np.load(path, allow_pickle=False))
  return Call(tuple(np.load(p, allow_pickle=False) for p in entry["results"]),
              tuple(np.load(p, allow_pickle=False) for p in entry["state"]),
              {name: tuple(values) for name, values in probes.items()})
