"""The coverage page says which suites and lists it came from (issue 30 item 10): made with
`--dirs=my_tests` it said `//e2e:e2e_tests` and `e2e/BUILD.bazel`. No Bazel: the page is text
rendered from the table and the dirs as the tool reads them."""

from absl.testing import absltest

from pyiree_tf_support.tools import update_e2e_coverage as coverage

ROW = {b: (coverage.PASS, "") for b in coverage.BACKENDS}


class CoverageSourceTest(absltest.TestCase):

  def test_the_page_names_the_suites_and_lists_of_its_dirs(self):
    dirs = [coverage.SuiteDir("/ws/my_tests", "my_tests", ("mine", "mine_failing"))]
    text = coverage.markdown({"a_test.py": ROW}, dirs)
    header = text.splitlines()[2]
    self.assertIn("`//my_tests:mine` and `//my_tests:mine_failing`", header)
    self.assertIn("`my_tests/BUILD.bazel`", header)
    self.assertNotIn("//e2e", header)
    self.assertNotIn("`e2e/BUILD.bazel`", header)

  def test_several_dirs_are_each_named(self):
    dirs = [coverage.SuiteDir("/ws/e2e", "e2e", ("e2e_tests", "e2e_tests_failing")),
            coverage.SuiteDir("/ws/e2e/keras", "e2e/keras", ("keras_tests", "vision_failing"))]
    header = coverage.markdown({"a_test.py": ROW}, dirs).splitlines()[2]
    for suite in ("//e2e:e2e_tests", "//e2e:e2e_tests_failing", "//e2e/keras:keras_tests",
                  "//e2e/keras:vision_failing"):
      self.assertIn(f"`{suite}`", header)
    self.assertIn("`e2e/BUILD.bazel` and `e2e/keras/BUILD.bazel`", header)

  def test_a_dir_outside_the_workspace_is_named_by_its_path(self):
    dirs = [coverage.SuiteDir("/elsewhere/tests", None, ())]
    header = coverage.markdown({"a_test.py": ROW}, dirs).splitlines()[2]
    self.assertIn("`/elsewhere/tests/BUILD.bazel`", header)
    self.assertNotIn("//", header)

  def test_the_default_is_the_e2e_package(self):
    header = coverage.markdown({"a_test.py": ROW}).splitlines()[2]
    self.assertIn("`//e2e:e2e_tests` and `//e2e:e2e_tests_failing`", header)
    self.assertIn("`e2e/BUILD.bazel`", header)


if __name__ == "__main__":
  absltest.main()
