"""A float mismatch judged by the reference's own error against float64, on the oracle.

The real case: `tf.math.cumsum` of 512 float16 values in [0, 1). TensorFlow's CPU kernel
accumulates in float16; IREE's llvm-cpu accumulates in float32 (TF's lowering converts to f32
around the reduce_window) and is within half an ulp of float64: 7.4e-3 apart at worst, past
float16's 1e-3 tolerance at 368 of the 512 elements. The session types it
WITHIN REFERENCE ERROR (report.txt, report.json, its own phase). The other direction is real
too: a float32 sum of 10^5 values, TensorFlow under an ulp off float64, IREE 52: a mismatch,
with both sides' errors said. And the decision rule on the real arrays: IREE's error made 100x
TensorFlow's own is a mismatch. The fuzzer's triage sets the new verdict aside.
"""

import json
import os

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support.comparing import reference_error
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import phases
from pyiree_tf_support.fuzzing import judging
from pyiree_tf_support.localizing import reference_f64
from pyiree_tf_support.reporting.expected_failures import lists
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status
from tests.support import recorded_traces

N = 512
HALVES = np.random.default_rng(0).uniform(0, 1, N).astype(np.float16)
SINGLES = np.random.default_rng(0).uniform(0, 1, 100000).astype(np.float32)


class HalfCumsum(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([N], tf.float16)])
  def cumsum(self, x):
    return tf.math.cumsum(x)


class SingleSum(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([100000], tf.float32)])
  def total(self, x):
    return tf.reduce_sum(x)


def cumsum_once(module):
  module.cumsum(HALVES)


def total_once(module):
  module.total(SINGLES)


def _entry(module_dir: str) -> dict:
  with open(os.path.join(module_dir, "report.json")) as f:
    document = json.load(f)
  (test,) = document["tests"].values()
  (trace,) = test["traces"]
  (backend,) = trace["backends"]
  return backend


class ReferenceErrorTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((HalfCumsum, cumsum_once, ("iree_llvmcpu",), False),
           (SingleSum, total_once, ("iree_llvmcpu",), False))

  def _module_dir(self, name: str) -> str:
    return os.path.dirname(os.path.dirname(self.trace_dirs[name]))

  def test_tensorflow_the_inaccurate_side_is_within_the_reference_error(self):
    module_dir = self._module_dir("HalfCumsum")
    with open(os.path.join(module_dir, "report.txt")) as f:
      text = f.read()
    self.assertIn("iree_llvmcpu: WITHIN REFERENCE ERROR", text)
    self.assertIn("within the reference's own error: the backend is within 2x TensorFlow's "
                  "own error against float64 (call 0): result 0 at [", text)
    entry = _entry(module_dir)
    self.assertEqual((entry["outcome"], entry["phase"]),
                     ("WITHIN REFERENCE ERROR", "reference_error"))
    self.assertIn("TensorFlow ", entry["detail"].splitlines()[0])
    (judged,) = entry["float64"]["outputs"]
    self.assertTrue(entry["float64"]["within"])
    self.assertLessEqual(judged["backend"]["ulps"], 2 * judged["reference"]["ulps"])
    # The fuzzer's triage sets it aside, that line its reason.
    outcome = Outcome(entry["backend"], Status(entry["outcome"]), entry["detail"], call_index=0)
    reason = judging.precision_artefact(None, [], outcome, self.artifacts_dir, 1e-3, 1e-3)
    self.assertEqual(reason, entry["detail"].splitlines()[0])

  def test_the_backend_the_inaccurate_side_stays_a_mismatch_with_both_errors(self):
    module_dir = self._module_dir("SingleSum")
    entry = _entry(module_dir)
    self.assertEqual((entry["outcome"], entry["phase"]), ("MISMATCH", "mismatch"))
    (judged,) = entry["float64"]["outputs"]
    self.assertGreater(judged["backend"]["ulps"], 50 * judged["reference"]["ulps"])
    with open(os.path.join(module_dir, "report.txt")) as f:
      text = f.read()
    self.assertRegex(text, r"float64: not within 2x TensorFlow's own error against float64 "
                     r"\(call 0\): result 0 at \[\] \(1 elements over tolerance\): float64 "
                     r"\S+; TensorFlow \S+: \S+ ulps, \S+x tolerance; the backend \S+: \S+ "
                     r"ulps")

  def test_an_error_100x_tensorflows_is_a_mismatch(self):
    exact = np.cumsum(HALVES.astype(np.float64))
    reference = np.asarray(tf.math.cumsum(tf.constant(HALVES)))
    tolerance = tolerances.DEFAULT_TOLERANCES["float16"]
    close = np.float16(exact)  # IREE's own: correctly rounded
    judged = reference_error.judge_call(0, [reference], [close], [exact], [tolerance])
    self.assertTrue(judged.within)
    self.assertGreater(judged.outputs[0].mismatching, 100)
    far = (exact + 100 * (reference.astype(np.float64) - exact)).astype(np.float16)
    judged = reference_error.judge_call(0, [reference], [far], [exact], [tolerance])
    self.assertFalse(judged.within)
    self.assertGreater(judged.outputs[0].backend.ulps, 50 * judged.outputs[0].reference.ulps)

  def test_promotion_reencodes_hex_constants(self):
    text = ('%0 = stablehlo.constant dense<0xFF800000> : tensor<f32>\n'
            '%1 = stablehlo.constant dense<"0x0000803F00000040"> : tensor<2xf32>\n'
            '%2 = stablehlo.constant dense<1.5> : tensor<3xf16>\n')
    promoted = reference_f64.promote(text)
    self.assertNotRegex(promoted, r"\bf(16|32)\b")
    self.assertIn("dense<0xFFF0000000000000> : tensor<f64>", promoted)
    self.assertIn('dense<"0x000000000000F03F0000000000000040"> : tensor<2xf64>', promoted)
    with self.assertRaisesRegex(reference_f64.PromotionError, "bitcast_convert"):
      reference_f64.promote("stablehlo.bitcast_convert %0 : (tensor<f32>) -> tensor<i32>")

  def test_lists_take_the_phase(self):
    self.assertIs(phases.parse("reference_error"), phases.Phase.REFERENCE_ERROR)
    expected = lists.entry("BUILD.bazel", "iree_llvmcpu", "cumsum_test.py",
                           ("reference_error", "TensorFlow's float16 cumsum"))
    self.assertIs(expected.phase, phases.Phase.REFERENCE_ERROR)


if __name__ == "__main__":
  absltest.main()
