"""The opt-in tflite backend in the e2e lists and coverage: a column of the e2e table and a list
of e2e/BUILD.bazel, but no column of the generated suite's section (its suite does not run it)."""

from absl.testing import absltest

from pyiree_tf_support.tools import e2e_lists
from pyiree_tf_support.tools import suite_sections
from pyiree_tf_support.tools import update_e2e_coverage as coverage


class TfLiteCoverageTest(absltest.TestCase):

  def test_the_e2e_table_has_a_tflite_column_and_e2e_build_a_list_for_it(self):
    self.assertIn("tflite", coverage.BACKENDS)
    self.assertIn("tflite", e2e_lists.failing_by_backend())
    row = {b: (coverage.PASS, "") for b in coverage.BACKENDS}
    header = coverage.markdown({"a_test.py": row}).splitlines()[4]
    self.assertEqual(header, "| file | tf | iree_vmla | iree_llvmjit | iree_vulkan | tflite |")

  def test_the_generated_section_keeps_the_default_backends(self):
    self.assertNotIn("tflite", e2e_lists.default_backends())
    text = suite_sections.section({}, "a run")
    self.assertIn("| test class | tf | iree_vmla | iree_llvmjit | iree_vulkan |", text)


if __name__ == "__main__":
  absltest.main()
