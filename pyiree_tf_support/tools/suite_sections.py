"""The sections of docs/e2e_coverage.md that come from a suite of their own: the generated
tests (`e2e/generated`, one row per test class: a function or layer in one variant) and the
keras.applications models (`e2e/keras/applications`, one row per model file), each with one
column per default backend, from a real run's report.json files (a pytest run's
--artifacts_dir, or Bazel's testlogs) and the FAILING lists of the suite's BUILD.bazel.

A cell is `pass`, `fail (expected)` (listed, and failed in the listed phase), or one of the
states that mean the lists are wrong: `FAIL` (unlisted, or another phase) and `XPASS` (listed,
passed); `not run` when the run did not hold it. A failing cell's note is its phase and reason
(the listed one, else the run's first error): the failure's first cause. Only the section
asked for is rewritten (`update_e2e_coverage --section=DIR`); the rest of the page comes from a
Bazel run of e2e/, and a rewrite of the rest keeps every section (`kept_sections`).
"""

import dataclasses
import os
from typing import Dict, Optional, Tuple

from pyiree_tf_support.core import backends as backends_lib
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure
from pyiree_tf_support.tools import e2e_lists
from pyiree_tf_support.tools import noted_tables

PASS, XFAIL, FAIL, XPASS, NOT_RUN = "pass", "fail (expected)", "FAIL", "XPASS", "not run"

Row = Dict[str, Tuple[str, str]]  # backend -> (status, note)


@dataclasses.dataclass(frozen=True)
class Section:
  """A suite with a section of its own on the coverage page."""
  directory: str  # the suite's directory in the workspace (its BUILD.bazel holds FAILING)
  title: str  # the heading's words before the directory
  by_class: bool  # rows per test class (file::Class) rather than per file
  suite: str  # what a Bazel run of it is called in the section's source line
  # whether the suite runs the reference against itself (a `tf` column): the applications'
  # suite runs only IREE's backends, each against TensorFlow.
  reference_column: bool = True

  @property
  def backends(self) -> Tuple[str, ...]:
    """The section's columns: the default backends the suite runs."""
    return tuple(b for b in e2e_lists.default_backends()
                 if self.reference_column or backends_lib.lookup(b).is_iree)

  def holds(self, directory: str) -> bool:
    """Whether a run's cell of `directory` (relative, or absolute as Bazel's) is the suite's."""
    directory = os.path.normpath(directory)
    return directory == self.directory or directory.endswith(os.sep + self.directory)

  @property
  def heading(self) -> str:
    return f"## {self.title} (`{self.directory}`)"

  @property
  def row_title(self) -> str:
    return "test class" if self.by_class else "file"


GENERATED = Section("e2e/generated", "Generated tests", True, "`//e2e/generated:all`")
APPLICATIONS = Section(
    "e2e/keras/applications", "keras.applications models", False,
    "`//e2e/keras/applications:keras_applications_tests` and `..._tests_failing`",
    reference_column=False)
SECTIONS: Dict[str, Section] = {s.directory: s for s in (GENERATED, APPLICATIONS)}


def _listing(entries: Dict[str, ExpectedFailure], key: str) -> Optional[ExpectedFailure]:
  """How the row `file` or `file::Class` is listed: its own entry, else its file's."""
  return entries.get(key) or entries.get(key.split("::")[0])


def _status(cell: Optional[run_results.Cell], listed: Optional[ExpectedFailure]
            ) -> Tuple[str, str]:
  if cell is None:
    return NOT_RUN, ""
  if cell.phase is None:
    return (XPASS, "listed as failing but passed") if listed else (PASS, "")
  found = f"{cell.phase.value}: {cell.first_error}"
  if listed is not None and listed.phase in (None, cell.phase):
    return XFAIL, f"{cell.phase.value}: {listed.reason}"
  return FAIL, found + (f" (listed as {listed.phase.value})" if listed and listed.phase else "")


def rows(run: run_results.Run, build_file: str, spec: Section = GENERATED) -> Dict[str, Row]:
  """{row key: {backend: (status, note)}} for every row the run or the lists name: test
  classes (`file::Class`) or files, as `spec` has its rows."""
  failing = expected_failures.read(build_file).lists
  if spec.by_class:
    found = {(key, backend): cell for (_, key, backend), cell in run.scoped.items()
             if key.count("::") == 1}
    listed = {key for entries in failing.values() for key in entries if key.count("::") == 1}
  else:
    found = {(key, backend): cell for (directory, key, backend), cell in run.cells.items()
             if spec.holds(directory)}
    listed = {key.split("::")[0] for entries in failing.values() for key in entries}
  keys = {key for key, _ in found} | listed
  return {key: {backend: _status(found.get((key, backend)),
                                 _listing(failing.get(backend, {}), key))
                for backend in spec.backends}
          for key in sorted(keys)}


def section(table: Dict[str, Row], source: str, spec: Section = GENERATED) -> str:
  """The Markdown section: its heading, where it comes from, the table and the reasons."""
  backends = spec.backends
  scope = "by test class" if spec.by_class else "by file"
  lines = [spec.heading, "",
           f"Generated by `python -m pyiree_tf_support.tools.update_e2e_coverage "
           f"--section={spec.directory}` from {source}; the expected failures are `FAILING` in "
           f"`{spec.directory}/BUILD.bazel` ({scope}).", ""]
  lines += noted_tables.header(spec.row_title, backends)
  rows_, notes = noted_tables.rows_with_notes(table, backends, lambda status, note: bool(note))
  lines += rows_
  unit = "classes" if spec.by_class else "files"
  counts = {b: sum(1 for row in table.values() if row[b][0] == PASS) for b in backends}
  lines.append("| **passing** | " + " | ".join(f"{counts[b]} of {len(table)} {unit}"
                                               for b in backends) + " |")
  if notes:
    lines += ["", "Reasons (phase: reason):", ""] + [n.replace("|", "\\|") for n in notes]
  return "\n".join(lines) + "\n"


def _bounds(page: str, spec: Section) -> Optional[Tuple[int, int]]:
  """Where `spec`'s section is in `page` (start, end), None when the page has none."""
  start = page.find(spec.heading)
  if start < 0:
    return None
  end = page.find("\n## ", start + len(spec.heading))
  return start, len(page) if end < 0 else end + 1


def splice(page: str, new_section: str, spec: Section = GENERATED) -> str:
  """`page` with `spec`'s section replaced by `new_section` (appended when it has none)."""
  bounds = _bounds(page, spec)
  if bounds is None:
    return page.rstrip("\n") + "\n\n" + new_section
  start, end = bounds
  rest = page[end:]
  return page[:start] + new_section + ("\n" + rest if rest else "")


def kept_section(page: str, spec: Section = GENERATED) -> str:
  """`spec`'s section of `page` ("" when it has none), for a rewrite of the rest."""
  bounds = _bounds(page, spec)
  return "" if bounds is None else page[bounds[0]:bounds[1]].rstrip("\n") + "\n"


def kept_sections(page: str) -> str:
  """Every suite's section of `page`, in the order of SECTIONS, separated by a blank line."""
  return "\n".join(text for text in (kept_section(page, s) for s in SECTIONS.values()) if text)


def write(page_path: str, run: run_results.Run, source: str,
          spec: Section = GENERATED) -> Dict[str, Row]:
  """Rewrites `spec`'s section of the page at `page_path` from `run`; returns its table."""
  table = rows(run, os.path.join(e2e_lists.ROOT, spec.directory, "BUILD.bazel"), spec)
  page = ""
  if os.path.exists(page_path):
    with open(page_path, encoding="utf-8") as f:
      page = f.read()
  with open(page_path, "w", encoding="utf-8") as f:
    f.write(splice(page, section(table, source, spec), spec))
  return table


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
