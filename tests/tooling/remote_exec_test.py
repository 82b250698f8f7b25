"""Bazel remote execution, real: an e2e test target runs on scripts/remote_exec.sh's worker (Bazel's
reference remote worker on loopback) and passes there.

Starts bazel and a worker itself, so it is skipped inside a Bazel test sandbox.
"""

import os
import subprocess
import unittest

from absl.testing import absltest

from tests.support.repo import ROOT

NEEDS_BAZEL = unittest.skipIf("TEST_SRCDIR" in os.environ, "starts bazel and a worker itself")
if "TEST_SRCDIR" not in os.environ:
  from tests.tooling.bazel_test import TempWorkspace

TARGET = "//e2e:e2e_tests_bool_test__tf__iree_llvmjit"


@NEEDS_BAZEL
class RemoteExecTest(absltest.TestCase):

  def test_an_e2e_target_passes_as_a_remote_action(self):
    ws = TempWorkspace(self)
    env = dict(os.environ, PYIREE_REMOTE_EXEC_DIR=os.path.join(ws.root, "..", "remote_exec"),
               PYIREE_REMOTE_EXEC_PORT="9095")
    script = os.path.join(ROOT, "scripts", "remote_exec.sh")
    started = subprocess.run([script, "start"], env=env, capture_output=True, text=True,
                             timeout=600, check=False)
    self.assertEqual(started.returncode, 0, started.stderr)
    self.addCleanup(subprocess.run, [script, "stop"], env=env, check=False)

    ran = ws.bazel("test", "--config=remote_exec", f"--remote_executor={started.stdout.strip()}",
                   TARGET)
    log = ran.stdout + ran.stderr
    self.assertEqual(ran.returncode, 0, log[-3000:])
    self.assertRegex(log, TARGET + r" +PASSED in")
    # Bazel counts where each action ran: the test action was executed by the worker, not here.
    self.assertRegex(log, r"\d+ processes: .*\b1 remote\b")
    self.assertNotRegex(log, r"\d+ processes: .*\blinux-sandbox\b")


if __name__ == "__main__":
  absltest.main()
