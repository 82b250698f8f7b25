"""Runs a trace's calls on the StableHLO reference interpreter in this (child) process.

  python -m pyiree_tf_support.localizing.oracle_run <run dir>

<run dir>/request.json names the modules oracle_module wrote (one per function, an initial
values one) and the calls in order (function, flat input count, inputs in request.npz as
c<call>_<input>); the globals' values are carried from call to call as the module's extra
arguments and results. result.json lists each call's results, its final globals and its probes
(probe id and the .npy each execution wrote, under probes/<call>/), or the call's error.

A process of its own because the interpreter aborts the process on an op it does not support
(`LLVM ERROR: ...`, no exception): the parent reads the abort from this process's stderr. It
imports jaxlib, which is not in the project's environment: the `oracle` extra
(`pip install .[oracle]`), or a directory holding it: $PYIREE_TF_SUPPORT_ORACLE_PATH, else
<venv>/oracle/, where scripts/bootstrap.sh installs it (`pip install --target`, off the venv's
path, so that the venv's TensorFlow import is unchanged).
Never TensorFlow, never IREE.
"""

import csv
import importlib.util
import json
import os
import sys
import traceback
from typing import Any, Dict, List, Optional

import numpy as np

REQUEST = "request.json"
INPUTS = "request.npz"
RESULT = "result.json"
PATH_VARIABLE = "PYIREE_TF_SUPPORT_ORACLE_PATH"
MISSING = 4  # the exit status when jaxlib is missing (its stderr's last line says so)
MISSING_MESSAGE = ("the oracle needs jaxlib (the StableHLO reference interpreter): "
                   "pip install 'pyiree-tf-support[oracle]'")
BROKEN = 5  # the exit status when jaxlib is there but fails to import (stderr's last line: why)


# Where scripts/bootstrap.sh installs jaxlib: inside the venv's directory, not on its path.
BOOTSTRAP_DIR = "oracle"


def jaxlib_dir() -> str:
  """Where jaxlib is looked for besides the environment itself: $PYIREE_TF_SUPPORT_ORACLE_PATH
  when set, else <sys.prefix>/oracle ("" when neither is a directory). The parent puts it on this
  child's PYTHONPATH (`child_env`): nothing edits a running interpreter's path."""
  extra = os.environ.get(PATH_VARIABLE)
  if extra is None:
    extra = os.path.join(sys.prefix, BOOTSTRAP_DIR)
  return extra if extra and os.path.isdir(extra) else ""


def child_env(env: Dict[str, str]) -> Dict[str, str]:
  """`env` for the oracle's child process, with `jaxlib_dir()` first on its PYTHONPATH."""
  extra = jaxlib_dir()
  if not extra:
    return env
  paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
  return dict(env, PYTHONPATH=os.pathsep.join([extra, *paths]))


def _interpreter():
  """jaxlib's interpreter (on this process's path: `child_env`)."""
  from jaxlib.mlir import ir
  from jaxlib.mlir._mlir_libs import _jax_mlir_ext
  from jaxlib.mlir.dialects import stablehlo
  return ir, stablehlo, _jax_mlir_ext


def import_failure(error: ImportError) -> Optional[str]:
  """What is wrong with a jaxlib whose import raised `error`, in one line; None when there is no
  jaxlib at all (then installing it is the fix). A jaxlib that is there but fails to import (a
  wheel for another CPU or Python, a missing shared library) needs no install but its own error:
  an install hint would send its user to reinstall what is already installed."""
  if isinstance(error, ModuleNotFoundError) and error.name == "jaxlib":
    return None
  spec = importlib.util.find_spec("jaxlib")
  where = (spec.submodule_search_locations or [spec.origin])[0] if spec else None
  why = " ".join(str(error).split()) or "no message"
  return (f"the oracle's jaxlib{f' ({where})' if where else ''} failed to import: "
          f"{type(error).__name__}: {why}")


def run(run_dir: str) -> Dict[str, Any]:
  """Makes the requested calls; the result document (also written to `run_dir`)."""
  ir, stablehlo, ext = _interpreter()
  with open(os.path.join(run_dir, REQUEST)) as f:
    request = json.load(f)
  with np.load(os.path.join(run_dir, INPUTS), allow_pickle=False) as npz:
    inputs = {name: npz[name] for name in npz.files}
  registry = ir.DialectRegistry()
  ext.register_dialects(registry)
  document: Dict[str, Any] = {"calls": [], "error": None}
  with ir.Context() as context:
    context.append_dialect_registry(registry)
    context.load_all_available_dialects()
    stablehlo.register_dialect(context)
    stablehlo.register_interpreter_dialect(context)
    modules: Dict[str, Any] = {}

    def module(path: str):
      if path not in modules:
        with open(path) as f:
          modules[path] = ir.Module.parse(f.read())
      return modules[path]

    state: List[np.ndarray] = []
    if request.get("initial"):
      state = [np.array(a) for a in stablehlo.eval_module(module(request["initial"]), [])]
    for index, call in enumerate(request["calls"]):
      probes = os.path.join(run_dir, "probes", str(index))
      os.makedirs(probes)
      args = [inputs[f"c{index}_{i}"] for i in range(call["inputs"])] + state
      try:
        values = [np.array(a) for a in stablehlo.eval_module(
            module(call["module"]), [_attribute(ir, a) for a in args],
            probe_instrumentation_dir=probes)]
      except Exception as e:  # the interpreter's refusal.
        document["error"] = f"call {index}: {type(e).__name__}: {e}"
        break
      count = call["results"]
      state = values[count:]
      names = []
      for position, value in enumerate(values):
        names.append(os.path.join(probes, f"result_{position}.npy"))
        np.save(names[-1], value, allow_pickle=False)
      document["calls"].append({"results": names[:count], "state": names[count:],
                                "probes": _probes(probes)})
  with open(os.path.join(run_dir, RESULT), "w") as f:
    json.dump(document, f)
  return document


def _attribute(ir, array: np.ndarray):
  """A dense attribute of `array`'s shape (a 0-d array would otherwise become tensor<1x...>)."""
  array = np.array(array, order="C")  # (np.ascontiguousarray makes a 0-d array 1-d)
  return ir.DenseElementsAttr.get(array, shape=list(array.shape))


def _probes(directory: str) -> List[List[str]]:
  """[probe id, .npy path] in the order the probes ran (index.csv, written by the interpreter)."""
  index = os.path.join(directory, "index.csv")
  if not os.path.exists(index):
    return []
  with open(index, newline="") as f:
    return [[row[0], row[-1]] for row in csv.reader(f) if len(row) >= 3]


def main(argv: List[str]) -> int:
  if len(argv) != 2:
    print(f"usage: python -m {__name__} <run dir>", file=sys.stderr)
    return 2
  try:
    _interpreter()
  except ImportError as e:
    failure = import_failure(e)
    print(failure or MISSING_MESSAGE, file=sys.stderr)
    return MISSING if failure is None else BROKEN
  try:
    run(argv[1])
  except Exception:  # our own fault: the parent reports it.
    traceback.print_exc()
    return 3
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
