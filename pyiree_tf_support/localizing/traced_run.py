"""Runs a dispatch-traced vmfb in this (child) process and records every traced tensor.

  python -m pyiree_tf_support.localizing.traced_run <run dir>

<run dir>/request.json names the vmfb, the IREE driver and the calls to make in order (function
and the count of flat inputs, read from request.npz as c<call>_<input>); the child loads the vmfb
in a fresh context whose HAL module has a debug sink (never without one: the default sink prints
every traced tensor to stderr), makes the calls, and writes result.json + result.npz: each trace
event's call, label and tensors, and each call's flat results. A call that raises ends the run
with the error recorded. Tensors over `max_bytes` are kept as digest + stats, not as arrays.

A process of its own: it never imports TensorFlow (lavapipe cannot share a process with it), a
runtime crash is contained, and its memory goes when it exits. It imports IREE's runtime only.
"""

import hashlib
import json
import os
import sys
import traceback
from typing import Any, Dict, List

import numpy as np

REQUEST = "request.json"
INPUTS = "request.npz"
RESULT = "result.json"
ARRAYS = "result.npz"


def _to_numpy(buffer_view: Any) -> np.ndarray:
  """An owned copy of a traced tensor (the sink's buffers are borrowed for the callback)."""
  from iree import runtime as ireert  # pylint: disable=import-outside-toplevel
  dtype = np.dtype(ireert.HalElementType.map_to_dtype(buffer_view.element_type))
  shape = tuple(buffer_view.shape)
  if 0 in shape:
    return np.zeros(shape, dtype)
  mapped = buffer_view.map()
  try:
    return np.array(mapped.asarray(shape, dtype), copy=True)
  finally:
    del mapped


class _Recorder:
  """The debug sink's callback: keeps each event's tensors, tagged with the current call."""

  def __init__(self, max_bytes: int):
    self.max_bytes = max_bytes
    self.call = -1  # -1: events while loading (initializers).
    self.events: List[Dict[str, Any]] = []
    self.arrays: Dict[str, np.ndarray] = {}

  def __call__(self, label: str, buffer_views: List[Any]) -> None:
    entries = []
    for position, buffer_view in enumerate(buffer_views):
      array = _to_numpy(buffer_view)
      name = f"e{len(self.events)}_{position}"
      entry = {"shape": list(array.shape), "dtype": array.dtype.name}
      if array.nbytes <= self.max_bytes:
        self.arrays[name] = array
        entry["array"] = name
      else:
        entry["sha256"] = hashlib.sha256(array.tobytes()).hexdigest()
      entries.append(entry)
    self.events.append({"call": self.call, "label": label, "tensors": entries})


def run(run_dir: str) -> Dict[str, Any]:
  """Makes the requested calls; the result document (also written to `run_dir`)."""
  from iree import runtime as ireert  # pylint: disable=import-outside-toplevel
  from pyiree_tf_support.runtime import readback  # pylint: disable=import-outside-toplevel
  with open(os.path.join(run_dir, REQUEST)) as f:
    request = json.load(f)
  recorder = _Recorder(int(request.get("max_bytes", 64 << 20)))
  outputs: List[List[str]] = []
  error = None
  with np.load(os.path.join(run_dir, INPUTS), allow_pickle=False) as npz:
    inputs = {name: npz[name] for name in npz.files}
  try:
    device = ireert.get_device(request["driver"], cache=False)
    config = ireert.Config(device=device)
    sink = ireert.HalModuleDebugSink(recorder)
    config.default_vm_modules = (
        ireert.create_hal_module(config.vm_instance, device, debug_sink=sink),)
    with open(request["vmfb"], "rb") as f:
      vm_module = ireert.VmModule.copy_buffer(config.vm_instance, f.read())
    context = ireert.SystemContext(vm_modules=[vm_module], config=config)
    functions = context.modules[vm_module.name]
    for index, call in enumerate(request["calls"]):
      recorder.call = index
      args = [inputs[f"c{index}_{i}"] for i in range(call["inputs"])]
      result = functions[call["function"]](*args)
      flat = readback.results_to_numpy(result, device, request["driver"])
      names = []
      for position, array in enumerate(flat):
        names.append(f"r{index}_{position}")
        recorder.arrays[names[-1]] = array
      outputs.append(names)
  except Exception as e:  # pylint: disable=broad-except  # the backend's failure: reported.
    error = f"call {recorder.call}: {type(e).__name__}: {e}"
  document = {"events": recorder.events, "outputs": outputs, "error": error}
  np.savez(os.path.join(run_dir, ARRAYS), **recorder.arrays)
  with open(os.path.join(run_dir, RESULT), "w") as f:
    json.dump(document, f)
  return document


def main(argv: List[str]) -> int:
  if len(argv) != 2:
    print(f"usage: python -m {__name__} <run dir>", file=sys.stderr)
    return 2
  try:
    run(argv[1])
  except Exception:  # pylint: disable=broad-except  # our own fault: the parent reports it.
    traceback.print_exc()
    return 3
  return 0


if __name__ == "__main__":
  sys.stdout.flush()
  # Skip interpreter teardown: the runtime's objects are still referenced by the sink's closure,
  # and nanobind reports them as leaks at exit; the results are already on disk.
  code = main(sys.argv)
  sys.stderr.flush()
  os._exit(code)  # pylint: disable=protected-access
