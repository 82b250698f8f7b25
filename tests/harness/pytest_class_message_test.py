"""Under pytest too, a module that does not compile shows its error once per class and backend
(issue 30 item 5): each test's item for the backend repeated the whole error and the
per-method list; now the first failing item holds it and a later one names that item (real TF
and iree-compile on vmvx, which cannot lower erf)."""

import os
import re
import subprocess
import sys
import tempfile

from absl.testing import absltest

from pyiree_tf_support import cli_flags
from tests.harness.class_failure_message_test import TEST_FILE
from tests.support.repo import ROOT


class PytestClassMessageTest(absltest.TestCase):

  def test_the_second_item_points_at_the_first(self):
    directory = tempfile.mkdtemp(prefix="pytest_class_message_")
    with open(os.path.join(directory, "none_compile_test.py"), "w") as f:
      f.write(TEST_FILE.format(name="PytestNone", extra=""))
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(cli_flags.ENV_VAR, None)
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", "none_compile_test.py", "--target_backends=iree_vmla",
         f"--artifacts_dir={directory}/artifacts", "--compile_cache=false"],
        capture_output=True, text=True, cwd=directory, env=env, timeout=600, check=False)
    # The short summary at the end repeats test_a's message: its first line, or all of it when
    # pytest sees $CI set (as the project's CI does), so the failures are read from before it.
    body = re.split(r"^=+ short test summary info =+$", process.stdout, flags=re.M)[0]
    failures = re.split(r"^_{5,} .* _{5,}$", body, flags=re.M)[1:]
    self.assertLen(failures, 3, process.stdout)
    self.assertIn("the whole module did not compile", failures[0])
    self.assertIn("failed to legalize operation", failures[0])
    for failure in failures[1:]:
      self.assertNotIn("failed to legalize operation", failure)
      self.assertRegex(failure, r"iree_vmla: COMPILE ERROR\n  the same error as test_a's item "
                       r"above \(whole in report\.txt\)")


if __name__ == "__main__":
  absltest.main()
