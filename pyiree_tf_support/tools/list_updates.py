"""The expected-failure lists made true to a run: the rules, as one pure function.

For each (file, backend) the run holds:
- passed: a listed entry is removed;
- failed in phase P: an unlisted cell is added as (P, its first error line); a listed one in the
  same phase keeps its (human-written) reason; a listed one in another phase gets (P, the new first
  error line); an untyped entry (a reason without a phase) gets P and keeps its reason.
Cells the run does not hold stay as they are.
"""

import dataclasses
from typing import Dict, List, Optional, Tuple

from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure

ADDED, REMOVED, PHASE_CHANGED, PHASE_SET = "added", "removed", "phase changed", "phase set"


@dataclasses.dataclass(frozen=True)
class Change:
  kind: str
  backend: str
  file: str
  old: Optional[ExpectedFailure]
  new: Optional[ExpectedFailure]

  def describe(self) -> str:
    if self.kind == ADDED:
      return f"added   {self.file} on {self.backend}: {self.new.phase.value}: {self.new.reason}"
    if self.kind == REMOVED:
      return f"removed {self.file} on {self.backend} (passed)"
    old = self.old.phase.value if self.old.phase else "untyped"
    return (f"{self.kind} {self.file} on {self.backend}: {old} -> {self.new.phase.value}"
            + (f": {self.new.reason}" if self.kind == PHASE_CHANGED else ""))


def updated(lists: expected_failures.Lists, cells: Dict[Tuple[str, str], run_results.Cell]
            ) -> Tuple[expected_failures.Lists, List[Change]]:
  """(new lists, changes) for one BUILD file's lists and the run's {(file, backend): cell}."""
  new = {backend: dict(files) for backend, files in lists.items()}
  changes: List[Change] = []
  for (name, backend), cell in sorted(cells.items()):
    old = new.get(backend, {}).get(name)
    if cell.phase is None:
      if old is not None:
        del new[backend][name]
        changes.append(Change(REMOVED, backend, name, old, None))
      continue
    reason = expected_failures.one_line(cell.first_error or "")
    if old is None:
      entry, kind = ExpectedFailure(cell.phase, reason), ADDED
    elif old.phase is cell.phase:
      continue
    elif old.phase is None:
      entry, kind = ExpectedFailure(cell.phase, old.reason), PHASE_SET
    else:
      entry, kind = ExpectedFailure(cell.phase, reason), PHASE_CHANGED
    new.setdefault(backend, {})[name] = entry
    changes.append(Change(kind, backend, name, old, entry))
  return new, changes


def not_in_run(lists: expected_failures.Lists, cells: Dict[Tuple[str, str], run_results.Cell]
               ) -> List[Tuple[str, str]]:
  """Listed (file, backend) cells the run did not hold: left as they are."""
  return sorted((name, backend) for backend, files in lists.items() for name in files
                if (name, backend) not in cells)
