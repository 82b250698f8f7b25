"""A big module's compile as a test made it, found again in the compile cache from the file saved.

A big module's iree_input.mlir is saved as MLIR bytecode (`artifacts.BYTECODE_ABOVE`): whoever
reads it back (the localizer) gets IREE's printing of it, not the importer's text the test
compiled, so the cache key of that compile (a digest of the text) cannot be made again, and
hashing 188 MB of text for it (a ResNet50's, 4 s) costs about what the compile does. The test
therefore also files its compile under a second key made of what the saved file is (its
sha256, which the traces record) and of everything else the first key holds (compiler,
targets, flags, `host`, the files flags name); that entry holds only the first key. The
localizer asks for it before compiling the module as tested again.
"""

import hashlib
import logging
from typing import Optional, Sequence

from iree.compiler import version as compiler_version

from pyiree_tf_support.compiling import cache_key
from pyiree_tf_support.compiling.vmfb_cache import CompileCache

_KIND = "compile of a saved iree_input.mlir"


def saved_input_key(saved_sha256: str, targets: Sequence[str], flags: Sequence[str],
                    host: str = "") -> str:
  """The second key: `saved_sha256` (of iree_input.mlir as saved), the targets and flags of the
  compile, and what `host` resolves to when a flag names it."""
  digest = hashlib.sha256()
  for part in (_KIND, compiler_version.VERSION,
               repr(sorted(compiler_version.REVISIONS.items())), saved_sha256,
               repr(tuple(targets)), repr(tuple(flags)),
               host if cache_key.names_host(targets, flags) else "",
               cache_key.named_files(flags)):
    digest.update(part.encode("utf-8") + b"\0")
  return digest.hexdigest()


def _host(cache: CompileCache, targets: Sequence[str], flags: Sequence[str]) -> str:
  if not cache_key.names_host(targets, flags):
    return ""
  return cache_key.host_target(cache_key.llvmcpu_flags(flags), cache)


def remember(cache: CompileCache, saved_sha256: str, targets: Sequence[str],
             flags: Sequence[str], key: str) -> None:
  """Files the compile cached under `key` under the saved file's key too."""
  cache.put(saved_input_key(saved_sha256, targets, flags, _host(cache, targets, flags)),
            key.encode("ascii"))


def find(cache: CompileCache, saved_sha256: str, targets: Sequence[str],
         flags: Sequence[str]) -> Optional[bytes]:
  """The vmfb a test compiled from the saved file `saved_sha256` with these targets and flags,
  if the cache still holds it (else None)."""
  pointer = cache.get(saved_input_key(saved_sha256, targets, flags,
                                      _host(cache, targets, flags)))
  if pointer is None:
    return None
  key = pointer.decode("ascii", errors="replace")
  vmfb = cache.get(key)
  if vmfb is not None:
    logging.debug("Compile cache hit for the module as tested (%s).", key[:12])
  return vmfb
