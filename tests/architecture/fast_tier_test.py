"""The fast tier's import contract, checked by running it: tests/core, tests/comparing and
tests/reporting's files that need no TensorFlow run with none imported, every file of
tests/comparing among them (the comparing package imports no TensorFlow, so neither need its
tests), and a fast-tier file or test that imports TensorFlow where the rule cannot see it
fails."""

import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from tests.support import tiers
from tests.support.repo import ROOT

# Writes whether TensorFlow was imported by the end of the run (the plugin is given by -p).
_PROBE = textwrap.dedent("""
    import os, sys
    def pytest_sessionfinish(session):
      with open(os.environ["TIER_PROBE_OUT"], "w") as f:
        f.write(str("tensorflow" in sys.modules))
    """)


def run_pytest(cwd: str, *args: str) -> subprocess.CompletedProcess:
  env = dict(os.environ, PYTHONPATH=os.pathsep.join([cwd, ROOT]), TF_CPP_MIN_LOG_LEVEL="2")
  return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                        cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
                        check=False)


@unittest.skipIf("TEST_SRCDIR" in os.environ,
                 "the other test files and tests/conftest.py are not in a Bazel test's runfiles")
class FastTierTest(unittest.TestCase):

  def test_every_file_of_tests_comparing_is_in_the_fast_tier(self):
    directory = os.path.join(ROOT, "tests", "comparing")
    slow = [name for name in sorted(os.listdir(directory)) if name.endswith("_test.py")
            and tiers.SLOW in tiers.markers_of(os.path.join(directory, name))]
    self.assertEqual(slow, [])

  def test_the_fast_tier_of_core_comparing_and_reporting_runs_without_tensorflow(self):
    probe_dir = tempfile.mkdtemp()
    with open(os.path.join(probe_dir, "tier_probe.py"), "w") as f:
      f.write(_PROBE)
    out = os.path.join(probe_dir, "out.txt")
    os.environ["TIER_PROBE_OUT"] = out
    self.addCleanup(os.environ.pop, "TIER_PROBE_OUT", None)
    process = run_pytest(probe_dir, "-p", "tier_probe", "--tier=fast",
                         *(os.path.join(ROOT, "tests", d) for d in ("core", "comparing",
                                                                    "reporting")))
    self.assertEqual(process.returncode, 0, process.stdout[-3000:])
    self.assertRegex(process.stdout, r"\b\d{2,} passed\b")
    with open(out) as f:
      self.assertEqual(f.read(), "False")

  def test_a_fast_test_that_imports_tensorflow_unseen_fails_naming_itself(self):
    directory = tempfile.mkdtemp()
    with open(os.path.join(directory, "hidden_import_test.py"), "w") as f:
      f.write("def test_hidden():\n  import tensorflow\n\ndef test_clean():\n  pass\n")
    process = run_pytest(directory, "-p", "tests.conftest", "--tier=fast", ".")
    self.assertEqual(process.returncode, 1, process.stdout[-3000:])
    self.assertIn("hidden_import_test.py::test_hidden imported TensorFlow, which the tier rule",
                  process.stdout)
    self.assertIn("1 failed, 1 passed", process.stdout)

  def test_a_fast_file_whose_import_imports_tensorflow_unseen_is_a_collection_error(self):
    directory = tempfile.mkdtemp()
    with open(os.path.join(directory, "hidden_helper.py"), "w") as f:
      f.write("import tensorflow\n")  # Not a module of this repo: the rule does not follow it.
    with open(os.path.join(directory, "hidden_helper_test.py"), "w") as f:
      f.write("import hidden_helper\n\ndef test_a():\n  pass\n")
    process = run_pytest(directory, "-p", "tests.conftest", "--tier=fast", ".")
    self.assertEqual(process.returncode, 2, process.stdout[-3000:])
    self.assertIn("hidden_helper_test.py imported TensorFlow, which the tier rule", process.stdout)


if __name__ == "__main__":
  unittest.main()
