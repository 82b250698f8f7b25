"""A class-level block in failure messages once per class (issue 30 item 5): a module that does
not compile at all, or only in part, fails several tests; the first failing test's message holds
the per-method list (with the whole module's error when the fallback did not run), each later one
its own method's line and a line pointing at it, and report.txt holds them once (real TF, real
iree-compile: vmvx cannot lower erf)."""

import os
import re
import tempfile

from absl.testing import absltest

from tests.support.test_files import run_test_file

TEST_FILE = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class {name}Module(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf2(self, x):
    return tf.math.erf(x) + 1.
{extra}
@tf_test_utils.compile_module({name}Module)
class {name}Test(tf_test_utils.TracedModuleTestCase):
  def test_a(self):
    self.compare_backends(lambda module: module.erf(np.ones(4, np.float32)))

  def test_b(self):
    self.compare_backends(lambda module: module.erf2(np.ones(4, np.float32)))

  def test_c(self):
    self.compare_backends(lambda module: module.erf(np.zeros(4, np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''

DOUBLE = '''
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return x + x
'''


def _run(name: str, extra: str):
  directory = tempfile.mkdtemp(prefix="class_message_")
  path = os.path.join(directory, f"{name.lower()}_test.py")
  with open(path, "w") as f:
    f.write(TEST_FILE.format(name=name, extra=extra))
  artifacts = os.path.join(directory, "artifacts")
  result = run_test_file(path, "--target_backends=iree_vmla", f"--artifacts_dir={artifacts}",
                         "--compile_cache=false", cwd=directory)
  with open(os.path.join(artifacts, f"{name}Module", "report.txt")) as f:
    report = f.read()
  # absltest prints each failure's message between its "FAIL:" header and the next one.
  messages = re.split(r"^FAIL: ", result.stderr, flags=re.M)[1:]
  return result, report, messages


class NothingCompilesTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.result, cls.report, cls.messages = _run("NoneCompile", "")

  def test_three_failures(self):
    self.assertNotEqual(self.result.returncode, 0)
    self.assertLen(self.messages, 3, self.result.stderr)

  def test_the_first_message_holds_the_block(self):
    first = self.messages[0]
    self.assertIn("the whole module did not compile", first)
    self.assertIn("failed to legalize operation", first)

  def test_later_messages_point_at_it_in_one_line(self):
    # Each names its own method's cause in one line (tests/harness/own_compile_cause_test.py).
    for message, method in zip(self.messages[1:], ("erf2", "erf")):
      self.assertNotIn("compiled alone", message)
      self.assertIn(f"call 0 ({method}): method '{method}' did not compile for iree_vmla: ",
                    message)
      lines = [line for line in message.splitlines() if "test_a's failure message" in line]
      self.assertEqual(lines, ["iree_vmla: the whole module did not compile: the per-method list "
                               "is in test_a's failure message above and in report.txt"])

  def test_report_txt_holds_it_once(self):
    self.assertEqual(self.report.count("the whole module did not compile"), 1, self.report)


class SomeCompileTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.result, cls.report, cls.messages = _run("SomeCompile", DOUBLE)

  def test_the_per_method_list_once_in_messages(self):
    self.assertLen(self.messages, 3, self.result.stderr)
    self.assertIn("the whole module did not compile", self.messages[0])
    self.assertIn("double: compiles", self.messages[0])
    for message in self.messages[1:]:
      self.assertNotIn("compiled alone", message)
      self.assertNotIn("double: compiles", message)
      lines = [line for line in message.splitlines() if "test_a's failure message" in line]
      self.assertEqual(lines, ["iree_vmla: the whole module did not compile: the per-method list "
                               "is in test_a's failure message above and in report.txt"])

  def test_each_message_names_its_own_method(self):
    self.assertIn("method 'erf2' did not compile", self.messages[1])

  def test_report_txt_holds_it_once(self):
    self.assertEqual(self.report.count("the whole module did not compile"), 1, self.report)


if __name__ == "__main__":
  absltest.main()
