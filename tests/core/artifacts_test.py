"""Artifacts are created with the permissions any other file of the user would get (0666 and 0777
less the umask), so colleagues and CI uploaders can read them; never the 0600 of a temp file."""

import os
import stat
import subprocess
import tempfile
import unittest.mock
import zipfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import module_dirs
from pyiree_tf_support.core import safe_files


def mode(path: str) -> int:
  return stat.S_IMODE(os.stat(path).st_mode)


def write_zip(path: str, name: str, text: str) -> None:
  os.makedirs(os.path.dirname(path), exist_ok=True)
  with zipfile.ZipFile(path, "w") as archive:
    archive.writestr(name, text)


class BazelCommandsTest(parameterized.TestCase):
  """A printed command that unzips a Bazel test's outputs.zip works from any directory: the
  zip's absolute path when the test can see the execroot, else the workspace root found from
  the directory the command is pasted in."""

  def run_in(self, command: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", f"{command} && cat flagfile"], cwd=cwd,
                          capture_output=True, text=True, check=False, timeout=60)

  def command(self, outputs: str, target: str) -> str:
    environment = {"TEST_UNDECLARED_OUTPUTS_DIR": outputs, "TEST_TARGET": target}
    with unittest.mock.patch.dict(os.environ, environment):
      return bazel_paths.shell_cd(os.path.join(outputs, "M", "repro"))

  @parameterized.named_parameters(("sandboxed", "sandbox/linux-sandbox/7/"), ("local", ""))
  def test_a_visible_execroot_gives_the_zips_absolute_path(self, sandbox):
    # The layout Bazel 4 gives a test: its outputs dir in the sandbox's (or the real) execroot,
    # the zip in the real one.
    # A hostile target name stays text in the absolute path too.
    output_base, marker = tempfile.mkdtemp(), os.path.join(tempfile.mkdtemp(), "marker")
    name = f"t$(touch {marker})"
    testlogs = os.path.join("execroot", "ws", "bazel-out", "k8-fastbuild", "testlogs", "e2e", name)
    outputs = os.path.join(output_base, sandbox, testlogs, "test.outputs")
    os.makedirs(outputs)
    zip_path = os.path.join(output_base, testlogs, "test.outputs", "outputs.zip")
    write_zip(zip_path, "M/repro/flagfile", "unzipped")
    command = self.command(outputs, f"//e2e:{name}")
    for cwd in ("/", tempfile.mkdtemp()):
      ran = self.run_in(command, cwd)
      self.assertEqual((ran.returncode, ran.stdout), (0, "unzipped"), ran.stderr + command)
    self.assertFalse(os.path.exists(marker), command)

  def test_otherwise_the_command_finds_the_workspace_root_from_any_directory_in_it(self):
    # Remote execution: the outputs dir names no execroot the test can see.
    workspace, outputs = tempfile.mkdtemp(), tempfile.mkdtemp()
    with open(os.path.join(workspace, "WORKSPACE"), "w"):
      pass
    write_zip(os.path.join(workspace, "bazel-testlogs", "e2e", "t", "test.outputs", "outputs.zip"),
              "M/repro/flagfile", "unzipped")
    sub = os.path.join(workspace, "e2e", "keras")
    os.makedirs(sub)
    command = self.command(outputs, "//e2e:t")
    for cwd in (workspace, sub):
      ran = self.run_in(command, cwd)
      self.assertEqual((ran.returncode, ran.stdout), (0, "unzipped"), ran.stderr + command)


class FileModesTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.root = tempfile.mkdtemp()

  def with_umask(self, umask: int, fn):
    old = os.umask(umask)
    try:
      return fn()
    finally:
      os.umask(old)

  @parameterized.parameters((0o022, 0o644, 0o755), (0o027, 0o640, 0o750), (0o002, 0o664, 0o775))
  def test_written_files_and_dirs_follow_the_umask(self, umask, file_mode, dir_mode):
    text = os.path.join(self.root, "Module", "traces", "f__tf_ref.txt")
    data = os.path.join(self.root, "Module", "compiled__iree_vmla.vmfb")
    self.with_umask(umask, lambda: safe_files.write_text(text, "trace"))
    self.with_umask(umask, lambda: safe_files.write_bytes(data, b"vmfb"))
    self.assertEqual(oct(mode(text)), oct(file_mode))
    self.assertEqual(oct(mode(data)), oct(file_mode))
    self.assertEqual(oct(mode(os.path.dirname(text))), oct(dir_mode))

  def test_rewriting_a_file_keeps_the_usual_mode(self):
    path = os.path.join(self.root, "report.txt")
    for text in ("first", "second"):
      self.with_umask(0o022, lambda text=text: safe_files.write_text(path, text))
    self.assertEqual(oct(mode(path)), oct(0o644))
    with open(path) as f:
      self.assertEqual(f.read(), "second")

  def test_module_dir_and_owner_file_follow_the_umask(self):
    module_dir = self.with_umask(
        0o022, lambda: module_dirs.claim_module_dir(self.root, "Module", "identity"))
    self.assertEqual(oct(mode(module_dir)), oct(0o755))
    self.assertEqual(oct(mode(os.path.join(module_dir, ".owner"))), oct(0o644))

  def test_a_failed_write_leaves_no_temporary_file(self):
    path = os.path.join(self.root, "x.txt")
    with self.assertRaises(TypeError):
      safe_files.write_bytes(path, object())
    self.assertEqual(os.listdir(self.root), [])


if __name__ == "__main__":
  absltest.main()
