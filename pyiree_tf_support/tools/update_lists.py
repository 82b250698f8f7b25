"""`update_e2e_coverage --update_lists`: the FAILING lists of the e2e BUILD files rewritten from a
real run, and a summary of what changed.

The run (`reporting.run_results`) gives each (file, class, test method; backend) it held;
`list_updates` applies the rules (an entry per file, or per class where a file's classes differ);
the BUILD files are rewritten in place (`reporting.expected_failures`). Bad input (no run, a
report of another format, a BUILD file without FAILING) is one line on stderr and exit status 2.
"""

import os
import sys
import time
from typing import Dict, List, Optional, Sequence

from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.tools import list_updates


def _read_run(testlogs: Optional[str], artifacts_dir: Optional[str],
              directories: Sequence[str]) -> run_results.Run:
  if artifacts_dir is not None:
    return run_results.from_artifacts_dir(artifacts_dir, directories)
  if testlogs is None:
    raise run_results.RunError("no run given: neither bazel-testlogs nor an artifacts dir")
  return run_results.from_bazel_testlogs(testlogs, directories)


def _when(cells: Dict[tuple, run_results.Cell]) -> str:
  """When the run's reports were written: a stale part of bazel-testlogs shows here."""
  stamps = sorted(cell.written for cell in cells.values())
  if not stamps:
    return "no cell in this run"
  text = [time.strftime("%Y-%m-%d %H:%M", time.gmtime(s)) for s in (stamps[0], stamps[-1])]
  return f"{len(stamps)} cell(s) from reports written " + (
      f"{text[0]} UTC" if text[0] == text[1] else f"{text[0]} .. {text[1]} UTC")


def _summary(path: str, changes: List[list_updates.Change], untouched: List[tuple],
             written: str) -> List[str]:
  counts = {kind: sum(1 for c in changes if c.kind == kind) for kind in list_updates.KINDS}
  if not counts[list_updates.SPLIT]:
    del counts[list_updates.SPLIT]
  lines = [f"{path}: " + ", ".join(f"{n} {kind}" for kind, n in counts.items())
           + written]
  lines += ["  " + change.describe() for change in changes]
  if untouched:
    lines.append(f"  {len(untouched)} listed cell(s) not in this run, left as they are: "
                 + ", ".join(f"{name}@{backend}" for name, backend in untouched))
  return lines


def _shown(path: str) -> str:
  relative = os.path.relpath(path)
  return path if relative.startswith("..") else relative


def update(directories: Sequence[str], testlogs: Optional[str] = None,
           artifacts_dir: Optional[str] = None, dry_run: bool = False) -> int:
  """Rewrites `directories`' BUILD.bazel FAILING from the run; prints the summary; exit status."""
  directories = [os.path.abspath(d) for d in directories]
  try:
    files = [expected_failures.read(os.path.join(d, "BUILD.bazel")) for d in directories]
    run = _read_run(testlogs, artifacts_dir, directories)
  except (expected_failures.ListsError, run_results.RunError, SyntaxError) as e:
    print(f"ERROR: {e}", file=sys.stderr)
    return 2
  for directory, lists_file in zip(directories, files):
    cells = {(name, backend): cell for (home, name, backend), cell in run.cells.items()
             if home == directory}
    scoped = {(key, backend): cell for (home, key, backend), cell in run.scoped.items()
              if home == directory}
    lists, changes = list_updates.updated(lists_file.lists, cells, scoped)
    if dry_run:
      written = " (dry run: nothing written)"
    else:
      written = "" if expected_failures.write(lists_file, lists) else " (file unchanged)"
    print("\n".join(_summary(_shown(lists_file.path), changes,
                             list_updates.not_in_run(lists, cells, scoped), written)))
    print(f"  ({_when(cells)})")
  for note in run.notes:
    print(f"note: {note}")
  return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
  """`python -m pyiree_tf_support.tools.update_lists [--dirs=...] [--dry_run] ...`: the same as
  `update_e2e_coverage --update_lists` (which parses the flags: one place for them)."""
  from pyiree_tf_support.tools import update_e2e_coverage
  arguments = list(sys.argv[1:] if argv is None else argv)
  return update_e2e_coverage.main(["--update_lists", *arguments],
                                  prog="python -m pyiree_tf_support.tools.update_lists")


if __name__ == "__main__":
  sys.exit(main())
