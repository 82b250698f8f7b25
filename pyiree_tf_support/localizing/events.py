"""Dispatch trace events of two backends, aligned and judged: which dispatch diverged first.

Numpy only. An event is what one `flow.tensor.trace` op handed the runtime's debug sink: the
tensors going into (`inputs`) or coming out of (`outputs`) one dispatch, in program order. The
two backends ran the same flow IR (one dispatch formation), so their events pair up one to one
by (call, dispatch key, kind, occurrence); if they do not, the structure differs and nothing
can be concluded element by element.

A tensor's error is measured in units of its dtype's tolerance (comparing/tolerances): the
largest |suspect - trusted| / (atol + rtol * |trusted|); 1 is the edge of the tolerance, 0 is
equal; exact dtypes count the fraction of elements that differ, scaled so that any difference
is over 1. A shape, dtype or NaN/Inf pattern difference is infinite.
"""

import dataclasses
import enum
import re
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.localizing import tensors

# How much a dispatch must amplify the error of its inputs for the dispatch to be blamed (and
# how much an input's error must exceed every earlier output's to blame a step outside
# dispatches); below it, an error over tolerance is drift accumulated over many steps.
AMPLIFICATION = 10.0

# "EXEC::EXPORT inputs", "EXEC::EXPORT::N outputs", "... outputs with {0} decoded to row major".
_KEY = re.compile(r"^(?P<key>.*?) (?P<kind>inputs|outputs)(?: with .*)?$")


class Kind(enum.Enum):
  DISPATCH = "dispatch"
  OUTSIDE = "outside any dispatch"
  DRIFT = "accumulated drift"
  STRUCTURE = "structure differs"
  NONE = "no divergence"
  MASKED = "masked by tracing"
  NOT_TRACEABLE = "not traceable"
  TARGET_INDEPENDENT = "target-independent"


@dataclasses.dataclass(frozen=True)
class Event:
  """One traced dispatch boundary: its call, the dispatch key, inputs/outputs and occurrence."""
  call: int
  key: str
  kind: str  # "inputs" or "outputs"
  occurrence: int  # how many times this (call, key, kind) came before, in this call.
  arrays: Tuple[np.ndarray, ...]

  @property
  def executable(self) -> str:
    return self.key.split("::")[0]

  @property
  def label(self) -> Tuple[int, str, str, int]:
    return (self.call, self.key, self.kind, self.occurrence)


def parse_key(raw: str) -> Tuple[str, str]:
  """(dispatch key, kind) of a trace op's label; the kind is '' for a label of another form."""
  match = _KEY.match(raw)
  if not match:
    return raw, ""
  return match.group("key"), match.group("kind")


def number_events(raw: Sequence[Tuple[int, str, Sequence[np.ndarray]]]) -> List[Event]:
  """Events from (call, trace label, arrays) in program order, each given its occurrence."""
  seen: Dict[Tuple[int, str, str], int] = {}
  events = []
  for call, label, arrays in raw:
    key, kind = parse_key(label)
    occurrence = seen.get((call, key, kind), 0)
    seen[(call, key, kind)] = occurrence + 1
    events.append(Event(call, key, kind, occurrence, tuple(arrays)))
  return events


@dataclasses.dataclass(frozen=True)
class TensorError:
  """How far one suspect tensor is from the trusted one, and where the worst element is."""
  error: float  # in tolerance units: over 1 is over tolerance; inf for a structural difference.
  index: Optional[Tuple[int, ...]] = None
  suspect: Optional[str] = None  # the worst element's values, printed.
  trusted: Optional[str] = None
  note: str = ""

  def describe(self) -> str:
    if self.note:
      return self.note
    if self.index is None:
      return f"{self.error:.3g}x tolerance"
    return (f"{self.error:.3g}x tolerance, worst at {list(self.index)}: {self.suspect} vs "
            f"{self.trusted}")


def tensor_error(suspect: np.ndarray, trusted: np.ndarray,
                 policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
                 backend_names: Sequence[str] = (), rtol: Optional[float] = None,
                 atol: Optional[float] = None) -> TensorError:
  """The suspect's error against the trusted tensor, in units of the dtype's tolerance (the
  table's under `policy`, or a call's own `rtol`/`atol`).

  Measured tensors.CHUNK_ELEMENTS at a time, in float64 (or complex128): done whole, the float64
  copies and masks of a 64 MiB float32 pair peaked at 12.75x its size, most of the
  localizer's memory (docs/localizing.md, Cost). The worst element and a NaN/Inf pattern
  difference are those of the whole tensor, found chunk by chunk in order; the resident pages
  of a memory-mapped operand are dropped after each chunk (tensors.release_pages)."""
  if suspect.shape != trusted.shape or suspect.dtype != trusted.dtype:
    return TensorError(float("inf"), note=f"{suspect.dtype}{list(suspect.shape)} vs "
                       f"{trusted.dtype}{list(trusted.shape)}")
  if suspect.size == 0:
    return TensorError(0.0)
  if not tolerances.is_inexact(trusted.dtype):
    return _exact_error(suspect, trusted)
  wide = np.complex128 if suspect.dtype.kind == "c" else np.float64
  flat_s, flat_t = tensors.flat(suspect), tensors.flat(trusted)
  tolerance: Optional[tolerances.Tolerance] = None
  worst, worst_at = -1.0, 0
  for start in range(0, flat_s.size, tensors.CHUNK_ELEMENTS):
    s = flat_s[start:start + tensors.CHUNK_ELEMENTS].astype(wide)
    t = flat_t[start:start + tensors.CHUNK_ELEMENTS].astype(wide)
    tensors.release_pages(suspect, trusted)
    bad_pattern = (np.isnan(s) != np.isnan(t)) | (np.isinf(s) & (s != t))
    if bad_pattern.any():  # the first one of the whole tensor: no earlier chunk had one.
      index = _index(start + int(np.argmax(bad_pattern)), suspect.shape)
      return TensorError(float("inf"), index, repr(suspect[index].item()),
                         repr(trusted[index].item()))
    if tolerance is None:
      tolerance = policy.for_dtype(trusted.dtype, backend_names, rtol, atol)
    ratio = _ratio(s, t, tolerance)
    at = int(np.argmax(ratio))
    if ratio[at] > worst:  # strictly: the first of equal worst elements, as argmax finds.
      worst, worst_at = float(ratio[at]), start + at
  index = _index(worst_at, suspect.shape)
  return TensorError(worst, index, repr(suspect[index].item()), repr(trusted[index].item()))


def _index(flat_index: int, shape: Tuple[int, ...]) -> Tuple[int, ...]:
  return tuple(int(i) for i in np.unravel_index(flat_index, shape))


def _ratio(s: np.ndarray, t: np.ndarray, tolerance: tolerances.Tolerance) -> np.ndarray:
  """|s - t| / (atol + rtol * |t|) per element (0 where equal, inf where the bound is 0)."""
  finite = np.isfinite(s) & np.isfinite(t)
  # Only finite pairs are subtracted (inf - inf would be NaN, with a numpy warning); the
  # others were judged by their NaN/Inf pattern.
  difference = np.abs(np.where(finite, s, 0.0) - np.where(finite, t, 0.0))
  bound = tolerance.atol + tolerance.rtol * np.where(finite, np.abs(t), 0.0)
  with np.errstate(divide="ignore", invalid="ignore"):
    ratio = np.where(difference == 0, 0.0, difference / np.where(bound == 0, np.nan, bound))
  return np.where(np.isnan(ratio), np.inf, ratio)


def _exact_error(suspect: np.ndarray, trusted: np.ndarray) -> TensorError:
  """An exact dtype: any difference is over 1, plus 1e6 x the fraction of elements that differ."""
  flat_s, flat_t = tensors.flat(suspect), tensors.flat(trusted)
  differing, first = 0, None
  step = tensors.CHUNK_ELEMENTS
  for start in range(0, flat_s.size, step):
    differ = flat_s[start:start + step] != flat_t[start:start + step]
    tensors.release_pages(suspect, trusted)
    count = int(np.count_nonzero(differ))
    if count and first is None:
      first = start + int(np.argmax(differ))
    differing += count
  if first is None:
    return TensorError(0.0)
  index = _index(first, suspect.shape)
  return TensorError(1.0 + differing / suspect.size * 1e6, index, repr(suspect[index].item()),
                     repr(trusted[index].item()))


def event_error(suspect: Event, trusted: Event,
                policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
                backend_names: Sequence[str] = ()) -> Tuple[float, Optional[int], TensorError]:
  """The worst tensor error of an event: (error, tensor index, its TensorError)."""
  if len(suspect.arrays) != len(trusted.arrays):
    return (float("inf"), None, TensorError(
        float("inf"), note=f"{len(suspect.arrays)} tensors vs {len(trusted.arrays)}"))
  worst: Tuple[float, Optional[int], TensorError] = (0.0, None, TensorError(0.0))
  for position, (s, t) in enumerate(zip(suspect.arrays, trusted.arrays)):
    error = (_digest_error(s, t) if is_digest(s) or is_digest(t)
             else tensor_error(s, t, policy, backend_names))
    if error.error > worst[0]:
      worst = (error.error, position, error)
  return worst


def is_digest(array: np.ndarray) -> bool:
  """A tensor a traced run kept as its sha256 digest only (over its memory budget)."""
  return array.ndim == 0 and array.dtype.kind == "U"


def _digest_error(suspect: np.ndarray, trusted: np.ndarray) -> TensorError:
  """Equal digests are equal tensors; otherwise the error cannot be measured (not blamed)."""
  digests = [str(a) if is_digest(a) else tensors.digest(a) for a in (suspect, trusted)]
  if digests[0] == digests[1]:
    return TensorError(0.0)
  return TensorError(0.0, note=UNCOMPARED)


# A tensor the budget kept as a digest on one side, whose digests differ: its error is unknown.
UNCOMPARED = "not compared (kept as a digest only, over the memory budget)"


@dataclasses.dataclass(frozen=True)
class DispatchRow:
  """One dispatch execution in program order: its input and output error (tolerance units)."""
  call: int
  key: str
  occurrence: int
  input_error: float
  output_error: float
  worst: TensorError  # of the outputs (or of the inputs, for a divergence outside dispatches)
  tensor: Optional[int] = None  # which output (or input) holds the worst element


@dataclasses.dataclass(frozen=True)
class Finding:
  """Where the two backends' events first part: the verdict kind, the rows up to it."""
  kind: Kind
  rows: Tuple[DispatchRow, ...]
  culprit: Optional[DispatchRow] = None
  detail: str = ""
  roots: int = 0  # further dispatches that also amplify the error on their own, after it.
  uncompared: int = 0  # tensors over the memory budget whose digests differ (error unknown).


def _structure_difference(suspect: Sequence[Event], trusted: Sequence[Event]) -> Optional[str]:
  for position, (s, t) in enumerate(zip(suspect, trusted)):
    if s.label != t.label:
      return (f"event {position}: the suspect traced {s.key} {s.kind} (call {s.call}) where the "
              f"trusted backend traced {t.key} {t.kind} (call {t.call})")
  if len(suspect) != len(trusted):
    return (f"the suspect traced {len(suspect)} dispatch boundaries, the trusted backend "
            f"{len(trusted)}")
  return None


class Judge:
  """The rules applied one event pair at a time, in program order: `feed` returns the Finding
  once it is decided (a dispatch or a step outside dispatches is to blame), else None; `end`
  gives the verdict after the last pair. The traced run's child uses it to stop keeping
  tensors once the divergence is found."""

  def __init__(self, policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
               backend_names: Sequence[str] = (), floor: float = 1.0):
    self.policy = policy
    # An error counts from here (tolerance units): 1, or an imprecise trusted backend's own
    # error against the reference, below which a difference says nothing about the suspect.
    self.floor = max(1.0, floor)
    self.backend_names = tuple(backend_names)
    self.rows: List[DispatchRow] = []
    self._earlier_outputs = 0.0
    self._pending: Dict[Tuple[int, str, int], Tuple[float, Optional[int], TensorError]] = {}
    self._drift: Optional[DispatchRow] = None
    self.uncompared = 0  # tensors whose digests differ: their error is unknown.

  def feed(self, s: Event, t: Event) -> Optional[Finding]:
    error = event_error(s, t, self.policy, self.backend_names)
    self.uncompared += sum(_digest_error(a, b).note == UNCOMPARED
                           for a, b in zip(s.arrays, t.arrays) if is_digest(a) or is_digest(b))
    slot = (s.call, s.key, s.occurrence)
    if self.uncompared:  # an error is unknown from here on: nothing later can be blamed.
      if s.kind == "outputs":
        self.rows.append(DispatchRow(s.call, s.key, s.occurrence, float("nan"), error[0],
                                     error[2], error[1]))
      return None
    if s.kind == "inputs":
      self._pending[slot] = error
      if error[0] > self.floor and error[0] > AMPLIFICATION * self._earlier_outputs:
        row = DispatchRow(s.call, s.key, s.occurrence, error[0], float("nan"), error[2],
                          error[1])
        self.rows.append(row)
        return Finding(Kind.OUTSIDE, tuple(self.rows), row)
      return None
    inputs = self._pending.pop(slot, (0.0, None, TensorError(0.0)))
    row = DispatchRow(s.call, s.key, s.occurrence, inputs[0], error[0], error[2], error[1])
    self.rows.append(row)
    if error[0] > self.floor and error[0] > AMPLIFICATION * inputs[0]:
      return Finding(Kind.DISPATCH, tuple(self.rows), row)
    if error[0] > self.floor and self._drift is None:
      self._drift = row
    self._earlier_outputs = max(self._earlier_outputs, error[0])
    return None

  def end(self) -> Finding:
    if self._drift is not None:
      return Finding(Kind.DRIFT, tuple(self.rows), self._drift, uncompared=self.uncompared)
    return Finding(Kind.NONE, tuple(self.rows), uncompared=self.uncompared)


def compare(suspect: Sequence[Event], trusted: Sequence[Event],
            policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
            backend_names: Sequence[str] = (), suspect_stopped: bool = False,
            floor: float = 1.0) -> Finding:
  """The first divergence between two backends' events of the same calls, by the rules:
  a dispatch whose outputs are over tolerance and > AMPLIFICATION x its inputs' error is to
  blame; inputs over tolerance and > AMPLIFICATION x every earlier output's error were changed
  by something that is not a dispatch; over tolerance otherwise is accumulated drift.
  `suspect_stopped`: the suspect's run stopped at the divergence, so its events are a prefix;
  `floor`: the error (tolerance units, at least 1) below which nothing counts (see Judge)."""
  difference = _structure_difference(
      suspect, trusted[:len(suspect)] if suspect_stopped else trusted)
  if difference:
    return Finding(Kind.STRUCTURE, (), detail=difference)
  judge = Judge(policy, backend_names, floor)
  for s, t in zip(suspect, trusted):
    found = judge.feed(s, t)
    if found is not None:
      return found
  return judge.end()


def outputs_error(suspect: Sequence[np.ndarray], trusted: Sequence[np.ndarray],
                  policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
                  backend_names: Sequence[str] = (), rtol: Optional[float] = None,
                  atol: Optional[float] = None) -> TensorError:
  """The worst error of a call's flat results (suspect against trusted or the reference)."""
  if len(suspect) != len(trusted):
    return TensorError(float("inf"), note=f"{len(suspect)} results vs {len(trusted)}")
  worst = TensorError(0.0)
  for s, t in zip(suspect, trusted):
    error = tensor_error(np.asarray(s), np.asarray(t), policy, backend_names, rtol, atol)
    if error.error > worst.error:
      worst = error
  return worst
