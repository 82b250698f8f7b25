"""The tier rule (tests/support/tiers.py) on planted test files: each reason for the slow tier is
seen where it is written and where it is reached, and what runs only if called is not."""

import os
import shutil
import tempfile
import textwrap
import unittest

from tests.support import tiers
from tests.support.repo import ROOT

SLOW_TF, SLOW_PROCESS = ["slow", "tensorflow"], ["slow", "subprocess"]
SLOW_BAZEL = ["bazel", "slow"]
# (why, a test file's source, its markers).
CASES = (
    ("a numpy-only module of the package", "from pyiree_tf_support.comparing import traces", []),
    ("TensorFlow itself", "import tensorflow as tf", SLOW_TF),
    ("the public API", "from pyiree_tf_support import tf_test_utils", SLOW_TF),
    ("a name of the public API", "from pyiree_tf_support.tf_test_utils import Trace", SLOW_TF),
    ("at import time in a try", "try:\n  import tf_keras\nexcept ImportError:\n  pass", SLOW_TF),
    ("at import time in a class", "class A:\n  import tensorflow", SLOW_TF),
    ("only if a function is called", "def f():\n  import tensorflow", []),
    ("a process module", "import subprocess", SLOW_PROCESS),
    ("a process call", "import os\n\ndef f():\n  os.system('true')", SLOW_PROCESS),
    ("a child Python", "import sys\nPYTHON = sys.executable", SLOW_PROCESS),
    ("a test helper starting processes", "from tests.support import test_files", SLOW_PROCESS),
    # The package's own processes (compiles, runtime workers) are what it tests in-process.
    ("the package's workers", "from pyiree_tf_support.runtime import worker_client", []),
    ("a bazel command line", "COMMAND = ['bazel', 'test', '//e2e:all']", SLOW_BAZEL),
    ("a module writing one", "from pyiree_tf_support.tools import bazel_session", SLOW_BAZEL),
    ("a path through bazel/", "PATH = ('build_tools', 'bazel')", []),
    ("an explicit mark", "import pytest\npytestmark = pytest.mark.tensorflow", SLOW_TF),
    ("marks in a list", "import pytest\npytestmark = [pytest.mark.bazel, pytest.mark.skip]",
     SLOW_BAZEL),
)


class TierRuleTest(unittest.TestCase):

  def test_each_planted_file_gets_its_markers(self):
    directory = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, directory, ignore_errors=True)
    for number, (why, source, markers) in enumerate(CASES):
      with self.subTest(why):
        path = os.path.join(directory, f"planted_{number}_test.py")
        with open(path, "w") as f:
          f.write(textwrap.dedent(source) + "\n")
        self.assertEqual(sorted(tiers.markers_of(path)), markers)

  def test_a_public_module_is_followed_to_its_imports(self):
    self.assertIn("tensorflow", tiers.markers_of(os.path.join(
        ROOT, "pyiree_tf_support", "tf_test_driver.py")))


if __name__ == "__main__":
  unittest.main()
