"""Saving and loading traces as JSON (structure, methods, tolerances) plus .npz (arrays).

Never pickle: a saved trace can be read by any process, including one without TensorFlow.
"""

import hashlib
import io
import json
import os
from typing import Any, Dict, Optional, Union

import numpy as np

from pyiree_tf_support import artifacts
from pyiree_tf_support.traces import ModuleCall, Trace

FORMAT_VERSION = 1
_PY_TYPES = {"float": float, "int": int, "bool": bool, "str": str, "bytes": bytes}


def _encode(value: Any, arrays: Dict[str, np.ndarray], prefix: str) -> Any:
  if value is None:
    return None
  if isinstance(value, dict):
    return {"dict": [[key, _encode(v, arrays, f"{prefix}.{i}")]
                     for i, (key, v) in enumerate(value.items())]}
  if isinstance(value, (list, tuple)):
    kind = "list" if isinstance(value, list) else "tuple"
    return {kind: [_encode(v, arrays, f"{prefix}.{i}") for i, v in enumerate(value)]}
  key = f"a{len(arrays)}"
  array = np.asarray(value)
  leaf = {"array": key}
  if array.dtype == object:  # TF strings: stored as fixed-width bytes, restored as objects.
    array = array.astype(bytes)
    leaf["object"] = True
  arrays[key] = array
  if not isinstance(value, (np.ndarray, np.generic)):
    leaf["py"] = type(value).__name__
  return leaf


def _decode(spec: Any, arrays: Dict[str, np.ndarray]) -> Any:
  if spec is None:
    return None
  if "dict" in spec:
    return {key: _decode(sub, arrays) for key, sub in spec["dict"]}
  if "list" in spec:
    return [_decode(sub, arrays) for sub in spec["list"]]
  if "tuple" in spec:
    return tuple(_decode(sub, arrays) for sub in spec["tuple"])
  array = arrays[spec["array"]]
  if spec.get("object"):
    array = array.astype(object)
  py_type = _PY_TYPES.get(spec.get("py", ""))
  return py_type(array.item()) if py_type else array


def content_sha256(data: Union[str, bytes]) -> str:
  """The hash a saved trace keeps of the iree_input.mlir it was recorded with (text as UTF-8)."""
  return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def save_trace(trace: Trace, directory: str, reference: bool = False,
               iree_input: Optional[str] = None) -> None:
  """Writes trace.json and arrays.npz into `directory` (atomically, file by file).

  `reference` and the hash of `iree_input` let replay refuse a target's trace or a module
  directory whose iree_input.mlir was rewritten after the trace was saved.
  """
  arrays: Dict[str, np.ndarray] = {}
  calls = [{
      "method": call.method,
      "inputs": _encode(list(call.inputs), arrays, "in"),
      "kwargs": _encode(call.kwargs, arrays, "kw"),
      "outputs": _encode(call.result, arrays, "out"),
      "rtol": call.given_rtol,
      "atol": call.given_atol,
  } for call in trace.calls]
  document = {
      "format": FORMAT_VERSION,
      "module_name": trace.module_name,
      "backend": trace.backend,
      "backend_names": list(trace.backend_names),
      "function_name": trace.function_name,
      "calls": calls,
      "reference": reference,
      "iree_input_sha256": None if iree_input is None else content_sha256(iree_input),
  }
  buffer = io.BytesIO()
  np.savez(buffer, **arrays)
  document["arrays_sha256"] = content_sha256(buffer.getvalue())  # written first, must pair up.
  artifacts.write_bytes(os.path.join(directory, "arrays.npz"), buffer.getvalue())
  artifacts.write_text(os.path.join(directory, "trace.json"), json.dumps(document, indent=1))


def load_trace(directory: str) -> Trace:
  """The trace saved by `save_trace` in `directory`."""
  with open(os.path.join(directory, "trace.json")) as f:
    document = json.load(f)
  if document.get("format") != FORMAT_VERSION:
    raise ValueError(f"{directory}/trace.json has format {document.get('format')}, "
                     f"this library reads format {FORMAT_VERSION}.")
  with np.load(os.path.join(directory, "arrays.npz"), allow_pickle=False) as npz:
    arrays = {key: npz[key] for key in npz.files}
  trace = Trace(module_name=document["module_name"], backend=document["backend"],
                function_name=document["function_name"],
                backend_names=document.get("backend_names", ()))
  for call in document["calls"]:
    trace.calls.append(ModuleCall(call["method"], _decode(call["inputs"], arrays),
                                  _decode(call["outputs"], arrays), call["rtol"], call["atol"],
                                  _decode(call["kwargs"], arrays)))
  return trace
