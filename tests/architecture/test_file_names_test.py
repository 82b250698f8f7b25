"""Every test file under tests/ has a basename of its own: pytest collects tests/ without
packages (rootdir-relative basenames), so a second `interrupts_test.py` in another folder stops
the whole tier at collection ("import file mismatch") - it did once, in the slow tier only."""

import collections
import os
import unittest

from tests.support.repo import ROOT


class TestFileNamesTest(unittest.TestCase):

  def test_no_two_test_files_share_a_basename(self):
    found = collections.defaultdict(list)
    for directory, _, files in os.walk(os.path.join(ROOT, "tests")):
      for name in files:
        if name.endswith("_test.py"):
          found[name].append(os.path.relpath(os.path.join(directory, name), ROOT))
    shared = {name: paths for name, paths in found.items() if len(paths) > 1}
    self.assertEqual(shared, {}, "rename one of each: pytest cannot collect both")


if __name__ == "__main__":
  unittest.main()
