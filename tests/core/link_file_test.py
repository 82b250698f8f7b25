"""safe_files.link_file: a shared repro value is linked only while it is the file written, never
through a symlink, and a later write of one path leaves the other's contents alone."""

import os
import tempfile

from absl.testing import absltest

from pyiree_tf_support.core import safe_files


class LinkFileTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.root = tempfile.mkdtemp()
    self.source = os.path.join(self.root, "a", "input_0.bin")
    safe_files.write_bytes(self.source, b"x" * 10)
    self.identity = safe_files.file_identity(os.lstat(self.source))
    self.destination = os.path.join(self.root, "b", "input_0.bin")

  def test_links_the_file_written(self):
    self.assertTrue(safe_files.link_file(self.source, self.destination, self.identity))
    self.assertEqual(os.lstat(self.destination).st_ino, os.lstat(self.source).st_ino)

  def test_a_later_write_replaces_one_path_only(self):
    safe_files.link_file(self.source, self.destination, self.identity)
    safe_files.write_bytes(self.destination, b"y")
    with open(self.source, "rb") as f:
      self.assertEqual(f.read(), b"x" * 10)

  def test_a_replaced_source_is_not_linked(self):
    safe_files.write_bytes(self.source, b"z" * 10)
    self.assertFalse(safe_files.link_file(self.source, self.destination, self.identity))
    self.assertFalse(os.path.lexists(self.destination))

  def test_a_symlink_source_is_not_followed(self):
    link = os.path.join(self.root, "a", "link.bin")
    os.symlink(self.source, link)
    self.assertFalse(safe_files.link_file(link, self.destination, self.identity))
    self.assertFalse(os.path.lexists(self.destination))


if __name__ == "__main__":
  absltest.main()
