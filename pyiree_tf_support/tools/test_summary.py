"""The last two lines of scripts/test.sh: what the unit tests (pytest) and the e2e suites (Bazel)
reported, and nothing they did not.

A count is printed only when the tool printed it. pytest that crashed (a segfault, an internal
error, an interrupted or refused run) ends without a summary line of failures, and counting that
as "0 failed" told a crashed run as a clean one; its exit status is printed instead.

usage: python -m pyiree_tf_support.tools.test_summary UNIT_LOG UNIT_STATUS E2E_LOG
"""

import dataclasses
import re
import sys
from typing import List, Optional, Sequence

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


def summary_lines(unit_log: str, unit_status: int, e2e_log: str) -> List[str]:
  unit = unit_result(unit_log, unit_status)
  e2e_passed, e2e_failed = e2e_counts(e2e_log)
  first = f"unit tests: {unit.describe()}; e2e (Bazel): {e2e_passed} passed, {e2e_failed} failed"
  if unit.failed is None:
    return [first, f"{e2e_passed} passed, {e2e_failed} failed (e2e only: the unit tests' pytest "
                   f"ended with exit status {unit.status} and no count)"]
  return [first, f"{unit.passed + e2e_passed} passed, {unit.failed + e2e_failed} failed"]


def main(argv: Sequence[str]) -> int:
  if list(argv) in (["-h"], ["--help"]):
    print(__doc__.strip())
    return 0
  if len(argv) != 3 or not argv[1].lstrip("-").isdigit():
    sys.stderr.write(__doc__.strip().splitlines()[-1] + "\n")
    return 2
  with open(argv[0], errors="replace") as f:
    unit_log = f.read()
  with open(argv[2], errors="replace") as f:
    e2e_log = f.read()
  print("\n".join(summary_lines(unit_log, int(argv[1]), e2e_log)))
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
