"""Per-backend outcomes and the report: every status, how expected failures turn, the headline."""

import dataclasses

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status


def trace(backend, *outputs, backend_names=()):
  result = Trace(module_name="M", backend=backend, function_name="f", backend_names=backend_names)
  result.calls.extend(ModuleCall("g", [], np.array(out, np.float32)) for out in outputs)
  return result


class EvaluateTest(parameterized.TestCase):

  def test_pass(self):
    self.assertEqual(verdicts.evaluate(trace("tf_ref", [1.0]), trace("x", [1.0]), None, "t.txt"),
                     Outcome("x", Status.PASS, "", "t.txt", worst_fraction=0.0))

  def test_a_pass_close_to_its_tolerance_says_how_close(self):
    # 1 vs 1 + 1.9e-6: atol 1e-6 + rtol 1e-6 * 1 = 2e-6 admits it at 0.95 (float64 trace).
    ref, tar = trace("tf_ref", [1.0]), trace("x", [1.0])
    ref.calls[0] = ModuleCall("g", [], np.array([1.0]))
    tar.calls[0] = ModuleCall("g", [], np.array([1.0 + 1.9e-6]))
    outcome = verdicts.evaluate(ref, tar, None)
    self.assertEqual(outcome.status, Status.PASS)
    self.assertAlmostEqual(outcome.worst_fraction, 0.95, places=6)
    self.assertEqual(verdicts.format_outcome(outcome), "x: PASS (0.95 of tolerance)")
    below_half = dataclasses.replace(outcome, worst_fraction=0.49)
    self.assertEqual(verdicts.format_outcome(below_half), "x: PASS")

  def test_runtime_error_wins_over_the_comparison(self):
    self.assertEqual(
        verdicts.evaluate(trace("tf_ref", [1.0]), trace("x"), "call 0 (g) raised E: boom"),
        Outcome("x", Status.RUNTIME_ERROR, "call 0 (g) raised E: boom"))

  def test_mismatch_names_each_failing_call_and_offers_the_first_ones_repro(self):
    outcome = verdicts.evaluate(trace("tf_ref", [1.0], [2.0], [3.0]),
                                 trace("x", [1.0], [2.5], [3.5]), None, "t.txt",
                                 ["cmd0", "cmd1", "cmd2"])
    self.assertEqual(outcome.status, Status.MISMATCH)
    self.assertEqual(outcome.repro_command, "cmd1")  # repro.CallRepro.describe() words it.
    self.assertEqual(outcome.detail.splitlines()[0], "call 1 (g):")
    self.assertEqual(outcome.detail.splitlines()[2], "call 2 (g):")
    self.assertStartsWith(outcome.detail.splitlines()[1],
                          "  outputs: float32[1] arrays are not close: 1 of 1 elements")

  def test_mismatch_without_repro_commands(self):
    outcome = verdicts.evaluate(trace("tf_ref", [1.0]), trace("x", [2.0]), None)
    self.assertIsNone(outcome.repro_command)

  def test_the_tolerance_policy_is_passed_explicitly(self):
    ref, tar = trace("tf_ref", [1.0]), trace("x", [1.001], backend_names=("x_0", "x"))
    loose = tolerances.parse_overrides("x:float32:0.01:0")
    self.assertEqual(verdicts.evaluate(ref, tar, None).status, Status.MISMATCH)
    self.assertEqual(verdicts.evaluate(ref, tar, None, tolerance_policy=loose).status,
                     Status.PASS)
    self.assertEqual(verdicts.evaluate(ref, tar, None).status, Status.MISMATCH)


class ExpectingFailureTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("mismatch", Status.MISMATCH, Status.XFAIL, "expected failure: MISMATCH\nd"),
      ("compile_error", Status.COMPILE_ERROR, Status.XFAIL, "expected failure: COMPILE ERROR\nd"),
      ("runtime_error", Status.RUNTIME_ERROR, Status.XFAIL, "expected failure: RUNTIME ERROR\nd"),
      ("pass_stays", Status.PASS, Status.PASS, "d"),
      ("skipped_stays", Status.SKIPPED, Status.SKIPPED, "d"),
  )
  def test_expecting_failure(self, status, expected_status, expected_detail):
    outcome = Outcome("x", status, "d", "t.txt", "cmd").expecting_failure()
    self.assertEqual(outcome, Outcome("x", expected_status, expected_detail, "t.txt", "cmd"))
    self.assertFalse(outcome.status.failed)


class FormatTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("pass_hides_the_trace", Outcome("a", Status.PASS, "", "/t.txt"), "a: PASS"),
      ("skipped", Outcome("a", Status.SKIPPED, "no device"), "a: SKIPPED\n  no device"),
      ("mismatch", Outcome("a", Status.MISMATCH, "call 0 (g):\n  x", "/t.txt", "re-run: c"),
       "a: MISMATCH\n  call 0 (g):\n    x\n  trace: /t.txt\n  re-run: c"),
      ("runtime_error", Outcome("a", Status.RUNTIME_ERROR, "boom", "/t.txt"),
       "a: RUNTIME ERROR\n  boom\n  trace: /t.txt"),
      ("compile_error_has_no_trace", Outcome("a", Status.COMPILE_ERROR, "bad op", "/t.txt"),
       "a: COMPILE ERROR\n  bad op"),
      ("xfail", Outcome("a", Status.XFAIL, "expected failure: MISMATCH", "/t.txt"),
       "a: XFAIL\n  expected failure: MISMATCH\n  trace: /t.txt"),
  )
  def test_format_outcome(self, outcome, expected):
    self.assertEqual(verdicts.format_outcome(outcome), expected)

  @parameterized.named_parameters(
      ("failures_named_in_the_headline",
       [Outcome("a", Status.PASS), Outcome("b", Status.MISMATCH),
        Outcome("c", Status.COMPILE_ERROR)],
       "Trace 'f' failed on 2 of 3 target backend(s) compared with the reference 'tf_ref': "
       "b (mismatch), c (compile error).\na: PASS\nb: MISMATCH\nc: COMPILE ERROR"),
      ("counts_when_nothing_failed",
       [Outcome("a", Status.PASS), Outcome("b", Status.XFAIL), Outcome("c", Status.PASS),
        Outcome("d", Status.SKIPPED)],
       "Trace 'f' compared with the reference 'tf_ref': 2 pass (a, c), 1 skipped (d), "
       "1 xfail (b).\na: PASS\nb: XFAIL\nc: PASS\nd: SKIPPED"),
      ("no_targets", [], "Trace 'f' compared with the reference 'tf_ref': no target backends.\n"),
  )
  def test_format_report(self, outcomes, expected):
    self.assertEqual(verdicts.format_report("f", "tf_ref", outcomes), expected)


if __name__ == "__main__":
  absltest.main()
