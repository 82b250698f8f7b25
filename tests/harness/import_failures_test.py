"""A whole-module import failure of a user's own test file, on two IREE backends:
reported once, TF's first cause on the first line, the IR in named files, and what the
import produced kept with a TF-only repro of the user's file (no mocks: TF's real lowering fails
on a TensorArray of input-dependent size and unknown element shape)."""

import json
import os
import re
import subprocess
import sys
import tempfile

from absl.testing import absltest

from tests.support.repo import ROOT

CAUSE = "'tf.TensorListReserve' op unknown tensor list element shape"

TEST_FILE = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class GrowingRowsModule(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
  def prefixes(self, x):
    n = tf.shape(x)[0]
    rows = tf.TensorArray(tf.float32, size=n)
    for i in tf.range(n):
      rows = rows.write(i, x[:i + 1])
    return rows.concat()

@tf_test_utils.compile_module(GrowingRowsModule)
class GrowingRowsTest(tf_test_utils.TracedModuleTestCase):
  def test_prefixes(self):
    self.compare_backends(lambda module: module.prefixes(np.arange(3, dtype=np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''


def environment():
  env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
  env.pop("TEST_UNDECLARED_OUTPUTS_DIR", None)
  return env


class WholeModuleImportFailureTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp(prefix="import_failures_")
    path = os.path.join(cls.dir, "growing_rows_test.py")
    with open(path, "w") as f:
      f.write(TEST_FILE)
    cls.artifacts = os.path.join(cls.dir, "artifacts")
    cls.run_result = subprocess.run(
        [sys.executable, path, "--target_backends=iree_vmla,iree_llvmjit",
         f"--artifacts_dir={cls.artifacts}", "--keep_saved_model"],
        capture_output=True, text=True, env=environment(), cwd=cls.dir, timeout=300)
    cls.module_dir = os.path.join(cls.artifacts, "GrowingRowsModule")
    with open(os.path.join(cls.module_dir, "report.txt")) as f:
      cls.report = f.read()
    with open(os.path.join(cls.module_dir, "report.json")) as f:
      cls.records = json.load(f)["tests"]["__main__.GrowingRowsTest.test_prefixes"]["traces"][0]

  def test_the_report_is_short_and_says_the_shared_import_failed_once(self):
    self.assertNotEqual(self.run_result.returncode, 0)
    self.assertLess(len(self.report.splitlines()), 40, self.report)
    self.assertEqual(self.report.count("did not import:"), 1, self.report)
    self.assertIn("iree_vmla: IMPORT ERROR", self.report)
    self.assertIn("iree_llvmjit: IMPORT ERROR\n  the same import as iree_vmla", self.report)
    self.assertNotIn('"mhlo.return"', self.report)  # the IR TF quotes is in a file, not the log.
    self.assertIn(CAUSE, self.run_result.stderr)
    self.assertNotIn('"mhlo.return"', self.run_result.stderr)

  def test_the_first_error_line_is_the_first_cause(self):
    for record in self.records["backends"]:
      self.assertEqual(record["phase"], "import")
      self.assertIn(CAUSE, record["first_error"])
    lines = self.report.splitlines()
    detail_line = lines[lines.index("iree_vmla: IMPORT ERROR") + 1]
    self.assertIn(CAUSE, detail_line)

  def named(self, what: str) -> str:
    match = re.search(re.escape(what) + r"[^\n]*: (/\S+)$", self.report, re.M)
    self.assertIsNotNone(match, f"no line naming {what!r} in:\n{self.report}")
    self.assertTrue(match.group(1).startswith(self.module_dir), match.group(1))
    return match.group(1)

  def test_tf_s_whole_message_with_its_ir_is_in_a_named_file(self):
    with open(self.named("TensorFlow's whole message")) as f:
      text = f.read()
    self.assertIn('"mhlo.return"', text)
    self.assertIn(CAUSE, text)

  def test_the_lowering_s_input_is_kept_as_tf_input_mlir(self):
    path = self.named("the lowering's input")
    self.assertEqual(os.path.basename(path), "tf_input.mlir")
    with open(path) as f:
      self.assertIn('"tf.TensorListReserve"', f.read())

  def test_keep_saved_model_keeps_the_saved_model_that_failed(self):
    path = self.named("the SavedModel")
    self.assertTrue(os.path.isfile(os.path.join(path, "saved_model.pb")), path)

  def test_the_named_repro_fails_with_tensorflow_alone(self):
    match = re.search(r"reproduce the import with TensorFlow alone: (.+)$", self.report, re.M)
    self.assertIsNotNone(match, self.report)
    python, script = match.group(1).split()
    self.assertEqual(script, os.path.join(self.module_dir, "repro", "import", "repro.py"))
    with open(script) as f:
      text = f.read()
    self.assertNotRegex(text, r"(import|from) pyiree_tf_support")  # TensorFlow alone.
    self.assertNotIn("GrowingRowsTest", text)
    env = environment()
    env.pop("PYTHONPATH")
    result = subprocess.run([python, script], capture_output=True, text=True, env=env,
                            cwd=tempfile.mkdtemp(prefix="import_repro_"), timeout=300)
    self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
    self.assertTrue(result.stdout.startswith("error: "), result.stdout)


TWO_FUNCTIONS = TEST_FILE.replace("""    return rows.concat()
""", """    return rows.concat()

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return x * 2.0
""").replace("module.prefixes(", "[module.double(np.ones(4, np.float32)), module.prefixes("
              ).replace("np.float32)))", "np.float32))])")


class OneFunctionImportFailureTest(absltest.TestCase):
  """The module imports without the function that fails: that function's error is as short."""

  def test_the_call_s_error_is_the_first_cause_without_ir(self):
    directory = tempfile.mkdtemp(prefix="import_failures_")
    path = os.path.join(directory, "two_functions_test.py")
    with open(path, "w") as f:
      f.write(TWO_FUNCTIONS)
    result = subprocess.run(
        [sys.executable, path, "--target_backends=iree_vmla,iree_llvmjit",
         f"--artifacts_dir={directory}"],
        capture_output=True, text=True, env=environment(), cwd=directory, timeout=300)
    with open(os.path.join(directory, "GrowingRowsModule", "report.txt")) as f:
      report = f.read()
    self.assertNotEqual(result.returncode, 0)
    self.assertLess(len(report.splitlines()), 40, report)
    self.assertNotIn('"mhlo.return"', report)
    self.assertRegex(report, r"call 1 \(prefixes\): method 'prefixes' did not import: "
                     r"ModuleImportFailure: Function 'prefixes' of module 'GrowingRowsModule' "
                     r"did not import: UnknownError: " + re.escape(CAUSE))


if __name__ == "__main__":
  absltest.main()
