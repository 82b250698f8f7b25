"""The inexact-op judge (fuzzing/judging.py), on TensorFlow's real results and the comparison's
real mismatches: a discontinuous step (a float -> int cast, `ceil`) right after an op whose
result is allowed a few ulps (tanh near 1) or a small absolute error (sin near 0) turns that
error into a whole unit; the backend's values are the ones measured on Vulkan (lavapipe) in
the fuzzer's hour-long campaign (seed 20261201)."""

from absl.testing import absltest
import numpy as np
import pytest

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.fuzzing import judging
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status
from tests.fuzzing.campaigns import tensorflow_result

pytestmark = pytest.mark.tensorflow
RTOL = ATOL = 1e-4  # the fuzzer's --fuzz_rtol/--fuzz_atol


class InexactOpJudgeTest(absltest.TestCase):

  def judged(self, steps, x, got):
    """The policy's reason for a backend giving `got` (the result's dtype) where TensorFlow
    runs `steps` on float32 `x` (None: a hit)."""
    program = programs.Program("f", steps, (1, len(x)))
    calls = [(np.array([x], np.float32),)]
    expected, work = tensorflow_result(program, calls[0])
    got = np.asarray(got, expected.dtype).reshape(expected.shape)
    mismatches = comparison.compare(
        expected, got, tolerance_fn=lambda *_: tolerances.Tolerance(RTOL, ATOL))
    self.assertTrue(mismatches, (expected, got))
    outcome = Outcome("iree_vulkan", Status.MISMATCH, call_index=0, mismatches=mismatches)
    return judging.precision_artefact(program, calls, outcome, work, RTOL, ATOL)

  def test_tanh_saturating_under_one_then_a_truncating_cast_is_set_aside(self):
    # Vulkan's tanh(5e5) is 0.99999982 (3 ulps under 1.0), TF's and float64's 1.0: the cast
    # to uint32 gives 0 where TF gives 1.
    reason = self.judged(("tanh", "cast_f32_to_u32"), [5e5, 0.5], [0, 0])
    self.assertIn("inexact-op judge", reason or "")
    self.assertIn("tanh", reason or "")

  def test_sin_near_zero_then_ceil_is_set_aside(self):
    # IREE's sin(-1e-45) is +1.19e-7 (2^-23) on Vulkan, TF's -0.0: ceil gives 1 vs -0.
    reason = self.judged(("sin", "ceil"), [-1e-45, 2.0], [1.0, 1.0])
    self.assertIn("inexact-op judge", reason or "")
    self.assertIn("sin", reason or "")

  def test_vmvx_rounding_its_f32_to_i32_convert_stays_a_hit(self):
    # No inexact op before the cast: 2.5 truncates to 2, vmvx's convert rounds it to 3.
    self.assertIsNone(self.judged(("cast_f32_to_i32",), [2.5, -1.5], [3, -1]))

  def test_a_cast_far_past_the_inexact_ops_error_stays_a_hit(self):
    # The nudged runs of tanh(5e5) cast to 0 or 1; 7 is no rounding of tanh.
    self.assertIsNone(self.judged(("tanh", "cast_f32_to_u32"), [5e5, 0.5], [7, 0]))

  def test_a_float_result_far_past_the_inexact_ops_error_stays_a_hit(self):
    # ceil(sin(2.0)) = 1 whatever sin's few ulps; 2 is a wrong result.
    self.assertIsNone(self.judged(("sin", "ceil"), [-1e-45, 2.0], [-0.0, 2.0]))

  def test_the_judge_moves_only_inexact_ops(self):
    self.assertEqual(judging.inexact_steps(programs.Program(
        "f", ("abs", "tanh", "add", "cast_f32_to_u32", "cast_u32_to_f32", "exp"))),
        ("tanh", "exp"))
    self.assertEqual(judging.inexact_steps(programs.Program("f", ("add", "multiply"))), ())


if __name__ == "__main__":
  absltest.main()
