"""An imported module compiled for backends: each distinct compile once per process.

Duplicate backends (`--target_backends=iree_vmla,iree_vmla`) and backends whose requests are
equal share one iree-compile: the first asker compiles, the others wait for its result.
`compile_module` saves the binary as compiled__<backends>.vmfb (a reproducer beside it on failure;
a big binary only when a failure needs it: `save_vmfb`);
`compile_each_method` is the fallback of `method_compiles` after a whole-module failure. A big
module's compile is also filed in the cache under its saved file's digest (tested_compiles).
"""

import concurrent.futures
import hashlib
import os
import threading
from typing import Dict, Optional, Sequence, Tuple

from absl import logging

from pyiree_tf_support.compiling import cache_key
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling import method_compiles
from pyiree_tf_support.compiling import tested_compiles
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core.backends import BackendSpec

_lock = threading.Lock()
_compiles: Dict[str, concurrent.futures.Future] = {}
# What `host` stands for in the keys of one process's compiles: the same machine for all of them.
_THIS_HOST = "<this process's host>"


def compile_once(request: compiler.CompileRequest, description: str,
                 reproducer: Optional[str], cache: Optional[CompileCache],
                 limit: timeouts.Limit = timeouts.DEFAULT.compile,
                 saved_sha256: Optional[str] = None) -> bytes:
  """Compiles `request` once per process: a second backend asking for it waits for the first.

  An interrupted compile is forgotten (its waiters see the interrupt), so a later one runs again.
  `saved_sha256`: of the module's iree_input.mlir as saved when that is not the text compiled
  (a big module's bytecode): the cached compile is filed under it too (tested_compiles).
  """
  # Outside the lock: it hashes the whole input. Without a cache the key only tells this
  # process's compiles apart, so `host` need not be resolved (an iree-compile probe, ~0.25 s);
  # with one, what it resolves to is remembered there for this compiler and CPU.
  host = _THIS_HOST
  if cache is not None and cache_key.names_host(request.targets, request.flags):
    host = cache_key.host_target(cache_key.llvmcpu_flags(request.flags), cache)
  key = request.key(host_target=host)
  with _lock:
    future = _compiles.get(key)
    owner = future is None
    if owner:
      future = _compiles[key] = concurrent.futures.Future()
  if owner:
    try:
      future.set_result(compiler.compile_request(request, description, reproducer, cache,
                                                 key if cache is not None else None, limit))
    except BaseException as e:
      if not isinstance(e, compiler.CompileError):
        with _lock:
          _compiles.pop(key, None)
      future.set_exception(e)
  else:
    logging.debug("Reusing this process's compilation of %s.", description)
  vmfb = future.result()
  if cache is not None and saved_sha256:
    tested_compiles.remember(cache, saved_sha256, request.targets, request.flags, key)
  return vmfb


def _saved_sha256(iree_input: str, artifacts_dir: Optional[str]) -> Optional[str]:
  """The sha256 of the module's iree_input.mlir as saved, when it is saved as bytecode (its
  text is not what the compile's key hashes); else None."""
  if artifacts_dir is None or len(iree_input) <= artifacts.BYTECODE_ABOVE:
    return None
  digest = hashlib.sha256()
  try:
    with open(os.path.join(artifacts_dir, "iree_input.mlir"), "rb") as f:
      for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
  except OSError:
    return None
  return digest.hexdigest()


def request_for(iree_input: str, specs: Sequence[BackendSpec]) -> compiler.CompileRequest:
  """One request compiling `iree_input` for every target of `specs` (flags de-duplicated)."""
  targets = tuple(t for spec in specs for t in spec.compiler_targets)
  flags = tuple(dict.fromkeys(f for spec in specs for f in spec.compiler_flags))
  return compiler.CompileRequest(iree_input, targets, flags)


def _description(module_name: str, names: str) -> str:
  return f"module '{module_name}' for backend(s) {names}"


def compile_module(iree_input: str, module_name: str, specs: Sequence[BackendSpec], names: str,
                   artifacts_dir: Optional[str], cache: Optional[CompileCache],
                   limit: timeouts.Limit = timeouts.DEFAULT.compile) -> bytes:
  """The vmfb of `iree_input` for `specs`; `names` (the backends' artifact names joined) names
  its files in `artifacts_dir`. Raises CompileError (a reproducer saved beside it), and
  CompileTimeoutError past `limit`."""
  reproducer = None if artifacts_dir is None else artifacts.reproducer_path(artifacts_dir, names)
  saved = _saved_sha256(iree_input, artifacts_dir) if cache is not None else None
  vmfb = compile_once(request_for(iree_input, specs), _description(module_name, names),
                      reproducer, cache, limit, saved)
  if artifacts_dir is not None:
    save_vmfb(artifacts_dir, names, vmfb)
  return vmfb


def save_vmfb(artifacts_dir: str, names: str, vmfb: bytes, needed: bool = False) -> None:
  """compiled__<names>.vmfb: written when `needed` (a failure reads it) or small; a bigger one
  is left for `needed` (an older run's file is removed: it is not this module's)."""
  path = artifacts.compiled_path(artifacts_dir, names)
  if needed or len(vmfb) <= artifacts.VMFB_WRITTEN_UP_TO:
    safe_files.write_bytes(path, vmfb)
  else:
    safe_files.remove_tree(path)  # the file (or a link, never its target).


def compile_each_method(iree_input: str, module_name: str, spec: BackendSpec, backend: str,
                        names: str, artifacts_dir: Optional[str], cache: Optional[CompileCache],
                        module_error: compiler.CompileError,
                        limit: timeouts.Limit = timeouts.DEFAULT.compile
                        ) -> Tuple[bytes, method_compiles.MethodCompiles]:
  """After `module_error`: the binary of the methods that compile alone (saved where the whole
  module's would be), and which do not; CompileError listing them all when none compiles (its
  `method_compiles` the record: each test of a method then names that method's own cause).
  `backend` is the backend's name in messages, `names` its artifact name in file names."""
  vmfb, record = method_compiles.compile_each_method(
      request_for(iree_input, [spec]), module_error, backend, _description(module_name, names),
      lambda request, description, reproducer: compile_once(request, description, reproducer,
                                                             cache, limit),
      lambda method: None if artifacts_dir is None else artifacts.reproducer_path(
          artifacts_dir, f"{names}.{method}"))
  if vmfb is None:
    error = compiler.CompileError(f"{module_error}\n{record.describe(module_error_shown=True)}",
                                  module_error.reproducer_path, module_error.reason,
                                  module_error.methods, module_error.rerun_command)
    error.method_compiles = record  # type: ignore[attr-defined]  # each method's own cause.
    raise error from module_error
  logging.warning("%s", record.describe())
  if artifacts_dir is not None:
    save_vmfb(artifacts_dir, names, vmfb)
  return vmfb, record
