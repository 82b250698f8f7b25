"""Compiler flags a run adds to the backend table's: `--iree_compile_flags` and the IR dumps of
`--dump_compiler_ir`.

Each `--iree_compile_flags` value is one `backend:flag` pair, the flag verbatim after the first
`:` (iree-compile flags hold commas and `=`, so values are repeated, never comma-split). The
backend is any name the table accepts (a 2020 alias or an artifact name such as `iree_vmla_1`);
the flags reach the compile request, so they are part of the compile cache key and of every
printed command that compiles again.
"""

import os
import re
from typing import Iterable, Sequence, Tuple

from pyiree_tf_support.core import backends

# (backend as named, one iree-compile flag), in the order given.
Entries = Tuple[Tuple[str, str], ...]

DUMPS_DIR = "dumps"


def parse(values: Iterable[str]) -> Entries:
  """`backend:flag` values as pairs; ValueError (one line) naming the bad value and the valid
  form or backends."""
  entries = []
  for value in values:
    backend, sep, flag = value.partition(":")
    if not sep or not flag.startswith("-"):
      raise ValueError(f"--iree_compile_flags='{value}' is not backend:flag, e.g. "
                       "iree_llvmjit:--iree-llvmcpu-target-cpu=generic.")
    spec = backends.find_by_artifact_name(backend)
    if spec is None or not spec.is_iree:
      raise ValueError(f"--iree_compile_flags='{value}' names no IREE backend '{backend}'; "
                       "valid backends are: " + ", ".join(
                           n for n in backends.valid_names() if backends.lookup(n).is_iree)
                       + " (or their artifact names, e.g. iree_vmla_0).")
    entries.append((backend, flag))
  return tuple(entries)


def for_backend(entries: Entries, names: Sequence[str]) -> Tuple[str, ...]:
  """The flags of `entries` that apply to a backend known by `names` (artifact, typed and
  canonical name: `BackendInfo.names()`), in the order given."""
  return tuple(flag for backend, flag in entries if backend in names)


def dump_flags(module_dir: str, artifact_name: str) -> Tuple[str, ...]:
  """iree-compile flags writing the IR after each compilation phase and every executable's
  sources into <module_dir>/dumps/<artifact_name>/ (cheap: a file per phase and executable)."""
  base = os.path.join(module_dir, DUMPS_DIR, artifact_name)
  return (f"--dump-compilation-phases-to={os.path.join(base, 'phases')}",
          f"--iree-hal-dump-executable-sources-to={os.path.join(base, 'sources')}")


# iree-compile names a phase's file after the input's module symbol, else after the input file:
# our input comes on stdin with an unnamed module, so every module and backend wrote these.
_STDIN_PHASE = re.compile(r"_stdin_(\.\d+\.[\w-]+\.mlir)$")


def name_phase_dumps(module_dir: str, artifact_name: str, module_name: str) -> None:
  """Renames the phase dumps of <module_dir>/dumps/<artifact_name>/ that iree-compile named
  `_stdin_.N.<phase>.mlir` to `<module_name>__<artifact_name>.N.<phase>.mlir` (an earlier run's
  file of that name is replaced): a dump read or sent on its own says what it is."""
  phases = os.path.join(module_dir, DUMPS_DIR, artifact_name, "phases")
  try:
    names = os.listdir(phases)
  except OSError:  # nothing was dumped (e.g. the compile cache answered).
    return
  for name in names:
    match = _STDIN_PHASE.match(name)
    if match:
      os.replace(os.path.join(phases, name),
                 os.path.join(phases, f"{module_name}__{artifact_name}{match.group(1)}"))
