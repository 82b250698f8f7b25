"""Per-backend outcomes of one compared trace, and the one report format built from them."""

import dataclasses
import enum
from typing import Optional, Sequence


class Status(enum.Enum):
  PASS = "PASS"
  MISMATCH = "MISMATCH"
  COMPILE_ERROR = "COMPILE ERROR"
  RUNTIME_ERROR = "RUNTIME ERROR"
  SKIPPED = "SKIPPED"

  @property
  def failed(self) -> bool:
    return self in (Status.MISMATCH, Status.COMPILE_ERROR, Status.RUNTIME_ERROR)


@dataclasses.dataclass(frozen=True)
class Outcome:
  """What happened to one target backend in one compared trace."""
  backend: str
  status: Status
  detail: str = ""
  trace_path: Optional[str] = None


def _indent(text: str, prefix: str = "  ") -> str:
  return "\n".join(prefix + line for line in text.splitlines())


def format_outcome(outcome: Outcome) -> str:
  line = f"{outcome.backend}: {outcome.status.value}"
  if outcome.detail:
    line += "\n" + _indent(outcome.detail)
  if outcome.trace_path and outcome.status.failed:
    line += "\n" + _indent(f"trace: {outcome.trace_path}")
  return line


def format_report(function_name: str, reference: str, outcomes: Sequence[Outcome]) -> str:
  """The whole report of one compared trace, failing backends first named in the headline."""
  failed = [o for o in outcomes if o.status.failed]
  if failed:
    headline = (f"Trace '{function_name}' failed on {len(failed)} of {len(outcomes)} target "
                f"backend(s) compared with the reference '{reference}': "
                + ", ".join(f"{o.backend} ({o.status.value.lower()})" for o in failed) + ".")
  else:
    headline = (f"Trace '{function_name}' matched the reference '{reference}' on "
                f"{sum(o.status is Status.PASS for o in outcomes)} target backend(s).")
  return headline + "\n" + "\n".join(format_outcome(o) for o in outcomes)
