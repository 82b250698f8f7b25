"""Runs examples of one method on the already compiled reference and targets, and shrinks the
first failure to the smallest input that fails the same way.

`run_examples` takes the modules (`ExampleModules`: compiled once for the class, never again
here), a method, its signature and `ExampleSettings`. hypothesis draws the inputs
(`strategies`) and shrinks them: `hypothesis.find` is given the predicate "fails the same way as
the first failure found", so the example it returns is the smallest it could find where the same
backend fails with the same kind of difference (`FailureKind`). Each example is one call traced
as a test's trace is (`traces.run_trace`) and judged by `verdicts.evaluate` (the per-dtype
tolerances, NaN placement as in any compared trace). A module with state is reinitialized before
every example, so none sees what an earlier one left.

Honest counts: an input the reference rejects (TensorFlow raises) is not compared, and its reason
is counted; an own fault (`faults.OwnFault`) stops the run and is raised, never made a backend's
verdict; examples past the time box are not run: hypothesis is stopped when it ends, and a
reference call still running then (a loop that never ends on a drawn input) is cancelled there
(`interrupts.time_box`) and named, not counted, with the examples done before it kept. The
caller fails a run that compared nothing.
"""

import collections
import dataclasses
import random
import re
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import interrupts
from pyiree_tf_support.core import signatures as signatures_lib
from pyiree_tf_support.examples import strategies
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

# At most this many nonzero elements of a shrunk input are each set to zero to see if it matters.
MAX_ELEMENT_CHECKS = 32


@dataclasses.dataclass(frozen=True)
class ExampleTarget:
  """A target backend's compiled module, by the name its outcomes carry."""
  name: str
  module: Any


@dataclasses.dataclass(frozen=True)
class ExampleModules:
  """What examples run on: modules compiled once for a class. `stateful`: the module has
  variables, so every example starts from a reinitialized module."""
  reference: Any
  targets: Tuple[ExampleTarget, ...]
  stateful: bool = True


@dataclasses.dataclass(frozen=True)
class ExampleSettings:
  """How many examples, from which seed, for how long, and where hypothesis keeps what it
  stores while it runs (None: hypothesis' default, .hypothesis/ in the working directory)."""
  examples: int
  seed: int = 0
  seconds: Optional[float] = 60.0  # None: no time box.
  storage_dir: Optional[str] = None
  policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY


@dataclasses.dataclass(frozen=True)
class FailureKind:
  """How a backend failed on an example: its status and, for a mismatch, the first differing
  value's path and the kind of difference (the `comparison` record's class); for a runtime error
  the exception's type."""
  backend: str
  status: Status
  difference: str = ""

  def describe(self) -> str:
    return f"{self.backend} {self.status.value}" + (f" ({self.difference})"
                                                     if self.difference else "")


@dataclasses.dataclass(frozen=True)
class ElementCheck:
  """A nonzero element of the shrunk input and whether setting it to zero stops the failure."""
  input_index: int
  index: Tuple[int, ...]
  value: Any
  matters: bool


@dataclasses.dataclass(frozen=True)
class FoundFailure:
  """The first failure found, the smallest input failing the same way, and its outcome."""
  kind: FailureKind
  first_inputs: Tuple[np.ndarray, ...]
  shrunk_inputs: Tuple[np.ndarray, ...]
  outcome: Outcome
  elements: Tuple[ElementCheck, ...] = ()


@dataclasses.dataclass(frozen=True)
class ExamplesResult:
  """What a run of examples did: counts, the reasons the reference rejected inputs, the failure
  found (shrunk) and the other kinds of failure seen, which were not shrunk."""
  method: str
  requested: int
  seed: int
  run: int  # examples the reference was called on, shrinking included.
  compared: int  # examples whose outputs were compared on at least one target.
  rejected: Tuple[Tuple[str, int], ...]  # (the reference's error, how many examples).
  timed_out: bool
  seconds: float
  targets: Tuple[str, ...]
  failure: Optional[FoundFailure] = None
  other_failures: Tuple[FailureKind, ...] = ()
  # The first input the reference accepted (compared on the targets, if any).
  first_accepted: Optional[Tuple[np.ndarray, ...]] = None
  # Of `run`, those after the first failure: shrinking it and checking its elements (why more
  # run than were requested).
  after_failure: int = 0
  # The input whose reference call was still running when the time box ended (stopped there,
  # not compared), and what the time box was.
  past_time_box: Optional[Tuple[np.ndarray, ...]] = None
  time_box: str = ""


class _MethodCall:
  """A trace function making one call; an object, not a function, so that recording the trace
  does not read its source every example."""

  def __init__(self, method: str, signature: signatures_lib.FunctionSignature,
               inputs: Sequence[np.ndarray]):
    self.__name__ = method
    self._method = method
    self._args = signature.pack_inputs(list(inputs))

  def __call__(self, module: Any) -> None:
    getattr(module, self._method)(*self._args)


_RAISED = re.compile(r"raised (\w+)")


class _TimeBoxEnded(BaseException):
  """Raised by the predicate once the time box ended: hypothesis stops at an exception that is
  no Exception (as at a KeyboardInterrupt) instead of drawing the rest of `max_examples`
  examples only to be told no each time, minutes and memory for --examples=10000000."""


def failure_kind(outcome: Outcome) -> Optional[FailureKind]:
  """The kind of a failed outcome (None for a pass)."""
  if not outcome.status.failed:
    return None
  if outcome.status is Status.MISMATCH and outcome.mismatches:
    first = outcome.mismatches[0]
    path = "".join(f"[{p!r}]" for p in first.path[1:])
    return FailureKind(outcome.backend, outcome.status,
                       f"{first.path[0]}{path}: {type(first).__name__}")
  raised = _RAISED.search(outcome.detail or "")
  return FailureKind(outcome.backend, outcome.status, raised.group(1) if raised else "")


_NOT_THE_REASON = re.compile(r"^(\s|Detected at node |Graph execution error:$|$)")


def _reason(error: str, method: str) -> str:
  """The reference's error in one line, for counting: its exception type and the line that
  says why (TensorFlow's graph errors say it after where the node was defined)."""
  error = error.split(f"call 0 ({method}) raised ", 1)[-1]
  kind, _, message = error.partition(": ")
  why = [line for line in message.splitlines() if not _NOT_THE_REASON.match(line)]
  return f"{kind}: {(why[-1] if why else message.strip())[:200]}"


def input_size(inputs: Sequence[np.ndarray]) -> Tuple[int, int, float]:
  """(elements, nonzero elements, sum of the finite magnitudes): what shrinking makes smaller."""
  elements = sum(int(np.size(a)) for a in inputs)
  nonzero = sum(int(np.count_nonzero(a) + np.count_nonzero(
      np.signbit(a) & (a == 0) if np.asarray(a).dtype.kind == "f" else 0)) for a in inputs)
  magnitude = 0.0
  for array in inputs:
    if np.asarray(array).dtype.kind in "fciu":
      values = np.abs(np.asarray(array, dtype=np.complex128 if array.dtype.kind == "c"
                                 else np.float64))
      magnitude += float(np.sum(values[np.isfinite(values)]))
  return elements, nonzero, magnitude


class _Runner:
  """Runs examples and remembers what they did; the predicate hypothesis shrinks with."""

  def __init__(self, modules: ExampleModules, method: str,
               signature: signatures_lib.FunctionSignature, settings: ExampleSettings,
               notice: Optional[interrupts.Notice] = None):
    self.modules = modules
    self.notice = notice or interrupts.Notice()
    self.method = method
    self.signature = signature
    self.settings = settings
    self.started = time.monotonic()
    self.run = 0
    self.after_failure = 0  # runs once a failure was found: shrinking, checking elements.
    self.compared = 0
    self.rejected: Dict[str, int] = collections.Counter()
    self.reasons: Dict[str, str] = {}  # the first reason of each kind.
    self.timed_out = False
    self.own_fault: Optional[BaseException] = None
    self.first: Optional[Tuple[FailureKind, Tuple[np.ndarray, ...]]] = None
    self.others: Dict[FailureKind, None] = {}
    self.first_accepted: Optional[Tuple[np.ndarray, ...]] = None
    self.smallest: Optional[Tuple[np.ndarray, ...]] = None
    self.past_time_box: Optional[Tuple[np.ndarray, ...]] = None
    seconds = settings.seconds
    self.time_box = ("" if seconds is None
                     else f"the time box ({seconds:g} s, --examples_timeout)")

  def time_up(self) -> bool:
    seconds = self.settings.seconds
    if seconds is not None and time.monotonic() - self.started > seconds:
      self.timed_out = True
    return self.timed_out

  def outcomes(self, inputs: Tuple[np.ndarray, ...], only: Optional[str] = None,
               boxed: bool = True) -> Optional[List[Outcome]]:
    """Each target's outcome for one example (only the target named `only`, if given); None
    when the reference rejects the input (its reason is counted) or its call ran past the time
    box (`boxed`: the reference's call ends by it; then `past_time_box` holds the input)."""
    self.notice.check()  # a Ctrl-C whose KeyboardInterrupt was lost ends the run here.
    call = _MethodCall(self.method, self.signature, inputs)
    if self.modules.stateful:
      self.modules.reference.reinitialize()
    self.run += 1
    self.after_failure += self.first is not None
    seconds = self.settings.seconds
    with interrupts.time_box(self.started + seconds if boxed and seconds is not None else None,
                             self.time_box) as box:
      ref_trace, error = traces.run_trace(self.modules.reference, call,
                                          function_name=self.method)
    if box is not None and box.passed:  # stopped: neither rejected nor compared.
      self.run -= 1
      self.after_failure -= self.first is not None
      self.past_time_box, self.timed_out = inputs, True
      return None
    if error:
      reason = _reason(error, self.method)  # counted by its words, numbers aside.
      self.rejected[self.reasons.setdefault(re.sub(r"\d+", "N", reason), reason)] += 1
      return None
    outcomes = []
    for target in self.modules.targets:
      if only is not None and target.name != only:
        continue
      outcomes.append(self._target_outcome(target, call, ref_trace))
    if self.first_accepted is None:
      self.first_accepted = inputs
    self.compared += bool(outcomes)
    return outcomes

  def _target_outcome(self, target: ExampleTarget, call: _MethodCall,
                      ref_trace: traces.Trace) -> Outcome:
    """As a test's target outcome: anything the backend raises is its RUNTIME ERROR."""
    step = "resetting the module"
    try:
      if self.modules.stateful:
        target.module.reinitialize()
      step = "calling it"
      trace, error = traces.run_trace(target.module, call, function_name=self.method,
                                      reference=ref_trace)
      step = "comparing with the reference"
      return verdicts.evaluate(ref_trace, trace, error, tolerance_policy=self.settings.policy)
    except faults.OwnFault:
      raise
    except Exception as e:
      return Outcome(target.name, Status.RUNTIME_ERROR, f"{step} raised {type(e).__name__}: {e}")

  def fails_the_same_way(self, inputs: Tuple[np.ndarray, ...]) -> bool:
    """hypothesis' predicate: the example fails as the first failure did (the first failure
    found fixes the kind); other kinds are remembered, not shrunk."""
    if self.own_fault is not None:
      return False
    if self.time_up():
      raise _TimeBoxEnded()
    try:
      outcomes = self.outcomes(inputs, self.first[0].backend if self.first else None)
    except faults.OwnFault as e:  # stop: raised by run_examples, never a verdict.
      self.own_fault = e
      return False
    if self.past_time_box is not None:
      raise _TimeBoxEnded()
    for outcome in outcomes or ():
      kind = failure_kind(outcome)
      if kind is None:
        continue
      if self.first is None:
        self.first = (kind, inputs)
      if kind == self.first[0]:
        self.smallest = inputs  # hypothesis only tries inputs smaller than the last that failed.
        return True
      self.others[kind] = None
    return False

  def same_failure(self, inputs: Tuple[np.ndarray, ...], boxed: bool = True
                   ) -> Optional[Outcome]:
    """The outcome of the first failure's backend if `inputs` fail the same way, else None;
    `boxed=False`: the reference's call is not bounded by the time box (an input that failed
    once, run again to report it)."""
    if self.first is None:  # nothing failed yet.
      return None
    outcomes = self.outcomes(inputs, self.first[0].backend, boxed) or ()
    return next((o for o in outcomes if failure_kind(o) == self.first[0]), None)


def _hypothesis_settings(settings: ExampleSettings) -> Any:
  """A seeded search has no example database: hypothesis replays a database only in unseeded
  runs (`derandomize` implies `database=None`, `@seed` drops it); the seed finds it again."""
  import hypothesis
  return hypothesis.settings(
      max_examples=settings.examples,
      deadline=None,  # each call's time is bounded by the library's own limits.
      database=None,
      phases=(hypothesis.Phase.generate, hypothesis.Phase.shrink),
      verbosity=hypothesis.Verbosity.quiet,
      # hypothesis' HealthCheckMeta.__iter__ is unannotated: pyright sees the metaclass.
      suppress_health_check=list(hypothesis.HealthCheck))  # pyright: ignore[reportArgumentType]


def _hypothesis_home(configuration: Any) -> Any:
  """hypothesis' home directory as set now; None (its default: $HYPOTHESIS_STORAGE_DIRECTORY,
  else .hypothesis/ in the working directory) where this version cannot say."""
  try:
    return configuration.storage_directory(intent_to_write=False).home_directory
  except (TypeError, AttributeError):  # an older storage_directory(): no intent_to_write.
    return None


def _zeroed(inputs: Tuple[np.ndarray, ...], which: int, index: Tuple[int, ...]
            ) -> Tuple[np.ndarray, ...]:
  changed = [np.array(a, copy=True) for a in inputs]
  changed[which][index] = 0
  return tuple(changed)


def _check_elements(runner: _Runner, shrunk: Tuple[np.ndarray, ...]) -> Tuple[ElementCheck, ...]:
  """Each nonzero element of the shrunk input (up to MAX_ELEMENT_CHECKS), set to zero alone:
  the ones whose zero no longer fails the same way are the ones that matter."""
  checks = []
  for which, array in enumerate(shrunk):
    nonzero = np.argwhere((array != 0) | (np.signbit(array) if array.dtype.kind == "f"
                                           else False))
    for index in map(tuple, nonzero):
      if len(checks) >= MAX_ELEMENT_CHECKS or runner.time_up():
        return tuple(checks)
      still = runner.same_failure(_zeroed(shrunk, which, index))
      if runner.past_time_box is not None:  # stopped: it says nothing about the element.
        return tuple(checks)
      checks.append(ElementCheck(which, tuple(int(i) for i in index), array[index].item(),
                                 still is None))
  return tuple(checks)


def run_examples(modules: ExampleModules, method: str,
                 signature: signatures_lib.FunctionSignature,
                 settings: ExampleSettings) -> ExamplesResult:
  """Runs up to `settings.examples` examples of `method` (inputs drawn from `signature`) on the
  reference and every target, and shrinks the first failure (see the module docstring).

  UnsupportedInputError when an input has a dtype no strategy draws; an own fault met on the way
  is raised.
  """
  where = f"{getattr(modules.reference, 'module_name', 'module')}.{method}()"
  strategy = strategies.for_inputs(signature.inputs, where)
  with interrupts.noticed() as notice:
    return _run_examples(modules, method, signature, settings, strategy,
                         _Runner(modules, method, signature, settings, notice))


def _run_examples(modules: ExampleModules, method: str,
                  signature: signatures_lib.FunctionSignature, settings: ExampleSettings,
                  strategy: Any, runner: _Runner) -> ExamplesResult:
  import hypothesis
  from hypothesis import configuration
  from hypothesis import errors as hypothesis_errors
  shrunk = None
  # hypothesis caches what it reads from local source files in its home directory: ours for
  # this run, the caller's again afterwards.
  home = _hypothesis_home(configuration)
  configuration.set_hypothesis_home_dir(settings.storage_dir or home)
  try:
    shrunk = hypothesis.find(strategy, runner.fails_the_same_way,
                             settings=_hypothesis_settings(settings),
                             random=random.Random(settings.seed))
  except hypothesis_errors.NoSuchExample:
    pass
  except hypothesis_errors.Flaky:
    # hypothesis runs the smallest input once more; the time box (or an own fault) can end
    # the run between the two, and a backend can fail one time and not the next.
    shrunk = runner.smallest
  except _TimeBoxEnded:
    shrunk = runner.smallest  # the smallest failing input found so far, if any.
  finally:
    configuration.set_hypothesis_home_dir(home)
  runner.notice.check()  # hypothesis ended the search: not because it was told to stop?
  if runner.own_fault is not None:
    raise runner.own_fault
  failure = None
  if shrunk is not None and runner.first is not None:
    outcome = runner.same_failure(shrunk, boxed=False)
    if outcome is not None:  # else the shrunk input no longer fails: reported as not found.
      failure = FoundFailure(runner.first[0], runner.first[1], shrunk, outcome,
                             _check_elements(runner, shrunk))
    if runner.own_fault is not None:
      raise runner.own_fault
  runner.notice.check()
  others = tuple(k for k in runner.others if failure is None or k != failure.kind)
  return ExamplesResult(
      method=method, requested=settings.examples, seed=settings.seed, run=runner.run,
      compared=runner.compared, rejected=tuple(sorted(runner.rejected.items(),
                                                      key=lambda item: -item[1])),
      timed_out=runner.timed_out, seconds=time.monotonic() - runner.started,
      targets=tuple(t.name for t in modules.targets), failure=failure, other_failures=others,
      first_accepted=runner.first_accepted, after_failure=runner.after_failure,
      past_time_box=runner.past_time_box, time_box=runner.time_box)
