"""Compile here, run there: a self-contained bundle of a module's compiled backends and reference
traces, replayed on another machine without TensorFlow and without the compiler.

  python -m pyiree_tf_support.bundle <artifacts>/<Module> <bundle_dir> --target_backends=a,b

reads what a test run left in the module directory (iree_input.mlir, signatures.json, the
reference traces `traces/<trace>__<ref>_ref/`), compiles iree_input.mlir for every named backend
(no TensorFlow: the import already happened; no device: only compiling), and writes
`<bundle_dir>/<Module>/` with `compiled__<backend>.vmfb` per backend, those files, and
`manifest.json` naming each file with its SHA-256 and each backend with its compiler targets and
flags. On the other machine

  python -m pyiree_tf_support.replay <bundle_dir>/<Module>/traces/<trace>__tf_ref \\
      --target_backends=a,b

runs the bundled vmfbs (checked against the manifest; `--recompile` compiles instead) and prints
the report a live run prints.
"""

import glob
import hashlib
import json
import os
import secrets
import shutil
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from pyiree_tf_support import cli_flags
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.core.signatures import signatures_from_json
from pyiree_tf_support.reporting import replay_input

__all__ = ["FORMAT", "MANIFEST", "BundleError", "compiled_vmfb", "main", "write"]

FORMAT = "pyiree_tf_support.bundle/1"
MANIFEST = "manifest.json"
# A backend entry's {method: first error} of the methods that did not compile for it.
ABSENT = "absent_methods"


class BundleError(ValueError):
  """A bundle (or the module directory it is made from) that cannot be used; says which file."""


def _sha256(data: bytes) -> str:
  return hashlib.sha256(data).hexdigest()


def vmfb_name(backend_name: str) -> str:
  return f"compiled__{backend_name}.vmfb"


def _read(directory: str, relative: str, what: str) -> bytes:
  """A file below `directory`, never read through a symlink; BundleError naming it."""
  path = os.path.join(directory, relative)
  try:
    return safe_files.read_bytes(path, root=directory)
  except FileNotFoundError:
    raise BundleError(f"{path} ({what}) is missing.") from None
  except safe_files.ArtifactsDirError as e:  # a link on the way, not a regular file: says which.
    raise BundleError(str(e)) from None
  except OSError as e:
    raise BundleError(f"Cannot read {what} {path}: {e.strerror}.") from None


def write(module_dir: str, bundle_dir: str, target_backends: Sequence[str], cache=None) -> str:
  """Writes the bundle of `module_dir` for `target_backends` into `bundle_dir`; its module dir.

  Compiles every backend here (through `cache`); a module that does not compile whole is compiled
  method by method, as test runs do, and the manifest records each absent method with its first
  error. The bundle is written into a temporary directory beside its destination and renamed into
  place whole: a failure leaves no partial bundle (an older one there is kept). BundleError names
  what the module dir lacks, or a backend no method compiles for. Nothing is read or written
  through a symlink below either directory.
  """
  module_dir = os.path.abspath(module_dir)
  contents = _module_files(module_dir)
  from pyiree_tf_support.compiling import mlir_files
  try:
    iree_input = mlir_files.text(contents["iree_input.mlir"])
  except (UnicodeDecodeError, ValueError) as e:
    raise BundleError(f"{os.path.join(module_dir, 'iree_input.mlir')} is neither MLIR text nor "
                      f"MLIR bytecode ({e}).") from None
  try:  # a module dir someone handed over may link native code into what is compiled here,
    # or name functions by code that the replay's repros would write into scripts.
    replay_input.refuse_hand_written_code(iree_input, os.path.join(module_dir, "iree_input.mlir"))
    _refuse_unusable_names(module_dir, contents)
  except replay_input.ReplayError as e:
    raise BundleError(str(e)) from None
  module = os.path.basename(module_dir)
  root = safe_files.open_root(bundle_dir, "The bundle dir")
  compiled = {}
  for name in target_backends:
    vmfb, absent = _compile(iree_input, module, name, cache)
    contents[vmfb_name(name)] = vmfb
    spec = backends.lookup(name)
    compiled[name] = {"file": vmfb_name(name), "targets": list(spec.compiler_targets),
                      "flags": list(spec.compiler_flags)}
    if absent:
      compiled[name][ABSENT] = absent
  manifest = {"format": FORMAT, "module": module,
              "iree_compiler": _compiler_version(), "backends": compiled,
              "files": {p: _sha256(data) for p, data in contents.items()}}
  contents[MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8")
  out = os.path.join(root, module)
  staging = os.path.join(root, f".tmp-{module}-{secrets.token_hex(6)}")
  try:
    for relative, data in contents.items():
      safe_files.write_bytes(os.path.join(staging, relative), data)
    safe_files.replace_dir(staging, out)
  finally:
    shutil.rmtree(staging, ignore_errors=True)
  return out


def _module_files(module_dir: str) -> Dict[str, bytes]:
  """The files of `module_dir` a bundle holds, by relative path; BundleError naming what lacks."""
  traces = sorted(glob.glob(os.path.join(module_dir, "traces", "*_ref", "trace.json")))
  needed = [os.path.join(module_dir, "iree_input.mlir"), artifacts.signatures_path(module_dir)]
  missing = [p for p in needed if not os.path.isfile(p)] + ([] if traces else [
      os.path.join(module_dir, "traces", "<trace>__<reference>_ref")])
  if missing:
    raise BundleError(f"{module_dir} is not a module directory a test run left: missing "
                      f"{', '.join(missing)}.")
  relatives = [os.path.relpath(p, module_dir) for p in needed]
  for trace_json in traces:
    relative = os.path.relpath(os.path.dirname(trace_json), module_dir)
    relatives += [os.path.join(relative, name) for name in ("trace.json", "arrays.npz")]
  return {relative: _read(module_dir, relative, "a file of the module directory")
          for relative in relatives}


def _refuse_unusable_names(module_dir: str, contents: Dict[str, bytes]) -> None:
  """ReplayError when signatures.json or a trace.json names a function or trace by what no test
  run names one (replay refuses it too; the bundle is not made to carry it elsewhere)."""
  for relative, data in contents.items():
    path = os.path.join(module_dir, relative)
    is_signatures = path == artifacts.signatures_path(module_dir)
    if not is_signatures and os.path.basename(relative) != "trace.json":
      continue
    try:
      document = signatures_from_json(data.decode("utf-8")) if is_signatures else json.loads(data)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
      raise BundleError(f"{path} is not valid ({type(e).__name__}: {e}).") from None
    if is_signatures:
      replay_input.refuse_unusable_signature_names(path, document)
    elif isinstance(document, dict):
      replay_input.refuse_unusable_trace_names(path, document)


def _compile(iree_input: str, module: str, name: str, cache) -> Tuple[bytes, Dict[str, str]]:
  """The vmfb of `module` for backend `name` and its absent methods ({method: first error}):
  the whole module, else the methods that compile (as a test run falls back). BundleError when
  none does; CompileError when the compile timed out."""
  from pyiree_tf_support.compiling import compiler
  from pyiree_tf_support.compiling import method_compiles
  spec = backends.lookup(name)
  request = compiler.CompileRequest(iree_input, spec.compiler_targets, spec.compiler_flags)
  description = f"module '{module}' for {name}"
  try:
    return compiler.compile_request(request, description, cache=cache), {}
  except compiler.CompileTimeoutError:
    raise  # says nothing about any method; compiling each alone would only wait longer.
  except compiler.CompileError as e:
    vmfb, record = method_compiles.compile_each_method(
        request, e, name, description,
        lambda alone, what, _: compiler.compile_request(alone, what, cache=cache))
    if vmfb is None:
      raise BundleError(f"No method of module '{module}' compiles for {name}: "
                        f"{_one_line(e.reason or str(e))}") from None
    return vmfb, {failure.method: _one_line(failure.reason) for failure in record.failed}


def _one_line(text: str) -> str:
  return " ".join(text.split())


def _compiler_version() -> str:
  from iree.compiler import version
  return version.VERSION


def _plain_name(name: str) -> bool:
  """A file name in the bundle's own directory: no directory part, '..', absolute path or NUL."""
  return name == os.path.basename(name) and name not in ("", ".", "..") and "\0" not in name


def _manifest_problem(manifest: Any) -> str:
  """What makes `manifest` unusable ("" when nothing does)."""
  if not isinstance(manifest, dict):
    return f"it holds a JSON {type(manifest).__name__}, not an object"
  if manifest.get("format") != FORMAT:
    return f"its format is {manifest.get('format')!r}"
  compiled, files = manifest.get("backends"), manifest.get("files")
  if not isinstance(compiled, dict) or not isinstance(files, dict):
    return "'backends' and 'files' must be objects"
  for name, entry in compiled.items():
    file = entry.get("file") if isinstance(entry, dict) else None
    if not isinstance(file, str):
      return f"backend '{name}' names no file"
    if not _plain_name(file):
      return (f"backend '{name}' names the file {file!r}, outside the bundle's directory (a "
              "bundle's vmfbs are plain file names beside manifest.json)")
    if not isinstance(files.get(file), str):
      return f"'files' records no SHA-256 of {file}"
    absent = entry.get(ABSENT, {})
    if not isinstance(absent, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in absent.items()):
      return f"backend '{name}' has '{ABSENT}' that is not an object of method names to errors"
  return ""


def _manifest(module_dir: str) -> Optional[Dict[str, Any]]:
  """The checked manifest of the bundle `module_dir`; None if it is not a bundle."""
  path = os.path.join(module_dir, MANIFEST)
  if not os.path.lexists(path):
    return None
  data = _read(module_dir, MANIFEST, "the bundle's manifest")
  try:
    manifest = json.loads(data)
  except ValueError as e:
    raise BundleError(f"{path} is not a {FORMAT} manifest: not JSON ({e}).") from None
  problem = _manifest_problem(manifest)
  if problem:
    raise BundleError(f"{path} is not a usable {FORMAT} manifest: {problem}.")
  return manifest


def bundled_backends(module_dir: str) -> Optional[List[str]]:
  """The backends the bundle `module_dir` holds, as its manifest names them; None if it is not a
  bundle (BundleError if its manifest is unusable)."""
  manifest = _manifest(module_dir)
  return None if manifest is None else sorted(manifest["backends"])


def absent_methods(module_dir: str, backend_name: str) -> Dict[str, str]:
  """{method: its first error} for the methods the bundle's `backend_name` lacks because they did
  not compile; empty when every method is there or `module_dir` is not a bundle."""
  manifest = _manifest(module_dir)
  entry = {} if manifest is None else manifest["backends"].get(backend_name, {})
  return dict(entry.get(ABSENT, {}))


def compiled_vmfb(module_dir: str, backend_name: str) -> Optional[bytes]:
  """The bundled vmfb of `backend_name`, checked against the manifest; None if `module_dir` is
  not a bundle. BundleError when it is one without that backend, with a missing or changed file,
  a file outside its directory or a symlink."""
  manifest = _manifest(module_dir)
  if manifest is None:
    return None
  path = os.path.join(module_dir, MANIFEST)
  entry = manifest["backends"].get(backend_name)
  if entry is None:
    raise BundleError(f"{path} has no compiled '{backend_name}'; bundled: "
                      f"{', '.join(sorted(manifest['backends'])) or 'none'} (or pass --recompile).")
  vmfb = _read(module_dir, entry["file"], f"the bundle's compiled '{backend_name}'")
  if _sha256(vmfb) != manifest["files"][entry["file"]]:
    raise BundleError(f"{os.path.join(module_dir, entry['file'])} does not match the SHA-256 in "
                      f"{path}.")
  return vmfb


def main(argv: Sequence[str]) -> int:
  targets = cli_flags.target_backend_names()
  if len(argv) != 3 or not targets:
    print("usage: python -m pyiree_tf_support.bundle <artifacts_dir>/<Module> <bundle_dir> "
          "--target_backends=a,b", file=sys.stderr)
    return 2
  verbosity.apply(cli_flags.verbose())  # IREE's tool invocations only with --verbose.
  from pyiree_tf_support.compiling import compiler
  try:
    out = write(argv[1], argv[2], targets, cli_flags.compile_cache_from_flags())
  except (BundleError, KeyError, safe_files.ArtifactsDirError, compiler.CompileError,
          OSError) as e:  # one line; no bundle, not even part of one, was left.
    message = str(e.args[0] if isinstance(e, KeyError) else e)
    print("bundle: " + _one_line(message), file=sys.stderr)
    return 2
  for name in targets:
    absent = absent_methods(out, name)
    if absent:
      print(f"bundle: {name} lacks the method(s) that did not compile: {', '.join(absent)} "
            f"(their errors are in {os.path.join(out, MANIFEST)}).", file=sys.stderr)
  print(out)
  return 0


if __name__ == "__main__":
  from absl import app
  app.run(main, flags_parser=cli_flags.command_line_parser("bundle"))
