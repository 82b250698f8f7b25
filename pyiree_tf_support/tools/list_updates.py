"""The expected-failure lists made true to a run: the rules, as one pure function.

A verdict is per (class, backend), so the lists are made true per class (`expected_failures`
scopes). For each (file, backend) the run holds, each class of it gets the cell of its tests that
run under no per-method entry; then:
- every class in the same state (all passed, or all failed first in one phase P) and no per-class
  entry of the file: the file's entry is made true to that state as a whole (as before scopes);
- otherwise each class gets its own entry (`file_test.py::Class`), made true to its cell, and a
  file entry is split into them (the classes inherit its reason where their phase is its phase).
A listed method (`file_test.py::Class::test_method`, written by hand) is made true to its own cell.
Making an entry true to a cell:
- passed: a listed entry is removed;
- failed in phase P: an unlisted cell is added as (P, its first error line); a listed one in the
  same phase keeps its (human-written) reason; a listed one in another phase gets (P, the new first
  error line); an untyped entry (a reason without a phase) gets P and keeps its reason.
Cells the run does not hold stay as they are. So one update makes the next run's verdicts XFAIL or
PASS, and a second update from that run changes nothing.
"""

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure

ADDED, REMOVED, PHASE_CHANGED, PHASE_SET = "added", "removed", "phase changed", "phase set"
SPLIT = "split"  # a file entry replaced by per-class entries.
KINDS = (ADDED, REMOVED, PHASE_CHANGED, PHASE_SET, SPLIT)
Cells = Dict[Tuple[str, str], run_results.Cell]  # (file name or scope key, backend) -> cell


@dataclasses.dataclass(frozen=True)
class Change:
  kind: str
  backend: str
  file: str  # the entry's key: a file name, or file::Class[::test_method]
  old: Optional[ExpectedFailure]
  new: Optional[ExpectedFailure]

  def describe(self) -> str:
    if self.kind == REMOVED:
      return f"removed {self.file} on {self.backend} (passed)"
    if self.kind == SPLIT:
      return f"split   {self.file} on {self.backend} into per-class entries (classes differ)"
    new = self.new
    assert new is not None and new.phase is not None, self  # what the other kinds list.
    if self.kind == ADDED:
      return f"added   {self.file} on {self.backend}: {new.phase.value}: {new.reason}"
    old = self.old.phase.value if self.old and self.old.phase else "untyped"
    return (f"{self.kind} {self.file} on {self.backend}: {old} -> {new.phase.value}"
            + (f": {new.reason}" if self.kind == PHASE_CHANGED else ""))


def _make_true(new: expected_failures.Lists, changes: List[Change], backend: str, key: str,
               cell: run_results.Cell, inherited: Optional[ExpectedFailure] = None) -> None:
  """Makes `key`'s entry on `backend` true to `cell` (`inherited`: the entry it takes over)."""
  old = new.get(backend, {}).get(key)
  if cell.phase is None:
    if old is not None:
      del new[backend][key]
      changes.append(Change(REMOVED, backend, key, old, None))
    return
  reason = expected_failures.one_line(cell.first_error or "")
  if old is None and inherited is not None and inherited.phase in (None, cell.phase):
    entry, kind = ExpectedFailure(cell.phase, inherited.reason), ADDED
  elif old is None:
    entry, kind = ExpectedFailure(cell.phase, reason), ADDED
  elif old.phase is cell.phase:
    return
  elif old.phase is None:
    entry, kind = ExpectedFailure(cell.phase, old.reason), PHASE_SET
  else:
    entry, kind = ExpectedFailure(cell.phase, reason), PHASE_CHANGED
  new.setdefault(backend, {})[key] = entry
  changes.append(Change(kind, backend, key, old, entry))


def combined(cells: Sequence[run_results.Cell]) -> Optional[run_results.Cell]:
  """One cell of several (tests of one class): the earliest phase failed in and the first error
  of the first cell failing in it; passed when none failed; None for no cells."""
  if not cells:
    return None
  failed = [c for c in cells if c.phase is not None]
  if not failed:
    return cells[0]
  phase = phases.earliest(c.phase for c in failed)
  return next(c for c in failed if c.phase == phase)


def _update_file(new: expected_failures.Lists, changes: List[Change], name: str, backend: str,
                 file_cell: run_results.Cell, scoped: Cells) -> None:
  """Makes the entries of file `name` on `backend` true to the run (the module docstring)."""
  mine = {key: cell for (key, b), cell in scoped.items()
          if b == backend and key.split("::")[0] == name}
  classes = sorted({key.split("::")[1] for key in mine})
  if not classes:  # a run that names no classes: the file as a whole.
    _make_true(new, changes, backend, name, file_cell)
    return
  entries = new.get(backend, {})
  wanted: Dict[str, run_results.Cell] = {}
  for test_class in classes:
    prefix = f"{name}::{test_class}::"
    methods = {key: cell for key, cell in mine.items() if key.startswith(prefix)}
    listed = sorted(key for key in methods if key in entries)
    for key in listed:
      _make_true(new, changes, backend, key, methods[key])
    rest = (combined([cell for key, cell in sorted(methods.items()) if key not in listed])
            if listed else mine.get(f"{name}::{test_class}"))
    if rest is not None:
      wanted[test_class] = rest
  class_entries = [key for key in entries if key.count("::") == 1 and key.startswith(name + "::")]
  if not class_entries and len({cell.phase for cell in wanted.values()}) <= 1:
    cell = combined(list(wanted.values()))  # None when nothing is wanted.
    if cell is not None:
      _make_true(new, changes, backend, name, cell)
    return
  file_entry = entries.get(name)
  if file_entry is not None:
    del new[backend][name]
    changes.append(Change(SPLIT, backend, name, file_entry, None))
  for test_class, cell in wanted.items():
    _make_true(new, changes, backend, f"{name}::{test_class}", cell, file_entry)


def updated(lists: expected_failures.Lists, cells: Cells, scoped: Optional[Cells] = None
            ) -> Tuple[expected_failures.Lists, List[Change]]:
  """(new lists, changes) for one BUILD file's lists and the run's {(file, backend): cell} and
  {(file::Class[::test_method], backend): cell} (`scoped`)."""
  new = {backend: dict(files) for backend, files in lists.items()}
  changes: List[Change] = []
  for (name, backend), cell in sorted(cells.items()):
    _update_file(new, changes, name, backend, cell, scoped or {})
  return new, changes


def not_in_run(lists: expected_failures.Lists, cells: Cells, scoped: Optional[Cells] = None
               ) -> List[Tuple[str, str]]:
  """Listed (key, backend) cells the run did not hold: left as they are."""
  held = set(cells) | set(scoped or {})
  return sorted((key, backend) for backend, keys in lists.items() for key in keys
                if (key, backend) not in held)


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
