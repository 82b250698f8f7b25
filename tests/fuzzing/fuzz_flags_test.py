"""The fuzzer's command line as a user meets it: a float flag that is NaN is one line and exit 2
(it ran no module, or set every mismatch aside, and exited 0), and an --out that another user
could point at a directory of ours (their symlink, or inside their directory) is refused with
one line before anything is written, for a campaign and for merge."""

import os
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from tests.fuzzing.campaigns import fuzz
from tests.support.second_user import as_nobody
from tests.support.second_user import needs_second_user
from tests.support.second_user import NOBODY

# Zero minutes: a campaign that starts runs no module, and writes its state at once.
EMPTY_CAMPAIGN = ("--target_backends=iree_vmla", "--minutes=0", "--nocompile_cache")


def assert_one_line(test: absltest.TestCase, done, expected: str) -> None:
  test.assertEqual(done.returncode, 2, done.stdout + done.stderr[-3000:])
  test.assertEqual(done.stderr.strip().splitlines(), [expected])


class FloatFlagsTest(parameterized.TestCase):

  @parameterized.parameters(
      ("--minutes=nan", "not a finite number; valid: a non-negative number."),
      ("--fuzz_rtol=nan", "not a finite number; valid: a non-negative number."),
      ("--fuzz_atol=inf", "not a finite number; valid: a non-negative number."),
      ("--special_values=nan", "not a finite number; valid: a number in the range [0.0, 1.0]."),
      ("--stateful=nan", "not a finite number; valid: a number in the range [0.0, 1.0]."))
  def test_a_float_flag_that_is_nan_is_one_line_and_nothing_is_written(self, argument, why):
    out = os.path.join(tempfile.mkdtemp(), "campaign")
    done = fuzz("--target_backends=iree_vmla", "--max_modules=1", f"--out={out}", argument)
    assert_one_line(self, done, f"fuzz: flag {argument}: {why}")
    self.assertFalse(os.path.lexists(out))


class OutputRootTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.shared = tempfile.mkdtemp()  # a shared temp dir, as /tmp is.
    os.chmod(self.shared, 0o1777)
    self.victim = tempfile.mkdtemp()
    with open(os.path.join(self.victim, "notes.txt"), "w") as f:
      f.write("mine")

  def run_fuzz(self, command: str, out: str):
    if command == "merge":
      return fuzz("merge", f"--out={out}", tempfile.mkdtemp())
    return fuzz(f"--out={out}", *EMPTY_CAMPAIGN)

  @needs_second_user
  @parameterized.parameters("campaign", "merge")
  def test_an_out_that_is_another_users_link_is_refused(self, command):
    out = os.path.join(self.shared, "campaign")
    as_nobody("ln", "-s", self.victim, out)
    assert_one_line(self, self.run_fuzz(command, out),
                    f"fuzz: The campaign dir '{out}' is a symlink of user 'nobody' (uid {NOBODY}), "
                    "not yours; refusing to follow it (remove it or choose another directory).")
    self.assertEqual(os.listdir(self.victim), ["notes.txt"])

  @needs_second_user
  @parameterized.parameters("campaign", "merge")
  def test_an_out_inside_another_users_dir_is_refused(self, command):
    theirs = os.path.join(self.shared, "theirs")
    as_nobody("mkdir", theirs)
    out = os.path.join(theirs, "campaign")
    done = self.run_fuzz(command, out)
    assert_one_line(self, done, f"fuzz: The campaign dir '{out}' is inside '{theirs}', which "
                    f"belongs to user 'nobody' (uid {NOBODY}): they could replace it by a link to "
                    "a directory of yours; refusing it (choose a directory of your own).")
    self.assertEqual(os.listdir(theirs), [])

  def test_an_out_of_ours_in_a_shared_sticky_dir_runs(self):
    out = os.path.join(self.shared, "campaign")
    done = self.run_fuzz("campaign", out)
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    self.assertTrue(os.path.isfile(os.path.join(out, "findings.json")))


if __name__ == "__main__":
  absltest.main()
