"""Artifacts are created with the permissions any other file of the user would get (0666 and 0777
less the umask), so colleagues and CI uploaders can read them; never the 0600 of a temp file."""

import os
import stat
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core import artifacts


def mode(path: str) -> int:
  return stat.S_IMODE(os.stat(path).st_mode)


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
    self.with_umask(umask, lambda: artifacts.write_text(text, "trace"))
    self.with_umask(umask, lambda: artifacts.write_bytes(data, b"vmfb"))
    self.assertEqual(oct(mode(text)), oct(file_mode))
    self.assertEqual(oct(mode(data)), oct(file_mode))
    self.assertEqual(oct(mode(os.path.dirname(text))), oct(dir_mode))

  def test_rewriting_a_file_keeps_the_usual_mode(self):
    path = os.path.join(self.root, "report.txt")
    for text in ("first", "second"):
      self.with_umask(0o022, lambda text=text: artifacts.write_text(path, text))
    self.assertEqual(oct(mode(path)), oct(0o644))
    with open(path) as f:
      self.assertEqual(f.read(), "second")

  def test_module_dir_and_owner_file_follow_the_umask(self):
    module_dir = self.with_umask(
        0o022, lambda: artifacts.claim_module_dir(self.root, "Module", "identity"))
    self.assertEqual(oct(mode(module_dir)), oct(0o755))
    self.assertEqual(oct(mode(os.path.join(module_dir, ".owner"))), oct(0o644))

  def test_a_failed_write_leaves_no_temporary_file(self):
    path = os.path.join(self.root, "x.txt")
    with self.assertRaises(TypeError):
      artifacts.write_bytes(path, object())
    self.assertEqual(os.listdir(self.root), [])


if __name__ == "__main__":
  absltest.main()
