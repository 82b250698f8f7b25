"""Under pytest too, a class-level failure is shown once per class and backend (issue 30 item
5): each test's item for the backend repeated the whole module's error and the per-method list.
Now, when no method compiles, each item names its own method's cause in one line (as absltest's
messages do), and a failure of several lines a backend's items share (a TF import error every
function shares) is whole in the first item, a later one naming it (real TF and iree-compile on
vmvx, which cannot lower erf; e2e/variable_scatter_test.py, which TF cannot import)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile

from absl.testing import absltest

from pyiree_tf_support import cli_flags
from tests.harness.class_failure_message_test import TEST_FILE
from tests.support.repo import ROOT


class PytestClassMessageTest(absltest.TestCase):

  def _failures(self, directory, test_file):
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(cli_flags.ENV_VAR, None)
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", test_file, "--target_backends=iree_vmla",
         f"--artifacts_dir={directory}/artifacts", "--compile_cache=false"],
        capture_output=True, text=True, cwd=directory, env=env, timeout=600, check=False)
    # The short summary at the end repeats test_a's message: its first line, or all of it when
    # pytest sees $CI set (as the project's CI does), so the failures are read from before it.
    body = re.split(r"^=+ short test summary info =+$", process.stdout, flags=re.M)[0]
    return re.split(r"^_{5,} .* _{5,}$", body, flags=re.M)[1:], process.stdout

  def test_each_item_names_its_own_method_when_none_compiles(self):
    directory = tempfile.mkdtemp(prefix="pytest_class_message_")
    with open(os.path.join(directory, "none_compile_test.py"), "w") as f:
      f.write(TEST_FILE.format(name="PytestNone", extra=""))
    failures, stdout = self._failures(directory, "none_compile_test.py")
    self.assertLen(failures, 3, stdout)
    for failure, method in zip(failures, ("erf", "erf2", "erf")):
      self.assertNotIn("compiled alone", failure)
      self.assertRegex(failure, rf"iree_vmla: COMPILE ERROR\n  call 0 \({method}\): method "
                       rf"'{method}' did not compile for iree_vmla: .*failed to legalize operation")

  def test_the_second_item_points_at_the_first(self):
    directory = tempfile.mkdtemp(prefix="pytest_class_message_")
    # A copy: beside e2e/BUILD.bazel, which lists it, its failures are xfails pytest hides.
    shutil.copy(os.path.join(ROOT, "e2e", "variable_scatter_test.py"), directory)
    failures, stdout = self._failures(directory, "variable_scatter_test.py")
    self.assertLen(failures, 3, stdout)
    self.assertIn("ResourceScatterNdUpdate", failures[0])
    for failure in failures[1:]:
      self.assertNotIn("ResourceScatterNdUpdate", failure)
      self.assertRegex(failure, r"iree_vmla: IMPORT ERROR\n  the same error as test_\w+'s "
                       r"item above \(whole in report\.txt\)")


if __name__ == "__main__":
  absltest.main()
