"""Saving and loading traces as JSON (structure, methods, tolerances) plus .npz (arrays).

Never pickle: a saved trace can be read by any process, including one without TensorFlow.

A target's arrays that are the reference's own (`recorded_values` shares those holding the same
bits: its inputs, and the outputs of a target that agrees bit for bit) are not written again: its
trace.json names them in the reference's arrays.npz beside it, with that file's hash, so each
value is on disk once (a passing file once wrote every input once per backend).
"""

import dataclasses
import hashlib
import json
import os
from typing import Any, BinaryIO, Dict, List, Optional, Tuple, Union

import numpy as np

from pyiree_tf_support.comparing import mapped_npz
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import signatures
from pyiree_tf_support.core import structure

FORMAT_VERSION = 1
ARRAYS_NAME = "arrays.npz"  # beside trace.json: every array of every call, in call order.
_PY_TYPES = {"float": float, "int": int, "bool": bool, "str": str, "bytes": bytes}


# Arrays of at most this many elements are stored as rows of one entry per dtype and shape: an
# npz entry costs ~0.1 ms to write and read, seconds for a 3000-call trace of small arrays.
_STACKED_ELEMENTS = 1024


@dataclasses.dataclass(frozen=True)
class SavedReference:
  """Where the reference's trace was saved and its arrays by identity, for its targets."""
  directory: str
  arrays_sha256: str
  specs: Dict[int, Tuple[Any, Dict[str, Any]]]  # id(array) -> (the array, its spec there)


class _Arrays:
  """The entries of one arrays.npz: a big array is its own entry (a0, a1, ...); small ones of one
  dtype and shape are rows of one stacked entry (s0, s1, ...), named by key and row."""

  def __init__(self):
    self._entries: Dict[str, np.ndarray] = {}
    self._stacks: Dict[Tuple[str, Tuple[int, ...]], Tuple[str, List[np.ndarray]]] = {}

  def add(self, array: np.ndarray) -> Dict[str, Any]:
    if array.size <= _STACKED_ELEMENTS and not array.dtype.hasobject:
      stack = (array.dtype.str, array.shape)
      if stack not in self._stacks:
        self._stacks[stack] = (f"s{len(self._stacks)}", [])
      key, rows = self._stacks[stack]
      rows.append(array)
      return {"array": key, "row": len(rows) - 1}
    key = f"a{len(self._entries)}"
    self._entries[key] = array
    return {"array": key}

  def entries(self) -> Dict[str, np.ndarray]:
    return {**self._entries, **{key: np.stack(rows) for key, rows in self._stacks.values()}}


def _encode(value: Any, arrays: _Arrays, shared: Optional[SavedReference],
            written: List[Tuple[Any, Dict[str, Any]]], named: List[Dict[str, Any]]) -> Any:
  """The JSON spec of `value` (see `structure`); its leaves go into `arrays`, except arrays of
  `shared` (named by their spec there, and listed in `named`); `written` gets (leaf, spec)
  pairs."""

  def leaf_spec(leaf: Any) -> Any:
    if leaf is None:
      return None
    known = shared.specs.get(id(leaf)) if shared is not None else None
    if known is not None and known[0] is leaf:
      named.append(known[1])
      return {**known[1], "shared": True}
    array = np.asarray(leaf)
    object_strings = array.dtype.kind == "O"
    if object_strings:  # TF strings: stored as fixed-width bytes, restored as objects.
      array = array.astype(bytes)
    spec = arrays.add(array)
    if object_strings:
      spec["object"] = True
    elif array.dtype.kind == "V":  # ml_dtypes' bfloat16 & co.: .npy keeps only their bytes.
      spec["dtype"] = array.dtype.name
    written.append((leaf, dict(spec)))
    if not isinstance(leaf, (np.ndarray, np.generic)):
      spec["py"] = type(leaf).__name__
    return spec

  return structure.encode(value, leaf_spec)


def _decode(spec: Any, arrays: Dict[str, np.ndarray],
            shared: Optional[Dict[str, np.ndarray]] = None) -> Any:

  def leaf(leaf_spec: Any) -> Any:
    source = shared if leaf_spec.get("shared") else arrays
    if source is None:
      raise ValueError("the trace shares arrays with another trace, whose arrays were not given")
    array = source[leaf_spec["array"]]
    if "row" in leaf_spec:
      array = np.array(array[int(leaf_spec["row"]), ...])  # its own copy, 0-d rows included.
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


def _calls(trace: Trace, arrays: _Arrays, shared: Optional[SavedReference],
           written: List[Tuple[Any, Dict[str, Any]]], named: List[Dict[str, Any]]
           ) -> List[Dict[str, Any]]:
  return [{
      "method": call.method,
      "inputs": _encode(list(call.inputs), arrays, shared, written, named),
      "kwargs": _encode(call.kwargs, arrays, shared, written, named),
      "outputs": _encode(call.result, arrays, shared, written, named),
      "rtol": call.given_rtol,
      "atol": call.given_atol,
  } for call in trace.calls]


def save_trace(trace: Trace, directory: str, reference: bool = False,
               iree_input: Optional[str] = None,
               shared: Optional[SavedReference] = None,
               iree_input_sha256: Optional[str] = None) -> SavedReference:
  """Writes trace.json and arrays.npz into `directory` (atomically, file by file); returns what
  a target's `save_trace(..., shared=)` needs to name this trace's arrays instead of copying them.

  `reference` and the hash of `iree_input` let replay refuse a target's trace or a module
  directory whose iree_input.mlir was rewritten after the trace was saved. `shared` (the saved
  reference, in a sibling directory) holds the arrays this trace shares with it.
  `iree_input_sha256`, when given, is the hash of iree_input.mlir as saved (MLIR bytecode for a
  big module: not the text's).
  """
  arrays = _Arrays()
  written: List[Tuple[Any, Dict[str, Any]]] = []
  named: List[Dict[str, Any]] = []  # specs in the reference's file, as encoding finds them.
  calls = _calls(trace, arrays, shared, written, named)
  document = {
      "format": FORMAT_VERSION,
      "module_name": trace.module_name,
      "backend": trace.backend,
      "backend_names": list(trace.backend_names),
      "function_name": trace.function_name,
      "calls": calls,
      "reference": reference,
      "iree_input_sha256": iree_input_sha256 or (
          None if iree_input is None else content_sha256(iree_input)),
  }
  digest = []

  def fill(npz: BinaryIO) -> None:
    # Uncompressed, straight to the file: big arrays are not copied (small ones are, once, into
    # their stack). No object arrays (strings are bytes here): nothing pickled, as load reads.
    np.savez(npz, allow_pickle=False, **arrays.entries())
    npz.seek(0)
    # typeshed's file_digest wants readinto, which typing.BinaryIO does not declare; write_with
    # passes a buffered file, which has it.
    sha256 = hashlib.file_digest(npz, "sha256")  # pyright: ignore[reportArgumentType]
    digest.append(sha256.hexdigest())

  safe_files.write_with(os.path.join(directory, ARRAYS_NAME), fill)
  document["arrays_sha256"] = digest[0]  # the arrays are written first: the two must pair up.
  if named:  # arrays it names in the reference's file: which one, as it was.
    assert shared is not None  # only a trace given one names arrays in it.
    document["shared_arrays"] = {"trace": os.path.basename(shared.directory),
                                 "arrays_sha256": shared.arrays_sha256}
  # One line: json's C encoder (indented output is its pure-Python one: seconds for long traces).
  safe_files.write_text(os.path.join(directory, "trace.json"), json.dumps(document))
  return SavedReference(directory, digest[0], {
      id(leaf): (leaf, spec) for leaf, spec in written if isinstance(leaf, np.ndarray)})


def _shared_arrays(directory: str, document: Dict[str, Any]) -> Optional[Dict[str, np.ndarray]]:
  """The arrays of the reference trace `document` shares, checked to be the ones it was saved
  with; ValueError naming the trace otherwise."""
  shared = document.get("shared_arrays")
  if shared is None:
    return None
  name = str(shared.get("trace", ""))
  if not name or os.path.basename(name) != name or name in (".", ".."):
    raise ValueError(f"{directory}/trace.json names no sibling trace to share arrays with: "
                     f"{name!r}.")
  path = os.path.join(os.path.dirname(os.path.abspath(directory)), name, ARRAYS_NAME)
  try:
    npz = mapped_npz.Npz.open(path)
  except FileNotFoundError:
    raise ValueError(f"{directory} shares arrays with {path}, which is missing.") from None
  except mapped_npz.ArchiveError as e:
    raise ValueError(f"{path} is not a readable .npz archive ({e}).") from None
  with npz:
    if npz.sha256() != shared.get("arrays_sha256"):
      raise ValueError(f"{directory} shares arrays with {path}, rewritten since by another run "
                       "of the trace: run the test again for a consistent pair.")
    return _arrays(npz, path)


def _arrays(npz: mapped_npz.Npz, path: str) -> Dict[str, np.ndarray]:
  try:
    return npz.arrays()
  except mapped_npz.MemberError as e:
    raise ValueError(f"{path}: {e}.") from None


def load_trace(directory: str, arrays: Optional[Dict[str, np.ndarray]] = None) -> Trace:
  """The trace saved by `save_trace` in `directory`. Its arrays are read-only, memory-mapped
  from arrays.npz once its members' headers, sizes and CRCs are checked (`mapped_npz`);
  `arrays`: those of its arrays.npz, when the caller opened and checked it already."""
  with open(os.path.join(directory, "trace.json")) as f:
    document = json.load(f)
  if document.get("format") != FORMAT_VERSION:
    raise ValueError(f"{directory}/trace.json has format {document.get('format')}, "
                     f"this library reads format {FORMAT_VERSION}.")
  if arrays is None:
    path = os.path.join(directory, ARRAYS_NAME)
    try:
      npz = mapped_npz.Npz.open(path)
    except mapped_npz.ArchiveError as e:
      raise ValueError(f"{path} is not a readable .npz archive ({e}).") from None
    with npz:
      arrays = _arrays(npz, path)
  shared = _shared_arrays(directory, document)
  trace = Trace(module_name=document["module_name"], backend=document["backend"],
                function_name=document["function_name"],
                backend_names=document.get("backend_names", ()))
  for call in document["calls"]:
    trace.calls.append(ModuleCall(call["method"], _decode(call["inputs"], arrays, shared),
                                  _decode(call["outputs"], arrays, shared), call["rtol"],
                                  call["atol"], _decode(call["kwargs"], arrays, shared),
                                  copy_values=False))  # decoded: the trace's own values.
  return trace
