"""Writes the e2e coverage table (Markdown and HTML) from a real Bazel run of the e2e suites.

  .venv/bin/python -m pyiree_tf_support.tools.update_e2e_coverage [--run] [--output_dir=docs] \
      [--dirs=e2e,e2e/keras] [--output_base=DIR]
  .venv/bin/python -m pyiree_tf_support.tools.update_e2e_coverage BUILD_DIR   # the 2020 interface

One row per test file of --dirs (default e2e), one column per backend: pass, fail (expected:
listed in the directory's BUILD.bazel with its reason), skip (no device), and the two states that
mean the lists are wrong: FAIL (unexpected) and XPASS (listed as failing but passed). With --run it
first runs the test suites of --dirs' packages (for e2e: `bazel test //e2e:e2e_tests
//e2e:e2e_tests_failing --keep_going`); otherwise it reads the results of the last run from the
workspace's bazel-testlogs (or --testlogs), starting no Bazel. The columns are the backends of the
table (pyiree_tf_support/core/backends.py). Bazel runs in the tool's own output base, or
--output_base (e.g. yours, `bazel info output_base`, to reuse its results), and a server the tool
started is shut down when it ends, also on an error or Ctrl-C (`bazel_session`).

Given a positional BUILD_DIR (which must exist), it writes instead what IREE's 2020 script wrote:
`<BUILD_DIR>/doc/tf_e2e_coverage.md`, titled "TensorFlow End to End Coverage", one table per suite
(a row per test file, a column per backend, ✓ where the file is in the suite that is expected to
pass, ✗ where it is only in `<suite>_failing`), read from the suites with `bazel query`.

With --update_lists it rewrites instead the FAILING lists of e2e/BUILD.bazel and
e2e/keras/BUILD.bazel (--dirs, default e2e,e2e/keras) from a real run (list_updates says the
rules): the last Bazel run (bazel-testlogs, --testlogs=DIR, or the suites --run just ran), or with
--artifacts_dir=DIR the artifacts of a pytest / python run. It prints what was added, removed
or changed phase, and which listed cells the run did not hold.

With --section=e2e/generated (a row per test class) or --section=e2e/keras/applications (a row
per model file) it rewrites only that suite's section of the page (suite_sections), from the last
Bazel run or --artifacts_dir=DIR.
"""

import argparse
import contextlib
import dataclasses
import glob
import html
import os
import re
import sys
from typing import Dict, List, Optional, Sequence, Tuple
import xml.etree.ElementTree as ElementTree

from pyiree_tf_support.core import backends
from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure
from pyiree_tf_support.tools import bazel_session
from pyiree_tf_support.tools import e2e_lists
from pyiree_tf_support.tools import noted_tables
from pyiree_tf_support.tools import source_tree
from pyiree_tf_support.tools import suite_sections
from pyiree_tf_support.tools import update_lists

TOOL = "python -m pyiree_tf_support.tools.update_e2e_coverage"
BACKENDS = e2e_lists.e2e_backends()
PASS, XFAIL, SKIP, FAIL, XPASS, NOT_RUN = (
    "pass", "fail (expected)", "skip", "FAIL", "XPASS", "not run")


TABLE_DIRS, LISTS_DIRS = "e2e", "e2e,e2e/keras,e2e/generated"  # --dirs by default
_SUITE = re.compile(r"\biree_e2e_test_suite\(\s*name\s*=\s*\"([^\"]+)\"")


@dataclasses.dataclass(frozen=True)
class SuiteDir:
  """One directory of --dirs: its Bazel package (None outside the workspace: a pytest run's
  lists), BUILD file and `iree_e2e_test_suite` names."""
  path: str
  package: Optional[str]
  suites: Tuple[str, ...]

  @property
  def build_file(self) -> str:
    return os.path.join(self.path, "BUILD.bazel")

  def files(self) -> List[str]:
    return sorted(os.path.basename(p) for p in glob.glob(os.path.join(self.path, "*_test.py")))


def suite_dirs(dirs: str) -> List[SuiteDir]:
  """The comma-separated --dirs, relative to the workspace; ValueError naming a bad one."""
  found = []
  for name in (d.strip() for d in dirs.split(",") if d.strip()):
    path = os.path.realpath(os.path.join(e2e_lists.ROOT, name))
    if not os.path.isfile(os.path.join(path, "BUILD.bazel")):
      raise ValueError(f"--dirs: {name!r} has no BUILD.bazel (a directory of test files with "
                       "its iree_e2e_test_suite, e.g. e2e or e2e/keras)")
    package = os.path.relpath(path, os.path.realpath(e2e_lists.ROOT))
    with open(os.path.join(path, "BUILD.bazel"), encoding="utf-8") as f:
      suites = tuple(_SUITE.findall(f.read()))
    found.append(SuiteDir(path, None if package.startswith("..") else
                          package.replace(os.sep, "/"), suites))
  if not found:
    raise ValueError("--dirs names no directory")
  return found


def run_suites(bazel: bazel_session.Bazel, dirs: Sequence[SuiteDir]) -> int:
  """`bazel test` of every test suite of `dirs`' packages (the manual _failing ones included)."""
  outside = [d.path for d in dirs if d.package is None]
  if outside:
    print(f"ERROR: --run: {', '.join(outside)} is not in the workspace {e2e_lists.ROOT}, so "
          "Bazel cannot run it", file=sys.stderr)
    return 2
  suites = []
  for suite_dir in dirs:
    query = bazel.run("query", f"kind(test_suite, //{suite_dir.package}:all)", capture=True)
    if query.returncode != 0:
      print(query.stderr, file=sys.stderr)
      return query.returncode
    suites += [line for line in query.stdout.splitlines() if line.startswith("//")]
  if not suites:
    print(f"no test suite in {', '.join(d.package or d.path for d in dirs)}", file=sys.stderr)
    return 4
  return bazel.run("test", *suites, "--keep_going").returncode


def testlogs_of(bazel: bazel_session.Bazel) -> str:
  """bazel-testlogs of the output base `bazel` runs in."""
  info = bazel.run("info", "bazel-testlogs", capture=True)
  if info.returncode != 0:
    raise RuntimeError(f"bazel info bazel-testlogs failed: {info.stderr.strip()[-500:]}")
  return info.stdout.strip()


def _result(test_dir: str) -> Tuple[Optional[str], str]:
  """(passed / failed / skipped / None when missing, the failure text) of one Bazel test."""
  xml_path = os.path.join(test_dir, "test.xml")
  if not os.path.exists(xml_path):
    return None, ""
  root = ElementTree.parse(xml_path).getroot()
  cases = [c for c in root.iter("testcase") if c.get("name") != "test_session"]
  problems = [e for c in cases for e in c if e.tag in ("failure", "error")]
  suite_errors = sum(int(s.get("errors", 0)) + int(s.get("failures", 0))
                     for s in root.iter("testsuite"))
  log = ""
  if os.path.exists(os.path.join(test_dir, "test.log")):
    with open(os.path.join(test_dir, "test.log"), errors="replace") as f:
      log = f.read()
  if problems or suite_errors or "FAILED (" in log:
    return "failed", log
  skipped = [c for c in cases if c.get("result") in ("skipped", "suppressed")
             or c.get("status") == "notrun" or c.find("skipped") is not None]
  if not cases or len(skipped) == len(cases):
    return "skipped", log
  return "passed", log


def _run_cells(testlogs: str, dirs: Sequence[SuiteDir]
               ) -> Dict[Tuple[str, str, str], run_results.Cell]:
  """{(dir, file, backend): cell} of the run's report.json files; {} when they cannot be read."""
  try:
    run = run_results.from_bazel_testlogs(testlogs, [d.path for d in dirs])
  except run_results.RunError:
    return {}
  return {(os.path.realpath(home), name, backend): cell
          for (home, name, backend), cell in run.cells.items()}


def _test_dir(testlogs: str, suite_dir: SuiteDir, src: str, backend: str, listed: bool
              ) -> Optional[str]:
  """The bazel-testlogs directory of `src` on `backend`: its test in a `_failing` suite when it is
  listed, else in another; None when the run has neither."""
  if suite_dir.package is None:
    return None
  candidates = [os.path.join(testlogs, suite_dir.package, e2e_lists.test_name(suite, src, backend))
                for suite in suite_dir.suites if suite.endswith("_failing") == listed]
  return next((c for c in candidates if os.path.isdir(c)), None)


def short(reason: str, width: int = 60) -> str:
  """A reason cut to `width` characters at a word boundary, for a table cell."""
  if len(reason) <= width:
    return reason
  return reason[:width].rsplit(" ", 1)[0].rstrip(" ,;:(") + " …"


def _listed_text(expected: ExpectedFailure, cell: Optional[run_results.Cell]) -> str:
  """'phase: reason' of a listed failure; an untyped entry shows the phase the run failed in."""
  phase = expected.phase or (cell.phase if cell is not None and cell.phase else None)
  return f"{phase.value if phase else 'phase not listed'}: {expected.reason}"


def listed_for_file(entries: Dict[str, ExpectedFailure], src: str) -> Optional[ExpectedFailure]:
  """How `src` is listed on a backend (`entries`: the backend's FAILING list), as one table cell:
  its file entry, else its classes' / test methods' entries as one (the earliest phase, each
  reason named by its key); None when nothing of it is listed (it runs in e2e_tests)."""
  if src in entries:
    return entries[src]
  scoped = sorted((key, e) for key, e in entries.items() if key.split("::")[0] == src)
  if not scoped:
    return None
  phase = phases.earliest(e.phase for _, e in scoped)
  return ExpectedFailure(phase, "; ".join(f"{key.split('::', 1)[1]}: {e.reason}"
                                          for key, e in scoped))


def collect(testlogs: str, dirs: Optional[Sequence[SuiteDir]] = None
            ) -> Dict[str, Dict[str, Tuple[str, str]]]:
  """{file: {backend: (status, note)}} from the Bazel results and the BUILD lists of `dirs`
  (default e2e); a failing cell's note starts with its phase (as listed, or as the run's
  report.json says). A row is the file's name, or with several dirs its path in the workspace."""
  dirs = dirs if dirs is not None else suite_dirs(TABLE_DIRS)
  ran = _run_cells(testlogs, dirs)
  table: Dict[str, Dict[str, Tuple[str, str]]] = {}
  for suite_dir, src in ((d, src) for d in dirs for src in d.files()):
    failing = e2e_lists.failing_by_backend(suite_dir.build_file)
    row = {}
    for backend in BACKENDS:
      expected = listed_for_file(failing.get(backend, {}), src)
      cell = ran.get((suite_dir.path, src, backend))
      target_dir = _test_dir(testlogs, suite_dir, src, backend, expected is not None)
      result, log = _result(target_dir) if target_dir else (None, "")
      if result is None:
        row[backend] = (NOT_RUN, "")
      elif result == "skipped":
        row[backend] = (SKIP, "")
      elif expected is not None:
        if "XPASS:" in log:
          row[backend] = (XPASS, "listed as failing but passed")
        elif result == "passed":
          row[backend] = (XFAIL, _listed_text(expected, cell))
        elif cell is not None and cell.phase is not None:
          row[backend] = (FAIL, f"{cell.phase.value}: {cell.first_error} (listed as "
                                f"{_listed_text(expected, None)})")
        else:
          row[backend] = (FAIL, "the expected failure changed")
      elif result == "passed":
        row[backend] = (PASS, "")
      else:
        row[backend] = (FAIL, f"{cell.phase.value}: {cell.first_error}" if cell and cell.phase
                        else "unexpected failure")
    table[src if len(dirs) == 1 else f"{suite_dir.package or suite_dir.path}/{src}"] = row
  return table


def _cell_text(status: str, note: str) -> str:
  """A failing cell: its state, phase and the reason cut short."""
  return f"{status}: {short(note)}" if note and status in (XFAIL, FAIL) else status


def totals(table) -> Dict[str, Dict[str, int]]:
  counts = {b: {} for b in BACKENDS}
  for row in table.values():
    for backend, (status, _) in row.items():
      counts[backend][status] = counts[backend].get(status, 0) + 1
  return counts


def _total_text(count: Dict[str, int]) -> str:
  return ", ".join(f"{n} {status}" for status, n in sorted(count.items()))


def _passing_text(count: Dict[str, int]) -> str:
  return f"{count.get(PASS, 0)} of {sum(count.values())} files pass"


def _and(names: Sequence[str]) -> str:
  quoted = [f"`{n}`" for n in names]
  return " and ".join([", ".join(quoted[:-1]), quoted[-1]] if len(quoted) > 1 else quoted)


def source_text(dirs: Optional[Sequence[SuiteDir]] = None) -> str:
  """Where a page's table came from: the suites and BUILD lists of `dirs` (default --dirs'),
  so that a page made with --dirs=my_tests does not say //e2e."""
  dirs = dirs if dirs is not None else suite_dirs(TABLE_DIRS)
  suites = [f"//{d.package}:{suite}" for d in dirs if d.package is not None for suite in d.suites]
  lists = [f"{d.package}/BUILD.bazel" if d.package is not None else d.build_file for d in dirs]
  run = f"a Bazel run of {_and(suites)}" if suites else "a run"
  return (f"Generated by `{TOOL}` from {run}; the expected failures, their phases (import, "
          f"compile, runtime, mismatch) and reasons are `FAILING` in {_and(lists)}.")


def markdown(table, dirs: Optional[Sequence[SuiteDir]] = None) -> str:
  """The page: the table of `table`, said to come from `dirs` (default --dirs')."""
  lines = ["# e2e coverage", "",
           f"{source_text(dirs)} A failing cell shows its phase and its reason cut short; the "
           "whole reason is under Reasons.", ""]
  lines += noted_tables.header("file", BACKENDS)
  rows, notes = noted_tables.rows_with_notes(
      table, BACKENDS, lambda status, note: bool(note) and status != PASS, _cell_text)
  lines += rows
  count = totals(table)
  lines.append("| **passing** | " + " | ".join(_passing_text(count[b]) for b in BACKENDS) + " |")
  lines.append("| **total** | " + " | ".join(_total_text(count[b]) for b in BACKENDS) + " |")
  if notes:
    lines += ["", "## Reasons (phase: reason)", ""] + notes
  return "\n".join(lines) + "\n"


def html_page(table) -> str:
  colors = {PASS: "#c8f7c5", XFAIL: "#fde2a7", SKIP: "#e0e0e0", FAIL: "#f7a1a1", XPASS: "#f7a1a1",
            NOT_RUN: "#ffffff"}
  head = "".join(f"<th>{html.escape(b)}</th>" for b in BACKENDS)
  rows = []
  for src, row in table.items():
    cells = "".join(
        f'<td style="background:{colors[s]}" title="{html.escape(note)}">'
        f'{html.escape(_cell_text(s, note))}</td>'
        for s, note in (row[b] for b in BACKENDS))
    rows.append(f"<tr><td><code>{html.escape(src)}</code></td>{cells}</tr>")
  count = totals(table)
  rows.append("<tr><th>passing</th>" + "".join(
      f"<td>{html.escape(_passing_text(count[b]))}</td>" for b in BACKENDS) + "</tr>")
  rows.append("<tr><th>total</th>" + "".join(
      f"<td>{html.escape(_total_text(count[b]))}</td>" for b in BACKENDS) + "</tr>")
  return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>e2e coverage</title>"
          "<style>td,th{border:1px solid #999;padding:3px 8px}table{border-collapse:collapse}"
          "</style></head><body><h1>e2e coverage</h1><p>Hover a cell for its whole reason.</p>"
          f"<table><tr><th>file</th>{head}</tr>{''.join(rows)}</table></body></html>\n")


# The 2020 layout: suites (those that exist are shown), their headings, the success/failure cells.
SUITES_2020 = {"//e2e:e2e_tests": "End to end TensorFlow tests"}
SUCCESS_2020 = '<span class="success-table-element">✓</span>'
FAILURE_2020 = '<span class="failure-table-element">✗</span>'


def _bazel_query(bazel: bazel_session.Bazel, expression: str) -> List[str]:
  done = bazel.run("query", expression, capture=True)
  if done.returncode != 0:
    raise RuntimeError(f"bazel query '{expression}' failed: {done.stderr.strip()[-500:]}")
  return [line for line in done.stdout.splitlines() if line.startswith("//")]


def _suite_rows(bazel: bazel_session.Bazel, suite: str, existing: List[str]
                ) -> Dict[str, Tuple[bool, ...]]:
  """{row: (expected to pass on backend, ...)} from the names of the suite's and its _failing's
  tests."""
  passing: Dict[str, set] = {}
  for member, passes in ((suite, True), (suite + "_failing", False)):
    if member not in existing:
      continue
    prefix = member.split(":")[1] + "_"
    for label in _bazel_query(bazel, f"tests({member})"):
      name = label.split(":")[1]
      row, _, backend = name[len(prefix):].partition(f"__{e2e_lists.REFERENCE_BACKEND}__")
      if not backend:
        continue  # not an iree_e2e_test_suite test (no __<reference>__ in its name)
      backends_passing = passing.setdefault(row, set())
      if passes:
        backends_passing.add(backend)
  return {row: tuple(b in ok for b in BACKENDS) for row, ok in sorted(passing.items())}


def _column_title(backend: str) -> str:
  spec = backends.lookup(backend)
  if spec.is_tflite:
    return "tflite"
  return spec.compiler_targets[0] if spec.is_iree else "tensorflow"


def markdown_2020(bazel: bazel_session.Bazel) -> str:
  """tf_e2e_coverage.md as the 2020 script laid it out."""
  titles = [_column_title(b) for b in BACKENDS]
  iree = [_column_title(b) for b in BACKENDS if backends.lookup(b).is_iree]
  text = ["# TensorFlow End to End Coverage",
          f"There are {len(iree)} IREE backends here:", ""]
  text += [f"- {title}" for title in iree]
  text += ["", "The table shows the supported TensorFlow functions and models on each backend.",
           f"It is auto-generated from the e2e test suites by `{TOOL}`.", ""]
  sections = []
  for suite, header in SUITES_2020.items():
    package = suite.split(":")[0]
    existing = _bazel_query(bazel, f"kind(test_suite, {package}:all)")
    if suite not in existing:
      continue
    rows = [["target"] + titles, [":-:"] * (len(titles) + 1)]
    for row, passes in _suite_rows(bazel, suite, existing).items():
      rows.append([f"[{row}]({package.lstrip('/')}/{row}.py)"]
                  + [SUCCESS_2020 if ok else FAILURE_2020 for ok in passes])
    sections += [f"## {header}", "\n".join(" | ".join(cells) for cells in rows)]
  return "\n".join(text) + "\n" + "\n\n".join(sections) + "\n"


def write_2020(bazel: bazel_session.Bazel, build_dir: str) -> str:
  text = markdown_2020(bazel)
  path = os.path.join(build_dir, "doc", "tf_e2e_coverage.md")
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with open(path, "w", encoding="utf-8") as f:
    f.write(text)
  return path


def main(argv: Optional[Sequence[str]] = None, prog: str = TOOL) -> int:
  """The command; `prog`: the name its usage shows (update_lists runs it too)."""
  parser = argparse.ArgumentParser(prog=prog, description=(__doc__ or "").splitlines()[0])
  parser.add_argument("build_dir", nargs="?", metavar="BUILD_DIR",
                      help="2020 interface: write BUILD_DIR/doc/tf_e2e_coverage.md")
  parser.add_argument("--run", action="store_true", help="run the Bazel suites of --dirs first")
  parser.add_argument("--output_dir", default=os.path.join(e2e_lists.ROOT, "docs"))
  parser.add_argument("--update_lists", action="store_true",
                      help="rewrite the FAILING lists of --dirs from a run instead of the table")
  parser.add_argument("--testlogs", help="bazel-testlogs of the run (default: the workspace's)")
  parser.add_argument("--artifacts_dir",
                      help="the --artifacts_dir of a pytest / python run (--update_lists)")
  parser.add_argument("--dirs", help="comma-separated test dirs of the workspace: the table's "
                      f"rows (default {TABLE_DIRS}) or the BUILD.bazel lists to update "
                      f"(default {LISTS_DIRS})")
  parser.add_argument("--output_base",
                      help="the Bazel output base to run in (default: the tool's own, under "
                      "$XDG_CACHE_HOME/pyiree_tf_support/bazel); a server the tool starts there "
                      "is shut down when it ends")
  parser.add_argument("--section", choices=list(suite_sections.SECTIONS),
                      help="rewrite only this section of the page (from --artifacts_dir or "
                           "the Bazel run)")
  parser.add_argument("--dry_run", action="store_true",
                      help="with --update_lists: print the changes, write nothing")
  args = parser.parse_args(argv)
  source_tree.checkout_root(TOOL)
  try:
    dirs = suite_dirs(args.dirs or (LISTS_DIRS if args.update_lists else TABLE_DIRS))
  except ValueError as e:
    parser.error(str(e))
  if args.build_dir is not None and not args.update_lists and not os.path.isdir(args.build_dir):
    parser.error(f"BUILD_DIR {args.build_dir!r} is not an existing directory")
  # Bazel only where it is needed: reading the last run's bazel-testlogs starts no server.
  needs_bazel = (args.run or (args.build_dir is not None and not args.update_lists) or (
      args.output_base is not None and args.testlogs is None and args.artifacts_dir is None))
  with contextlib.ExitStack() as stack:
    bazel = (stack.enter_context(bazel_session.session(e2e_lists.ROOT, args.output_base))
             if needs_bazel else None)
    return _main(args, dirs, bazel)


def _main(args: argparse.Namespace, dirs: Sequence[SuiteDir],
          bazel: Optional[bazel_session.Bazel]) -> int:
  if args.run:
    assert bazel is not None  # main starts Bazel for --run.
    if run_suites(bazel, dirs) == 2:  # a bad command: nothing ran
      return 2
  testlogs = args.testlogs or (testlogs_of(bazel) if bazel else
                               os.path.join(e2e_lists.ROOT, "bazel-testlogs"))
  if args.update_lists:
    return update_lists.update([d.path for d in dirs], testlogs, args.artifacts_dir,
                               args.dry_run)
  if args.section is not None:
    spec = suite_sections.SECTIONS[args.section]
    directory = os.path.join(e2e_lists.ROOT, args.section)
    try:
      if args.artifacts_dir is not None:
        run = run_results.from_artifacts_dir(args.artifacts_dir, [directory])
        source = f"a run's artifacts ({args.artifacts_dir})"
      else:
        run = run_results.from_bazel_testlogs(testlogs, [directory])
        source = f"a Bazel run of {spec.suite}"
    except run_results.RunError as e:
      print(f"{TOOL}: {e}", file=sys.stderr)
      return 2
    table = suite_sections.write(os.path.join(args.output_dir, "e2e_coverage.md"), run,
                                 source, spec)
    bad = [f"{key}@{b}" for key, row in table.items() for b, (s, _) in row.items()
           if s in (suite_sections.FAIL, suite_sections.XPASS)]
    unit = "classes" if spec.by_class else "files"
    print(f"{len(table)} {unit}; " + (f"{len(bad)} cells disagree with the lists: "
                                        + ", ".join(bad[:20]) if bad else "the lists hold"))
    return 1 if bad else 0
  if args.build_dir is not None:
    assert bazel is not None  # main starts Bazel for --build_dir without --update_lists.
    print(f"wrote {write_2020(bazel, args.build_dir)}")
    return 0
  if not os.path.isdir(testlogs):
    print(f"ERROR: no Bazel run to read: {testlogs} is not a directory (run the suites first, "
          "or pass --run, or --testlogs=DIR)", file=sys.stderr)
    return 2
  try:
    table = collect(testlogs, dirs)
  except expected_failures.ListsError as e:
    print(f"ERROR: {e}", file=sys.stderr)
    return 2
  os.makedirs(args.output_dir, exist_ok=True)
  page_path = os.path.join(args.output_dir, "e2e_coverage.md")
  kept = ""  # the suites' own sections are rewritten by --section only.
  if os.path.exists(page_path):
    with open(page_path, encoding="utf-8") as f:
      kept = suite_sections.kept_sections(f.read())
  with open(page_path, "w") as f:
    f.write(markdown(table, dirs) + ("\n" + kept if kept else ""))
  with open(os.path.join(args.output_dir, "e2e_coverage.html"), "w") as f:
    f.write(html_page(table))
  count = totals(table)
  print("\n".join(f"{b}: {_total_text(count[b])}" for b in BACKENDS))
  wrong = [(src, b) for src, row in table.items() for b, (s, _) in row.items()
           if s in (FAIL, XPASS, NOT_RUN)]
  if wrong:
    print(f"{len(wrong)} cells disagree with the BUILD.bazel lists or did not run: "
          + ", ".join(f"{src}@{b}" for src, b in wrong[:20]), file=sys.stderr)
  return 1 if wrong else 0


if __name__ == "__main__":
  sys.exit(main())
