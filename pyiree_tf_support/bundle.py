"""Compile here, run there: a self-contained bundle of a module's compiled backends and reference
traces, replayed on another machine without TensorFlow and without the compiler.

  python -m pyiree_tf_support.bundle <artifacts>/<Module> <bundle_dir> --target_backends=a,b

reads what a test run left in the module directory (iree_input.mlir, signatures.json, the
reference traces `traces/<trace>__<ref>_ref/`), compiles iree_input.mlir for every named backend
(no TensorFlow: the import already happened; no device: only compiling), and writes
`<bundle_dir>/<Module>/` with `compiled__<backend>.vmfb` per backend, those files, and
`manifest.json` naming each file with its SHA-256 and each backend with its compiler targets and
flags. On the other machine
`python -m pyiree_tf_support.replay <bundle_dir>/<Module>/traces/<trace>__tf_ref --target_backends=a,b`
runs the bundled vmfbs (checked against the manifest; `--recompile` compiles instead) and prints
the report a live run prints.
"""

import glob
import hashlib
import json
import os
import shutil
import sys
from typing import Optional, Sequence

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support import cli_flags

FORMAT = "pyiree_tf_support.bundle/1"
MANIFEST = "manifest.json"


class BundleError(ValueError):
  """A bundle (or the module directory it is made from) that cannot be used; says which file."""


def _sha256(path: str) -> str:
  with open(path, "rb") as f:
    return hashlib.sha256(f.read()).hexdigest()


def vmfb_name(backend_name: str) -> str:
  return f"compiled__{backend_name}.vmfb"


def write(module_dir: str, bundle_dir: str, target_backends: Sequence[str], cache=None) -> str:
  """Writes the bundle of `module_dir` for `target_backends` into `bundle_dir`; its module dir.

  Compiles every backend here (through `cache`); BundleError names what the module dir lacks.
  """
  from pyiree_tf_support.compiling import compiler  # pylint: disable=import-outside-toplevel
  module_dir = os.path.abspath(module_dir)
  traces = sorted(glob.glob(os.path.join(module_dir, "traces", "*_ref", "trace.json")))
  needed = [os.path.join(module_dir, "iree_input.mlir"), artifacts.signatures_path(module_dir)]
  missing = [p for p in needed if not os.path.isfile(p)] + ([] if traces else [
      os.path.join(module_dir, "traces", "<trace>__<reference>_ref")])
  if missing:
    raise BundleError(f"{module_dir} is not a module directory a test run left: missing "
                      f"{', '.join(missing)}.")
  out = os.path.join(os.path.abspath(bundle_dir), os.path.basename(module_dir))
  os.makedirs(out, exist_ok=True)
  files = [os.path.relpath(p, module_dir) for p in needed]
  for trace_json in traces:
    trace_dir = os.path.dirname(trace_json)
    relative = os.path.relpath(trace_dir, module_dir)
    shutil.copytree(trace_dir, os.path.join(out, relative), dirs_exist_ok=True)
    files += [os.path.join(relative, name) for name in ("trace.json", "arrays.npz")]
  for relative in files[:2]:
    shutil.copy(os.path.join(module_dir, relative), os.path.join(out, relative))
  with open(os.path.join(module_dir, "iree_input.mlir")) as f:
    iree_input = f.read()
  compiled = {}
  for name in target_backends:
    spec = backends.lookup(name)
    request = compiler.CompileRequest(iree_input, spec.compiler_targets, spec.compiler_flags)
    vmfb = compiler.compile_request(request, f"module '{os.path.basename(module_dir)}' for {name}",
                                    cache=cache)
    artifacts.write_bytes(os.path.join(out, vmfb_name(name)), vmfb)
    compiled[name] = {"file": vmfb_name(name), "targets": list(spec.compiler_targets),
                      "flags": list(spec.compiler_flags)}
  manifest = {"format": FORMAT, "module": os.path.basename(module_dir),
              "iree_compiler": _compiler_version(), "backends": compiled,
              "files": {p: _sha256(os.path.join(out, p))
                        for p in files + [c["file"] for c in compiled.values()]}}
  artifacts.write_text(os.path.join(out, MANIFEST), json.dumps(manifest, indent=1, sort_keys=True))
  return out


def _compiler_version() -> str:
  from iree.compiler import version  # pylint: disable=import-outside-toplevel
  return version.VERSION


def compiled_vmfb(module_dir: str, backend_name: str) -> Optional[bytes]:
  """The bundled vmfb of `backend_name`, checked against the manifest; None if `module_dir` is
  not a bundle. BundleError when it is one without that backend or with a changed file."""
  path = os.path.join(module_dir, MANIFEST)
  if not os.path.isfile(path):
    return None
  try:
    with open(path) as f:
      manifest = json.load(f)
    entry = manifest["backends"].get(backend_name) if manifest.get("format") == FORMAT else None
  except (OSError, ValueError, KeyError, AttributeError) as e:
    raise BundleError(f"{path} is not a {FORMAT} manifest ({e}).") from None
  if entry is None:
    raise BundleError(f"{path} has no compiled '{backend_name}'; bundled: "
                      f"{', '.join(sorted(manifest['backends'])) or 'none'} (or pass --recompile).")
  vmfb_path = os.path.join(module_dir, entry["file"])
  with open(vmfb_path, "rb") as f:
    vmfb = f.read()
  if hashlib.sha256(vmfb).hexdigest() != manifest["files"].get(entry["file"]):
    raise BundleError(f"{vmfb_path} does not match the SHA-256 in {path}.")
  return vmfb


def main(argv: Sequence[str]) -> int:
  targets = cli_flags.target_backend_names()
  if len(argv) != 3 or not targets:
    print("usage: python -m pyiree_tf_support.bundle <artifacts_dir>/<Module> <bundle_dir> "
          "--target_backends=a,b", file=sys.stderr)
    return 2
  try:
    out = write(argv[1], argv[2], targets, cli_flags.compile_cache_from_flags())
  except (BundleError, KeyError) as e:
    print("bundle: " + str(e.args[0] if isinstance(e, KeyError) else e), file=sys.stderr)
    return 2
  print(out)
  return 0


if __name__ == "__main__":
  from absl import app  # pylint: disable=g-import-not-at-top
  app.run(main)
