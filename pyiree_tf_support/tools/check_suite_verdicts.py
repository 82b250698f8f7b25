"""Checks that a one-process `pytest e2e/` run reached the verdicts Bazel's suites expect.

  .venv/bin/python -m pytest e2e/ --junitxml=/tmp/e2e.xml
  .venv/bin/python -m pyiree_tf_support.tools.check_suite_verdicts /tmp/e2e.xml \
      [--bazel_testlogs bazel-testlogs]

Bazel runs `//e2e:e2e_tests` (every file on every backend, expected to pass) and
`//e2e:e2e_tests_failing` (the files FAILING lists for a backend, expected to fail). So for every
`*_test.py` beside a BUILD.bazel with a FAILING dict and every backend of that dict, the expected
cell is `xfail` when FAILING lists the file for the backend and `pass` otherwise. The pytest cell
is what the JUnit XML says of that file's `test_x[<backend>]` items, combined as Bazel judges a
file: `fail` if any failed, else `xfail` if any was an expected failure, else `pass` (or `skip`,
or `missing` when no item ran).
With `--bazel_testlogs`, the cells of a real Bazel run (each target's test.xml) are checked too.
Prints one line per disagreement and exits 1 if there is any.
"""

import argparse
import glob
import os
import re
import sys
from typing import Dict, Iterable, List, Optional, Tuple
import xml.etree.ElementTree as ET

from pyiree_tf_support.reporting import expected_failures

Cell = Tuple[str, str]  # (test file name, backend)
_ITEM_NAME = re.compile(r"^(?P<method>[^\[]+)\[(?P<backend>[^\]]+)\]$")


def expected_cells(directory: str, backends: Optional[Iterable[str]] = None) -> Dict[Cell, str]:
  """{(file.py, backend): 'pass' | 'xfail'} from the FAILING dict of directory's BUILD.bazel."""
  build_file = os.path.join(directory, expected_failures.BUILD_FILE)
  failing = expected_failures.failing_by_backend(build_file)
  if not failing:
    raise ValueError(f"{build_file}: no FAILING dict literal; the expected verdicts come from it")
  chosen = list(failing) if backends is None else list(backends)
  unknown = [b for b in chosen if b not in failing]
  if unknown:
    raise ValueError(f"backend(s) {', '.join(unknown)} have no FAILING list in {build_file}; "
                     f"valid: {', '.join(failing)}")
  files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(directory, "*_test.py")))
  # A file is listed when it or one of its classes / test methods is (`file_test.py::Class`).
  listed = {b: {key.split("::")[0] for key in failing[b]} for b in chosen}
  return {(f, b): ("xfail" if f in listed[b] else "pass")
          for f in files for b in chosen}


def _item_verdict(case: ET.Element) -> str:
  if case.find("failure") is not None or case.find("error") is not None:
    return "fail"
  skipped = case.find("skipped")
  if skipped is not None:
    return "xfail" if skipped.get("type") == "pytest.xfail" else "skip"
  return "pass"


def _package_and_file(classname: str) -> Tuple[str, str]:
  """'e2e.foo_test.FooTest' -> ('e2e', 'foo_test.py'): pytest's JUnit classname is the node id's
  path relative to its rootdir, dotted, then the class."""
  parts = classname.split(".")
  return (parts[-3] if len(parts) > 2 else ""), parts[-2] + ".py"


def junit_cells(junit_xml: str, package: str) -> Dict[Cell, str]:
  """{(file, backend): cell verdict} of a pytest JUnit XML: the backend items of the files directly
  in a directory named `package` (or at the rootdir)."""
  verdicts: Dict[Cell, List[str]] = {}
  for case in ET.parse(junit_xml).getroot().iter("testcase"):
    match = _ITEM_NAME.match(case.get("name", ""))
    parent, name = _package_and_file(case.get("classname", ""))
    if not match or parent not in ("", package):
      continue
    cell = (name, match["backend"])
    verdicts.setdefault(cell, []).append(_item_verdict(case))
  return {cell: combine(items) for cell, items in verdicts.items()}


def combine(item_verdicts: List[str]) -> str:
  """A cell's verdict from its items', as Bazel judges a whole file: any fail -> fail; else any
  xfail -> xfail (a listed file needs one failing test); else any pass -> pass; else skip."""
  for verdict in ("fail", "xfail", "pass"):
    if verdict in item_verdicts:
      return verdict
  return "skip"


def _bazel_target_passed(testlogs: str, package: str, target: str) -> Optional[bool]:
  """Whether a Bazel test target passed (its test.xml has no failure/error); None if it did not
  run."""
  path = os.path.join(testlogs, package, target, "test.xml")
  if not os.path.exists(path):
    return None
  root = ET.parse(path).getroot()
  return not any(True for tag in ("failure", "error") for _ in root.iter(tag))


def bazel_cells(testlogs: str, package: str, expected: Dict[Cell, str],
                reference: str = "tf") -> Dict[Cell, str]:
  """{cell: 'pass' | 'xfail' | 'fail' | 'missing'} from a Bazel run of e2e_tests + e2e_tests_failing
  of the Bazel package `package` (e.g. 'e2e')."""
  cells = {}
  for (name, backend), want in expected.items():
    stem = name[:-len(".py")]
    suite = "e2e_tests_failing" if want == "xfail" else "e2e_tests"
    passed = _bazel_target_passed(testlogs, package, f"{suite}_{stem}__{reference}__{backend}")
    cells[(name, backend)] = ("missing" if passed is None else
                              ("fail" if not passed else want))
  return cells


def disagreements(expected: Dict[Cell, str], got: Dict[Cell, str], source: str) -> List[str]:
  """One line per expected cell that `got` does not match."""
  return [f"{source}: {name} on {backend}: expected {want}, "
          f"got {got.get((name, backend), 'missing')}"
          for (name, backend), want in sorted(expected.items())
          if got.get((name, backend), "missing") != want]


def main(argv: Optional[List[str]] = None) -> int:
  parser = argparse.ArgumentParser(prog="python -m pyiree_tf_support.tools.check_suite_verdicts",
                                   description=(__doc__ or "").split("\n\n")[0])
  parser.add_argument("junit_xml", help="JUnit XML of `pytest e2e/ --junitxml=...`")
  parser.add_argument("--dir", default="e2e", help="test directory with the BUILD.bazel (e2e)")
  parser.add_argument("--backends", help="comma-separated subset of the FAILING backends")
  parser.add_argument("--bazel_testlogs", help="bazel-testlogs of a run of both e2e suites")
  args = parser.parse_args(argv)
  directory = os.path.normpath(args.dir)
  package = os.path.basename(os.path.abspath(directory))
  try:
    expected = expected_cells(directory,
                              args.backends.split(",") if args.backends else None)
  except ValueError as e:
    print(f"ERROR: {e}", file=sys.stderr)
    return 2
  try:
    problems = disagreements(expected, junit_cells(args.junit_xml, package), "pytest")
    if args.bazel_testlogs:
      problems += disagreements(expected, bazel_cells(args.bazel_testlogs, package, expected),
                                "bazel")
  except (OSError, ET.ParseError) as e:  # a missing, empty or truncated XML file.
    print(f"ERROR: cannot read the test results: {e}", file=sys.stderr)
    return 2
  for line in problems:
    print(line)
  xfails = sum(1 for v in expected.values() if v == "xfail")
  print(f"{len(expected)} cells ({len(expected) - xfails} pass, {xfails} xfail expected): "
        + (f"{len(problems)} disagreement(s)" if problems else "all agree"))
  return 1 if problems else 0


if __name__ == "__main__":
  sys.exit(main())
