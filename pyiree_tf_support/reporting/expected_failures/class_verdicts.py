"""The per-(class, backend) verdict of the truth table in this package's docstring, and its lines:
the XFAIL line logged, the XPASS and WRONG PHASE errors that keep a list honest. A class whose
tests run under different listings (a per-method entry beside its class's or file's) gets one
verdict per listing, over the tests it covers (`judge_listings`)."""

import dataclasses
import enum
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.expected_failures.lists import ExpectedFailure
from pyiree_tf_support.reporting.expected_failures.xfail_flag import Listing
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

HINT = "FAILING in BUILD.bazel, or --xfail_backends"  # where a list is fixed.


class Verdict(enum.Enum):
  """A backend's verdict over a whole test class."""
  PASS = "PASS"
  FAIL = "FAIL"  # not listed and failed: each failing trace already reports itself.
  SKIPPED = "SKIPPED"  # could not run here: says nothing about a list.
  XFAIL = "XFAIL"
  XPASS = "XPASS"
  WRONG_PHASE = "WRONG PHASE"

  @property
  def list_is_wrong(self) -> bool:
    """Whether the verdict fails the class because the failing list no longer holds."""
    return self in (Verdict.XPASS, Verdict.WRONG_PHASE)


@dataclasses.dataclass(frozen=True)
class ClassVerdict:
  """One backend's verdict over a class: `observed` is its earliest-phase failure (None: it
  failed nothing), `expected` how it is listed (None: not listed)."""
  backend: str
  verdict: Verdict
  expected: Optional[ExpectedFailure]
  observed: Optional[Outcome]
  covered: str = ""  # what the listing covers (Listing.label); "" when not said.

  def message(self, test_class: str) -> str:
    """The error (XPASS, WRONG PHASE) or the line to log (XFAIL); "" for the other verdicts."""
    if self.verdict is Verdict.XPASS:
      return xpass_message(test_class, [self.backend], self.covered)
    observed = self.observed
    if self.verdict is Verdict.WRONG_PHASE:
      listed = self.expected.phase if self.expected is not None else None
      if listed is None or observed is None:
        raise ValueError(f"{self.backend}: a WRONG PHASE verdict needs a listed phase and the "
                         "observed failure")
      return wrong_phase_message(test_class, self.backend, listed, observed, self.covered)
    if self.verdict is Verdict.XFAIL:
      if observed is None:
        raise ValueError(f"{self.backend}: an XFAIL verdict needs the observed failure")
      return (f"XFAIL {self.backend} ({_failed_phase(observed).value}): "
              f"{observed.first_error}{_covering(self.covered)}")
    return ""


def _failed_phase(observed: Outcome) -> phases.Phase:
  """The phase `observed` failed in; a ValueError when it is no failure."""
  phase = observed.phase
  if phase is None:
    raise ValueError(f"not a failed outcome: {observed}")
  return phase


def _covering(covered: str) -> str:
  return f" [listed: {covered}]" if covered else ""


def judge(backend: str, expected: Optional[ExpectedFailure],
          outcomes: Sequence[Outcome]) -> ClassVerdict:
  """`backend`'s verdict from every raw outcome of the class (before XFAIL; the other backends'
  outcomes are ignored): one row of the truth table by `expected`, one column by the outcomes."""
  mine = [o for o in outcomes if o.backend == backend]
  failure = verdicts.earliest_failure(mine)
  if failure is None and mine and all(o.status is Status.SKIPPED for o in mine):
    verdict = Verdict.SKIPPED
  elif expected is None:
    verdict = Verdict.PASS if failure is None else Verdict.FAIL
  elif failure is None:
    verdict = Verdict.XPASS
  elif expected.phase is None or failure.phase is expected.phase:
    verdict = Verdict.XFAIL
  else:
    verdict = Verdict.WRONG_PHASE
  return ClassVerdict(backend, verdict, expected, failure)


def judge_listings(backend: str, listings: Mapping[str, Optional[Listing]],
                   outcomes: Mapping[str, Sequence[Outcome]],
                   every_test: Sequence[Outcome] = ()) -> List[ClassVerdict]:
  """`backend`'s verdicts over a class, one per listing its tests ran under: `listings` and
  `outcomes` by test method (raw outcomes; a method that compared nothing has none), judged over
  the methods each listing covers plus `every_test` (e.g. the backend skipped at set-up)."""
  groups: Dict[Listing, List[Outcome]] = {}
  for method, listing in listings.items():
    if listing is not None:
      groups.setdefault(listing, []).extend(outcomes.get(method, ()))
  return [dataclasses.replace(judge(backend, listing.expected, list(every_test) + found),
                              covered=listing.label)
          for listing, found in groups.items()]


def xpass_message(test_class: str, backends: Sequence[str], covered: str = "") -> str:
  one = len(backends) == 1
  return (f"XPASS: {test_class} passed every trace on {', '.join(backends)}, which "
          f"{'is' if one else 'are'} listed as expected to fail; remove "
          f"{'it' if one else 'them'} from the failing list ({HINT}).{_covering(covered)}")


def wrong_phase_message(test_class: str, backend: str, listed: phases.Phase,
                        observed: Outcome, covered: str = "") -> str:
  phase = _failed_phase(observed)
  return (f"WRONG PHASE: {test_class} on {backend} is listed as expected to fail in phase "
          f"'{listed.value}' but failed first in phase '{phase.value}': "
          f"{observed.first_error}; update its expected-failure phase (FAILING in BUILD.bazel, "
          f"or --xfail_backends={backend}:{phase.value}).{_covering(covered)}")


def class_lines(test_class: str, judged: Sequence[ClassVerdict]) -> Tuple[List[str], List[str]]:
  """(lines to log, errors) of a class's verdicts: an XFAIL line per backend that failed as
  listed; a WRONG PHASE error per backend, and one XPASS error naming every backend that passed."""
  logged = [v.message(test_class) for v in judged if v.verdict is Verdict.XFAIL]
  errors = [v.message(test_class) for v in judged if v.verdict is Verdict.WRONG_PHASE]
  passed: Dict[str, List[str]] = {}  # by what the listing covers
  for v in judged:
    if v.verdict is Verdict.XPASS:
      passed.setdefault(v.covered, []).append(v.backend)
  return logged, errors + [xpass_message(test_class, b, c) for c, b in passed.items()]
