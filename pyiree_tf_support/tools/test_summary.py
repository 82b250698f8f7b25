"""The last two lines of scripts/test.sh: what the unit tests' pytest runs (the fast tier, then
the slow one) and the e2e suites (Bazel) reported, and nothing they did not.

A count is printed only when the tool printed it. pytest that crashed (a segfault, an internal
error, an interrupted or refused run) ends without a summary line of failures, and counting that
as "0 failed" told a crashed run as a clean one; its exit status is printed instead, named with
its run, and the last line adds up the runs that counted and says which did not. A part that
did not run (test.sh stops after a failing fast tier) is named as not run.
"""

import argparse
import dataclasses
import re
import sys
from typing import List, Optional, Sequence, Tuple

_PYTEST_SUMMARY = re.compile(r"\b\d+ (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b"
                             r".* in \d+(\.\d+)?s\b")
# Every package below e2e/ (e2e/keras, e2e/generated, ...).
_BAZEL_PASSED = re.compile(r"^//e2e(/[\w/]+)?:\S+\s+(\(cached\) )?PASSED", re.MULTILINE)
_BAZEL_FAILED = re.compile(r"^//e2e(/[\w/]+)?:\S+\s+(\(cached\) )?"
                           r"(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class UnitResult:
  """pytest's counts, or None when it printed no summary of failures it is sure of."""
  passed: Optional[int]
  failed: Optional[int]
  status: int

  def describe(self) -> str:
    if self.failed is None:
      return (f"pytest ended with exit status {self.status} and no count of failures "
              "(crashed or stopped; see its output above)")
    return f"{self.passed} passed, {self.failed} failed"


def _count(summary: str, word: str) -> int:
  return sum(int(n) for n in re.findall(rf"\b(\d+) {word}\b", summary))


def unit_result(log: str, status: int) -> UnitResult:
  """The counts of pytest's summary line (the last line that is one: what the interpreter prints
  at exit may follow it, e.g. nanobind's list of IREE runtime objects still alive); none when it
  has none, or when pytest failed (non-zero status) with a summary that counts no failure.
  A pytest that dies mid-run has printed no summary yet: its progress lines come before any
  failure report that could quote a nested run's summary."""
  summaries = [line for line in log.splitlines() if _PYTEST_SUMMARY.search(line)]
  summary = summaries[-1] if summaries else None
  if summary is None:
    return UnitResult(None, None, status)
  failed = _count(summary, "failed") + _count(summary, "errors?")
  if status != 0 and failed == 0:
    return UnitResult(None, None, status)
  return UnitResult(_count(summary, "passed"), failed, status)


def e2e_counts(log: str) -> List[int]:
  """[passed, failed] targets of a `bazel test` log."""
  return [len(_BAZEL_PASSED.findall(log)), len(_BAZEL_FAILED.findall(log))]


def _and(names: Sequence[str]) -> str:
  return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _possessive(name: str) -> str:
  return name + ("'" if name.endswith("s") else "'s")


def summary_lines(units: Sequence[Tuple[str, str, int]], e2e_log: Optional[str],
                  not_run: Sequence[str] = ()) -> List[str]:
  """The two lines for pytest runs `units` ((name, log, status), in the order they ran), the
  Bazel log (None when Bazel did not run) and the parts `not_run` (stopped before them)."""
  results = [(name, unit_result(log, status)) for name, log, status in units]
  parts = [f"{name}: {result.describe()}" for name, result in results]
  counted = [(name, result.passed, result.failed) for name, result in results
             if result.passed is not None and result.failed is not None]
  if e2e_log is not None:
    e2e_passed, e2e_failed = e2e_counts(e2e_log)
    parts.append(f"e2e (Bazel): {e2e_passed} passed, {e2e_failed} failed")
    counted.append(("e2e", e2e_passed, e2e_failed))
  parts += [f"{name}: not run" for name in not_run]
  total = (f"{sum(passed for _, passed, _ in counted)} passed, "
           f"{sum(failed for _, _, failed in counted)} failed")
  crashed = [f"the {_possessive(name)} pytest ended with exit status {result.status} and no "
             "count" for name, result in results if result.failed is None]
  if crashed:
    scope = _and([name for name, _, _ in counted]) + " only" if counted else "nothing counted"
    total += f" ({scope}: {'; '.join(crashed)})"
  return ["; ".join(parts), total]


def _parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog="python -m pyiree_tf_support.tools.test_summary",
      description=(__doc__ or "").strip().split("\n\n")[0])
  parser.add_argument("--unit", nargs=3, action="append", default=[],
                      metavar=("NAME", "LOG", "STATUS"),
                      help="a pytest run: its name, its log and its exit status (repeated, in "
                           "the order they ran)")
  parser.add_argument("--e2e", metavar="LOG", help="the log of `bazel test` (the e2e suites)")
  parser.add_argument("--not_run", action="append", default=[], metavar="NAME",
                      help="a part the run stopped before (repeated)")
  return parser


def main(argv: Sequence[str]) -> int:
  parser = _parser()
  args = parser.parse_args(argv)
  units = []
  for name, log, status in args.unit:
    if not status.lstrip("-").isdigit():
      parser.error(f"--unit {name}: the exit status {status!r} is no number")
    with open(log, errors="replace") as f:
      units.append((name, f.read(), int(status)))
  e2e_log = None
  if args.e2e is not None:
    with open(args.e2e, errors="replace") as f:
      e2e_log = f.read()
  print("\n".join(summary_lines(units, e2e_log, args.not_run)))
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
