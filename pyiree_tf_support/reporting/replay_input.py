"""What replay reads from disk, checked before anything runs: a reference trace and its module.

A replay is only worth its verdict if the files belong together. A target's own trace replayed
against its backend compares the backend with itself (a false pass); a trace beside an
iree_input.mlir imported later (an edited module, a run killed half-way) compares two different
programs (a false mismatch). Both are refused, as is any file that is unreadable, truncated,
incomplete or of another format version, each with one line naming the file and what is wrong.
Arrays are read with allow_pickle=False: a saved trace never runs code. They are checked a chunk
at a time and memory-mapped, never read whole (`mapped_npz`): loading a trace costs little more
than the pages of it that are used. Nothing below the module
directory is read through a symlink (a bundle's files are its own).

A module directory someone handed you is not trusted to hold only what the import writes: an
iree_input.mlir can name object files to link into a dispatch (`hal.executable` variants with
`objects([...])`, `#hal.executable.object` attributes) or bring executables of its own
(`flow.executable`), which compiling and running it would run as native code in this process.
The import writes none of IREE's executable dialects, so `refuse_hand_written_code` refuses
every loaded iree_input.mlir (text, or the text of its bytecode) that holds one. Its names
are data too: the reducer, split_dispatches and the repros write method and trace names into
Python and shell files, so a signatures.json or trace.json naming a function or trace by
anything a Python function cannot be named (`core.quoting`: `größe` is one) is refused.
"""

import dataclasses
import functools
import glob
import json
import os
import re
from typing import Any, Callable, Dict, NoReturn, Optional, Tuple

import numpy as np

from pyiree_tf_support.comparing import mapped_npz
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.core.signatures import signatures_from_json

_TRACE_KEYS = ("format", "module_name", "backend", "function_name", "calls")
_CALL_KEYS = ("method", "inputs", "kwargs", "outputs", "rtol", "atol")
_PROVENANCE_KEYS = ("reference", "iree_input_sha256", "arrays_sha256")


class ReplayError(ValueError):
  """Input replay does not trust: the one-line message names the file and what is wrong."""


@dataclasses.dataclass(frozen=True)
class ReplayInput:
  """A reference trace and the module files it was recorded with, checked to belong together.
  `iree_input` is the module's text, made when first read (a bundle's vmfbs run without it)."""
  trace_dir: str
  reference: Trace
  saved_iree_input: bytes  # iree_input.mlir as saved: text, or MLIR bytecode for a big module.
  signatures: Dict[str, FunctionSignature]
  to_text: Optional[Callable[[bytes], str]] = None  # MLIR bytecode -> text (IREE's parser).

  @functools.cached_property
  def iree_input(self) -> str:
    """The module's text, refused (ReplayError) when it holds code the import never writes."""
    path = os.path.join(os.path.dirname(os.path.dirname(self.trace_dir)), "iree_input.mlir")
    text = self._text(path)
    refuse_hand_written_code(text, path)
    return text

  def _text(self, path: str) -> str:
    if not artifacts.is_mlir_bytecode(self.saved_iree_input):
      try:
        return self.saved_iree_input.decode("utf-8")
      except UnicodeDecodeError as e:
        raise ReplayError(f"{path} is not UTF-8 text ({e}).") from None
    if self.to_text is None:
      raise ReplayError(f"{path} is MLIR bytecode; reading it needs IREE's compiler.")
    try:
      return self.to_text(self.saved_iree_input)
    except ImportError as e:
      raise ReplayError(f"{path} is MLIR bytecode, which needs IREE's compiler "
                        f"(iree-base-compiler) to read; this Python cannot import it ({e}).") \
          from None
    except ValueError as e:
      raise ReplayError(f"{path} is not valid MLIR bytecode ({e}).") from None


# IREE's dialects of executables, of objects to link into them and of the levels below (the VM,
# LLVM, codegen): ops, attributes (`#hal.executable.object`) and types (`!hal.device`). The
# import (TF -> StableHLO, ml_program, func, arith, tensor, shape, util) writes none of them.
_DIALECT = r"(?:hal|flow|stream|vm|llvm|iree_[a-z_]+)"
_EXECUTABLE_DIALECTS = _DIALECT + r"\.[A-Za-z_][\w.]*"
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # unrolled: a 100 MB constant is read at regex speed.
# Outside locations: a string (skipped whole, a generic op name checked), the start of a
# location (skipped to its end: file names are no code), a name of those dialects, or one of
# their attributes or types spelled `#hal<executable.object<...>>` (MLIR's dialect form).
_OUTSIDE_LOCATIONS = re.compile(_STRING + r"|(?<![\w$.@%#])loc\(|(?<![\w$.@%])#?"
                                + _EXECUTABLE_DIALECTS + r"|[#!]" + _DIALECT + "<")
_IN_LOCATION = re.compile(_STRING + r"|[()]")
_EXECUTABLE_NAME = re.compile(_EXECUTABLE_DIALECTS)


def _after_location(text: str, start: int) -> int:
  """Where the location whose `loc(` ends at `start` ends (strings inside skipped whole)."""
  depth = 1
  for match in _IN_LOCATION.finditer(text, start):
    token = match.group()
    depth += 1 if token == "(" else -1 if token == ")" else 0
    if not depth:
      return match.end()
  return len(text)


def hand_written_code(text: str) -> Optional[Tuple[str, int]]:
  """The first name of an executable dialect in the MLIR `text` and its line (None: none).

  One pass that tells strings and locations apart as MLIR's lexer does, so that neither a name
  inside a location (a file named hal.py) is taken for code nor a location or string is a place
  to hide an op; a string that is a whole such name is one (generic form: "hal.executable"())."""
  position = 0
  while True:
    match = _OUTSIDE_LOCATIONS.search(text, position)
    if match is None:
      return None
    token = match.group()
    if token == "loc(":
      position = _after_location(text, match.end())
      continue
    if token.startswith('"'):
      if not _EXECUTABLE_NAME.fullmatch(token[1:-1]):
        position = match.end()
        continue
      token = token[1:-1]
    name = token if token.endswith("<") else token.lstrip("#")
    return name, text.count("\n", 0, match.start()) + 1


def refuse_hand_written_code(text: str, path: str) -> None:
  """ReplayError (one line) when the loaded iree_input.mlir `text` (read from `path`) holds an
  op, attribute or type of an executable dialect, which only a hand-written file has."""
  found = hand_written_code(text)
  if found is not None:
    name, line = found
    raise ReplayError(
        f"{path} holds '{name}' (line {line} of its text), which this library's import never "
        "writes: a hand-written iree_input.mlir can link object files or executables into the "
        "module, which compiling and running it would run as native code here; refusing to "
        "compile it (re-run the test to make the module dir yourself, or compile the file with "
        "iree-compile only if you trust its author).")


_NAMES_VALID = ("valid: a Python identifier (letters, digits and _, not starting with a digit; "
                "non-ASCII letters too, as in größe), not a keyword")


def _refuse_name(path: str, what: str, name: object, valid: str = _NAMES_VALID) -> NoReturn:
  raise ReplayError(
      f"{path}: {what} {quoting.shown(str(name))} is not a name a test run gives ({valid}); a "
      "module dir's names are written into generated scripts, so it is refused.")


def refuse_unusable_trace_names(path: str, document: Dict[str, Any]) -> None:
  """ReplayError (one line naming `path` and the name) when the trace.json `document` names its
  trace or a call's method by what no trace or function of a run is named."""
  if not quoting.trace_name(document.get("function_name")):
    _refuse_name(path, "the trace", document.get("function_name"),
                 "valid: a function's name, as a Python identifier, or <lambda>, then the "
                 "test's and a number when two tests share it, joined by '.'")
  for call in document.get("calls") or ():
    method = call.get("method") if isinstance(call, dict) else None
    if not quoting.function_name(method):
      _refuse_name(path, "the method", method)


def refuse_unusable_signature_names(path: str, signatures: Dict[str, FunctionSignature]) -> None:
  """ReplayError (one line naming `path` and the name) when the signatures file names a function
  or an argument by what no Python function or argument is named."""
  for method, signature in signatures.items():
    for what, name in [("the function", method), ("the function", signature.name)] + [
        (f"an argument of {method}", arg) for arg in signature.arg_names]:
      if not quoting.function_name(name):
        _refuse_name(path, what, name)


def _read_bytes(path: str, what: str, module_dir: str) -> bytes:
  """`path` below `module_dir`, never read through a symlink: a bundle's files are its own (a
  link could make replay compare or run files from anywhere)."""
  try:
    return safe_files.read_bytes(path, root=module_dir)
  except safe_files.ArtifactsDirError as e:  # a link on the way, not a regular file: says which.
    raise ReplayError(str(e)) from None
  except OSError as e:
    raise ReplayError(f"Cannot read {what} {path}: {e.strerror}.") from None


def _read_document(path: str, module_dir: str) -> Dict[str, Any]:
  try:
    document = json.loads(_read_bytes(path, "the saved trace", module_dir))
  except (json.JSONDecodeError, UnicodeDecodeError) as e:
    raise ReplayError(f"{path} is not valid JSON ({e}).") from None
  if not isinstance(document, dict):
    raise ReplayError(f"{path} holds a JSON {type(document).__name__}, not a saved trace object.")
  if document.get("format") != trace_io.FORMAT_VERSION:
    raise ReplayError(f"{path} has format {document.get('format')!r}; this pyiree_tf_support "
                      f"reads format {trace_io.FORMAT_VERSION}.")
  missing = [key for key in _TRACE_KEYS if key not in document]
  if missing:
    raise ReplayError(f"{path} lacks the key(s) {', '.join(missing)}: not a complete saved trace.")
  if not isinstance(document["calls"], list):
    raise ReplayError(f"{path}: 'calls' is a {type(document['calls']).__name__}, not a list.")
  for i, call in enumerate(document["calls"]):
    missing = [key for key in _CALL_KEYS if not isinstance(call, dict) or key not in call]
    if missing:
      raise ReplayError(f"{path}: call {i} lacks the key(s) {', '.join(missing)}.")
  if any(key not in document for key in _PROVENANCE_KEYS):
    raise ReplayError(f"{path} does not record whether it is a reference trace nor which "
                      "iree_input.mlir it was recorded with (saved by an older pyiree_tf_support); "
                      "re-run the test to save it again.")
  return document


def _open_arrays(path: str, trace_json: str, recorded_sha256: Optional[str],
                 module_dir: str) -> Dict[str, np.ndarray]:
  """The arrays of arrays.npz, memory-mapped (`mapped_npz`), once every member is known to load
  without pickle, with its header, size and CRC right, and the file is the one trace.json
  names: checked a chunk at a time, never read whole."""
  try:
    file = safe_files.open_read(path, root=module_dir)
  except safe_files.ArtifactsDirError as e:  # a link on the way, not a regular file: says which.
    raise ReplayError(str(e)) from None
  except OSError as e:
    raise ReplayError(f"Cannot read the saved trace's arrays {path}: {e.strerror}.") from None
  try:
    npz = mapped_npz.Npz(file)
  except mapped_npz.ArchiveError as e:
    file.close()
    raise ReplayError(f"{path} is not a readable .npz archive, truncated or corrupt ({e}).") \
        from None
  with npz:
    try:
      npz.check()
      if npz.sha256() != recorded_sha256:
        raise ReplayError(f"{path} is not the arrays file {trace_json} was saved with (its "
                          "sha256 differs): the two were written by different runs; re-run the "
                          "test.")
      return npz.arrays()
    except mapped_npz.MemberError as e:
      what = "an object array, which replay never unpickles" if e.object_array else e.reason
      raise ReplayError(f"{path}: array '{e.key}' is {what}.") from None
    except OSError as e:
      raise ReplayError(f"Cannot read the saved trace's arrays {path}: {e.strerror}.") from None


def _reference_sibling(trace_dir: str, function_name: str) -> Optional[str]:
  """The saved reference trace of the same trace function, next to `trace_dir`, if there is one."""
  pattern = os.path.join(os.path.dirname(trace_dir), artifacts.safe_name(function_name) + "__*")
  for candidate in sorted(glob.glob(os.path.join(pattern, "trace.json"))):
    try:
      with open(candidate) as f:
        if json.load(f).get("reference") is True:
          return os.path.dirname(candidate)
    except (OSError, ValueError, AttributeError):
      continue
  return None


def _check_reference(trace_dir: str, trace_json: str, document: Dict[str, Any]) -> None:
  if document["reference"] is True:
    return
  sibling = _reference_sibling(trace_dir, str(document["function_name"]))
  hint = f"replay {sibling} instead" if sibling else "replay the reference backend's trace dir"
  raise ReplayError(f"{trace_json} is the trace of target backend '{document['backend']}', not "
                    f"of the reference: replaying it would compare that backend with itself; "
                    f"{hint}.")


def _check_iree_input(path: str, trace_json: str, recorded_sha256: Optional[str]) -> bytes:
  data = _read_bytes(path, "the module's", os.path.dirname(path))
  if recorded_sha256 is None:
    raise ReplayError(f"{trace_json} records no iree_input.mlir (the run that saved it compiled "
                      f"no IREE backend), so {path} cannot be trusted to be its module.")
  if trace_io.content_sha256(data) != recorded_sha256:
    raise ReplayError(f"{path} is not the module {trace_json} was recorded with (its sha256 "
                      "differs): the module was imported again after the trace was saved; "
                      "re-run the test to save matching artifacts.")
  if not artifacts.is_mlir_bytecode(data):
    try:
      data.decode("utf-8")
    except UnicodeDecodeError as e:
      raise ReplayError(f"{path} is not UTF-8 text ({e}).") from None
  return data


def _load_signatures(path: str) -> Dict[str, FunctionSignature]:
  data = _read_bytes(path, "the module's signatures", os.path.dirname(path))
  try:
    return signatures_from_json(data.decode("utf-8"))
  except (ValueError, KeyError, TypeError, AttributeError) as e:
    raise ReplayError(f"{path} is not a valid signatures file ({type(e).__name__}: {e}).") from None


def reference_trace_dir(path: str) -> str:
  """A reference trace dir: `path` itself, or the only one below a module dir's traces/ (what
  localize and reduce accept)."""
  path = os.path.abspath(path)
  if os.path.isfile(os.path.join(path, "trace.json")):
    return path
  found = []
  for candidate in sorted(glob.glob(os.path.join(path, "traces", "*", "trace.json"))):
    try:
      with open(candidate) as f:
        if json.load(f).get("reference") is True:
          found.append(os.path.dirname(candidate))
    except (OSError, ValueError, AttributeError):
      continue
  if len(found) == 1:
    return found[0]
  if not found:
    raise ReplayError(f"{path} is neither a saved trace dir (trace.json) nor a module dir "
                        "with one saved reference trace under traces/.")
  raise ReplayError(f"{path} holds {len(found)} reference traces; name one: "
                      + ", ".join(os.path.relpath(d, path) for d in found) + ".")


def load(trace_dir: str, to_text: Optional[Callable[[bytes], str]] = None) -> ReplayInput:
  """The reference trace saved in `trace_dir` and its module; ReplayError if any is
  untrustworthy. `to_text` reads a big module's iree_input.mlir saved as MLIR bytecode."""
  trace_dir = os.path.abspath(trace_dir)
  trace_json = os.path.join(trace_dir, "trace.json")
  if not os.path.isfile(trace_json):
    raise ReplayError(f"No saved trace in {trace_dir}: expected trace.json and arrays.npz "
                      "(a directory <artifacts_dir>/<Module>/traces/<trace>__<reference>_ref).")
  module_dir = os.path.dirname(os.path.dirname(trace_dir))
  document = _read_document(trace_json, module_dir)
  refuse_unusable_trace_names(trace_json, document)
  _check_reference(trace_dir, trace_json, document)
  arrays = _open_arrays(os.path.join(trace_dir, trace_io.ARRAYS_NAME), trace_json,
                        document["arrays_sha256"], module_dir)
  iree_input = _check_iree_input(os.path.join(module_dir, "iree_input.mlir"), trace_json,
                                 document["iree_input_sha256"])
  signatures_path = artifacts.signatures_path(module_dir)
  signatures = _load_signatures(signatures_path)
  refuse_unusable_signature_names(signatures_path, signatures)
  unknown = sorted({str(c["method"]) for c in document["calls"]} - set(signatures))
  if unknown:
    raise ReplayError(f"{signatures_path} has no function {', '.join(unknown)} that {trace_json} "
                      f"calls; its functions are: {', '.join(signatures) or 'none'}.")
  try:
    reference = trace_io.load_trace(trace_dir, arrays)
  except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
    raise ReplayError(f"{trace_json} does not decode against its arrays.npz "
                      f"({type(e).__name__}: {e}).") from None
  return ReplayInput(trace_dir, reference, iree_input, signatures, to_text)
