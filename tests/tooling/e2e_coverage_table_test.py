"""docs/e2e_coverage.md's table as the update_e2e_coverage tool renders it: per backend how many
files pass, and in each failing cell its phase and its reason cut short (whole under Reasons)."""

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure
from pyiree_tf_support.tools import update_e2e_coverage as coverage

REASON = ("failed to legalize operation 'stablehlo.custom_call' that was explicitly marked "
          "illegal: call_target_name = \"mhlo.erf\" (tf.math.erf)")


class TableTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("short_reason_whole", "no f64 | on vulkan", 60, "no f64 | on vulkan"),
      ("long_reason_cut_at_a_word", REASON, 40, "failed to legalize operation …"),
  )
  def test_short(self, reason, width, expected):
    self.assertEqual(coverage.short(reason, width), expected)

  def test_a_file_listed_by_class_is_one_cell_in_its_earliest_phase(self):
    entries = {"a_test.py::T": ExpectedFailure(Phase.MISMATCH, "rounds"),
               "a_test.py::U::test_x": ExpectedFailure(Phase.COMPILE, "erf"),
               "b_test.py": ExpectedFailure(Phase.IMPORT, "strings")}
    self.assertEqual(coverage.listed_for_file(entries, "a_test.py"),
                     ExpectedFailure(Phase.COMPILE, "T: rounds; U::test_x: erf"))
    self.assertEqual(coverage.listed_for_file(entries, "b_test.py"), entries["b_test.py"])
    self.assertIsNone(coverage.listed_for_file(entries, "c_test.py"))

  def test_a_failing_cell_shows_its_phase_and_short_reason_and_the_pass_counts(self):
    row = {b: (coverage.PASS, "") for b in coverage.BACKENDS}
    failing = dict(row, iree_vmla=(coverage.XFAIL, "compile: " + REASON),
                   iree_vulkan=(coverage.FAIL, "runtime: input0 element type | mismatch"))
    text = coverage.markdown({"a_test.py": row, "erf_test.py": failing})
    lines = text.splitlines()
    erf = next(line for line in lines if line.startswith("| `erf_test.py`"))
    self.assertIn("| fail (expected): compile: failed to legalize operation … [1] |", erf)
    self.assertIn("| FAIL: runtime: input0 element type \\| mismatch [2] |", erf)
    passing = next(line for line in lines if line.startswith("| **passing**"))
    self.assertEqual(passing.split(" | ")[1:3], ["2 of 2 files pass", "1 of 2 files pass"])
    self.assertIn(f"1. `erf_test.py` on `iree_vmla`: compile: {REASON}", lines)


if __name__ == "__main__":
  absltest.main()
