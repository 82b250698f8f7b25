"""report.json's records of one compared trace and of each of its target backends, as frozen
dataclasses: the session builds them (`report_files.backend_record`, `trace_record`), a
`ComparedTrace` holds them, and `to_json()` is what report.json holds.

A record's fields are report.json's keys, in the order they are built and documented
(docs/failures.md lists them; `tests/reporting/records_test.py` checks the list, and a real run's
keys, against these fields). What is learnt after a backend's record is built (the per-method
compiles, the float64 judgement, a localization, a reduction) is set with
`dataclasses.replace`, never by changing a record; those keys are written only when set
(`WRITTEN_WHEN_SET`), as report.json has always had them, so every reader of the format
`pyiree_tf_support.report/1` (run_results, the tools, the fuzzer) reads the same documents.
Nested values (`call`, `worst`, `paths`, ...) stay JSON: their keys are documented beside.
"""

import dataclasses
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from pyiree_tf_support.reporting.verdicts import Status

# A backend record's keys written only when the session set them (absent, not null, otherwise).
WRITTEN_WHEN_SET = ("method_compiles", "float64", "localization", "reduction")

Json = Dict[str, Any]


@dataclasses.dataclass(frozen=True)
class BackendRecord:
  """One target backend's entry of a compared trace: what happened, where, how to reproduce it."""
  backend: str
  outcome: str  # a `Status` value: PASS, MISMATCH, XFAIL, ...
  phase: Optional[str]  # of the raw outcome (also when shown as XFAIL); None for a pass.
  first_error: Optional[str]  # one line; None unless it failed.
  hint: Optional[str]  # what to rewrite (reporting/hints.py); None for other errors.
  detail: str
  call: Optional[Json]  # {"index", "method"} of the first failing call.
  worst: Optional[Json]  # the element a user looks at first (`report_files.worst_element`).
  # The greatest difference as a fraction of its tolerance (0: equal; "inf" as text); None if
  # not compared.
  worst_fraction_of_tolerance: Optional[Union[float, str]]
  paths: Mapping[str, str]  # trace, trace_dir, compiled, repro_dir, reproducer: those that exist.
  commands: Mapping[str, str]  # replay, iree_run_module or no_iree_run_module: those given.
  method_compiles: Optional[Json] = None  # the whole module did not compile: each method alone.
  float64: Optional[Json] = None  # a float mismatch judged against float64.
  localization: Optional[Json] = None  # --localize_mismatches: the first diverging dispatch.
  reduction: Optional[Json] = None  # --reduce_failures: what the reducer wrote.

  def to_json(self) -> Json:
    """report.json's entry: every field, but those of `WRITTEN_WHEN_SET` only when set."""
    written = {}
    for field in dataclasses.fields(self):
      value = getattr(self, field.name)
      if value is None and field.name in WRITTEN_WHEN_SET:
        continue
      written[field.name] = dict(value) if isinstance(value, Mapping) else value
    return written

  @classmethod
  def from_json(cls, entry: Mapping[str, Any]) -> "BackendRecord":
    """The record of an entry `to_json` wrote (KeyError naming a missing key)."""
    names = [field.name for field in dataclasses.fields(cls)]
    return cls(**{name: entry[name] for name in names
                  if name not in WRITTEN_WHEN_SET or name in entry})


@dataclasses.dataclass(frozen=True)
class TraceRecord:
  """One compared trace: its name, reference, whether every target passed, its report text
  (report.txt's block) and each target backend's record."""
  trace: str
  reference: str
  passed: bool
  report: str
  backends: Tuple[BackendRecord, ...]

  @classmethod
  def of(cls, trace: str, reference: str, report: str,
         backends: Tuple[BackendRecord, ...]) -> "TraceRecord":
    """The record, passed unless a backend's outcome failed (an XFAIL does not)."""
    failed = any(Status(backend.outcome).failed for backend in backends)
    return cls(trace, reference, not failed, report, tuple(backends))

  def to_json(self) -> Json:
    return {"trace": self.trace, "reference": self.reference, "passed": self.passed,
            "report": self.report, "backends": [backend.to_json() for backend in self.backends]}

  @classmethod
  def from_json(cls, entry: Mapping[str, Any]) -> "TraceRecord":
    """The record of an entry `to_json` wrote (KeyError naming a missing key)."""
    return cls(entry["trace"], entry["reference"], entry["passed"], entry["report"],
               tuple(BackendRecord.from_json(backend) for backend in entry["backends"]))
