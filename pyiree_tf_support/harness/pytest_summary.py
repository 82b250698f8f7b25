"""The table the pytest plugin prints at the end of a run: rows are test files, columns backends,
each cell what that file's items did on that backend (pass/fail/xfail/skip; an xfail with the
phase its failure happened in, e.g. `xfail (compile)`; a pass that came within half its
tolerance with how close, e.g. `pass (0.95 of tol)`), then totals, the slowest class set-ups
(import + compile of every selected backend) and where the artifacts went."""

import collections
import os
from typing import Dict, List, Optional, Sequence, Set, Tuple

from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting import verdicts

VERDICTS = ("pass", "fail", "xfail", "skip")
SLOWEST_SHOWN = 5
# The user property the plugin gives an xfail item: the phase its failure happened in.
PHASE_PROPERTY = "pyiree_phase"
# The user property of an item that compared values: its worst difference as a fraction of the
# tolerance.
CLOSENESS_PROPERTY = "pyiree_worst_fraction_of_tolerance"


def verdict_of(report) -> Optional[str]:
  """One item's verdict from the report of one of its phases (None: the phase says nothing)."""
  xfailed = report.skipped and hasattr(report, "wasxfail")
  if report.when == "call":
    return "xfail" if xfailed else ("skip" if report.skipped else
                                    ("fail" if report.failed else "pass"))
  if report.when == "setup" and not report.passed:
    return "xfail" if xfailed else ("skip" if report.skipped else "fail")
  return None


def format_cell(counts: Dict[str, int], xfail_phases: Sequence[str] = (),
                pass_fraction: Optional[float] = None) -> str:
  """'pass' when every item did the same, else '2 pass 1 fail' (verdicts in VERDICTS order); the
  xfail count followed by its phases in pipeline order, e.g. 'xfail (compile)'; the passes'
  worst fraction of the tolerance when it is at least half, e.g. 'pass (0.95 of tol)'."""
  present = [v for v in VERDICTS if counts.get(v)]
  ordered = [p for p in phases.NAMES if p in xfail_phases]
  shown = {v: v + (f" ({', '.join(ordered)})" if v == "xfail" and ordered else "") for v in present}
  if "pass" in shown and pass_fraction is not None and (
      pass_fraction >= verdicts.CLOSE_PASS_SHOWN):
    shown["pass"] += f" ({pass_fraction:.2f} of tol)"
  if len(present) == 1:
    only = present[0]
    return shown[only] if counts[only] == 1 else f"{counts[only]} {shown[only]}"
  return " ".join(f"{counts[v]} {shown[v]}" for v in present) or "-"


def format_table(rows: Sequence[Sequence[str]]) -> List[str]:
  widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
  return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]


class Summary:
  """Collects per-(file, backend) verdicts as the run reports them."""

  def __init__(self):
    self._cells: Dict[Tuple[str, str], collections.Counter] = {}
    self._phases: Dict[Tuple[str, str], Set[str]] = {}
    self._pass_fractions: Dict[Tuple[str, str], float] = {}
    self._backends: List[str] = []
    self._files: List[str] = []

  def record(self, report, test_file: str, backend: str) -> None:
    verdict = verdict_of(report)
    if verdict is None:
      return
    if backend not in self._backends:
      self._backends.append(backend)
    if test_file not in self._files:
      self._files.append(test_file)
    self._cells.setdefault((test_file, backend), collections.Counter())[verdict] += 1
    phase = dict(getattr(report, "user_properties", ())).get(PHASE_PROPERTY)
    if verdict == "xfail" and phase:
      self._phases.setdefault((test_file, backend), set()).add(phase)
    fraction = dict(getattr(report, "user_properties", ())).get(CLOSENESS_PROPERTY)
    if verdict == "pass" and fraction is not None:
      cell = (test_file, backend)
      self._pass_fractions[cell] = max(fraction, self._pass_fractions.get(cell, 0.0))

  def lines(self, set_ups: Sequence[Tuple[float, str, Sequence[str]]]) -> List[str]:
    """The table, totals and slowest set-ups; [] when no backend item ran."""
    if not self._cells:
      return []
    rows = [["file"] + self._backends]
    for test_file in self._files:
      rows.append([test_file] + [format_cell(self._cells.get((test_file, b), {}),
                                             tuple(self._phases.get((test_file, b), ())),
                                             self._pass_fractions.get((test_file, b)))
                                 for b in self._backends])
    totals = {b: sum((c for (_, cb), c in self._cells.items() if cb == b), collections.Counter())
              for b in self._backends}
    rows.append(["total"] + [format_cell(totals[b]) for b in self._backends])
    out = ["", "pyiree_tf_support: verdicts per test file and backend"] + format_table(rows)
    slowest = sorted(set_ups, reverse=True)[:SLOWEST_SHOWN]
    if slowest:
      out.append("slowest compiles (class set-up: import + compile of its backends):")
      out += [f"  {seconds:6.2f} s  {name} ({', '.join(backends)})"
              for seconds, name, backends in slowest]
    return out


def artifacts_lines(module_dirs: Sequence[str]) -> List[str]:
  """Where the run's artifacts went: each artifacts root once, with the module dirs it used, and
  that the reports there hold earlier runs' entries too (they merge per test and backend, as
  under absltest and Bazel; docs/failures.md)."""
  roots: Dict[str, List[str]] = {}
  for module_dir in module_dirs:
    names = roots.setdefault(os.path.dirname(module_dir), [])
    if os.path.basename(module_dir) not in names:
      names.append(os.path.basename(module_dir))
  out = [f"artifacts in {root}: {', '.join(names)}" for root, names in roots.items()]
  if out:
    out.append("  (report.json/report.txt there merge with earlier runs; a fresh --artifacts_dir "
               "holds one run's)")
  return out
