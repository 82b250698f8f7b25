"""Each test names its own method's first compile cause when no method of the module compiles
(the compile counterpart of issue 30 item 8): the per-method fallback compiles each method alone,
yet every test showed the whole module's error, which is the first method's, so the `top_k` test
named `erf`'s custom call. Real TF and iree-compile on llvm-cpu: both ops have no lowering in
IREE 3.13 (`mhlo.erf`, `mhlo.topk` custom calls), on every target."""

import os
import re
import tempfile

from absl.testing import absltest

from tests.support.test_files import run_test_file

TEST_FILE = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class NoneCompilesModule(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def top_k(self, x):
    return tf.math.top_k(x, k=2).values

@tf_test_utils.compile_module(NoneCompilesModule)
class NoneCompilesTest(tf_test_utils.TracedModuleTestCase):
  def test_erf(self):
    self.compare_backends(lambda module: module.erf(np.arange(4, dtype=np.float32)))

  def test_top_k(self):
    self.compare_backends(lambda module: module.top_k(np.arange(4, dtype=np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''

OWN_ERROR = {"erf": "mhlo.erf", "top_k": "mhlo.topk"}


class NoMethodCompilesTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    directory = tempfile.mkdtemp(prefix="own_compile_cause_")
    path = os.path.join(directory, "none_compiles_test.py")
    with open(path, "w") as f:
      f.write(TEST_FILE)
    cls.artifacts = os.path.join(directory, "artifacts")
    cls.result = run_test_file(path, "--target_backends=iree_llvmjit",
                               f"--artifacts_dir={cls.artifacts}", "--compile_cache=false",
                               cwd=directory)
    cls.messages = {m.split(" ", 1)[0]: m
                    for m in re.split(r"^FAIL: ", cls.result.stderr, flags=re.M)[1:]}

  def test_each_test_names_its_own_methods_first_cause(self):
    self.assertEqual(sorted(self.messages), ["test_erf", "test_top_k"], self.result.stderr)
    for own, other in (("erf", "top_k"), ("top_k", "erf")):
      verdict = self.messages[f"test_{own}"]
      status = next(line for line in verdict.splitlines() if line.startswith("iree_llvmjit: "))
      self.assertEqual(status, "iree_llvmjit: COMPILE ERROR", verdict)
      own_line = next((line for line in verdict.splitlines()
                       if f"method '{own}' did not compile" in line), None)
      self.assertIsNotNone(own_line, verdict)
      self.assertIn(OWN_ERROR[own], own_line)
      self.assertNotIn(OWN_ERROR[other], own_line)

  def test_report_txt_names_each_tests_own_method(self):
    with open(os.path.join(self.artifacts, "NoneCompilesModule", "report.txt")) as f:
      report = f.read()
    entries = {e.split("\n", 1)[0]: e for e in re.split(r"^== ", report, flags=re.M)[1:]}
    for own in ("erf", "top_k"):
      entry = next(text for test, text in entries.items() if test.endswith(f".test_{own}"))
      self.assertIn(f"call 0 ({own}): method '{own}' did not compile for iree_llvmjit", entry)


if __name__ == "__main__":
  absltest.main()
