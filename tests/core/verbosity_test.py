"""Quiet by default, everything with --verbose.

A passing e2e file prints a handful of lines; TensorFlow's and IREE's notices come back with
--verbose (or absl's -v 1); a TF_CPP_MIN_LOG_LEVEL the user set is kept. Real TensorFlow and IREE,
run as a user would, in fresh interpreters.
"""

import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core import verbosity
from tests.support.repo import ROOT

E2E_FILE = os.path.join(ROOT, "e2e", "simple_arithmetic_test.py")
# Lines that only TensorFlow's or IREE's noise prints.
NOISE = ("oneDNN custom operations", "reader.cc", "Sharding callback", "Assets written",
         "Invoke IREE Tool", "time(")


def run_python(args, **env):
  environment = {k: v for k, v in os.environ.items()
                 if k not in ("TF_CPP_MIN_LOG_LEVEL", verbosity.FLAGS_ENV)}
  environment.update(PYTHONPATH=ROOT, TMPDIR=tempfile.mkdtemp(), **env)
  return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=environment,
                        cwd=ROOT, timeout=600, check=False)


def lines(result) -> list:
  return (result.stdout + result.stderr).splitlines()


class VerboseInArgsTest(parameterized.TestCase):

  @parameterized.parameters(
      ([], False),
      (["--verbose"], True),
      (["--noverbose"], False),
      (["--verbose", "--noverbose"], False),
      (["--verbose=true"], True),
      (["--verbose=false"], False),
      (["-v", "1"], True),
      (["-v=1"], True),
      (["--verbosity=2"], True),
      (["--verbosity", "0"], False),
      (["-v", "-1"], False),
      (["--", "--verbose"], False),
      (["--target_backends=iree_vmla"], False),
  )
  def test_command_line(self, args, verbose):
    self.assertEqual(verbosity.verbose_in_args(args), verbose)

  def test_pytest_flags_variable_counts(self):
    self.assertTrue(verbosity.verbose_requested(
        ["pytest"], {verbosity.FLAGS_ENV: "--target_backends=iree_vmla --verbose"}))


class TensorflowImportTest(absltest.TestCase):
  """Importing the library before TensorFlow decides TensorFlow's C++ logging."""

  CODE = ("import os, sys\n"
          "from pyiree_tf_support import tf_test_utils\n"
          "print('level', os.environ.get('TF_CPP_MIN_LOG_LEVEL'))\n")

  def test_quiet_import_prints_nothing_and_sets_the_level(self):
    result = run_python(["-c", self.CODE])
    self.assertEqual(lines(result), ["level 2"], result.stderr)

  def test_verbose_import_keeps_tensorflow_notices(self):
    result = run_python(["-c", self.CODE, "--verbose"])
    self.assertIn("level None", result.stdout)
    self.assertIn("oneDNN custom operations", result.stderr)

  def test_a_level_the_user_set_is_kept(self):
    result = run_python(["-c", self.CODE], TF_CPP_MIN_LOG_LEVEL="0")
    self.assertIn("level 0", result.stdout)


class PassingE2eFileTest(absltest.TestCase):
  """The issue's measure: a passing e2e file prints <= 15 lines; --verbose brings the noise back."""

  ARGS = [E2E_FILE, "--target_backends=iree_vmla,iree_llvmjit", "--nocompile_cache"]

  def test_quiet_by_default(self):
    result = run_python(self.ARGS)
    self.assertEqual(result.returncode, 0, result.stderr)
    printed = lines(result)
    self.assertLessEqual(len(printed), 15, "\n".join(printed))
    self.assertEqual([line for line in printed if any(n in line for n in NOISE)], [])

  def test_verbose_shows_tensorflow_and_iree_logs(self):
    result = run_python(self.ARGS + ["--verbose"])
    self.assertEqual(result.returncode, 0, result.stderr)
    text = result.stdout + result.stderr
    for noise in NOISE:
      self.assertIn(noise, text)
    self.assertIn("Compiled SimpleArithmeticModule", text)  # the library's details too.


if __name__ == "__main__":
  absltest.main()
