"""A float mismatch judged by the reference's own error: who is further from float64.

A backend's float result just past the tolerance is not actionable by itself: nobody knows
whether the backend is less accurate than TensorFlow, or TensorFlow the inaccurate one (an IREE
maintainer says so in iree-org/iree#11446). Given the failing call evaluated in float64 (the
module promoted to float64 on the oracle outside IREE: localizing/reference_f64), each side's
error against it is measured at the elements that mismatch, in ulps of the result's dtype and
in units of its tolerance. When the backend is within K x TensorFlow's own error at every one
of them, the mismatch is "within the reference's own error" (reporting/verdicts'
WITHIN_REFERENCE_ERROR), not a miscompile.

Measured (IREE 3.13, TensorFlow 2.21, llvm-cpu): `tf.math.cumsum` of 4096 float16 values in
[0, 1) is 21 ulps off float64 on TensorFlow (its CPU kernel accumulates in float16) and 0.5
ulps on IREE (it accumulates in float32): 1.2e-2 apart, past float16's 1e-3 tolerance; the
mismatch is TensorFlow's. The other way round, a float32 sum of 10^5 values: TensorFlow 0.7
ulps, IREE 52 ulps; IREE's, a mismatch as before.

Numpy only.
"""

import dataclasses
import math
from typing import Any, Dict, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances

# How many times TensorFlow's own error against float64 a backend may be off it and still be
# "within the reference's own error". Two, as PyTorch's accuracy minifier judges a compiled
# result against an fp64 run (`same(..., multiplier=2)`: at most twice eager's own error) and
# as the fuzzer's float64 judge does (fuzzing/judging): a backend summing in another order is
# as far from the exact value as TensorFlow give or take a factor the order decides; one that
# is 100x further off is not explained by the order.
K = 2.0

VERDICT = "within the reference's own error"


@dataclasses.dataclass(frozen=True)
class SideError:
  """One side's error against float64 at one element: in ulps of the result's dtype there and
  in units of the tolerance (atol + rtol x |float64|)."""
  value: float
  ulps: float
  tolerance_units: float

  def describe(self) -> str:
    return f"{self.value!r}: {self.ulps:.3g} ulps, {self.tolerance_units:.3g}x tolerance"


@dataclasses.dataclass(frozen=True)
class OutputJudgement:
  """One mismatching float result judged at its worst element (where the backend is furthest
  from float64 relative to TensorFlow): both sides' errors there, and whether the backend is
  within K x TensorFlow's own error at every mismatching element."""
  output: int
  index: Tuple[int, ...]
  exact: float
  reference: SideError
  backend: SideError
  mismatching: int
  within: bool

  def describe(self) -> str:
    return (f"result {self.output} at {list(self.index)} ({self.mismatching} elements over "
            f"tolerance): float64 {self.exact!r}; TensorFlow {self.reference.describe()}; "
            f"the backend {self.backend.describe()}")


@dataclasses.dataclass(frozen=True)
class CallJudgement:
  """A mismatching call's float results against float64; `within` when every mismatching
  result is within K x TensorFlow's own error (and nothing else mismatches)."""
  call: int
  outputs: Tuple[OutputJudgement, ...]
  within: bool
  note: str = ""  # why it is not within, when no float result says it (an exact one differs).

  def describe(self) -> str:
    head = (f"{VERDICT}: the backend is within {K:g}x TensorFlow's own error against float64"
            if self.within else
            f"not within {K:g}x TensorFlow's own error against float64")
    parts = [o.describe() for o in self.outputs] + ([self.note] if self.note else [])
    return f"{head} (call {self.call}): " + "; ".join(parts)

  def to_json(self) -> Dict[str, Any]:
    """report.json's `float64` entry: the verdict, K, and each judged result's errors."""
    def number(value: float) -> Any:
      return value if math.isfinite(value) else str(value)

    def side(error: SideError) -> Dict[str, Any]:
      return {"value": number(error.value), "ulps": number(error.ulps),
              "tolerance_units": number(error.tolerance_units)}

    return {"within": self.within, "k": K, "call": self.call, "note": self.note,
            "outputs": [{"output": o.output, "index": list(o.index), "exact": number(o.exact),
                         "mismatching": o.mismatching, "within": o.within,
                         "reference": side(o.reference), "backend": side(o.backend)}
                        for o in self.outputs]}


def _ulp(exact: np.ndarray, dtype: np.dtype) -> np.ndarray:
  """The spacing of `dtype` at |exact| (its smallest subnormal at 0), in float64."""
  return np.spacing(np.abs(exact).astype(dtype)).astype(np.float64)


def differs(reference: np.ndarray, got: np.ndarray, tolerance: tolerances.Tolerance) -> bool:
  """Whether `got` differs from `reference` past `tolerance` (shape, dtype, NaN, Inf too)."""
  if reference.shape != got.shape or reference.dtype != got.dtype:
    return True
  if reference.dtype.kind not in "fc":
    return not np.array_equal(reference, got)
  return not np.allclose(got, reference, rtol=tolerance.rtol, atol=tolerance.atol,
                         equal_nan=True)


def judge_output(position: int, reference: np.ndarray, got: np.ndarray, exact: np.ndarray,
                 tolerance: tolerances.Tolerance) -> Optional[OutputJudgement]:
  """`got` (the backend's) and `reference` (TensorFlow's) against `exact` (float64) at the
  elements where they differ by more than `tolerance`; None when none does, or when the
  result is not a finite float of the same shape on every side (no judge: a mismatch)."""
  reference, got = np.asarray(reference), np.asarray(got)
  exact = np.asarray(exact, np.float64)
  if (reference.dtype.kind != "f" or reference.shape != got.shape
      or exact.shape != reference.shape):
    return None
  r, g = reference.astype(np.float64), got.astype(np.float64)
  if not (np.isfinite(r).all() and np.isfinite(g).all() and np.isfinite(exact).all()):
    return None
  over = np.abs(g - r) > tolerance.atol + tolerance.rtol * np.abs(r)
  if not over.any():
    return None
  reference_error, backend_error = np.abs(r - exact), np.abs(g - exact)
  within = bool(np.all(backend_error[over] <= K * reference_error[over]))
  with np.errstate(divide="ignore", invalid="ignore"):
    ratio = np.where(over, backend_error / reference_error, -1.0)
  ratio = np.where(np.isnan(ratio), 0.0, ratio)  # 0 / 0: both exact there.
  index = tuple(int(i) for i in np.unravel_index(int(np.argmax(ratio)), ratio.shape))
  ulp = float(_ulp(exact[index], reference.dtype))
  bound = tolerance.atol + tolerance.rtol * abs(float(exact[index]))

  def side(values: np.ndarray, error: np.ndarray) -> SideError:
    return SideError(values[index].item(), float(error[index]) / ulp if ulp else float("inf"),
                     float(error[index]) / bound if bound else float("inf"))

  return OutputJudgement(position, index, float(exact[index]), side(reference, reference_error),
                         side(got, backend_error), int(over.sum()), within)


def judge_call(call: int, references: Sequence[np.ndarray], got: Sequence[np.ndarray],
               exact: Sequence[np.ndarray],
               tolerances_: Sequence[tolerances.Tolerance]) -> CallJudgement:
  """A mismatching call's flat results (TensorFlow's, the backend's, float64's, each result's
  tolerance) judged; within only if some float result mismatches, every one that does is
  within K x TensorFlow's error, and no result without a float64 judge differs."""
  judged, note = [], ""
  for position, (r, g, e, tolerance) in enumerate(zip(references, got, exact, tolerances_)):
    if not differs(np.asarray(r), np.asarray(g), tolerance):
      continue
    found = judge_output(position, r, g, e, tolerance)
    if found is None:
      note = note or (f"result {position} differs and has no float64 judge (not a finite "
                      "float on every side)")
    else:
      judged.append(found)
  within = bool(judged) and not note and all(o.within for o in judged)
  return CallJudgement(call, tuple(judged), within, note)
