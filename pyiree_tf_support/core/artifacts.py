"""Where artifacts go and what they are called (every write through `safe_files`: atomic, and no
symlink below the artifacts root followed).

Layout under the artifacts root:
  <Module>/tf_input.mlir, iree_input.mlir       the module before and after the TF->IREE import
  <Module>/signatures.json                      the exported functions' metadata (for replay)
  <Module>/compiled__<backends>.vmfb            one per compiled backend (artifact name)
  <Module>/reproducer__<backends>.mlir          when compilation fails
  <Module>/saved_model__<backends>/             only with --keep_saved_model
  <Module>/traces/<trace function>__<backend>.txt
  <Module>/traces/<trace function>__<backend>/  the same trace, loadable (trace.json + arrays.npz)
  <Module>/repro/<trace function>__<backend>/call_<i>_<method>/
                                                inputs, expected outputs and an
                                                iree-run-module flagfile
"""

import hashlib
import os
import re
from typing import Iterable

_UNSAFE = re.compile(r"[^0-9a-zA-Z_.-]")


# File names stay far below NAME_MAX (255) with room for suffixes and temp-file prefixes.
MAX_NAME = 100


def safe_name(name: str) -> str:
  """A file-name-safe form of `name` (module names may contain '/' or spaces); names longer than
  MAX_NAME keep their start and end a stable hash of the whole name."""
  cleaned = _UNSAFE.sub("_", name).strip(".") or "_"
  if len(cleaned) <= MAX_NAME:
    return cleaned
  digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
  return f"{cleaned[:MAX_NAME - 14]}__{digest}"


def backends_to_str(names: Iterable[str]) -> str:
  """Backend names normalized to [0-9a-zA-Z_], stripped of '_', joined by '__'."""
  return "__".join(re.sub(r"[^0-9a-zA-Z_]+", "_", name).strip("_") for name in names)


# iree_input.mlir longer than this (characters of text) is saved as MLIR bytecode (a big model's
# weights as bytes instead of hex digits); below it a person reads it as it is.
BYTECODE_ABOVE = 4 << 20
_MLIR_BYTECODE_MAGIC = b"ML\xefR"


# A compiled module bigger than this is written to compiled__<backends>.vmfb only when a failure
# needs it (a repro, a load error): a big model's passing backends do not copy their weights
# again; replay and bundles compile iree_input.mlir.
VMFB_WRITTEN_UP_TO = 4 << 20


def is_mlir_bytecode(data: bytes) -> bool:
  """Whether `data` is MLIR bytecode (its magic number), not MLIR text."""
  return data[:4] == _MLIR_BYTECODE_MAGIC


def compiled_path(artifacts_dir: str, backends: str) -> str:
  return os.path.join(artifacts_dir, f"compiled__{backends}.vmfb")


def reproducer_path(artifacts_dir: str, backends: str) -> str:
  return os.path.join(artifacts_dir, f"reproducer__{backends}.mlir")


def saved_model_path(artifacts_dir: str, backends: str) -> str:
  return os.path.join(artifacts_dir, f"saved_model__{backends}")


def signatures_path(module_dir: str) -> str:
  return os.path.join(module_dir, "signatures.json")


def repro_dir(module_dir: str, function_name: str, backend: str) -> str:
  return os.path.join(module_dir, "repro", f"{safe_name(function_name)}__{safe_name(backend)}")


def examples_dir(module_dir: str, name: str) -> str:
  """Where a method's examples keep their summary and hypothesis' database."""
  return os.path.join(module_dir, "examples", safe_name(name))


def trace_dir(module_dir: str) -> str:
  return os.path.join(module_dir, "traces")


def trace_file_name(function_name: str, backend: str, suffix: str = ".txt") -> str:
  """<function>__<backend><suffix>: the readable trace, or (suffix "") the loadable one."""
  return f"{safe_name(function_name)}__{safe_name(backend)}{suffix}"


def trace_path(module_dir: str, function_name: str, backend: str, suffix: str = ".txt") -> str:
  return os.path.join(trace_dir(module_dir), trace_file_name(function_name, backend, suffix))
