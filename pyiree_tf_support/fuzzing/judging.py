"""The fuzzer's written float policy: when a backend's difference from TensorFlow is not a bug.

Comparison (`comparing.comparison`, per call at the fuzzer's rtol/atol) already decides:
- NaN: any NaN equals any NaN, whatever its payload and sign (IEEE-754 fixes neither for the
  results of arithmetic; TF and LLVM each pick their own quiet NaN);
- +-Inf: an infinity matches only the same infinity (placement is compared exactly);
- -0.0 and 0.0 are equal (numerically; no op of the table lets a zero's sign reach a result:
  no reciprocal, atan2 or copysign);
- near zero: a difference within atol (1e-4) is none, so a subnormal result, kept or flushed,
  is no difference by itself.
On top of that, a mismatch is set aside (counted, not reported) when the session typed it
WITHIN REFERENCE ERROR (the call evaluated in float64 on the oracle outside IREE, the backend
within K x TensorFlow's own error at every mismatching element: comparing/reference_error,
the one place K is written), or when it is float32 precision, judged at the element where the
backend differs most from TensorFlow:
1. float64 judge: the same function computed by TensorFlow in float64 (float32 and float16
   both widened); a backend at most K (twice) as far from it as TensorFlow's own result is not
   wrong (an ulp of `exp` amplified by a `sin` of a large argument, a `floor` at a product's
   rounding, a sum in another order: TF does not fix the order of its reductions). Twice, as
   PyTorch's accuracy minifier judges against float64 by default. Subnormal inputs are normal
   numbers in float64, so a backend that keeps them where TF's CPU kernels treat them as zero
   (measured on TF 2.21: floor(-1e-40) = -0.0, 1e-40 > 0 is False) is judged right.
2. conditioning judge: the float64 run on inputs moved by a float32 rounding (each float element
   times 1 +- 2^-23, signs seeded, twice); a backend no further from the float64 result than
   twice what that moves it is within what float32 rounding does to this function here (a
   matmul of values near 1e6 whose terms cancel: measured 4e9 apart with terms of 1e18; the
   sum's order decides, and TF does not fix it).
3. inexact-op judge, when the chain holds an inexact op (`INEXACT`): the float64 run with each
   inexact op's result moved by that op's allowed error, max(4 * 2^-23 |v|, 2^-22) (a few ulps
   relative, and an absolute floor near zero), in both directions (all up, all down, and a
   seeded draw of signs per element with its opposite: four runs); a backend within tolerance
   of the range those runs and the float64 result span is within what the op may do here.
   Why: a discontinuous step (a float -> int cast truncating, ceil, floor, round, a comparison)
   right after such an op turns its few ulps into a whole unit, and neither judge above sees
   it (float64 agrees with TF; moving the inputs moves nothing where the op saturates).
   Measured on Vulkan (lavapipe), hour-long campaign: tanh(5e5) = 0.99999982 (3 ulps under
   1.0, where TF and float64 give 1.0) cast to uint32 is 0, not 1; IREE's sin(-1e-45) =
   +1.19e-7 (2^-23; Vulkan allows sin 2^-11 absolute in [-pi, pi]) and ceil gives 1, not -0.
   Inexact: the transcendentals (tanh, sigmoid, sin, cos, exp, log), which no library rounds
   correctly and whose allowed error each backend's math library picks. Not inexact: add,
   subtract, multiply, divide, sqrt, the casts, min/max, abs and the shape ops: IEEE-754
   rounds them correctly, so TF and a right backend give the same float32 from the same
   inputs, and a difference there starts at an inexact op before them (moved here), the
   inputs' rounding (the conditioning judge) or a reduction's order (the float64 and
   conditioning judges); nor the float64 op sin_f64 (its error is far under float32's).
   2^-22 is 2 ulps of 1.0, the scale of sin, cos, tanh and sigmoid's results (twice the error
   measured above), not atol: 1e-4 (1e-2 with a float16 step) is hundreds of times any error
   measured, and would set aside real steps of small values.
4. flush-to-zero judge, when the inputs hold subnormals: the float64 run with them replaced by
   zeros of their sign; a backend within tolerance of it flushed them, which is allowed.
Never set aside: a judge that is not finite or past float32's range, or a NaN or infinity on
either side (the table's domain rules keep every op defined alike on special values, so a
non-finite difference is a bug or a domain rule's, never precision).
"""

import hashlib
import importlib.util
import math
import os
from typing import Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import reference_error
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.fuzzing import ops
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

FLOAT32_MAX = float(np.finfo(np.float32).max)
FLOAT32_TINY = float(np.finfo(np.float32).tiny)
ROUNDING = 2.0 ** -23  # a float32 rounding, relative
# The inexact ops and the error each is allowed, (relative, absolute near zero): see above.
OP_ERROR = (4 * ROUNDING, 2.0 ** -22)
INEXACT = {name: OP_ERROR for name in ("tanh", "sigmoid", "sin", "cos", "exp", "log")}
# The inexact-op judge's runs: (direction, seed of the signs; 0: every element alike).
MOVES = ((1, 0), (-1, 0), (1, 1), (-1, 1))


def load_module_class(path: str, class_name: str, module_name: Optional[str] = None):
  """The generated module's class, from its file (a module of its own name)."""
  spec = importlib.util.spec_from_file_location(f"pyiree_fuzz_{module_name or class_name}", path)
  if spec is None or spec.loader is None:
    raise ImportError(f"{path} is not a Python module file")
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return getattr(module, class_name)


def _widened(array: np.ndarray, flush: bool, nudge: int) -> np.ndarray:
  if array.dtype.kind != "f":
    return array
  wide = array.astype(np.float64)
  if flush:
    wide = np.where(np.abs(wide) < FLOAT32_TINY, np.copysign(0.0, wide), wide)
  if nudge:
    signs = np.random.default_rng([nudge, wide.size]).choice([-1.0, 1.0], wide.shape)
    wide = wide * (1.0 + signs * ROUNDING)
  return wide


def inexact_steps(program: programs.Program) -> Tuple[str, ...]:
  """The steps of `program` the inexact-op judge moves (`INEXACT`), in order."""
  return tuple(op.name for op in program.typed_steps() if op.name in INEXACT)


def _mover(move: Tuple[int, int]):
  """`Program.body`'s hook moving each inexact op's result by its allowed error."""
  direction, seed = move

  def after_step(index: int, op: ops.Op) -> str:
    if op.name not in INEXACT:
      return ""
    relative, floor = INEXACT[op.name]
    signs = f"{float(direction)!r}"
    if seed:
      signs = (f"tf.where(tf.random.stateless_uniform(tf.shape(v), seed=[{seed}, {index}], "
               f"dtype=tf.float64) < 0.5, {-direction} * tf.ones_like(v), "
               f"{direction} * tf.ones_like(v))")
    return f"v + {signs} * tf.maximum({relative!r} * tf.abs(v), {floor!r})"
  return after_step


def float64_result(program: programs.Program, calls: Sequence[Tuple[np.ndarray, ...]],
                   call: int, work: str, flush: bool = False, nudge: int = 0,
                   move: Optional[Tuple[int, int]] = None) -> np.ndarray:
  """Call `call`'s result of the function run by TensorFlow with float64 floats, after calls
  0..call-1 (a stateful function's state); its source written to `work` as every generated
  module is. `flush`: subnormal inputs become zeros of their sign first; `nudge` (a seed):
  each float input element moved by a float32 rounding up or down; `move` (a `MOVES` entry):
  each inexact op's result moved by its allowed error."""
  source = ("import tensorflow as tf\n\n\n" + programs.class_source(
      "Module", [program], "float64", _mover(move) if move else None))
  name = "Float64_" + hashlib.sha256(source.encode()).hexdigest()[:10]
  path = os.path.join(work, f"{name}.py")
  safe_files.write_text(path, source)
  module = load_module_class(path, "Module", name)()
  result = None
  for inputs in calls[:call + 1]:
    result = getattr(module, program.name)(*(_widened(a, flush, nudge) for a in inputs))
  return np.asarray(result)


def _has_subnormals(calls: Sequence[Tuple[np.ndarray, ...]]) -> bool:
  return any(a.dtype.kind == "f" and bool(np.any((a != 0) & (np.abs(a) < FLOAT32_TINY)))
             for inputs in calls for a in inputs)


def precision_artefact(program: programs.Program, calls: Sequence[Tuple[np.ndarray, ...]],
                       outcome: Outcome, work: str, rtol: float, atol: float) -> Optional[str]:
  """Why a mismatch is float32 precision or a flushed subnormal under the policy above, not a
  bug (None: it may be one)."""
  if outcome.status is Status.WITHIN_REFERENCE_ERROR:
    return outcome.detail.splitlines()[0]
  if outcome.status is not Status.MISMATCH:
    return None
  call = outcome.call_index or 0
  for mismatch in outcome.mismatches:
    element = getattr(mismatch, "greatest_abs", None) or getattr(mismatch, "first", None)
    if element is None:
      continue
    try:
      got, expected = float(element.got), float(element.expected)
    except (TypeError, ValueError):
      continue
    if not (math.isfinite(got) and math.isfinite(expected)):
      continue
    index = tuple(element.index)
    try:
      exact = float(float64_result(program, calls, call, work)[index])
    except Exception:  # no float64 run: no judge, keep it.
      return None
    if math.isfinite(exact) and abs(exact) <= FLOAT32_MAX:
      backend_error, tensorflow_error = abs(got - exact), abs(expected - exact)
      if backend_error <= reference_error.K * tensorflow_error:
        return (f"at {list(index)} the backend is {backend_error:.3g} from float64, "
                f"TensorFlow {tensorflow_error:.3g}")
      try:
        moved = max(abs(float(float64_result(program, calls, call, work, nudge=seed)[index])
                        - exact) for seed in (1, 2))
      except Exception:
        return None
      if backend_error <= reference_error.K * moved:
        return (f"at {list(index)} the backend is {backend_error:.3g} from float64, and a "
                f"float32 rounding of the inputs moves it {moved:.3g}")
      inexact = inexact_steps(program)
      if inexact:
        try:
          values = [exact] + [float(float64_result(program, calls, call, work, move=m)[index])
                              for m in MOVES]
        except Exception:
          return None
        low, high = min(values), max(values)
        slack = atol + rtol * max(abs(low), abs(high))
        if all(math.isfinite(v) for v in values) and low - slack <= got <= high + slack:
          return (f"inexact-op judge: at {list(index)} the backend's {got:.3g} lies within "
                  f"[{low:.3g}, {high:.3g}], what moving {', '.join(inexact)} by "
                  f"{OP_ERROR[0]:.2g} relative (at least {OP_ERROR[1]:.2g}) gives in float64")
    if _has_subnormals(calls):
      try:
        flushed = float(float64_result(program, calls, call, work, flush=True)[index])
      except Exception:
        return None
      if math.isfinite(flushed) and abs(got - flushed) <= atol + rtol * abs(flushed):
        return f"at {list(index)} the backend flushed subnormal inputs to zero ({flushed:.3g})"
  return None
