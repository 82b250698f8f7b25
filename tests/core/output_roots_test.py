"""safe_files.open_root, which every output root goes through (`--artifacts_dir`, `fuzz --out`,
`fuzz merge --out`, the bundle dir, the module dir reduce, localize and split_dispatches write
into): a root reached through another user's symlink, or inside a directory another user owns
or every user may write without the sticky bit, is refused with one line before anything is
created, since that user could point it, now or mid-run, at a directory of ours.

"Another user" is the uid of `nobody` given by `os.lchown` to what the test plants (root ignores
permissions, which is why the owner is what is checked); without root these tests skip.
"""

import os
import pwd
import stat
import tempfile

from absl.testing import absltest

from pyiree_tf_support.core import safe_files


def _other_uid() -> int:
  try:
    return pwd.getpwnam("nobody").pw_uid
  except KeyError:
    return 65534


OTHER = _other_uid()
needs_root = absltest.skipIf(os.geteuid() != 0, "giving a file to another user needs root")


class OutputRootsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.shared = tempfile.mkdtemp()  # a shared temp dir, as /tmp is.
    os.chmod(self.shared, 0o1777)
    self.victim = tempfile.mkdtemp()  # a directory of ours the attacker names.
    with open(os.path.join(self.victim, "notes.txt"), "w") as f:
      f.write("mine")

  def assert_victim_untouched(self) -> None:
    self.assertEqual(os.listdir(self.victim), ["notes.txt"])

  def plant_link(self, name: str, target: str) -> str:
    link = os.path.join(self.shared, name)
    os.symlink(target, link)
    os.lchown(link, OTHER, OTHER)
    return link

  def assert_refused(self, root: str, expected: str) -> None:
    with self.assertRaises(safe_files.ArtifactsDirError) as raised:
      safe_files.open_root(root, "The campaign dir")
    message = str(raised.exception)
    self.assertLen(message.splitlines(), 1, message)
    self.assertIn(expected, message)

  @needs_root
  def test_a_root_that_is_another_users_link_is_refused(self):
    link = self.plant_link("campaign", self.victim)
    self.assert_refused(link, f"The campaign dir '{link}' is a symlink of user 'nobody'")
    self.assert_victim_untouched()

  @needs_root
  def test_a_root_below_another_users_link_is_refused_and_nothing_is_created(self):
    link = self.plant_link("runs", self.victim)
    self.assert_refused(os.path.join(link, "campaign"),
                        f"goes through the symlink '{link}' of user 'nobody'")
    self.assert_victim_untouched()

  @needs_root
  def test_a_root_inside_another_users_dir_is_refused(self):
    theirs = os.path.join(self.shared, "theirs")
    os.mkdir(theirs)
    os.chown(theirs, OTHER, OTHER)
    self.assert_refused(os.path.join(theirs, "campaign"),
                        f"is inside '{theirs}', which belongs to user 'nobody'")
    self.assertEqual(os.listdir(theirs), [])  # nothing created there either.

  @needs_root
  def test_our_own_link_to_another_users_dir_is_refused(self):
    theirs = os.path.join(self.shared, "theirs")
    os.mkdir(theirs)
    os.mkdir(os.path.join(theirs, "campaign"))
    os.chown(theirs, OTHER, OTHER)
    ours = os.path.join(self.victim, "link")
    os.symlink(os.path.join(theirs, "campaign"), ours)
    self.assert_refused(ours, f"is inside '{theirs}', which belongs to user 'nobody'")

  def test_a_root_inside_a_dir_every_user_may_write_without_the_sticky_bit_is_refused(self):
    open_dir = tempfile.mkdtemp()
    os.chmod(open_dir, 0o777)
    self.assert_refused(os.path.join(open_dir, "campaign"),
                        f"is inside '{open_dir}', which is writable by every user without "
                        "the sticky bit (mode 0777)")
    self.assertEqual(os.listdir(open_dir), [])

  def test_a_root_inside_a_sticky_shared_dir_is_ours(self):
    root = os.path.join(self.shared, "campaign", "run")
    self.assertEqual(safe_files.open_root(root), root)
    self.assertTrue(stat.S_ISDIR(os.lstat(root).st_mode))

  def test_our_own_link_is_followed(self):
    link = os.path.join(self.shared, "mine")
    os.symlink(self.victim, link)
    self.assertEqual(safe_files.open_root(link), link)
    relative = os.path.join(self.shared, "relative")
    os.symlink(os.path.relpath(self.victim, self.shared), relative)
    safe_files.open_root(os.path.join(relative, "below"))  # a relative target.
    self.assertTrue(os.path.isdir(os.path.join(self.victim, "below")))

  def test_a_link_loop_is_one_line(self):
    loop = os.path.join(self.shared, "loop")
    os.symlink(loop, loop)
    self.assert_refused(loop, f"'{loop}' goes through more than 40 symlinks")


if __name__ == "__main__":
  absltest.main()
