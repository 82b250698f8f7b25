"""Command-line behaviour of a test file: bad flags are one clear line and a non-zero exit."""

import os
import subprocess
import sys
import tempfile

from absl.testing import absltest

E2E_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "e2e",
    "simple_stateful_test.py")


def run_e2e(*args, env=None):
  environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", **(env or {}))
  return subprocess.run([sys.executable, E2E_FILE, *args], capture_output=True, text=True,
                        env=environment, timeout=300, check=False)


class BadFlagsTest(absltest.TestCase):

  def test_unknown_target_backend_exits_with_one_line_listing_valid_names(self):
    process = run_e2e("--target_backends=tf,iree_bogus")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1)
    self.assertIn("Unknown backend 'iree_bogus'; valid backends are: tf, iree_vmvx, iree_llvmcpu, "
                  "iree_vulkan, iree_vmla, iree_llvmjit.", errors[0])

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


if __name__ == "__main__":
  absltest.main()
