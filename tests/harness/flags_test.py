"""Command-line behaviour of a test file: bad flags are one clear line and a non-zero exit."""

import os
import subprocess
import sys
import tempfile

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized

from pyiree_tf_support import cli_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import timeouts
from tests.support import test_files
from tests.support.repo import ROOT

E2E_FILE = os.path.join(ROOT, "e2e", "simple_stateful_test.py")


def run_e2e(*args, env=None):
  return test_files.run_test_file(E2E_FILE, *args, env=env)


class BadFlagsTest(absltest.TestCase):

  def test_unknown_target_backend_exits_with_one_line_listing_valid_names(self):
    process = run_e2e("--target_backends=tf,iree_bogus")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1)
    self.assertIn("Unknown backend 'iree_bogus'; valid backends are: tf, iree_vmvx, iree_llvmcpu, "
                  "iree_vulkan, tflite, iree_vmla, iree_llvmjit.", errors[0])

  def test_empty_target_backends_is_a_one_line_flag_error(self):
    process = run_e2e("--target_backends=")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1)
    self.assertIn("--target_backends='' names an empty backend", errors[0])

  def test_a_tolerance_for_an_unknown_backend_is_a_one_line_flag_error(self):
    process = run_e2e("--target_backends=iree_vmla", "--tolerances=iree_bogus:float32:1e-5:1e-5")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1, process.stderr[-2000:])
    self.assertIn("--tolerances names an unknown backend 'iree_bogus'; valid backends are: tf, "
                  "iree_vmvx", errors[0])

  def test_unknown_reference_backend_is_rejected_too(self):
    process = run_e2e("--reference_backend=torch")
    self.assertNotEqual(process.returncode, 0)
    self.assertIn("Unknown backend 'torch'", process.stderr)

  def test_without_a_vulkan_device_vulkan_is_a_clear_skip(self):
    process = run_e2e("--target_backends=iree_vulkan", f"--artifacts_dir={tempfile.mkdtemp()}",
                      env={"VK_ICD_FILENAMES": "/nonexistent/icd.json"})
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertIn("No target backend can run here: iree_vulkan: no Vulkan device", process.stderr)
    self.assertIn("OK (skipped=1)", process.stderr)

  def test_the_file_runs_on_the_backends_named(self):
    artifacts_dir = tempfile.mkdtemp()
    process = run_e2e("--target_backends=iree_vmla", f"--artifacts_dir={artifacts_dir}")
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertTrue(
        os.path.exists(os.path.join(artifacts_dir, "Stateful", "compiled__iree_vmla.vmfb")))



DURATION_FLAGS = ("compile_timeout", "load_timeout", "call_timeout", "examples_timeout")


class DurationFlagsTest(parameterized.TestCase):
  """Guarantee: every duration flag is a finite number of seconds >= 0 (0: no limit); NaN,
  infinity or a negative number is one flag error naming the flag and what is valid, never a
  COMPILE / RUNTIME ERROR with a bogus reproducer nor a silent "no limit"."""

  @parameterized.product(name=DURATION_FLAGS, value=("nan", "inf", "-inf", "-1"))
  def test_a_value_that_is_no_duration_is_a_flag_error(self, name, value):
    with flagsaver.flagsaver(), self.assertRaises(flags.IllegalFlagValueError) as raised:
      cli_flags.FLAGS(["prog", f"--{name}={value}"])
    message = str(raised.exception)
    self.assertLen(message.splitlines(), 1, message)
    self.assertRegex(message, f"^flag --{name}=[^:]*: not a finite number of seconds >= 0 "
                     r"\(0: no limit\)\.$")

  @parameterized.product(name=DURATION_FLAGS, value=("0", "0.5", "600"))
  def test_finite_values_and_0_are_accepted(self, name, value):
    with flagsaver.flagsaver():
      cli_flags.FLAGS(["prog", f"--{name}={value}"])
      self.assertEqual(cli_flags.FLAGS[name].value, float(value))

  @parameterized.parameters(float("nan"), float("inf"), -1.0)
  def test_a_limit_set_from_python_is_checked_too(self, seconds):
    with self.assertRaisesRegex(faults.InvalidSettingError, "finite number of seconds >= 0"):
      timeouts.fixed(seconds)
    with self.assertRaisesRegex(faults.InvalidSettingError, "--call_timeout="):
      timeouts.from_flags(call_seconds=seconds)

  def test_from_the_environment_under_pytest_it_is_one_line(self):
    process = subprocess.run(
        [sys.executable, "-c",
         "from pyiree_tf_support import cli_flags; cli_flags.ensure_parsed()"],
        capture_output=True, text=True, timeout=120, check=False,
        env=dict(os.environ, **{cli_flags.ENV_VAR: "--examples_timeout=nan"}))
    self.assertNotEqual(process.returncode, 0)
    self.assertIn("FlagsError: $PYIREE_TF_SUPPORT_FLAGS: flag --examples_timeout=nan: ",
                  process.stderr)

  def test_a_test_file_run_by_hand_exits_with_one_line(self):
    process = run_e2e("--target_backends=iree_vmla", "--compile_timeout=nan",
                      f"--artifacts_dir={tempfile.mkdtemp()}")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1, process.stderr[-2000:])
    self.assertIn("--compile_timeout=nan", errors[0])
    self.assertNotIn("COMPILE ERROR", process.stderr)

  @parameterized.parameters("replay", "localize", "bundle")
  def test_the_replay_localize_and_bundle_commands_exit_with_one_line(self, command):
    process = subprocess.run(
        [sys.executable, "-m", f"pyiree_tf_support.{command}", tempfile.mkdtemp(),
         "--call_timeout=inf"], capture_output=True, text=True, timeout=120, check=False)
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "--call_timeout=inf" in line]
    self.assertLen(errors, 1, process.stderr[-2000:])
    self.assertIn("a finite number of seconds >= 0", errors[0])

if __name__ == "__main__":
  absltest.main()
