"""Runs a dispatch-traced vmfb in this (child) process and records every traced tensor.

  python -m pyiree_tf_support.localizing.traced_run <run dir>

<run dir>/request.json names the vmfb, the IREE driver and the calls to make in order (function
and the count of flat inputs, read from request.npz as c<call>_<input>); the child loads the vmfb
in a fresh context whose HAL module has a debug sink (never without one: the default sink prints
every traced tensor to stderr), makes the calls, and writes result.json + result.npz: each trace
event's call, label and tensors, and each call's flat results. A call that raises ends the run
with the error recorded. Tensors over `max_bytes` are kept as a digest, not as an array; and
given the trusted backend's run (`trusted_dir`), each event is judged as it comes (events.Judge)
and once the divergence is found, later tensors are kept as digests only: the calls still run to
the end (their results tell whether tracing masked the bug), but memory stays bounded.

A process of its own: it never imports TensorFlow (lavapipe cannot share a process with it), a
runtime crash is contained, and its memory goes when it exits. It imports IREE's runtime only.
"""

import hashlib
import json
import os
import sys
import traceback
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.localizing import events as events_lib

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


def load_result(run_dir: str) -> Tuple[List[Tuple[int, str, List[np.ndarray]]],
                                        List[List[np.ndarray]], Optional[str]]:
  """A finished run's (call, label, tensors) events, each call's results, and its error; a
  tensor kept as a digest reads back as a 0-d string array of it."""
  with open(os.path.join(run_dir, RESULT)) as f:
    document = json.load(f)
  with np.load(os.path.join(run_dir, ARRAYS), allow_pickle=False) as npz:
    arrays = {name: npz[name] for name in npz.files}
  raw = [(event["call"], event["label"],
          [arrays[t["array"]] if "array" in t else np.array(t["sha256"])
           for t in event["tensors"]]) for event in document["events"]]
  outputs = [[arrays[name] for name in names] for names in document["outputs"]]
  return raw, outputs, document["error"]


class _Recorder:
  """The debug sink's callback: keeps each event's tensors, tagged with the current call."""

  def __init__(self, max_bytes: int, trusted: Optional[List[events_lib.Event]] = None,
               judge: Optional[events_lib.Judge] = None):
    self.max_bytes = max_bytes
    self.call = -1  # -1: events while loading (initializers).
    self.events: List[Dict[str, Any]] = []
    self.arrays: Dict[str, np.ndarray] = {}
    self.trusted = trusted
    self.judge = judge
    self.decided = trusted is None
    self._seen: Dict[Tuple[int, str, str], int] = {}

  def _judge(self, label: str, arrays: List[np.ndarray]) -> None:
    key, kind = events_lib.parse_key(label)
    occurrence = self._seen.get((self.call, key, kind), 0)
    self._seen[(self.call, key, kind)] = occurrence + 1
    event = events_lib.Event(self.call, key, kind, occurrence, tuple(arrays))
    index = len(self.events)
    if index >= len(self.trusted) or self.trusted[index].label != event.label:
      self.decided = True  # the structure differs: nothing more to compare.
    elif self.judge.feed(event, self.trusted[index]) is not None:
      self.decided = True

  def __call__(self, label: str, buffer_views: List[Any]) -> None:
    entries = []
    arrays = [_to_numpy(buffer_view) for buffer_view in buffer_views]
    keep = not self.decided
    if not self.decided:
      self._judge(label, arrays)
    for position, array in enumerate(arrays):
      name = f"e{len(self.events)}_{position}"
      entry = {"shape": list(array.shape), "dtype": array.dtype.name}
      if (keep or self.trusted is None) and array.nbytes <= self.max_bytes:
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
  trusted, judge = None, None
  if request.get("trusted_dir"):
    trusted = events_lib.number_events(load_result(request["trusted_dir"])[0])
    policy = tolerances.TolerancePolicy(tuple(
        ((backend, dtype), tolerances.Tolerance(rtol, atol))
        for backend, dtype, rtol, atol in request.get("tolerances", ())))
    judge = events_lib.Judge(policy, request.get("backend_names", ()))
  recorder = _Recorder(int(request.get("max_bytes", 64 << 20)), trusted, judge)
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
