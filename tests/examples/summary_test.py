"""The summary of a run of examples explains its numbers (issue 30 item 10): an input holding
inf says what its "sum of |x|" leaves out, and examples run beyond those requested (shrinking the
failure, checking its elements) are counted as such. Records are built as the engine builds
them: the text is what is tested, no backend is involved."""

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.examples import summary
from pyiree_tf_support.examples.engine import ElementCheck
from pyiree_tf_support.examples.engine import ExamplesResult
from pyiree_tf_support.examples.engine import FailureKind
from pyiree_tf_support.examples.engine import FoundFailure
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status


def _result(first, shrunk, run: int, after_failure: int) -> ExamplesResult:
  kind = FailureKind("iree_vmvx", Status.MISMATCH, "values")
  failure = FoundFailure(kind, first, shrunk, Outcome("iree_vmvx", Status.MISMATCH, "differs"),
                         (ElementCheck(0, (3,), float(shrunk[0][3]), True),))
  return ExamplesResult("f", 30, 7, run, run, (), False, 1.5, ("iree_vmvx",), failure,
                        after_failure=after_failure)


class SummaryTest(absltest.TestCase):

  def test_a_sum_of_magnitudes_says_it_leaves_out_inf_and_nan(self):
    first = (np.array([0, 0, 0, np.inf], np.float32),)
    text = summary.format_summary(_result(first, first, 10, 2), "M.f()", "--examples=30")
    self.assertIn("4 elements, 1 nonzero, sum of |x| 0 over the finite ones, 1 inf or nan", text)
    self.assertNotIn("sum of |x| 0 ->", text)

  def test_finite_inputs_keep_the_short_form(self):
    first = (np.array([1, 0, -2, 4], np.float32),)
    shrunk = (np.array([0, 0, 0, 1], np.float32),)
    text = summary.format_summary(_result(first, shrunk, 10, 2), "M.f()", "--examples=30")
    self.assertIn("size: 4 elements, 3 nonzero, sum of |x| 7 -> 4 elements, 1 nonzero, "
                  "sum of |x| 1\n", text)

  def test_runs_beyond_the_requested_are_explained(self):
    first = (np.array([1, 0, -2, 4], np.float32),)
    text = summary.format_summary(_result(first, first, 51, 29), "M.f()", "--examples=30")
    self.assertIn("30 requested (seed 7), 51 run (22 drawn until the first failure, 29 "
                  "shrinking it and checking its elements)", text)


if __name__ == "__main__":
  absltest.main()
