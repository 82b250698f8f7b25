"""The generated suite's section of docs/e2e_coverage.md: a row per test class, its cells judged
against e2e/generated/BUILD.bazel's lists, spliced into the page without touching the rest."""

import os
import shutil
import tempfile

from absl.testing import absltest

from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.reporting import run_results
from pyiree_tf_support.tools import generated_coverage as coverage
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


class SectionTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    directory = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, directory)
    self.build = os.path.join(directory, "BUILD.bazel")
    with open(self.build, "w") as f:
      f.write(BUILD)
    self.page = os.path.join(directory, "e2e_coverage.md")

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
    self.assertEqual(page.count(coverage.HEADING), 1)
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


if __name__ == "__main__":
  absltest.main()
