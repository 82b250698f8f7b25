"""A module one of whose methods does not compile: the per-method list is in
report.txt once per class, not in every passing test's entry, and no empty trace is written for
the method that is not in the module (real TF, real iree-compile: vmvx cannot lower erf)."""

import glob
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest

from tests.support.repo import ROOT

TEST_FILE = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class MixedModule(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return x + x

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)

@tf_test_utils.compile_module(MixedModule)
class MixedTest(tf_test_utils.TracedModuleTestCase):
  def test_a_double(self):
    self.compare_backends(lambda module: module.double(np.ones(4, np.float32)))

  def test_b_double_again(self):
    self.compare_backends(lambda module: module.double(np.zeros(4, np.float32)))

  def test_c_erf(self):
    self.compare_backends(lambda module: module.erf(np.ones(4, np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''


class PartialCompileReportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp(prefix="partial_compile_")
    path = os.path.join(cls.dir, "mixed_test.py")
    with open(path, "w") as f:
      f.write(TEST_FILE)
    artifacts = os.path.join(cls.dir, "artifacts")
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop("TEST_UNDECLARED_OUTPUTS_DIR", None)
    cls.run_result = subprocess.run(
        [sys.executable, path, "--target_backends=iree_vmla", f"--artifacts_dir={artifacts}",
         "--compile_cache=false"], capture_output=True, text=True, env=env, cwd=cls.dir,
        timeout=600)
    cls.module_dir = os.path.join(artifacts, "MixedModule")
    with open(os.path.join(cls.module_dir, "report.txt")) as f:
      cls.report = f.read()

  def test_the_per_method_list_is_in_report_txt_once(self):
    self.assertNotEqual(self.run_result.returncode, 0)  # test_c_erf fails.
    self.assertEqual(self.report.count("the whole module did not compile"), 1, self.report)
    self.assertIn("iree_vmla: COMPILE ERROR", self.report)
    # The failing test's own message still carries it.
    self.assertIn("the whole module did not compile", self.run_result.stderr)

  def test_no_empty_trace_for_the_method_that_did_not_compile(self):
    texts = glob.glob(os.path.join(self.module_dir, "traces", "*.txt"))
    self.assertNotEmpty(texts)
    for text in texts:
      with open(text) as f:
        self.assertNotIn(": 0 call(s)", f.read(), text)
    self.assertEmpty(glob.glob(os.path.join(self.module_dir, "traces", "erf__iree_vmla*")))


if __name__ == "__main__":
  absltest.main()
