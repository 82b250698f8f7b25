"""Progress lines: a step slower than the threshold says so while it runs and when it ends; a
quicker one prints nothing."""

import time

from absl.testing import absltest

from pyiree_tf_support.core import progress


class ProgressTest(absltest.TestCase):

  def test_a_slow_step_says_it_is_running_and_when_it_ended(self):
    lines = []
    with progress.Progress(write=lines.append, after=0.2, every=0.3).step("M: compiling for x"):
      time.sleep(0.65)
    self.assertLen(lines, 3, lines)
    self.assertRegex(lines[0], r"^pyiree_tf_support: M: compiling for x: still running after 0 s$")
    self.assertRegex(lines[-1], r"^pyiree_tf_support: M: compiling for x: done in 0\.[67] s$")

  def test_a_quick_step_is_quiet(self):
    lines = []
    with progress.Progress(write=lines.append, after=0.5).step("quick"):
      time.sleep(0.05)
    self.assertEqual(lines, [])

  def test_a_step_that_raises_still_stops_its_watcher(self):
    lines = []
    with self.assertRaises(ValueError):
      with progress.Progress(write=lines.append, after=0.1).step("failing"):
        time.sleep(0.25)
        raise ValueError("boom")
    time.sleep(0.2)
    self.assertLen(lines, 2, lines)
    self.assertIn("failing: done in", lines[-1])


if __name__ == "__main__":
  absltest.main()
