"""Saving and loading traces as JSON (structure, methods, tolerances) plus .npz (arrays).

Never pickle: a saved trace can be read by any process, including one without TensorFlow.
"""

import hashlib
import json
import os
from typing import Any, BinaryIO, Dict, Optional, Union

import numpy as np

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import signatures
from pyiree_tf_support.core import structure
from pyiree_tf_support.comparing.traces import ModuleCall, Trace

FORMAT_VERSION = 1
ARRAYS_NAME = "arrays.npz"  # beside trace.json: every array of every call, in call order.
_PY_TYPES = {"float": float, "int": int, "bool": bool, "str": str, "bytes": bytes}


def _encode(value: Any, arrays: Dict[str, np.ndarray]) -> Any:
  """The JSON spec of `value` (see `structure`); its leaves go into `arrays` as a0, a1, ..."""

  def leaf_spec(leaf: Any) -> Any:
    if leaf is None:
      return None
    key = f"a{len(arrays)}"
    array = np.asarray(leaf)
    spec = {"array": key}
    if array.dtype == object:  # TF strings: stored as fixed-width bytes, restored as objects.
      array = array.astype(bytes)
      spec["object"] = True
    elif array.dtype.kind == "V":  # ml_dtypes' bfloat16 & co.: .npy keeps only their bytes.
      spec["dtype"] = array.dtype.name
    arrays[key] = array
    if not isinstance(leaf, (np.ndarray, np.generic)):
      spec["py"] = type(leaf).__name__
    return spec

  return structure.encode(value, leaf_spec)


def _decode(spec: Any, arrays: Dict[str, np.ndarray]) -> Any:

  def leaf(leaf_spec: Any) -> Any:
    array = arrays[leaf_spec["array"]]
    if leaf_spec.get("object"):
      array = array.astype(object)
    elif "dtype" in leaf_spec:
      array = array.view(signatures.numpy_dtype(leaf_spec["dtype"]))
    py_type = _PY_TYPES.get(leaf_spec.get("py", ""))
    return py_type(array.item()) if py_type else array

  return structure.decode(spec, leaf)


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
      "inputs": _encode(list(call.inputs), arrays),
      "kwargs": _encode(call.kwargs, arrays),
      "outputs": _encode(call.result, arrays),
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
  digest = []

  def fill(npz: BinaryIO) -> None:
    np.savez(npz, **arrays)  # uncompressed, straight to the file: no copy of the arrays.
    npz.seek(0)
    digest.append(hashlib.file_digest(npz, "sha256").hexdigest())

  artifacts.write_with(os.path.join(directory, ARRAYS_NAME), fill)
  document["arrays_sha256"] = digest[0]  # the arrays are written first: the two must pair up.
  artifacts.write_text(os.path.join(directory, "trace.json"), json.dumps(document, indent=1))


def load_trace(directory: str) -> Trace:
  """The trace saved by `save_trace` in `directory`."""
  with open(os.path.join(directory, "trace.json")) as f:
    document = json.load(f)
  if document.get("format") != FORMAT_VERSION:
    raise ValueError(f"{directory}/trace.json has format {document.get('format')}, "
                     f"this library reads format {FORMAT_VERSION}.")
  with np.load(os.path.join(directory, ARRAYS_NAME), allow_pickle=False) as npz:
    arrays = {key: npz[key] for key in npz.files}
  trace = Trace(module_name=document["module_name"], backend=document["backend"],
                function_name=document["function_name"],
                backend_names=document.get("backend_names", ()))
  for call in document["calls"]:
    trace.calls.append(ModuleCall(call["method"], _decode(call["inputs"], arrays),
                                  _decode(call["outputs"], arrays), call["rtol"], call["atol"],
                                  _decode(call["kwargs"], arrays)))
  return trace
