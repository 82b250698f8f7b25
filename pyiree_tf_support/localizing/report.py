"""The localizer's report: the verdict, the per-dispatch error table, the dispatch's sources.

A compiler engineer reads it top down: the one-line verdict first (what `verdict_line` returns,
also put into a test's failure report), then the dispatches in program order up to the
divergence with their input and output error, the worst element, each backend's executable
source (files written by iree-compile), and the iree_input.mlir lines the source's loc()s point
at, with the TF method (exported function) each belongs to.
"""

import dataclasses
import os
import re
from typing import Dict, List, Optional, Sequence

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing.engine import Kind
from pyiree_tf_support.localizing.engine import Localization

# Rows of the error table shown before the divergence (the earlier ones are summarized).
TABLE_ROWS = 12
# Traced tensors with no counterpart in the oracle shown (all of them in report.json).
UNMATCHED_ROWS = 5
_LOC = re.compile(r'"(?P<file>[^"]*)":(?P<line>\d+):(?P<column>\d+)')
_FUNC = re.compile(r"^\s*func\.func (?:public |private )?@(?P<name>[\w$.-]+)")


@dataclasses.dataclass(frozen=True)
class SourceLine:
  """One iree_input.mlir line a dispatch's source points at, and the function holding it."""
  line: int
  function: str
  text: str


def executable_source(sources_dir: str, executable: str) -> Optional[str]:
  """The dumped source file defining `hal.executable public @<executable>`, else None."""
  if not os.path.isdir(sources_dir):
    return None
  needle = f"hal.executable public @{executable} "
  for name in sorted(os.listdir(sources_dir)):
    path = os.path.join(sources_dir, name)
    with open(path, errors="replace") as f:
      if needle in f.read():
        return path
  return None


def input_lines(source_path: str, iree_input_path: str) -> List[SourceLine]:
  """The iree_input.mlir lines `source_path`'s loc()s point at, in order, with their function."""
  with open(source_path, errors="replace") as f:
    source = f.read()
  wanted = sorted({int(m.group("line")) for m in _LOC.finditer(source)
                   if os.path.basename(m.group("file")) == os.path.basename(iree_input_path)})
  with open(iree_input_path, "rb") as f:
    data = f.read()
  if artifacts.is_mlir_bytecode(data):  # a big module's: no lines (`iree-opt` prints it).
    return []
  lines = data.decode("utf-8", errors="replace").splitlines()
  function, by_line = "", {}
  for number, text in enumerate(lines, start=1):
    match = _FUNC.match(text)
    if match:
      function = match.group("name")
    by_line[number] = (function, text.strip())
  return [SourceLine(n, *by_line[n]) for n in wanted if n in by_line]


# The verdicts that locate a dispatch: only they point at its sources.
_LOCATED = (Kind.DISPATCH, Kind.OUTSIDE, Kind.DRIFT)


def _culprit_files(result: Localization) -> Dict[str, Optional[str]]:
  if result.formed is None or result.finding is None or result.finding.culprit is None:
    return {}
  executable = result.finding.culprit.key.split("::")[0]
  return {side.backend: executable_source(side.sources_dir, executable)
          for side in (result.formed.suspect, result.formed.trusted)
          if side is not None}


def verdict_line(result: Localization) -> str:
  """The verdict in one line (a test failure's report carries this)."""
  head = f"localized call {result.call} ({result.method}) on {result.suspect}"
  if result.trusted:
    head += f" against {result.trusted}"
    if result.trusted_note:
      head += f" ({result.trusted_note})"
  culprit = result.finding.culprit if result.finding else None
  if result.kind is Kind.DISPATCH and culprit is not None:
    return (f"{head}: dispatch {culprit.key} (occurrence {culprit.occurrence}"
            f"{'' if culprit.call == result.call else f', call {culprit.call}'}): outputs "
            f"{culprit.worst.describe()}; its inputs {culprit.input_error:.3g}x tolerance")
  if result.kind is Kind.OUTSIDE and culprit is not None:
    return (f"{head}: diverged outside any dispatch: the inputs of {culprit.key} "
            f"(occurrence {culprit.occurrence}, call {culprit.call}) differ "
            f"({culprit.worst.describe()}) though no earlier dispatch's outputs did")
  if result.kind is Kind.DRIFT and culprit is None:
    return f"{head}: accumulated drift on every backend: {result.detail}"
  if result.kind is Kind.DRIFT and culprit is not None:
    return (f"{head}: accumulated drift: over tolerance first at {culprit.key} "
            f"(occurrence {culprit.occurrence}, call {culprit.call}, outputs "
            f"{culprit.output_error:.3g}x, inputs {culprit.input_error:.3g}x tolerance); no "
            "single dispatch amplifies it")
  return f"{head}: {result.kind.value}" + (f": {result.detail}" if result.detail else "")


def _format_error(value: float) -> str:
  return "-" if value != value else f"{value:.3g}"


def table(rows: Sequence[events.DispatchRow]) -> List[str]:
  """The per-dispatch error table in program order, the last TABLE_ROWS rows in full."""
  lines = ["  call  dispatch (occurrence)" + " " * 40 + "inputs   outputs  (x tolerance)"]
  if len(rows) > TABLE_ROWS:
    earlier = rows[:-TABLE_ROWS]
    worst = max(max(r.input_error, r.output_error if r.output_error == r.output_error else 0)
                for r in earlier)
    lines.append(f"  ... {len(earlier)} earlier dispatches, worst {worst:.3g}x tolerance")
  for row in rows[-TABLE_ROWS:]:
    name = f"{row.key} ({row.occurrence})"
    lines.append(f"  {row.call:>4}  {name:<60} {_format_error(row.input_error):>8} "
                 f"{_format_error(row.output_error):>9}")
  return lines


def format_report(result: Localization, iree_input_path: str = "") -> str:
  """The whole report: verdict, error table, sources and the input lines they come from."""
  lines = [verdict_line(result)]
  if result.finding is not None and result.finding.rows:
    lines.append("per-dispatch error, program order, up to the divergence:")
    lines += table(result.finding.rows)
  if result.unmatched:
    lines.append(f"no counterpart in the oracle, not compared ({len(result.unmatched)} traced "
                 "tensors):")
    lines += [f"  {line}" for line in result.unmatched[:UNMATCHED_ROWS]]
    if len(result.unmatched) > UNMATCHED_ROWS:
      lines.append(f"  ... {len(result.unmatched) - UNMATCHED_ROWS} more in report.json")
  files = _culprit_files(result) if result.kind in _LOCATED else {}
  steps = next_steps(result)
  lines += steps[:len(files)]
  suspect_source = files.get(result.suspect)
  if suspect_source and iree_input_path and os.path.exists(iree_input_path):
    located = input_lines(suspect_source, iree_input_path)
    if located:
      lines.append(f"its ops come from {iree_input_path}:")
      lines += [f"  {s.line}: ({s.function}) {s.text[:100]}" for s in located[:20]]
  lines += steps[len(files):]
  if result.formed is not None:
    lines.append(f"dispatches formed with {result.suspect}'s flags ({result.formed.trace_flag}"
                 f"): {result.formed.flow_path}")
  if result.work_dir:
    lines.append(f"files: {result.work_dir}")
  return "\n".join(lines)


def next_steps(result: Localization) -> List[str]:
  """What a failure message shows under the verdict line: the located dispatch's source on
  each backend and its standalone repro (or why there is none)."""
  lines = [f"{backend} executable source: {path or '(not dumped)'}"
           for backend, path in (_culprit_files(result) if result.kind in _LOCATED
                                 else {}).items()]
  if result.repro is not None:
    lines.append(f"the dispatch alone, on both backends: {result.repro.command}" if
                 result.repro.directory else f"no standalone repro: {result.repro.reason}")
  return lines


def to_json(result: Localization) -> Dict[str, object]:
  """The report as data (report.json's `localization`)."""
  culprit = result.finding.culprit if result.finding else None
  data: Dict[str, object] = {
      "verdict": result.kind.value, "suspect": result.suspect, "trusted": result.trusted,
      "call": result.call, "method": result.method, "detail": result.detail,
      "summary": verdict_line(result), "work_dir": result.work_dir,
      "trusted_note": result.trusted_note or None,
      # The verdict line and, indented under it, next_steps: what a failure message shows.
      "message": "\n".join([verdict_line(result)] + ["  " + line
                                                     for line in next_steps(result)]),
  }
  if culprit is not None:
    data["dispatch"] = {"key": culprit.key, "occurrence": culprit.occurrence,
                        "call": culprit.call, "input_error": culprit.input_error,
                        "output_error": culprit.output_error,
                        "worst": culprit.worst.describe()}
    data["sources"] = _culprit_files(result)
  if result.repro is not None:
    data["repro"] = result.repro.command or None
  if result.unmatched:
    data["unmatched"] = list(result.unmatched)
  return data
