"""Per-call reproduction files for iree-run-module: inputs, expected outputs and a flagfile.

Every call an IREE backend made in a compared trace gets a directory; on a mismatch the report ends
with the one command that re-runs that call alone against the saved .vmfb.
"""

import io
import os
from typing import Dict, List, Optional, Sequence

import numpy as np

from pyiree_tf_support import artifacts
from pyiree_tf_support import structure
from pyiree_tf_support import tolerances
from pyiree_tf_support.signatures import FunctionSignature, numpy_dtype
from pyiree_tf_support.traces import Trace

# iree-run-module's per-type absolute thresholds, by numpy dtype name.
_THRESHOLD_FLAGS = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}


def _mlir_element_type(dtype: np.dtype) -> str:
  if dtype == np.bool_:
    return "i1"
  return f"{'f' if dtype.kind == 'f' else 'i'}{dtype.itemsize * 8}"


def _save_value(call_dir: str, stem: str, array: np.ndarray) -> str:
  """Saves one value; returns the flag value iree-run-module reads it from.

  Floats go to .npy. iree-run-module reads numpy's integers as signed (si32) while compiled
  functions use signless integers (i32), so integers and bools go to raw .bin files with an
  explicit signless type.
  """
  array = np.asarray(array)  # np.ascontiguousarray would turn a 0-d array into shape [1].
  if array.dtype.kind == "f":
    name = stem + ".npy"
    with io.BytesIO() as buffer:
      np.save(buffer, array, allow_pickle=False)
      artifacts.write_bytes(os.path.join(call_dir, name), buffer.getvalue())
    return "@" + name
  name = stem + ".bin"
  artifacts.write_bytes(os.path.join(call_dir, name), array.tobytes())
  shape = "x".join(str(d) for d in array.shape)
  return f"{shape + 'x' if shape else ''}{_mlir_element_type(array.dtype)}=@{name}"


def write_call_repros(module_dir: str, ref_trace: Trace, tar_trace: Trace, vmfb_path: str,
                      driver: str, signatures: Dict[str, FunctionSignature]) -> List[Optional[str]]:
  """Writes one directory per call of `tar_trace`; returns each call's command (None if none)."""
  root = artifacts.repro_dir(module_dir, tar_trace.function_name, tar_trace.backend)
  commands: List[Optional[str]] = []
  for index, (tar_call, ref_call) in enumerate(zip(tar_trace.calls, ref_trace.calls)):
    try:
      commands.append(_write_call_repro(root, index, ref_call, tar_call, tar_trace, vmfb_path,
                                        driver, signatures))
    except Exception as e:  # named with its call, then the target's outcome.
      raise RuntimeError(f"call {index} ({tar_call.method}): {type(e).__name__}: {e}") from e
  artifacts.remove_other_entries(root, {_call_dir_name(index, call.method)
                                        for index, call in enumerate(tar_trace.calls)})
  return commands


def _call_dir_name(index: int, method: str) -> str:
  return f"call_{index}_{artifacts.safe_name(method)}"


def _write_call_repro(root: str, index: int, ref_call, tar_call, tar_trace: Trace,
                      vmfb_path: str, driver: str,
                      signatures: Dict[str, FunctionSignature]) -> Optional[str]:
  signature = signatures.get(tar_call.method)
  if signature is None:
    return None
  try:
    inputs = signature.flatten_inputs(tar_trace.module_name, tar_call.inputs, tar_call.kwargs)
  except (TypeError, ValueError):
    return None
  call_dir = os.path.join(root, _call_dir_name(index, tar_call.method))
  os.makedirs(call_dir, exist_ok=True)
  lines = [
      f"# Re-runs call {index} ({tar_call.method}) of trace '{tar_trace.function_name}' on "
      f"backend '{tar_trace.backend}' alone.",
      "# From this directory: iree-run-module --flagfile=flagfile",
      "# The module starts from its initial state: earlier calls of the trace are not replayed.",
      "--module=" + os.path.relpath(vmfb_path, call_dir),
      f"--device={driver}",
      f"--function={signature.name}",
  ]
  for i, value in enumerate(inputs):
    lines.append("--input=" + _save_value(call_dir, f"input_{i}", value))
  expected = [np.asarray(v) for v in structure.flatten(ref_call.outputs) if v is not None]
  for i, value in enumerate(expected):
    lines.append("--expected_output=" + _save_value(call_dir, f"expected_output_{i}", value))
  lines += _tolerance_flags(expected, tar_trace.backend_names, tar_call.rtol, tar_call.atol)
  flagfile = os.path.join(call_dir, "flagfile")
  artifacts.write_text(flagfile, "\n".join(lines) + "\n")
  return f"{artifacts.shell_cd(call_dir)} && iree-run-module --flagfile=flagfile"


def _tolerance_flags(expected: Sequence[np.ndarray], backend_names: Sequence[str],
                     rtol: Optional[float], atol: Optional[float]) -> List[str]:
  flags = []
  rtols = []
  for dtype_name in sorted({value.dtype.name for value in expected}):
    if dtype_name in _THRESHOLD_FLAGS:
      tolerance = tolerances.for_dtype(numpy_dtype(dtype_name), backend_names, rtol, atol)
      flags.append(f"--expected_{_THRESHOLD_FLAGS[dtype_name]}_threshold={tolerance.atol:g}")
      rtols.append(tolerance.rtol)
  if rtols:
    flags.append(f"--expected_rtol={max(rtols):g}")
  return flags
