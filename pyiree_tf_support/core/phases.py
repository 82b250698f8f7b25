"""Failure phases in pipeline order, and the one-line first error of a failure's text.

A target backend fails in exactly one earliest phase: the import (SavedModel -> MLIR failed or left
TensorFlow ops unconverted), the compile (iree-compile failed on the module or on the called
method), the runtime (the target raised while running a call) or the comparison (it ran and its
results differ from the reference), where a float mismatch within the reference's own error
against float64 is a phase of its own (`reference_error`). Expected failures name the phase so
that a compiler change moving a failure from one phase to another is noticed, as an unexpected
pass is.
"""

import enum
import re
from typing import Iterable, Optional


class Phase(enum.Enum):
  """Ordered as the pipeline runs: an earlier phase's failure hides the later ones."""
  IMPORT = "import"
  COMPILE = "compile"
  RUNTIME = "runtime"
  MISMATCH = "mismatch"
  # A float mismatch where the backend is within K x TensorFlow's own error against float64
  # (comparing/reference_error): TensorFlow is the inaccurate side, not a miscompile. Last:
  # it is the least of a failure.
  REFERENCE_ERROR = "reference_error"

  @property
  def rank(self) -> int:
    return list(Phase).index(self)

  def __lt__(self, other: "Phase") -> bool:
    return self.rank < other.rank


NAMES = tuple(p.value for p in Phase)


def parse(name: str, where: str = "phase") -> Phase:
  """The phase called `name`; ValueError naming `where` and the valid phases otherwise."""
  try:
    return Phase(name)
  except ValueError:
    raise ValueError(f"{where}: unknown phase {name!r}; valid phases are "
                     f"{', '.join(NAMES)}") from None


def earliest(phases: Iterable[Optional[Phase]]) -> Optional[Phase]:
  """The first phase in pipeline order among `phases` (None entries ignored; None if none)."""
  present = [p for p in phases if p is not None]
  return min(present) if present else None


# `<file>:<line>:<col>: error: <message>` as MLIR tools print diagnostics; the location is optional.
_DIAGNOSTIC = re.compile(r"(?:[^\s:]+:\d+:\d+:\s*)?(error: .*)")
# A diagnostic that says nothing but where (TF's importer prints some after the real message).
_ONLY_LOCATION = re.compile(r"error:\s*(loc\(.*\):?)?\s*")
# What the library's CompileError message appends after the compiler's first error.
_REPRODUCER_TRAILER = re.compile(r"\s+Reproducer: \S+( \(compile it again with: .*\))?$")
_PASS_TRAILER = re.compile(r"\s+\[failing pass: [^\]]*\]$")
# The location MLIR prints after an op it quotes in a diagnostic
# (`... loc("iree_input.mlir":7:10)`).
_TRAILING_LOCATION = re.compile(r"\s+loc\([^()]*\)$")


def first_error_line(text: str, diagnostics: bool) -> str:
  """One line saying what failed: with `diagnostics` (compiler or importer output), the first
  `error: ...` diagnostic without its `file:line:col:` location; else, or when there is none,
  the first non-empty line of `text`, joined with the next one when it is only a heading ending in
  ':' (a mismatch's `call 0 (f):` says nothing without its first difference)."""
  lines = [line.strip() for line in text.splitlines() if line.strip()]
  if diagnostics:
    for line in lines:
      match = _DIAGNOSTIC.search(line)
      message = (_TRAILING_LOCATION.sub("", _PASS_TRAILER.sub(
          "", _REPRODUCER_TRAILER.sub("", match.group(1).strip()))) if match else "")
      if message and not _ONLY_LOCATION.fullmatch(message):
        return message
  if len(lines) > 1 and lines[0].endswith(":"):
    return f"{lines[0]} {lines[1]}"
  return lines[0] if lines else ""
