"""What a failing IREE call offers to reproduce it: a replay command, and iree-run-module files.

Two commands, each printed only where it reproduces the failure it is printed for:
- replaying the *reference* trace (`python -m pyiree_tf_support.replay`) makes every call again, in
  order, on a freshly compiled module, so a call sees the state the earlier calls left;
- `iree-run-module --flagfile=flagfile` runs one call alone from the module's initial state, which
  is faithful only for the first call or for a module that keeps no state. Other calls get no
  flagfile, and the report says why.
Both name their programs by absolute path (the project's interpreter and its iree-run-module), so
they run copy-pasted from any directory, without the venv on PATH.
"""

import collections
import collections.abc
import dataclasses
import hashlib
import importlib.util
import os
import re
import shlex
import sys
import threading
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.core.signatures import numpy_dtype

# iree-run-module's per-type absolute thresholds, by numpy dtype name.
THRESHOLD_FLAGS = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}
# A store to a global is what lets one call change what the next one computes.
_STATE_WRITE = re.compile(r"\b(ml_program\.global_store|util\.global\.store)\b")


@dataclasses.dataclass(frozen=True)
class CallRepro:
  """The commands that reproduce one call of a target trace, or why iree-run-module cannot."""
  index: int
  method: str
  replay_command: str
  run_module_command: Optional[str] = None
  no_run_module_reason: str = ""

  def describe(self) -> str:
    """The lines a report prints under a mismatch of this call."""
    lines = [f"replay every call in order: {self.replay_command}"]
    if self.run_module_command:
      lines.append(f"re-run call {self.index} alone: {self.run_module_command}")
    else:
      lines.append(f"no iree-run-module command for call {self.index}: {self.no_run_module_reason}")
    return "\n".join(lines)


def has_state(iree_input: str) -> bool:
  """Whether the module's functions store to globals (tf.Variables), so calls depend on earlier
  ones."""
  return bool(_STATE_WRITE.search(iree_input))


def iree_run_module_binary() -> Optional[str]:
  """The iree-run-module of this interpreter's IREE runtime: the venv's bin, else the package's."""
  candidates = [os.path.join(os.path.dirname(sys.executable), "iree-run-module")]
  spec = importlib.util.find_spec("iree._runtime_libs")
  if spec is not None and spec.submodule_search_locations:
    candidates += [os.path.join(p, "iree-run-module") for p in spec.submodule_search_locations]
  return next((os.path.abspath(c) for c in candidates if os.access(c, os.X_OK)), None)


def _replay_backend_name(trace: Trace) -> str:
  """The name --target_backends accepts for the trace's backend (artifact names may be indexed)."""
  return next((n for n in trace.backend_names if backends.find(n)), trace.backend)


def replay_command(module_dir: str, ref_trace: Trace, tar_trace: Trace,
                   extra_arguments: Sequence[str] = ()) -> str:
  """The shell command that replays the saved reference trace on the target's backend;
  `extra_arguments` are flags of the run that the replay must repeat (e.g. --tolerances=...)."""
  ref_dir = os.path.abspath(
      artifacts.trace_path(module_dir, ref_trace.function_name, ref_trace.backend, suffix=""))
  arguments = [f"--target_backends={_replay_backend_name(tar_trace)}", *extra_arguments]
  program = f"{shlex.quote(sys.executable)} -m pyiree_tf_support.replay"
  if bazel_paths.display_path(ref_dir) != ref_dir:  # under Bazel: the trace is in outputs.zip.
    return f"{bazel_paths.shell_cd(ref_dir)} && {program} . {' '.join(map(shlex.quote, arguments))}"
  return " ".join([program, shlex.quote(ref_dir)] + [shlex.quote(a) for a in arguments])


# iree-run-module's element types, by numpy dtype name: integers are signless (a compiled
# function's i32 rejects numpy's si32), unsigned ones keep their "u" (a ui8 result is reported
# as ui8 and an i8 expectation does not match it), and complex types are named by their total
# width (complex64 is cf64). The one copy: the reports' flagfiles and make_repros' repro.sh
# files both write values with save_value.
ELEMENT_TYPES = {
    "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "ui8", "uint16": "ui16", "uint32": "ui32", "uint64": "ui64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "cf64", "complex128": "cf128",
}


def element_type(dtype: np.dtype) -> Optional[str]:
  """iree-run-module's name for `dtype`, None when it has none."""
  return ELEMENT_TYPES.get(dtype.name)


def save_value(directory: str, stem: str, array: np.ndarray) -> str:
  """Saves one value as `<stem>.bin` (raw bytes); returns the flag value iree-run-module reads
  it from (`2x3xui8=@<stem>.bin`), relative to `directory`.

  Every value names its element type explicitly: a .npy file would carry numpy's signed and
  unsigned integers as si/ui types and ml_dtypes' bfloat16 as opaque bytes. ValueError for a
  dtype iree-run-module has no element type for (untyped_reason says so beforehand).
  """
  array = np.asarray(array)  # np.ascontiguousarray would turn a 0-d array into shape [1].
  reason = untyped_reason([array], "values")
  if reason:
    raise ValueError(reason)
  name = stem + ".bin"
  _write_shared(os.path.join(directory, name), array.tobytes())
  shape = "x".join(str(d) for d in array.shape)
  return f"{shape + 'x' if shape else ''}{element_type(array.dtype)}=@{name}"


# A value of at least this many bytes is written once per process and hard-linked wherever the
# same bytes are needed again: every failing backend's repro of a call holds the same inputs and
# expected outputs, and a 68 MB input was copied into three backends' directories (195 MB).
SHARED_FROM_BYTES = 1 << 16
_SHARED_KEPT = 64  # the last values written are remembered (path and file identity).
_shared_values: "collections.OrderedDict[str, Tuple[str, Tuple[int, ...]]]" = (
    collections.OrderedDict())
_shared_lock = threading.Lock()


def _write_shared(path: str, data: bytes) -> None:
  """Writes `data` at `path`, as a hard link of an earlier file holding the same bytes when there
  is one (each directory stays complete on its own; a link that cannot be made is a copy)."""
  if len(data) < SHARED_FROM_BYTES:
    safe_files.write_bytes(path, data)
    return
  digest = hashlib.sha256(data).hexdigest()
  with _shared_lock:
    earlier = _shared_values.get(digest)
  if earlier is not None and safe_files.link_file(earlier[0], path, earlier[1]):
    return
  safe_files.write_bytes(path, data)
  try:
    status = os.stat(path, follow_symlinks=False)
  except OSError:
    return
  with _shared_lock:
    _shared_values[digest] = (path, safe_files.file_identity(status))
    while len(_shared_values) > _SHARED_KEPT:
      _shared_values.popitem(last=False)


def untyped_reason(values: Sequence[np.ndarray], what: str) -> str:
  """Why iree-run-module cannot read or check `values`; "" when it can."""
  dtype = next((np.asarray(v).dtype for v in values if element_type(np.asarray(v).dtype) is None),
               None)
  if dtype is None:
    return ""
  return (f"its {what} include {dtype.name} values, for which iree-run-module has no element "
          f"type (it has {', '.join(sorted(ELEMENT_TYPES))}).")


def _unfaithful_reason(index: int, iree_input: Optional[str]) -> str:
  """Why running call `index` alone would not reproduce it; "" when it would."""
  if index == 0:
    return ""
  if iree_input is None:
    return ("it is not the first call and whether the module keeps state is unknown (no "
            "iree_input.mlir); the replay command makes the earlier calls first.")
  if has_state(iree_input):
    earlier = "call 0" if index == 1 else f"calls 0-{index - 1}"
    return (f"the module keeps state (its functions store to globals, e.g. tf.Variables) and "
            f"iree-run-module starts from the initial state, not from the one {earlier} left; "
            "the replay command makes the earlier calls first.")
  return ""


class CallRepros(collections.abc.Sequence):
  """`describe()` of each call's repro, written only when that call is asked for.

  A passing trace must not cost files per call (3000 calls once wrote 24,024 files): the report
  asks only for the first mismatching call, so only a failing call's directory is written. The
  replay command needs nothing per call (it replays the saved reference trace). Directories of
  earlier runs are removed, so `repro/<trace>__<backend>/` holds only this run's failing calls,
  and a passing trace leaves none (not even empty).
  """

  def __init__(self, module_dir: str, ref_trace: Trace, tar_trace: Trace, vmfb_path: str,
               driver: str, signatures: Dict[str, FunctionSignature],
               iree_input: Optional[str] = None,
               policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
               replay_arguments: Sequence[str] = ()):
    self._args = (tar_trace, ref_trace, vmfb_path, driver, signatures, iree_input, policy)
    self._root = artifacts.repro_dir(module_dir, tar_trace.function_name, tar_trace.backend)
    self._replay = replay_command(module_dir, ref_trace, tar_trace, replay_arguments)
    # A target that raised in call k has calls 0..k-1: call k is reproduced from the reference's.
    self._count = min(len(tar_trace.calls) + 1, len(ref_trace.calls))
    self._written: Dict[int, CallRepro] = {}
    safe_files.remove_tree(self._root)

  def __len__(self) -> int:
    return self._count

  def __getitem__(self, index):
    if isinstance(index, slice):
      return [self[i] for i in range(*index.indices(len(self)))]
    return self.call(index).describe()

  def call(self, index: int) -> CallRepro:
    """Call `index`'s record, writing its iree-run-module directory when it has one."""
    if not 0 <= index < self._count:
      raise IndexError(index)
    if index not in self._written:
      self._written[index] = _write_call(self._root, self._replay, index, *self._args)
    return self._written[index]


def _write_call(root: str, replay: str, index: int, tar_trace: Trace, ref_trace: Trace,
                vmfb_path: str, driver: str, signatures: Dict[str, FunctionSignature],
                iree_input: Optional[str], policy: tolerances.TolerancePolicy) -> CallRepro:
  ref_call = ref_trace.calls[index]
  tar_call = tar_trace.calls[index] if index < len(tar_trace.calls) else ref_call
  binary = iree_run_module_binary()
  reason = _unfaithful_reason(index, iree_input)
  signature = signatures.get(tar_call.method)
  if not reason and binary is None:
    reason = (f"iree-run-module is neither next to {sys.executable} nor in the iree runtime "
              "package.")
  if not reason and signature is None:
    reason = f"the compiled module exports no function '{tar_call.method}'."
  if not reason and signature is not None and not quoting.function_name(signature.name):
    reason = (f"its function's name {quoting.shown(signature.name)} is not one a Python function "
              "has, and a flagfile holds it as it is, one flag a line.")
  if not reason and signature is not None:  # (None is a reason above)
    try:
      inputs = signature.flatten_inputs(tar_trace.module_name, tar_call.inputs, tar_call.kwargs)
    except (TypeError, ValueError) as e:
      reason = f"its inputs do not fit the function's signature ({e})."
  if not reason:
    reason = untyped_reason(inputs, "inputs")
  expected = [np.asarray(v) for v in structure.flatten(ref_call.outputs, drop_none=True)]
  if not reason:
    reason = untyped_reason(expected, "expected outputs")
  if reason:
    return CallRepro(index, tar_call.method, replay, no_run_module_reason=reason)
  assert binary is not None and signature is not None  # else a reason above.
  call_dir = os.path.join(root, _call_dir_name(index, tar_call.method))
  try:
    _write_flagfile(call_dir, tar_trace, tar_call, index, inputs, expected, vmfb_path, driver,
                    signature, policy)
  except Exception as e:  # named with its call, then the target's outcome.
    raise RuntimeError(f"call {index} ({tar_call.method}): {type(e).__name__}: {e}") from e
  command = f"{bazel_paths.shell_cd(call_dir)} && {shlex.quote(binary)} --flagfile=flagfile"
  return CallRepro(index, tar_call.method, replay, run_module_command=command)


def _call_dir_name(index: int, method: str) -> str:
  return f"call_{index}_{artifacts.safe_name(method)}"


def _write_flagfile(call_dir: str, tar_trace: Trace, tar_call, index: int,
                    inputs: Sequence[np.ndarray], expected: Sequence[np.ndarray],
                    vmfb_path: str, driver: str,
                    signature: FunctionSignature,
                    policy: tolerances.TolerancePolicy) -> None:
  with faults.writing(call_dir):
    safe_files.make_dirs(call_dir)
  lines = [
      "# " + quoting.comment(
          f"Re-runs call {index} ({tar_call.method}) of trace '{tar_trace.function_name}' on "
          f"backend '{tar_trace.backend}' alone, from the module's initial state."),
      "# From this directory: iree-run-module --flagfile=flagfile",
      "--module=" + os.path.relpath(vmfb_path, call_dir),
      f"--device={driver}",
      f"--function={signature.name}",
  ]
  for i, value in enumerate(inputs):
    lines.append("--input=" + save_value(call_dir, f"input_{i}", value))
  for i, value in enumerate(expected):
    lines.append("--expected_output=" + save_value(call_dir, f"expected_output_{i}", value))
  lines += tolerance_flags(expected, tar_trace.backend_names, tar_call.given_rtol,
                           tar_call.given_atol, policy)
  safe_files.write_text(os.path.join(call_dir, "flagfile"), "\n".join(lines) + "\n")


def tolerance_flags(expected: Sequence[np.ndarray], backend_names: Sequence[str],
                    rtol: Optional[float], atol: Optional[float],
                    policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY) -> List[str]:
  """iree-run-module's --expected_<type>_threshold and --expected_rtol flags for comparing
  `expected` as the library compares it on `backend_names` (a call's own rtol/atol first)."""
  flags = []
  rtols = []
  for dtype_name in sorted({value.dtype.name for value in expected}):
    if dtype_name in THRESHOLD_FLAGS:
      tolerance = policy.for_dtype(numpy_dtype(dtype_name), backend_names, rtol, atol)
      flags.append(f"--expected_{THRESHOLD_FLAGS[dtype_name]}_threshold={tolerance.atol:g}")
      rtols.append(tolerance.rtol)
  if rtols:
    flags.append(f"--expected_rtol={max(rtols):g}")
  return flags
