"""Each message names what the user did and what is valid, on real TF + IREE."""

import io
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.importing import importer

X = np.ones([4], np.float32)


class TopK(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def top(self, x):
    return tf.math.top_k(x, 2)


class Mul(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def mul(self, x):
    return x * x

  @tf.function
  def no_signature(self, x):
    return x


class BrokenInit(tf.Module):

  def __init__(self):
    super().__init__()
    self.ratio = 1 / 0


def run(module_class, trace_function, exported_names=()) -> unittest.TestResult:

  @tf_test_utils.compile_module(module_class, exported_names=exported_names)
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  cli_flags.ensure_parsed()
  with flagsaver.flagsaver(artifacts_dir=tempfile.mkdtemp(), target_backends="iree_vmvx"):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def only_message(result: unittest.TestResult) -> str:
  problems = result.failures + result.errors
  assert len(problems) == 1, problems
  return problems[0][1]


class MessagesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("namedtuple_result_says_so_not_input_signature", TopK, lambda m: m.top(X),
       "Function 'top' of module 'TopK' returns a namedtuple (TopKV2), which TensorFlow's "
       "SavedModel importer cannot export to MLIR; return a tuple or a dict instead",
       "input_signature"),
      ("unknown_first_method_is_before_the_first_call", Mul, lambda m: m.mull(X),
       "the trace function, before its first call, raised AttributeError: Module 'Mul' on "
       "backend 'tf_ref' has no exported function 'mull'; the methods that can be called are: mul.",
       "call -1"),
      ("method_without_input_signature_says_why", Mul, lambda m: m.no_signature(X),
       "has no exported function 'no_signature': 'no_signature' is a tf.function without an "
       "input_signature, so it cannot be exported (use @tf.function(input_signature=[...])); "
       "the methods that can be called are: mul.", None),
  )
  def test_trace_message(self, module_class, trace_function, expected, absent):
    message = only_message(run(module_class, trace_function))
    self.assertIn(expected, message)
    if absent:
      self.assertNotIn(absent, message)

  def test_a_str_of_exported_names_is_one_name(self):
    result = run(Mul, lambda m: m.mul(X), exported_names="mul")
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertEqual(importer.normalize_exported_names("mul"), ("mul",))

  def test_exported_names_that_are_not_str_are_refused(self):
    with self.assertRaisesRegex(TypeError, r"exported_names must be method names \(str\), got 3"):
      importer.normalize_exported_names(["mul", 3])

  def test_exception_in_module_init_keeps_its_traceback(self):
    message = only_message(run(BrokenInit, lambda m: m.f(X)))
    self.assertIn("Constructing module 'BrokenInit' raised ZeroDivisionError: division by zero",
                  message)
    self.assertIn("self.ratio = 1 / 0", message)  # the user's line, from the chained traceback.

  def test_compile_module_of_none_says_the_module_class_is_none(self):
    with self.assertRaisesRegex(TypeError, r"compile_module\(None\): the module class is None; "
                                r"pass a tf.Module subclass or a function returning a tf.Module"):
      tf_test_utils.compile_module(None)


if __name__ == "__main__":
  absltest.main()
