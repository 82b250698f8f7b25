"""Reads report.json back (`report_files` writes it): what a real run of e2e files found, per
(file, backend): passed, or the earliest phase it failed in and its first error line. Read from the
run's report.json files, never from test names alone; the list tools (`pyiree_tf_support.tools`)
use it.

Two kinds of run:
- Bazel: `bazel-testlogs/<package>/<target>/test.outputs/` (outputs.zip, or its unzipped files)
  holds `<Module>/report.json`; the target is `<suite>_<file stem>__<reference>__<backend>`.
  When several targets ran one cell (e2e_tests and, in an earlier run, e2e_tests_failing), the
  newest outputs win.
- An artifacts dir of a pytest / python run (`--artifacts_dir=DIR`): `DIR/<Module>/report.json`.

Besides the cells per (file, backend), the run holds the same per (class, backend) and per (test
method, backend) (`Run.scoped`, keyed `file_test.py::Class[::test_method]`, the keys of FAILING's
scopes), read from the test ids (`pkg.foo_test.Class.test_method`).

A report entry names its file (`"file"`), and each backend record its `"phase"` and
`"first_error"` (decided by the library: pyiree_tf_support/core/phases.py); a report without phases
(written by an older library) is refused. The file falls back to the test id
(`pkg.foo_test.Class.test`) or the Bazel target name.
"""

import dataclasses
import glob
import json
import os
import re
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple
import zipfile

from pyiree_tf_support.core import backends
from pyiree_tf_support.core import phases

FORMAT_PREFIX = "pyiree_tf_support.report/"
_REPEATED = re.compile(r"(shard|run)_\d+_of_\d+")  # Bazel's dirs of one shard / --runs_per_test

# (directory of the test file, file name or a scope key within it, backend)
CellKey = Tuple[str, str, str]


@dataclasses.dataclass(frozen=True)
class Cell:
  """One (file, backend) of a run. phase None: it passed."""
  phase: Optional[phases.Phase]
  first_error: Optional[str]
  source: str  # where its records came from (a report.json, or a Bazel target's testlogs).
  written: float = 0.0  # when its newest report was written (seconds since the epoch).


@dataclasses.dataclass(frozen=True)
class Run:
  cells: Dict[CellKey, Cell]  # per (file, backend)
  notes: Tuple[str, ...]  # what the run held that no list can take (said in the output).
  # per (file::Class, backend) and (file::Class::test_method, backend)
  scoped: Dict[CellKey, Cell] = dataclasses.field(default_factory=dict)


def _run(cells: Dict[CellKey, Optional[Cell]], notes: Sequence[str]) -> Run:
  """The run of cells of every scope (None: every record skipped): split by scope."""
  kept = {key: cell for key, cell in cells.items() if cell is not None}
  return Run({k: c for k, c in kept.items() if "::" not in k[1]}, tuple(notes),
             {k: c for k, c in kept.items() if "::" in k[1]})


def scope_keys(name: str, test_id: str) -> List[str]:
  """The keys a record of test `test_id` in file `name` counts for: the file, and its class and
  test method when the id names them (`pkg.foo_test.Class.test_method`)."""
  parts = test_id.split(".")
  if len(parts) < 2 or not all(parts[-2:]):
    return [name]
  return [name, f"{name}::{parts[-2]}", f"{name}::{parts[-2]}::{parts[-1]}"]


class RunError(ValueError):
  """No run at the given place, or a report.json that cannot be read as this library's."""


def record_phase(record: Dict[str, Any], source: str) -> Optional[phases.Phase]:
  """The failure phase of one backend record, None when it did not fail."""
  if "phase" not in record:
    raise RunError(f"{source}: written before reports recorded failure phases (no 'phase' in "
                   f"{record.get('backend')!r}'s record); run the tests again")
  phase = record["phase"]
  if phase is not None and phase not in phases.NAMES:
    raise RunError(f"{source}: phase {phase!r} of {record.get('backend')!r} is not one of "
                   f"{', '.join(phases.NAMES)}")
  return None if phase is None else phases.Phase(phase)


def record_first_error(record: Dict[str, Any]) -> str:
  return record.get("first_error") or ""


def _load(data: bytes, source: str) -> Dict[str, Any]:
  try:
    document = json.loads(data)
  except ValueError as e:
    raise RunError(f"{source}: not JSON ({e})") from None
  form = document.get("format") if isinstance(document, dict) else None
  if not (isinstance(form, str) and form.startswith(FORMAT_PREFIX)
          and isinstance(document.get("tests"), dict)):
    raise RunError(f"{source}: format {form!r} is not a pyiree_tf_support report "
                   f"({FORMAT_PREFIX}N with a 'tests' dict)")
  return document


def _file_of_test_id(test_id: str) -> Optional[str]:
  parts = test_id.split(".")
  return parts[-3] + ".py" if len(parts) >= 3 and parts[-3] != "__main__" else None


def _dicts(value: Any, source: str, where: str) -> List[Dict[str, Any]]:
  if not (isinstance(value, list) and all(isinstance(v, dict) for v in value)):
    raise RunError(f"{source}: {where} is not a list of objects, as a pyiree_tf_support report has")
  return value


def _records(document: Dict[str, Any], source: str, file_hint: Optional[str]
             ) -> Iterator[Tuple[str, Optional[str], str, Dict[str, Any]]]:
  """(test id, file, backend as the lists name it, record) of every backend record, in test
  order."""
  for test_id, entry in sorted(document["tests"].items()):
    if not isinstance(entry, dict):
      raise RunError(f"{source}: test {test_id!r} is not an object, as a pyiree_tf_support "
                     "report has")
    if entry.get("interrupted"):  # the run never finished it: no verdict (report_files).
      continue
    name = entry.get("file") or _file_of_test_id(test_id) or file_hint
    for trace in _dicts(entry.get("traces", []), source, f"{test_id}'s traces"):
      for record in _dicts(trace.get("backends", []), source, f"{test_id}'s backends"):
        spec = backends.find_by_artifact_name(str(record.get("backend", "")))
        yield test_id, name, spec.e2e_name if spec else record.get("backend", ""), record


def combine(records: Sequence[Dict[str, Any]], source: str, written: float = 0.0
            ) -> Optional[Cell]:
  """A cell from its records: the earliest failing phase and the first error of the first record
  failing in it; passed when none failed; None when every record was skipped."""
  phased = [(record_phase(r, source), r) for r in records]
  failed = [(p, r) for p, r in phased if p is not None]
  if failed:
    phase = phases.earliest(p for p, _ in failed)
    first = next(r for p, r in failed if p == phase)
    return Cell(phase, record_first_error(first), source, written)
  if any(r.get("outcome") == "PASS" for r in records):
    return Cell(None, None, source, written)
  return None


def _cells_of_report(document: Dict[str, Any], source: str, directories: Sequence[str],
                     file_hint: Optional[str], notes: List[str]
                     ) -> Dict[CellKey, List[Dict[str, Any]]]:
  grouped: Dict[CellKey, List[Dict[str, Any]]] = {}
  for test_id, name, backend, record in _records(document, source, file_hint):
    homes = [d for d in directories if name and os.path.exists(os.path.join(d, name))]
    note = (f"{source}: test file {name} is in none of {', '.join(directories)}; ignored" if name
            else f"{source}: {test_id} names no test file (report from before \"file\"); ignored")
    if not homes and note not in notes:
      notes.append(note)
    for home in homes:
      assert name is not None  # a home is a directory holding the test file `name`.
      for key in scope_keys(name, test_id):
        grouped.setdefault((home, key, backend), []).append(record)
  return grouped


def from_artifacts_dir(artifacts_dir: str, directories: Sequence[str]) -> Run:
  """The cells of a pytest / python run that wrote `artifacts_dir`/<Module>/report.json."""
  paths = sorted(glob.glob(os.path.join(artifacts_dir, "*", "report.json")))
  if not paths:
    raise RunError(f"no run found: {artifacts_dir} has no <Module>/report.json (pass the "
                   "--artifacts_dir of a pytest or python run of e2e files)")
  notes: List[str] = []
  grouped: Dict[CellKey, List[Dict[str, Any]]] = {}
  stamps: Dict[CellKey, float] = {}
  for path in paths:
    with open(path, "rb") as f:
      document = _load(f.read(), path)
    for key, records in _cells_of_report(document, path, directories, None, notes).items():
      grouped.setdefault(key, []).extend(records)
      stamps[key] = max(stamps.get(key, 0.0), os.path.getmtime(path))
  return _run({key: combine(records, artifacts_dir, stamps[key])
              for key, records in grouped.items()}, notes)


def _outputs(target_dir: str) -> Iterator[Tuple[str, bytes, float]]:
  """(source, report.json bytes, mtime) of one Bazel test's undeclared outputs."""
  outputs = os.path.join(target_dir, "test.outputs")
  archive = os.path.join(outputs, "outputs.zip")
  if os.path.exists(archive):
    with zipfile.ZipFile(archive) as z:
      for member in z.namelist():
        if re.fullmatch(r"[^/]+/report\.json", member):
          yield f"{archive}!{member}", z.read(member), os.path.getmtime(archive)
  for path in sorted(glob.glob(os.path.join(outputs, "*", "report.json"))):
    with open(path, "rb") as f:
      yield path, f.read(), os.path.getmtime(path)


def _file_of_target(head: str, directory: str) -> Optional[str]:
  """The test file a `<suite>_<stem>` names: the longest `_`-suffix that is a file beside it."""
  parts = head.split("_")
  for i in range(1, len(parts)):
    name = "_".join(parts[i:]) + ".py"
    if os.path.exists(os.path.join(directory, name)):
      return name
  return None


def _target_dirs(testlogs: str) -> Dict[str, List[str]]:
  """{"<package>/<target>": [dirs holding its test.outputs]}: a sharded or repeated test has one
  per shard_i_of_n / run_i_of_n directory under its target's."""
  targets: Dict[str, List[str]] = {}
  for root, subdirs, _ in os.walk(testlogs):
    if "test.outputs" in subdirs:
      parts = os.path.relpath(root, testlogs).split(os.sep)
      while parts and _REPEATED.fullmatch(parts[-1]):
        parts.pop()
      targets.setdefault("/".join(parts), []).append(root)
    subdirs[:] = sorted(d for d in subdirs if not d.startswith("test."))
  return targets


def from_bazel_testlogs(testlogs: str, directories: Sequence[str]) -> Run:
  """The cells of the last Bazel run of the e2e suites of `directories`' packages."""
  if not os.path.isdir(testlogs):
    raise RunError(f"no run found: {testlogs} is not a directory (bazel-testlogs of a run)")
  notes: List[str] = []
  # Only the newest target's records of a cell are read: bazel-testlogs keeps the outputs of
  # targets an earlier run had (e.g. a file's e2e_tests_failing target before it passed).
  newest: Dict[CellKey, Tuple[float, str, List[Dict[str, Any]]]] = {}
  for label, target_dirs in sorted(_target_dirs(testlogs).items()):
    package, _, target = label.rpartition("/")
    home = next((d for d in directories
                 if os.path.normpath(d).endswith(os.sep + package) or d == package), None)
    head, _, backend = target.rpartition("__")
    if home is None or "__" not in head:
      continue  # another package's test, or not an iree_e2e_test_suite target.
    hint = _file_of_target(head.rpartition("__")[0], home)
    grouped: Dict[CellKey, List[Dict[str, Any]]] = {}
    stamps: Dict[CellKey, float] = {}
    for target_dir in target_dirs:
      for source, data, mtime in _outputs(target_dir):
        for key, records in _cells_of_report(_load(data, source), source, [home], hint,
                                             notes).items():
          if key[2] == backend:
            grouped.setdefault(key, []).extend(records)
            stamps[key] = max(stamps.get(key, 0.0), mtime)
    for key, records in grouped.items():
      if stamps[key] >= newest.get(key, (-1.0, "", []))[0]:
        newest[key] = (stamps[key], os.path.join(testlogs, label), records)
  # A class or method counts from the target whose records of its file are the newest.
  newest = {key: value for key, value in newest.items()
            if newest.get((key[0], key[1].split("::")[0], key[2]), value)[1] == value[1]}
  run = _run({key: combine(records, source, stamp)
              for key, (stamp, source, records) in newest.items()}, notes)
  if not run.cells:
    raise RunError(f"no run found: no e2e test of {', '.join(directories)} left a report.json "
                   f"under {testlogs}")
  return run
