"""Per-backend outcomes of one compared trace, and the one report format built from them.

PASS, MISMATCH, WITHIN REFERENCE ERROR (a float mismatch where the backend is within K x
TensorFlow's own error against float64: comparing/reference_error), IMPORT ERROR, COMPILE ERROR,
RUNTIME ERROR and SKIPPED describe what happened; each
failure has its phase (`phases.Phase`) and a one-line first error. A failure of a backend listed as
expected to fail is shown as XFAIL; how a listed backend is held to its list over a whole class
(XPASS, wrong phase) is `expected_failures`'.
"""

import dataclasses
import enum
from typing import Optional, Sequence, Tuple

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting import hints


class Status(enum.Enum):
  PASS = "PASS"
  MISMATCH = "MISMATCH"
  WITHIN_REFERENCE_ERROR = "WITHIN REFERENCE ERROR"
  IMPORT_ERROR = "IMPORT ERROR"
  COMPILE_ERROR = "COMPILE ERROR"
  RUNTIME_ERROR = "RUNTIME ERROR"
  SKIPPED = "SKIPPED"
  XFAIL = "XFAIL"

  @property
  def failed(self) -> bool:
    return self in _PHASE_OF

  @property
  def phase(self) -> Optional[phases.Phase]:
    """The phase a failure happened in; None for PASS, SKIPPED and XFAIL."""
    return _PHASE_OF.get(self)


_PHASE_OF = {
    Status.IMPORT_ERROR: phases.Phase.IMPORT,
    Status.COMPILE_ERROR: phases.Phase.COMPILE,
    Status.RUNTIME_ERROR: phases.Phase.RUNTIME,
    Status.MISMATCH: phases.Phase.MISMATCH,
    Status.WITHIN_REFERENCE_ERROR: phases.Phase.REFERENCE_ERROR,
}


@dataclasses.dataclass(frozen=True)
class Outcome:
  """What happened to one target backend in one compared trace."""
  backend: str
  status: Status
  detail: str = ""
  trace_path: Optional[str] = None
  repro_command: Optional[str] = None  # lines that reproduce the first mismatching call
  call_index: Optional[int] = None  # the first mismatching call, and its method and records.
  call_method: Optional[str] = None
  mismatches: Sequence[comparison.Mismatch] = ()
  # The worst difference over every compared value as a fraction of its tolerance (0: all equal;
  # over 1: a mismatch); None when the trace was not compared.
  worst_fraction: Optional[float] = None
  # Each failing call's text (the detail is them joined): a brief report shows the first whole.
  call_details: Tuple[str, ...] = ()

  @property
  def phase(self) -> Optional[phases.Phase]:
    return self.status.phase

  @property
  def first_error(self) -> Optional[str]:
    """One line saying what failed (None unless failed): the first `error: ...` diagnostic of an
    import or compile error, else the first line of the detail."""
    if not self.status.failed:
      return None
    return phases.first_error_line(
        self.detail, diagnostics=self.phase in (phases.Phase.IMPORT, phases.Phase.COMPILE))

  @property
  def hint(self) -> Optional[str]:
    """What to rewrite, when the first error is a known unsupported pattern (`hints`)."""
    found = hints.hint_for(self.first_error)
    return found.text if found else None

  def expecting_failure(self, covered: str = "") -> "Outcome":
    """This outcome for a backend listed as expected to fail (`covered`: what the listing
    covers, said in the detail)."""
    if not self.status.failed:
      return self
    listed = f" [listed: {covered}]" if covered else ""
    return dataclasses.replace(
        self, status=Status.XFAIL,
        detail=f"expected failure{listed}: {self.status.value}\n{self.detail}")


def evaluate(ref_trace: traces.Trace, tar_trace: traces.Trace, error: Optional[str],
             trace_path: Optional[str] = None,
             repro_commands: Sequence[Optional[str]] = (),
             tolerance_policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY) -> Outcome:
  """The outcome of a target trace: its runtime error, or its mismatches against the reference
  under `tolerance_policy` (the --tolerances overrides)."""
  if error:
    # The call that raised, when a module call did, and its repro as a mismatch's.
    index = len(tar_trace.calls) if tar_trace.pending_method else None
    command = (repro_commands[index]
               if index is not None and index < len(repro_commands) else None)
    return Outcome(tar_trace.backend, Status.RUNTIME_ERROR, error, trace_path, command, index,
                   tar_trace.pending_method if index is not None else None)
  compared = traces.compare_trace_calls(ref_trace, tar_trace, tolerance_policy)
  call_mismatches = compared.calls
  if not call_mismatches:
    return Outcome(tar_trace.backend, Status.PASS, "", trace_path,
                   worst_fraction=compared.worst_fraction)
  details = tuple(m.describe() for m in call_mismatches)
  first = call_mismatches[0]
  command = repro_commands[first.index] if first.index < len(repro_commands) else None
  return Outcome(tar_trace.backend, Status.MISMATCH, "\n".join(details), trace_path, command,
                 first.index, first.method, tuple(first.mismatches), compared.worst_fraction,
                 details)


def within_reference_error(outcome: Outcome, judgement: str) -> Outcome:
  """A MISMATCH typed as within the reference's own error (`judgement`: both sides' errors
  against float64, comparing/reference_error's CallJudgement.describe()), said first."""
  return dataclasses.replace(outcome, status=Status.WITHIN_REFERENCE_ERROR,
                             detail=f"{judgement}\n{outcome.detail}")


def with_call_note(outcome: Outcome, note: str) -> Outcome:
  """`outcome` with `note` (e.g. a float mismatch's errors against float64) as the last line of
  its first failing call's text, where the call's differences are."""
  if not outcome.call_details:
    return dataclasses.replace(outcome, detail=f"{outcome.detail}\n{note}")
  first = f"{outcome.call_details[0]}\n  {note}"
  whole = "\n".join(outcome.call_details)
  head = outcome.detail[:len(outcome.detail) - len(whole)] if outcome.detail.endswith(whole) \
      else ""
  details = (first,) + tuple(outcome.call_details[1:])
  return dataclasses.replace(outcome, detail=head + "\n".join(details), call_details=details)


def _indent(text: str, prefix: str = "  ") -> str:
  return "\n".join(prefix + line for line in text.splitlines())


def earliest_failure(outcomes: Sequence[Outcome]) -> Optional[Outcome]:
  """The failed outcome of the earliest phase (the first of them in `outcomes`); None if none."""
  failed = [o for o in outcomes if o.status.failed]
  return min(failed, key=_failed_rank) if failed else None


def _failed_rank(outcome: Outcome) -> int:
  phase = outcome.phase
  assert phase is not None  # a failed status has its phase (_PHASE_OF).
  return phase.rank


# A pass this close to its tolerance says how close it came.
CLOSE_PASS_SHOWN = 0.5


def closeness(outcome: Outcome) -> str:
  """'0.95 of tolerance' for a pass whose worst difference is at least CLOSE_PASS_SHOWN of its
  tolerance; "" otherwise."""
  fraction = outcome.worst_fraction
  if outcome.status is not Status.PASS or fraction is None or fraction < CLOSE_PASS_SHOWN:
    return ""
  return f"{fraction:.2f} of tolerance"


# A brief report lists this many later failing calls in a line each, then counts the rest.
LATER_CALLS_SHOWN = 5


def _one_line(call_detail: str, width: int = 150) -> str:
  """'call 3 (f): outputs: ...' from a call's text (its header, then its first difference)."""
  lines = call_detail.splitlines()
  text = " ".join([lines[0]] + [line.strip() for line in lines[1:2]])
  return text if len(text) <= width else text[:width - 3] + "..."


def brief_detail(outcome: Outcome, full_report: str = "report.txt") -> str:
  """The detail with only its first failing call in full: each later one in a line, up to
  LATER_CALLS_SHOWN, then their count (a 22-call trace on 3 backends printed 928 lines)."""
  details, detail = outcome.call_details, outcome.detail
  whole = "\n".join(details)
  if len(details) < 2 or not detail.endswith(whole):
    return detail
  later = details[1:]
  lines = [_one_line(d) for d in later[:LATER_CALLS_SHOWN]]
  if len(later) > LATER_CALLS_SHOWN:
    lines.append(f"... and {len(later) - LATER_CALLS_SHOWN} more failing calls; every call in "
                 f"full: {full_report}")
  return detail[:len(detail) - len(whole)] + details[0] + "\n" + _indent("\n".join(lines))


def format_outcome(outcome: Outcome, full_report: Optional[str] = None) -> str:
  """One backend's part of a report; with `full_report` (where the whole one is), brief."""
  line = f"{outcome.backend}: {outcome.status.value}"
  if closeness(outcome):
    line += f" ({closeness(outcome)})"
  detail = outcome.detail if full_report is None else brief_detail(outcome, full_report)
  if detail:
    line += "\n" + _indent(_with_hint(detail, outcome.first_error, outcome.hint))
  if outcome.trace_path and outcome.status in (Status.MISMATCH, Status.WITHIN_REFERENCE_ERROR,
                                               Status.RUNTIME_ERROR, Status.XFAIL):
    line += "\n" + _indent(f"trace: {bazel_paths.display_path(outcome.trace_path)}")
  if outcome.repro_command:
    line += "\n" + _indent(outcome.repro_command)
  return line


def _with_hint(detail: str, first_error: Optional[str], hint: Optional[str]) -> str:
  """The detail with `hint: ...` as the line after the one holding the first error (the first
  line when none holds it whole)."""
  if not hint:
    return detail
  lines = detail.split("\n")
  at = next((i for i, line in enumerate(lines) if first_error and first_error in line), 0)
  return "\n".join(lines[:at + 1] + [f"hint: {hint}"] + lines[at + 1:])


def format_report(function_name: str, reference: str, outcomes: Sequence[Outcome],
                  full_report: Optional[str] = None) -> str:
  """The whole report of one compared trace; the headline names every failing backend. With
  `full_report` (the path of the report in full), brief: each backend's first failing call in
  full, later ones a line each (`brief_detail`)."""
  failed = [o for o in outcomes if o.status.failed]
  if failed:
    headline = (f"Trace '{function_name}' failed on {len(failed)} of {len(outcomes)} target "
                f"backend(s) compared with the reference '{reference}': "
                + ", ".join(f"{o.backend} ({o.status.value.lower()})" for o in failed) + ".")
  else:
    by_status = {status: [o.backend for o in outcomes if o.status is status] for status in Status}
    parts = [f"{len(names)} {status.value.lower()} ({', '.join(names)})"
             for status, names in by_status.items() if names]
    headline = (f"Trace '{function_name}' compared with the reference '{reference}': "
                + ", ".join(parts or ["no target backends"]) + ".")
  return headline + "\n" + "\n".join(_format_outcomes(outcomes, full_report))


def _format_outcomes(outcomes: Sequence[Outcome],
                     full_report: Optional[str] = None) -> Sequence[str]:
  """Each outcome's text; an import error the backends share (the module is imported once for
  every IREE backend) is written out under the first of them only."""
  shown = {}
  texts = []
  for o in outcomes:
    first = shown.get(o.detail) if o.status is Status.IMPORT_ERROR else None
    if first is None:
      if o.status is Status.IMPORT_ERROR:
        shown[o.detail] = o.backend
      texts.append(format_outcome(o, full_report))
    else:
      texts.append(f"{o.backend}: {o.status.value}\n  the same import as {first} (one import "
                   "for every IREE backend): see above")
  return texts
