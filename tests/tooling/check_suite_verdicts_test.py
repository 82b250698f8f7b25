"""`python -m pyiree_tf_support.tools.check_suite_verdicts` on the JUnit XML of a real pytest run: a
cell agrees when it passed where FAILING lists nothing and was an expected failure where FAILING
lists the file; an unexpected pass, a cell that never ran and a missing FAILING list are
reported."""

import os
import subprocess
import sys
import tempfile
import textwrap

from absl.testing import absltest

from pyiree_tf_support import cli_flags
from pyiree_tf_support.tools import check_suite_verdicts
from tests.support import test_files
from tests.support.repo import ROOT

TOOL = ["-m", "pyiree_tf_support.tools.check_suite_verdicts"]

BUILD = textwrap.dedent('''
    FAILING = {
        "iree_llvmjit": {
            "erf_test.py": "no erf lowering (really fails: agrees)",
            "square_test.py": "listed but passes (an XPASS: disagrees)",
        },
        "iree_vmla": {},
    }
    ''')


class CheckSuiteVerdictsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp(prefix="check_verdicts_")
    cls.suite = os.path.join(cls.dir, "suite")
    os.mkdir(cls.suite)
    for name, body in (("Erf", "tf.math.erf(a)"), ("Square", "a * a"), ("Double", "a + a")):
      with open(os.path.join(cls.suite, f"{name.lower()}_test.py"), "w") as f:
        f.write(test_files.one_method_test(name, body))
    with open(os.path.join(cls.suite, "BUILD.bazel"), "w") as f:
      f.write(BUILD)
    cls.junit = os.path.join(cls.dir, "junit.xml")
    env = cls.env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(cli_flags.ENV_VAR, None)
    cls.run_log = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", "suite", "--target_backends=iree_llvmjit", f"--junitxml={cls.junit}",
         f"--artifacts_dir={cls.dir}/artifacts", "--nocompile_cache"],
        capture_output=True, text=True, cwd=cls.dir, env=env, timeout=600, check=False)

  def check(self, *args):
    return subprocess.run([sys.executable, *TOOL, self.junit, "--dir", self.suite, *args],
                          capture_output=True, text=True, timeout=60, check=False, env=self.env)

  def test_an_unexpected_pass_is_the_only_disagreement_on_the_backend_that_ran(self):
    self.assertIn("1 failed, 1 passed, 1 xfailed", self.run_log.stdout)
    process = self.check("--backends=iree_llvmjit")
    self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
    self.assertEqual(process.stdout.splitlines(), [
        "pytest: square_test.py on iree_llvmjit: expected xfail, got fail",
        "3 cells (1 pass, 2 xfail expected): 1 disagreement(s)"])

  def test_a_backend_that_did_not_run_is_missing(self):
    process = self.check()
    self.assertEqual(process.returncode, 1)
    self.assertIn("pytest: double_test.py on iree_vmla: expected pass, got missing",
                  process.stdout.splitlines())
    self.assertIn("6 cells (4 pass, 2 xfail expected): 4 disagreement(s)", process.stdout)

  def test_a_file_listed_by_class_or_method_is_an_expected_xfail(self):
    directory = tempfile.mkdtemp(dir=self.dir)
    for name in ("a_test.py", "b_test.py", "c_test.py"):
      open(os.path.join(directory, name), "w").close()
    with open(os.path.join(directory, "BUILD.bazel"), "w") as f:
      f.write('FAILING = {"iree_vmla": {"a_test.py::T": ("compile", "x"), '
              '"b_test.py::T::test_y": ("mismatch", "y")}}\n')
    self.assertEqual(check_suite_verdicts.expected_cells(directory),
                     {("a_test.py", "iree_vmla"): "xfail", ("b_test.py", "iree_vmla"): "xfail",
                      ("c_test.py", "iree_vmla"): "pass"})

  def test_a_backend_without_a_failing_list_is_one_error_line(self):
    process = self.check("--backends=iree_vulkan")
    self.assertEqual(process.returncode, 2)
    self.assertEqual(process.stderr.strip().splitlines(), [
        f"ERROR: backend(s) iree_vulkan have no FAILING list in {self.suite}/BUILD.bazel; "
        "valid: iree_llvmjit, iree_vmla"])

  def test_a_truncated_or_missing_junit_file_is_one_error_line(self):
    truncated = os.path.join(self.dir, "truncated.xml")
    with open(self.junit) as source, open(truncated, "w") as f:
      f.write(source.read()[:40])
    for path in (truncated, os.path.join(self.dir, "missing.xml")):
      with self.subTest(path=path):
        process = subprocess.run([sys.executable, *TOOL, path, "--dir", self.suite],
                                 capture_output=True, text=True, timeout=60, check=False,
                                 env=self.env)
        self.assertEqual(process.returncode, 2, process.stderr)
        self.assertLen(process.stderr.strip().splitlines(), 1, process.stderr)
        self.assertIn("ERROR: cannot read the test results", process.stderr)


if __name__ == "__main__":
  absltest.main()
