"""Each test names its own function's first import cause (issue 30 item 8): functions made in a
loop with Python defaults past their input_signature (which IREE's SavedModel import cannot
take) failed the whole module on the first one's error, so the `ksize_3` test showed `ksize_2`'s;
a sibling with nothing wrong was not compared at all (real TF, real iree-compile on vmvx)."""

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
  def plain(self, x):
    return x + x

def _make(ksize):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def pool(self, x, ksize=ksize):
    return x[:ksize] * 2.
  return pool

for _k in (2, 3):
  setattr({name}Module, f"ksize_{{_k}}", _make(_k))
{drop}
@tf_test_utils.compile_module({name}Module)
class {name}Test(tf_test_utils.TracedModuleTestCase):
  def test_ksize_2(self):
    self.compare_backends(lambda module: module.ksize_2(np.ones(4, np.float32)))

  def test_ksize_3(self):
    self.compare_backends(lambda module: module.ksize_3(np.ones(4, np.float32)))
{plain_test}
if __name__ == "__main__":
  tf.test.main()
'''

PLAIN_TEST = '''
  def test_plain(self):
    self.compare_backends(lambda module: module.plain(np.ones(4, np.float32)))
'''


def _run(name: str, with_plain: bool):
  directory = tempfile.mkdtemp(prefix="own_import_cause_")
  path = os.path.join(directory, f"{name.lower()}_test.py")
  drop = "" if with_plain else f"del {name}Module.plain\n"
  with open(path, "w") as f:
    f.write(TEST_FILE.format(name=name, drop=drop, plain_test=PLAIN_TEST if with_plain else ""))
  artifacts = os.path.join(directory, "artifacts")
  result = run_test_file(path, "--target_backends=iree_vmla", f"--artifacts_dir={artifacts}",
                         "--compile_cache=false", cwd=directory)
  messages = {m.split(" ", 1)[0]: m for m in re.split(r"^FAIL: ", result.stderr, flags=re.M)[1:]}
  return result, messages


def _verdict(message: str) -> str:
  """The message from its first line of the report on (no traceback)."""
  return message[message.index("AssertionError: "):]


class NoFunctionImportsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.result, cls.messages = _run("NoneImport", with_plain=False)

  def test_each_test_names_its_own_function(self):
    self.assertEqual(sorted(self.messages), ["test_ksize_2", "test_ksize_3"], self.result.stderr)
    for own, other in (("ksize_2", "ksize_3"), ("ksize_3", "ksize_2")):
      verdict = _verdict(self.messages[f"test_{own}"])
      self.assertIn(f"method '{own}' did not import", verdict)
      self.assertIn(f"ksize={own[-1]}", verdict)
      # the other function's error is in the per-function list at most, not the test's own line.
      own_line = next(line for line in verdict.splitlines() if "did not import:" in line)
      self.assertNotIn(other, own_line)


class SomeFunctionsImportTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.result, cls.messages = _run("SomeImport", with_plain=True)

  def test_the_sibling_with_nothing_wrong_compares(self):
    self.assertEqual(sorted(self.messages), ["test_ksize_2", "test_ksize_3"], self.result.stderr)
    self.assertIn("Ran 3 tests", self.result.stderr)

  def test_each_failing_test_names_its_own_function(self):
    for own in ("ksize_2", "ksize_3"):
      verdict = _verdict(self.messages[f"test_{own}"])
      self.assertIn(f"method '{own}' did not import", verdict)
      self.assertIn(f"ksize={own[-1]}", verdict)


UNCONVERTED = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class UnconvertedModule(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def lengths(self, x):
    return tf.strings.length(tf.strings.as_string(x))

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def round_trip(self, x):
    return tf.strings.to_number(tf.strings.as_string(x))

@tf_test_utils.compile_module(UnconvertedModule)
class UnconvertedTest(tf_test_utils.TracedModuleTestCase):
  def test_lengths(self):
    self.compare_backends(lambda module: module.lengths(np.ones(4, np.float32)))

  def test_round_trip(self):
    self.compare_backends(lambda module: module.round_trip(np.ones(4, np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''


class NoFunctionLowersTest(absltest.TestCase):
  """TF's lowering leaves ops of its own in each function: each test names its function's."""

  def test_each_test_names_its_own_functions_ops(self):
    directory = tempfile.mkdtemp(prefix="own_import_cause_")
    path = os.path.join(directory, "unconverted_test.py")
    with open(path, "w") as f:
      f.write(UNCONVERTED)
    result = run_test_file(path, "--target_backends=iree_vmla",
                           f"--artifacts_dir={os.path.join(directory, 'artifacts')}",
                           "--compile_cache=false", cwd=directory)
    messages = {m.split(" ", 1)[0]: _verdict(m)
                for m in re.split(r"^FAIL: ", result.stderr, flags=re.M)[1:]}
    self.assertEqual(sorted(messages), ["test_lengths", "test_round_trip"], result.stderr)
    for test, own, other in (("test_lengths", "tf.StringLength", "tf.StringToNumber"),
                             ("test_round_trip", "tf.StringToNumber", "tf.StringLength")):
      own_line = messages[test].splitlines()[2]
      self.assertIn(own, own_line, messages[test])
      self.assertNotIn(other, own_line)


if __name__ == "__main__":
  absltest.main()
