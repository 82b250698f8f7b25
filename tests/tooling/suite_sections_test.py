"""The suites' own sections of docs/e2e_coverage.md: the generated suite's a row per test class,
the keras.applications suite's a row per model file, each cell judged against its BUILD.bazel's
lists, spliced into the page without touching the rest (nor each other)."""

import os
import shutil
import tempfile

from absl.testing import absltest

from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.tools import suite_sections as coverage
from pyiree_tf_support.tools import update_e2e_coverage

BUILD = '''
FAILING = {
    "iree_vmla": {
        "math_test.py::ErfStaticTest": ("compile", "no erf"),
        "math_test.py::AbsComplexTest": ("compile", "no complex"),
    },
    "iree_vulkan": {
        "math_test.py": ("mismatch", "every class"),
    },
}
'''


def cell(phase=None, error=None):
  return run_results.Cell(phase, error, "report.json")


def build_file(test: absltest.TestCase, text: str) -> str:
  """A BUILD.bazel holding `text` in a directory of its own, removed after `test`."""
  directory = tempfile.mkdtemp()
  test.addCleanup(shutil.rmtree, directory)
  path = os.path.join(directory, "BUILD.bazel")
  with open(path, "w") as f:
    f.write(text)
  return path


class SectionTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.build = build_file(self, BUILD)
    self.page = os.path.join(os.path.dirname(self.build), "e2e_coverage.md")

  def run_of(self, cells):
    return run_results.Run({}, (), {("e2e/generated", k, b): c for (k, b), c in cells.items()})

  def test_each_cell_is_judged_against_its_class_or_file_entry(self):
    table = coverage.rows(self.run_of({
        ("math_test.py::ErfStaticTest", "iree_vmla"): cell(Phase.COMPILE, "erf"),
        ("math_test.py::ErfStaticTest", "iree_llvmjit"): cell(Phase.COMPILE, "erf"),
        ("math_test.py::ErfStaticTest", "iree_vulkan"): cell(Phase.MISMATCH, "x"),
        ("math_test.py::AbsStaticTest", "iree_vmla"): cell(),
        ("math_test.py::AbsStaticTest", "iree_vulkan"): cell(),
    }), self.build)
    self.assertEqual(list(table), ["math_test.py::AbsComplexTest", "math_test.py::AbsStaticTest",
                                   "math_test.py::ErfStaticTest"])
    erf = table["math_test.py::ErfStaticTest"]
    self.assertEqual(erf["iree_vmla"], (coverage.XFAIL, "compile: no erf"))
    self.assertEqual(erf["iree_llvmjit"], (coverage.FAIL, "compile: erf"))
    self.assertEqual(erf["iree_vulkan"], (coverage.XFAIL, "mismatch: every class"))
    self.assertEqual(erf["tf"], (coverage.NOT_RUN, ""))
    self.assertEqual(table["math_test.py::AbsStaticTest"]["iree_vulkan"][0], coverage.XPASS)
    self.assertEqual(table["math_test.py::AbsComplexTest"]["iree_vmla"][0], coverage.NOT_RUN)

  def test_the_section_replaces_its_own_and_keeps_the_rest_of_the_page(self):
    with open(self.page, "w") as f:
      f.write("# e2e coverage\n\n| file |\n\n## Reasons (phase: reason)\n\n1. x\n")
    run = self.run_of({("math_test.py::ErfStaticTest", "iree_vmla"): cell(Phase.COMPILE, "e")})
    table = coverage.rows(run, self.build)
    for _ in range(2):  # written twice: one section.
      with open(self.page) as f:
        page = coverage.splice(f.read(), coverage.section(table, "a run"))
      with open(self.page, "w") as f:
        f.write(page)
    self.assertTrue(page.startswith("# e2e coverage\n\n| file |\n\n## Reasons"))
    self.assertEqual(page.count(coverage.GENERATED.heading), 1)
    self.assertIn("| `math_test.py::ErfStaticTest` | not run | fail (expected) [1] |", page)
    self.assertIn("1. `math_test.py::ErfStaticTest` on `iree_vmla`: compile: no erf", page)
    self.assertEqual(coverage.kept_section(page + "\n## Later\n"), coverage.section(table,
                                                                                     "a run"))

  def test_rewriting_the_e2e_table_keeps_the_generated_section(self):
    output = os.path.dirname(self.page)
    testlogs = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, testlogs)
    table = coverage.rows(self.run_of({}), self.build)
    with open(self.page, "w") as f:
      f.write("# old\n\n" + coverage.section(table, "a run"))
    update_e2e_coverage.main(["--testlogs", testlogs, "--output_dir", output])
    with open(self.page) as f:
      page = f.read()
    self.assertTrue(page.startswith("# e2e coverage\n"))
    self.assertTrue(page.endswith("\n\n" + coverage.section(table, "a run")), page[-500:])


APPLICATIONS_BUILD = '''
FAILING = {
    "iree_llvmjit": {
        "resnet50_v2_test.py": ("compile", "FoldUnitExtentDimsPass"),
    },
}
'''


class ApplicationsSectionTest(absltest.TestCase):
  """The applications suite's rows are its model files, read from the run's per-file cells."""

  def setUp(self):
    super().setUp()
    self.build = build_file(self, APPLICATIONS_BUILD)
    self.spec = coverage.APPLICATIONS

  def test_a_row_per_model_file_with_its_first_cause(self):
    run = run_results.Run({
        ("/checkout/e2e/keras/applications", "resnet50_v2_test.py", "iree_llvmjit"):
            cell(Phase.COMPILE, "error: FoldUnitExtentDimsPass"),
        ("e2e/keras/applications", "resnet50_v2_test.py", "tf"): cell(),
        ("e2e/keras/applications", "vgg16_test.py", "iree_llvmjit"):
            cell(Phase.MISMATCH, "max abs diff 3"),
        ("e2e/keras/applications", "vgg16_test.py", "tf"): cell(),
        ("e2e", "vgg16_test.py", "iree_vmla"): cell(Phase.COMPILE, "another suite's"),
    }, ())
    table = coverage.rows(run, self.build, self.spec)
    self.assertEqual(list(table), ["resnet50_v2_test.py", "vgg16_test.py"])
    self.assertEqual(table["resnet50_v2_test.py"]["iree_llvmjit"],
                     (coverage.XFAIL, "compile: FoldUnitExtentDimsPass"))
    self.assertEqual(table["vgg16_test.py"]["iree_llvmjit"],
                     (coverage.FAIL, "mismatch: max abs diff 3"))
    self.assertEqual(table["vgg16_test.py"]["iree_vmla"], (coverage.NOT_RUN, ""))
    self.assertNotIn("tf", table["vgg16_test.py"])
    text = coverage.section(table, "a run", self.spec)
    self.assertTrue(text.startswith(
        "## keras.applications models (`e2e/keras/applications`)\n"), text)
    # Its suite runs IREE's backends against TensorFlow, not TensorFlow against itself.
    self.assertIn("| file | iree_vmla | iree_llvmjit | iree_vulkan |", text)
    self.assertIn("| **passing** | 0 of 2 files | 0 of 2 files | 0 of 2 files |", text)
    self.assertIn("1. `resnet50_v2_test.py` on `iree_llvmjit`: compile: FoldUnitExtentDimsPass",
                  text)

  def test_each_section_is_rewritten_alone_and_the_page_keeps_both(self):
    generated = coverage.section({}, "a run")
    applications = coverage.section({}, "a run", self.spec)
    page = "# e2e coverage\n\n| file |\n\n" + generated + "\n## Later\n"
    page = coverage.splice(page, applications, self.spec)
    page = coverage.splice(page, applications.replace("a run", "another run"), self.spec)
    self.assertEqual(page.count(self.spec.heading), 1)
    self.assertEqual(coverage.kept_section(page), generated)
    self.assertIn("another run", coverage.kept_section(page, self.spec))
    self.assertEqual(coverage.kept_sections(page),
                     generated + "\n" + applications.replace("a run", "another run"))


if __name__ == "__main__":
  absltest.main()
