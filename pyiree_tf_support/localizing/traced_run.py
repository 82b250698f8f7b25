"""Runs a dispatch-traced vmfb in this (child) process and records every traced tensor.

  python -m pyiree_tf_support.localizing.traced_run <run dir>

<run dir>/request.json names the vmfb, the IREE driver and the calls to make in order (function
and the count of flat inputs, read from request.npz as c<call>_<input>); the child loads the vmfb
in a fresh context whose HAL module has a debug sink (never without one: the default sink prints
every traced tensor to stderr), makes the calls, and writes result.json: each trace event's
call, label and tensors, and each call's flat results. A call that raises ends the run with the
error recorded. With `"state": true` the module's globals are read back after each call through
its `global$<name>$get` exports (every tf.Variable has one) and saved as `state` (the oracle
compares them: localizing/oracle.py); reading them makes a call of its own per global, so only
runs judged against the oracle ask for it. A getter that raises leaves its global unread (listed
in `state_unread`, not compared): the call's own results stand.

Memory stays bounded whatever the model: each tensor goes to its own .npy file under tensors/
as it is traced (nothing accumulates in memory), and is read back memory-mapped. A tensor over
`max_bytes`, or past a total of `max_total_bytes` kept, is recorded as a sha256 digest and
stats (min, max, mean, NaN/Inf counts) instead. Given the trusted backend's run (`trusted_dir`),
each event is judged as it comes (events.Judge); with `stop_at_divergence`, the sink raises once
a dispatch or a step outside dispatches is to blame, which aborts the call (IREE turns the
exception into the call's error) and ends the run: the context is never used again, and the
process exits. The result then says `stopped`, not `error`.

The process's peak stays a few times its largest tensor (result.json records it, `peak_rss`):
the sink saves, judges, digests and summarises a view of the mapped trace buffer, a chunk at a
time (localizing/tensors), never a copy; each input of DEVICE_INPUT_BYTES or more goes to the
device before its call, its host copy dropped; results are read back in groups of up to
MAX_BYTES.

A process of its own: it never imports TensorFlow (lavapipe cannot share a process with it), a
runtime crash is contained, and its memory goes when it exits. It imports IREE's runtime only.
"""

import json
import os
import sys
import traceback
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.localizing import events as events_lib
from pyiree_tf_support.localizing import tensors

REQUEST = "request.json"
INPUTS = "request.npz"
RESULT = "result.json"
TENSORS = "tensors"
MAX_BYTES = 64 << 20  # one tensor
MAX_TOTAL_BYTES = 1 << 30  # every tensor of a run
OWN_FAULT = 3  # the exit status when the run itself failed (its last stderr line says why)


class _Stop(Exception):
  """Raised from the debug sink to abort the call once the divergence is found."""


def stats(array: np.ndarray) -> Dict[str, Any]:
  """What is kept of a tensor beyond the budget, besides its digest: a glance at its values.
  Taken chunk-wise (tensors.CHUNK_ELEMENTS), as the comparisons are: a tensor over the budget
  is the one least affordable to copy."""
  if array.size == 0 or array.dtype.kind not in "biufc":
    return {}
  flat = tensors.flat(array)
  counts = {"nan": 0, "inf": 0}
  low, high, total, finite_count = float("inf"), float("-inf"), 0.0, 0
  for start in range(0, flat.size, tensors.CHUNK_ELEMENTS):
    values = flat[start:start + tensors.CHUNK_ELEMENTS]
    values = np.abs(values) if values.dtype.kind == "c" else values
    values = values.astype(np.float64) if values.dtype.kind == "b" else values
    if values.dtype.kind == "f":
      counts["nan"] += int(np.isnan(values).sum())
      counts["inf"] += int(np.isinf(values).sum())
      values = values[np.isfinite(values)]
    if values.size:
      low, high = min(low, float(values.min())), max(high, float(values.max()))
      total += float(values.sum(dtype=np.float64))
      finite_count += values.size
  # NaN/Inf counts for what is compared as floats: floats, complex magnitudes, bools.
  out: Dict[str, Any] = dict(counts) if flat.dtype.kind in "fcb" else {}
  if finite_count:
    out.update(min=low, max=high, mean=total / finite_count)
  return out


def digest(array: np.ndarray) -> str:
  return tensors.digest(array)


def _save(run_dir: str, name: str, array: np.ndarray) -> None:
  safe_files.write_with(os.path.join(run_dir, TENSORS, name + ".npy"),
                       lambda f: np.save(f, array, allow_pickle=False))


def _load(run_dir: str, name: str) -> np.ndarray:
  return tensors.load(os.path.join(run_dir, TENSORS, name + ".npy"))


def _view(buffer_view: Any) -> Tuple[np.ndarray, Any]:
  """A traced tensor as a numpy view of its mapped buffer, and the mapping (to release once
  the callback is done with the view). Not copied: the callback saves, judges and digests it
  before returning, and an owned copy of every traced tensor was one more of the largest
  tensor at each dispatch boundary (docs/localizing.md, Cost)."""
  from iree import runtime as ireert
  dtype = np.dtype(ireert.HalElementType.map_to_dtype(buffer_view.element_type))
  shape = tuple(buffer_view.shape)
  if 0 in shape:
    return np.zeros(shape, dtype), None
  mapped = buffer_view.map()
  return mapped.asarray(shape, dtype), mapped


def fault(run_dir: str) -> Optional[str]:
  """The run's own failure (not the backend's), if it had one: e.g. a tensor it could not
  save."""
  with open(os.path.join(run_dir, RESULT)) as f:
    return json.load(f).get("fault")


def load_result(run_dir: str) -> Tuple[List[Tuple[int, str, List[np.ndarray]]],
                                        List[List[np.ndarray]], Optional[str], Optional[str]]:
  """A finished run's (call, label, tensors) events, each call's results, its error and why it
  stopped early (or None); arrays are memory-mapped, and a tensor kept as a digest reads back as
  a 0-d string array of it."""
  with open(os.path.join(run_dir, RESULT)) as f:
    document = json.load(f)
  raw = [(event["call"], event["label"],
          [_load(run_dir, t["array"]) if "array" in t else np.array(t["sha256"])
           for t in event["tensors"]]) for event in document["events"]]
  outputs = [[_load(run_dir, name) for name in names] for names in document["outputs"]]
  return raw, outputs, document["error"], document.get("stopped")


GETTER_PREFIX, GETTER_SUFFIX = "global$", "$get"


def load_state(run_dir: str) -> List[Dict[str, np.ndarray]]:
  """A finished run's globals after each call ({global symbol: value}; [] unless asked)."""
  with open(os.path.join(run_dir, RESULT)) as f:
    document = json.load(f)
  return [{name: _load(run_dir, file) for name, file in call}
          for call in document.get("state", ())]


class _Recorder:
  """The debug sink's callback: saves each event's tensors, tagged with the current call."""

  def __init__(self, run_dir: str, max_bytes: int, max_total_bytes: int,
               trusted: Optional[List[events_lib.Event]] = None,
               judge: Optional[events_lib.Judge] = None, stop_at_divergence: bool = False):
    self.run_dir = run_dir
    self.max_bytes = max_bytes
    self.left = max_total_bytes
    self.call = -1  # -1: events while loading (initializers).
    self.events: List[Dict[str, Any]] = []
    self.trusted = trusted
    self.judge = judge
    self.decided = trusted is None
    self.stop_at_divergence = stop_at_divergence
    self.stopped: Optional[str] = None
    self.fault: Optional[str] = None  # our own failure (saving a tensor), not the backend's.
    self._seen: Dict[Tuple[int, str, str], int] = {}

  def _judge(self, label: str, arrays: List[np.ndarray]) -> Optional[events_lib.Finding]:
    key, kind = events_lib.parse_key(label)
    occurrence = self._seen.get((self.call, key, kind), 0)
    self._seen[(self.call, key, kind)] = occurrence + 1
    event = events_lib.Event(self.call, key, kind, occurrence, tuple(arrays))
    index = len(self.events)
    trusted, judge = self.trusted, self.judge
    # Given together (run_traced); without them the recorder starts decided and never judges.
    assert trusted is not None and judge is not None
    if index >= len(trusted) or trusted[index].label != event.label:
      self.decided = True  # the structure differs: nothing more to compare.
      return None
    found = judge.feed(event, trusted[index])
    self.decided = found is not None
    return found

  def __call__(self, label: str, buffer_views: List[Any]) -> None:
    try:
      self._record(label, buffer_views)
    except (OSError, faults.OwnFault) as e:  # ours (a full disk): never the backend's error.
      if isinstance(e, _Stop):
        raise
      self.fault = str(e) if isinstance(e, faults.OwnFault) else str(
          faults.ArtifactWriteError(os.path.join(self.run_dir, TENSORS), e))
      raise _Stop(self.fault) from None

  def _record(self, label: str, buffer_views: List[Any]) -> None:
    views = [_view(buffer_view) for buffer_view in buffer_views]
    try:
      self._record_arrays(label, [array for array, _ in views])
    finally:
      del views  # unmapped before the sink returns its buffers to the runtime.

  def _record_arrays(self, label: str, arrays: List[np.ndarray]) -> None:
    entries = []
    keep = not self.decided
    found = self._judge(label, arrays) if not self.decided else None
    for position, array in enumerate(arrays):
      name = f"e{len(self.events)}_{position}"
      entry: Dict[str, Any] = {"shape": list(array.shape), "dtype": array.dtype.name}
      if (keep or self.trusted is None) and array.nbytes <= min(self.max_bytes, self.left):
        _save(self.run_dir, name, array)
        self.left -= array.nbytes
        entry["array"] = name
      else:
        entry["sha256"] = digest(array)
        entry["stats"] = stats(array)
      entries.append(entry)
    self.events.append({"call": self.call, "label": label, "tensors": entries})
    if found is not None and self.stop_at_divergence:
      self.stopped = (f"at the divergence (event {len(self.events) - 1}, call {self.call}): "
                      f"{found.kind.value}")
      raise _Stop(self.stopped)


class _Unreadable(Exception):
  """An input of the request could not be read (our fault, never the backend's)."""


# Inputs at least this big go to the device before the call, their host copy dropped; smaller
# ones are passed as numpy arrays, as every other caller of the runtime does.
DEVICE_INPUT_BYTES = 1 << 20


def _argument(npz: Any, name: str, device: Any) -> Any:
  try:
    array = npz[name]
  except Exception as e:
    raise _Unreadable(f"cannot read input {name} of {INPUTS}: {e}") from e
  if array.nbytes < DEVICE_INPUT_BYTES:
    return array
  from iree import runtime as ireert
  return ireert.asdevicearray(device, array)


def _nbytes(leaf: Any) -> int:
  shape, dtype = getattr(leaf, "shape", None), getattr(leaf, "dtype", None)
  if shape is None or dtype is None:
    return 0
  return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


def _save_results(run_dir: str, call: int, result: Any, device: Any, driver: str) -> List[str]:
  """Saves a call's flat results (r<call>_<position>), read back in groups of up to MAX_BYTES:
  all at once was a host copy of every result alive with the device's; one by one would cost
  a queue submission each on Vulkan."""
  from pyiree_tf_support.runtime import readback
  leaves: List[Any] = list(structure.flatten(result, drop_none=True))
  del result
  names: List[str] = []
  start = 0
  while start < len(leaves):
    end, size = start + 1, _nbytes(leaves[start])
    while end < len(leaves) and size + _nbytes(leaves[end]) <= MAX_BYTES:
      size += _nbytes(leaves[end])
      end += 1
    hosts = readback.results_to_numpy(leaves[start:end], device, driver)
    for position, array in enumerate(hosts, start):
      names.append(f"r{call}_{position}")
      _save(run_dir, names[-1], array)
    del hosts
    leaves[start:end] = [None] * (end - start)  # the device's copies go too.
    start = end
  return names


def _save_state(run_dir: str, call: int, functions: Any, getters: List[str], device: Any,
                driver: str, unread: List[str]) -> List[Tuple[str, str]]:
  """Saves each global's value after call `call` (s<call>_<position>), read through its
  exported getter: [(global, saved name)]. A getter that raises is noted in `unread` and its
  global not compared; the call stands."""
  from pyiree_tf_support.runtime import readback
  saved: List[Tuple[str, str]] = []
  for position, getter in enumerate(getters):
    try:
      value = readback.results_to_numpy(functions[getter](), device, driver)[0]
    except Exception as e:  # a global not read back is not compared; the call stands.
      unread.append(f"call {call} {getter}: {type(e).__name__}: {e}")
      continue
    saved.append((getter[len(GETTER_PREFIX):-len(GETTER_SUFFIX)], f"s{call}_{position}"))
    _save(run_dir, saved[-1][1], value)
  return saved


def peak_rss() -> Optional[int]:
  """This process's peak resident set size in bytes (VmHWM), recorded in result.json: what a
  run costs is read from it (docs/localizing.md, Cost; tests/localizing/
  localize_memory_test.py)."""
  try:
    with open("/proc/self/status") as f:
      for line in f:
        if line.startswith("VmHWM:"):
          return int(line.split()[1]) * 1024
  except OSError:
    pass
  try:
    import resource
  except ImportError:
    return None
  peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
  return peak if sys.platform == "darwin" else peak * 1024  # bytes there, KiB elsewhere.


def run(run_dir: str) -> Dict[str, Any]:
  """Makes the requested calls; the result document (also written to `run_dir`)."""
  from iree import runtime as ireert

  with open(os.path.join(run_dir, REQUEST)) as f:
    request = json.load(f)
  trusted, judge = None, None
  if request.get("trusted_dir"):
    trusted = events_lib.number_events(load_result(request["trusted_dir"])[0])
    policy = tolerances.TolerancePolicy(tuple(
        ((backend, dtype), tolerances.Tolerance(rtol, atol))
        for backend, dtype, rtol, atol in request.get("tolerances", ())))
    judge = events_lib.Judge(policy, request.get("backend_names", ()),
                             float(request.get("floor", 1.0)))
  # Written below the run dir without following links (the parent made it afresh).
  safe_files.open_root(run_dir, "The localizer's run dir")
  safe_files.make_dirs(os.path.join(run_dir, TENSORS))
  recorder = _Recorder(run_dir, int(request.get("max_bytes", MAX_BYTES)),
                       int(request.get("max_total_bytes", MAX_TOTAL_BYTES)), trusted, judge,
                       bool(request.get("stop_at_divergence")))
  outputs: List[List[str]] = []
  state: List[List[Tuple[str, str]]] = []
  unread: List[str] = []  # getters that raised (their global is then not compared)
  error = None
  # Each input is read when its call comes and handed to the device before the call: the
  # host copy goes then (an input of every call held at once, plus each one's device copy,
  # was two of the largest tensor for each).
  with np.load(os.path.join(run_dir, INPUTS), allow_pickle=False) as npz:
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
      getters = sorted(name for name in vm_module.function_names
                       if name.startswith(GETTER_PREFIX) and name.endswith(GETTER_SUFFIX))
      for index, call in enumerate(request["calls"]):
        recorder.call = index
        args = [_argument(npz, f"c{index}_{i}", device) for i in range(call["inputs"])]
        result = functions[call["function"]](*args)
        del args
        outputs.append(_save_results(run_dir, index, result, device, request["driver"]))
        del result
        if request.get("state"):
          state.append(_save_state(run_dir, index, functions, getters, device,
                                   request["driver"], unread))
    except _Unreadable:  # ours: the request's inputs, not the backend.
      raise
    except Exception as e:  # the backend's failure: reported.
      if recorder.stopped is None and recorder.fault is None:  # else: our own abort, from
        error = f"call {recorder.call}: {type(e).__name__}: {e}"  # the sink (divergence...).
  document = {"events": recorder.events, "outputs": outputs, "state": state,
              "state_unread": unread, "error": error, "stopped": recorder.stopped,
              "fault": recorder.fault, "peak_rss": peak_rss()}
  safe_files.write_text(os.path.join(run_dir, RESULT), json.dumps(document))
  return document


def main(argv: List[str]) -> int:
  if len(argv) != 2:
    print(f"usage: python -m {__name__} <run dir>", file=sys.stderr)
    return 2
  try:
    run(argv[1])
  except Exception:  # our own fault: the parent reports it.
    traceback.print_exc()
    return OWN_FAULT
  return 0


if __name__ == "__main__":
  sys.stdout.flush()
  # Skip interpreter teardown: the runtime's objects are still referenced by the sink's closure,
  # and nanobind reports them as leaks at exit; the results are already on disk.
  code = main(sys.argv)
  sys.stderr.flush()
  os._exit(code)
