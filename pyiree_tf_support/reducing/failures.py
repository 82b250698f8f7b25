"""The predicate of a reduction, written once: a candidate shows "the same failure".

A reduction keeps a step only while the program still fails as the original did, not merely
fails: a smaller program that fails for another reason (a compile error where there was a
mismatch, another op's error) is a different bug. What "the same" means, per phase:
- mismatch: the same backend mismatches the reference in the same method, on the same kind of
  difference: wrong values (over tolerance or not equal: a cast of the result turns one into
  the other), non-finite placement, shape, dtype or structure;
- compile error: the same failing pass and the same first error line, with SSA names, numbers,
  shapes and locations normalised (a smaller module renumbers `%12` and moves lines);
- runtime error: the same exception type and the same first line, normalised alike, without
  the runtime's context frames (`; while invoking native function hal.fence.await; while calling
  import;`): they say where an error surfaced, not what it is, and for a race they vary from run
  to run (campaign 20261201's transient buffer used before its alloca surfaced in
  hal.device.queue.alloca, hal.fence.await and hal.device.queue.dealloca: one bug, three keys).
"""

import dataclasses
import re
from typing import Optional

from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

_SSA = re.compile(r"%[\w#.$-]+")
_LOCATION = re.compile(r"(loc\([^)]*\)|[\w./<>-]+\.mlir:\d+:\d+:?)")
_SHAPE = re.compile(r"\b(\d+|\?)(x(\d+|\?))*x(?=[a-z]+\d*\b)")
_NUMBER = re.compile(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b")
_PASS = re.compile(r"\[failing pass: ([\w.:-]+)")
_SPACE = re.compile(r"\s+")
_RUNTIME_CONTEXT = re.compile(r";\s*while (invoking|calling) .*$")
# A module's name in an import error: a candidate is a module of its own name.
_MODULE = re.compile(r"\bmodule '[^']*'")
# The kinds of difference that are one kind to a reduction: wrong values.
_KINDS = {"NumericMismatch": "values", "ExactMismatch": "values",
          "NonFiniteMismatch": "non-finite", "ShapeMismatch": "shape", "DtypeMismatch": "dtype",
          "StructureMismatch": "structure"}


def normalized(line: str) -> str:
  """`line` with what a smaller program changes and the bug does not replaced by placeholders."""
  for pattern, placeholder in ((_MODULE, "module <m>"), (_LOCATION, "<loc>"), (_SSA, "%_"),
                               (_SHAPE, "<shape>x"), (_NUMBER, "N")):
    line = pattern.sub(placeholder, line)
  return _SPACE.sub(" ", line).strip()


@dataclasses.dataclass(frozen=True)
class Failure:
  """What a failure is, as far as "the same" goes."""
  backend: str
  status: Status
  method: Optional[str]  # the failing call's method (None when no call failed)
  key: str  # the mismatch kinds, or the normalised first error line (and failing pass)

  def describe(self) -> str:
    where = f" in {self.method}" if self.method else ""
    return f"{self.backend}: {self.status.value}{where} ({self.key})"


def failure_of(outcome: Outcome) -> Optional[Failure]:
  """The failure `outcome` shows; None when it passed or was skipped (nothing to reduce)."""
  if not outcome.status.failed:
    return None
  if outcome.status is Status.MISMATCH:
    kinds = sorted({_KINDS.get(type(m).__name__, type(m).__name__) for m in outcome.mismatches})
    return Failure(outcome.backend, outcome.status, outcome.call_method, ",".join(kinds))
  diagnostics = outcome.status in (Status.IMPORT_ERROR, Status.COMPILE_ERROR)
  first = phases.first_error_line(outcome.detail, diagnostics=diagnostics)
  failing_pass = _PASS.search(outcome.detail)
  key = normalized(first) + (f" [pass {failing_pass.group(1)}]" if failing_pass else "")
  if outcome.status is Status.RUNTIME_ERROR:
    kind = re.search(r"raised (\w+)", outcome.detail)
    key = f"{kind.group(1) if kind else 'error'}: {_RUNTIME_CONTEXT.sub('', key).rstrip()}"
  return Failure(outcome.backend, outcome.status, outcome.call_method, key)


def same_failure(original: Failure, candidate: Outcome) -> bool:
  """Whether `candidate` fails as `original` did (the predicate every step is kept under)."""
  found = failure_of(candidate)
  if found is None or found.status is not original.status or found.key != original.key:
    return False
  return original.status is not Status.MISMATCH or found.method == original.method
