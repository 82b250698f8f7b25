"""<Module>/report.json and report.txt: every compared trace's outcomes, on disk after every run.

report.json holds one entry per test (keyed by its unittest id; "file": the test file's
basename), each with its traces and, per target backend, the outcome, the phase and first error
line of the raw outcome (also when shown as XFAIL), the first failing call, its worst element, the
artifact paths and the commands that reproduce it. report.txt is the same reports as text. A
trace's and a backend's entries are `records.TraceRecord` and `records.BackendRecord`
(`to_json()`); an earlier run's entries read back stay the JSON they were written as. Tests and
processes sharing a module directory merge their entries per (test, backend) under a lock; each
file is replaced atomically.
"""

import json
import math
import os
from typing import Any, ContextManager, Dict, Optional, Sequence, Set, Tuple

from absl import logging

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.reporting.records import BackendRecord
from pyiree_tf_support.reporting.records import TraceRecord
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

FORMAT = "pyiree_tf_support.report/1"
JSON_NAME = "report.json"
TEXT_NAME = "report.txt"


def json_path(module_dir: str) -> str:
  return os.path.join(module_dir, JSON_NAME)


def text_path(module_dir: str) -> str:
  return os.path.join(module_dir, TEXT_NAME)


def _value(value: Any) -> Any:
  """A JSON value for an array element: numbers stay numbers; NaN, infinities and complex
  numbers become their numpy text."""
  item = value.item() if hasattr(value, "item") else value
  if isinstance(item, bool) or isinstance(item, int):
    return item
  if isinstance(item, float) and math.isfinite(item):
    return item
  return str(value)


def _worst(mismatch: comparison.Mismatch) -> Optional[Tuple[str, comparison.Element,
                                                              Dict[str, Any]]]:
  """(kind, worst element, its difference fields) of a numeric, NaN/Inf or exact mismatch; None
  for the other kinds, which have no element."""
  if isinstance(mismatch, comparison.NumericMismatch):
    return "numeric", mismatch.greatest_abs, {"difference": _value(mismatch.abs_diff),
                                              "ulps": mismatch.ulps}
  if isinstance(mismatch, comparison.NonFiniteMismatch):
    return "nan_inf_placement", mismatch.first, {}
  if isinstance(mismatch, comparison.ExactMismatch):
    return ("exact", mismatch.greatest or mismatch.first,
            {"difference": _value(mismatch.greatest_diff)})
  return None


def worst_element(mismatches: Sequence[comparison.Mismatch]) -> Optional[Dict[str, Any]]:
  """The element a user looks at first: of the first numeric, NaN/Inf or exact mismatch; for
  structure, shape or dtype mismatches what was expected and got instead."""
  for mismatch in mismatches:
    worst = _worst(mismatch)
    if worst is None:
      continue
    name, element, differences = worst
    record = {"kind": name, "path": structure.format_path(mismatch.path[0], mismatch.path[1:]),
              "index": list(element.index), "expected": _value(element.expected),
              "got": _value(element.got)}
    record.update(differences)
    return record
  if mismatches:
    first = mismatches[0]
    # Not one of _worst's kinds (none is here), so one with a whole expected and got.
    assert isinstance(first, (comparison.StructureMismatch, comparison.ShapeMismatch,
                              comparison.DtypeMismatch))
    return {"kind": type(first).__name__, "path": structure.format_path(first.path[0],
                                                                        first.path[1:]),
            "index": None, "expected": str(first.expected), "got": str(first.got)}
  return None


def backend_record(outcome: Outcome, paths: Dict[str, Optional[str]],
                   commands: Dict[str, Optional[str]],
                   raw: Optional[Outcome] = None) -> BackendRecord:
  """One target backend's entry: what happened, where, and how to reproduce it.

  `raw`: the outcome before an expected failure turned it into XFAIL (default: `outcome`); its
  phase and first error are recorded, so a listed failure still says where it failed.
  """
  raw = raw or outcome
  call = None
  if outcome.call_index is not None:
    call = {"index": outcome.call_index, "method": outcome.call_method}
  return BackendRecord(
      backend=outcome.backend,
      outcome=outcome.status.value,
      phase=raw.phase.value if raw.phase else None,
      first_error=raw.first_error,
      hint=raw.hint,
      detail=outcome.detail,
      call=call,
      worst=worst_element(outcome.mismatches),
      worst_fraction_of_tolerance=(None if outcome.worst_fraction is None
                                   else _value(outcome.worst_fraction)),
      paths={name: path for name, path in paths.items() if path},
      commands={name: command for name, command in commands.items() if command})


def trace_record(trace_name: str, reference: str, report: str,
                 backends: Sequence[BackendRecord]) -> TraceRecord:
  return TraceRecord.of(trace_name, reference, report, tuple(backends))


def _locked(module_dir: str) -> ContextManager[None]:
  return safe_files.locked(os.path.join(module_dir, ".report.lock"))


def load(module_dir: str) -> Dict[str, Any]:
  """The module's report.json, or an empty one when it is missing or not ours."""
  empty = {"format": FORMAT, "tests": {}}
  try:
    document = json.loads(safe_files.read_bytes(json_path(module_dir)))
  except FileNotFoundError:
    return empty
  except (OSError, ValueError) as e:
    logging.warning("Replacing unreadable %s: %s", json_path(module_dir), e)
    return empty
  if not isinstance(document, dict) or document.get("format") != FORMAT:
    return empty
  return document


def render_text(document: Dict[str, Any]) -> str:
  """report.txt: each test's reports, in test order."""
  blocks = []
  for test_id in sorted(document["tests"]):
    entry = document["tests"][test_id]
    for trace in entry["traces"]:
      blocks.append(f"== {test_id}\n{trace['report']}\n")
    if entry.get("interrupted"):
      blocks.append(f"== {test_id}\nINTERRUPTED: {entry['interrupted']}; not a verdict.\n")
  return "\n".join(blocks)


def _without(trace: Dict[str, Any], backends: Set[str]) -> Optional[Dict[str, Any]]:
  """`trace` without the records of `backends` (None when nothing is left); a report it shares
  with them says they were replaced."""
  kept = [b for b in trace["backends"] if b["backend"] not in backends]
  if len(kept) == len(trace["backends"]):
    return trace if kept else None
  if not kept:
    return None
  replaced = [b["backend"] for b in trace["backends"] if b["backend"] in backends]
  note = f"({', '.join(replaced)}: replaced by a later report of this trace.)"
  # An earlier run's entry stays the JSON it was written as: a record of this format from an
  # older version may lack a key the dataclasses have.
  return dict(trace, report=f"{trace['report']}\n{note}", backends=kept,
              passed=not any(Status(b["outcome"]).failed for b in kept))


def record(module_dir: str, test_id: str, trace: TraceRecord, first_of_test: bool,
           test_file: Optional[str] = None) -> None:
  """Adds `trace` to test `test_id` in report.json and rewrites report.txt.

  `test_file`: the path of the file defining the test class (its basename is recorded).

  Records are merged per (test, backend): `first_of_test` (the test's first compared trace in
  this run) drops what an earlier run left for the test *on the backends `trace` holds*, and a
  later trace drops the earlier trace of its name on them. Records of other backends stay, so
  processes running one file on different backends (per-backend CI jobs) into one artifacts dir
  each keep theirs.
  """
  backends = {b.backend for b in trace.backends}
  written = trace.to_json()
  with _locked(module_dir):
    document = load(module_dir)
    entry = document["tests"].get(test_id) or {}
    traces = []
    for earlier in entry.get("traces", []):
      if first_of_test or earlier["trace"] == trace.trace:
        earlier = _without(earlier, backends)
      if earlier is not None:
        traces.append(earlier)
    document["tests"][test_id] = {
        "passed": all(t["passed"] for t in traces + [written]),
        "file": os.path.basename(test_file) if test_file else entry.get("file"),
        "traces": traces + [written]}
    safe_files.write_text(json_path(module_dir), json.dumps(document, indent=1, sort_keys=True))
    safe_files.write_text(text_path(module_dir), render_text(document))


def mark_interrupted(module_dir: str, test_id: str, what: str,
                     test_file: Optional[str] = None) -> None:
  """Records that test `test_id` was interrupted (`what`: e.g. "during its examples"): its entry
  is not passed, whatever the traces it finished say, and readers of the run (`run_results`)
  take no verdict from it. The next complete run of the test replaces the entry."""
  with _locked(module_dir):
    document = load(module_dir)
    entry = document["tests"].get(test_id) or {}
    document["tests"][test_id] = {
        "passed": False, "interrupted": what,
        "file": os.path.basename(test_file) if test_file else entry.get("file"),
        "traces": entry.get("traces", [])}
    safe_files.write_text(json_path(module_dir), json.dumps(document, indent=1, sort_keys=True))
    safe_files.write_text(text_path(module_dir), render_text(document))
