"""TracedModuleTestCase end to end: artifact tree, `_ref`, state reset, failures that name
backends."""

import io
import os
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils


class CounterModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.count = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32)])
  def simple_mul(self, a, b):
    return a * b

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add(self, x):
    self.count.assign_add(x)
    return self.count


def run_test_case(test_class) -> unittest.TestResult:
  """Runs a TracedModuleTestCase subclass the way a test runner would."""
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def make_test_case(trace_functions):
  """A fresh decorated test class with one test per trace function."""

  @tf_test_utils.compile_module(CounterModule)
  class GeneratedTest(tf_test_utils.TracedModuleTestCase):
    pass

  for name, fn in trace_functions.items():
    setattr(GeneratedTest, f"test_{name}",
            lambda self, fn=fn: self.compare_backends(fn))
  return GeneratedTest


def mul_and_add(module):
  a = np.array([1., 2., 3., 4.], np.float32)
  module.simple_mul(a, a)
  module.add(np.float32(2.0))
  module.add(3.0)


class TracedModuleTestCaseTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.artifacts_dir = tempfile.mkdtemp()

  def files(self, everything=False):
    """The module's artifacts; by default the top level and the readable traces."""
    root = os.path.join(self.artifacts_dir, "CounterModule")
    paths = sorted(os.path.relpath(os.path.join(d, f), root)
                   for d, _, files in os.walk(root) for f in files if not f.startswith("."))
    return paths if everything else [
        p for p in paths if p.count("/") == 0 or (p.startswith("traces/") and p.count("/") == 1)]

  def test_duplicate_backends_are_indexed_and_the_reference_is_ref(self):
    with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_vmla", "iree_llvmjit"],
                             artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case({"mul_and_add": mul_and_add}))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertEqual(self.files(), [
        "compiled__iree_llvmjit.vmfb", "compiled__iree_vmla_0.vmfb", "compiled__iree_vmla_1.vmfb",
        "iree_input.mlir", "report.json", "report.txt", "signatures.json", "tf_input.mlir",
        "traces/mul_and_add__iree_llvmjit.txt", "traces/mul_and_add__iree_vmla_0.txt",
        "traces/mul_and_add__iree_vmla_1.txt", "traces/mul_and_add__tf_ref.txt"])

  def test_keep_saved_model_keeps_one_per_iree_backend(self):
    with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_llvmjit"], keep_saved_model=True,
                             artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case({"mul_and_add": mul_and_add}))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    for backend in ("iree_vmla", "iree_llvmjit"):
      self.assertIn(f"saved_model__{backend}/saved_model.pb", self.files(everything=True))

  def test_any_backend_can_be_the_reference(self):
    with flagsaver.flagsaver(reference_backend="iree_vmla", target_backends=["iree_vmla", "tf"],
                             artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case({"mul_and_add": mul_and_add}))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertIn("compiled__iree_vmla_ref.vmfb", self.files())
    self.assertIn("compiled__iree_vmla.vmfb", self.files())
    self.assertIn("traces/mul_and_add__iree_vmla_ref.txt", self.files())
    self.assertIn("traces/mul_and_add__tf.txt", self.files())

  def test_state_is_reset_before_every_test_including_the_reference(self):
    seen = []

    def record_start(module):
      seen.append(float(module.add(0.0)))
      module.add(5.0)

    with flagsaver.flagsaver(target_backends=["iree_vmla", "tf"], artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case({"first": record_start, "second": record_start}))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertEqual(seen, [0.0] * 6)  # 2 tests x (reference + 2 targets), each from zero.

  def test_a_mismatch_fails_naming_every_backend_that_differed(self):
    def differs_after_the_reference(module):
      # The reference sees 1.0 (on every run: the trace is deterministic); every target sees
      # another input and so another output.
      module.add(1.0 if module.backend == "tf_ref" else 2.0)

    with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_llvmjit"],
                             artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case({"diverging": differs_after_the_reference}))
    self.assertLen(result.failures, 1)
    message = result.failures[0][1]
    self.assertIn("failed on 2 of 2 target backend(s) compared with the reference 'tf_ref': "
                  "iree_vmla (mismatch), iree_llvmjit (mismatch)", message)
    self.assertIn("call 0 (add)", message)
    self.assertIn("outputs: scalars are not close (float32): expected 1.0, got 2.0", message)
    # Traces were saved before the assertion.
    self.assertIn("traces/differs_after_the_reference__iree_vmla.txt", self.files())

  def test_a_runtime_error_on_one_backend_is_reported_with_the_call(self):
    runs = []

    def wrong_shape_on_second_target(module):
      runs.append(None)
      size = 5 if len(runs) == 3 else 4
      module.simple_mul(np.ones([size], np.float32), np.ones([size], np.float32))

    with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_llvmjit"],
                             artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case({"shapes": wrong_shape_on_second_target}))
    self.assertLen(result.failures, 1)
    message = result.failures[0][1]
    self.assertIn("iree_llvmjit (runtime error)", message)
    self.assertIn("iree_vmla: PASS", message)
    self.assertIn("call 0 (simple_mul) raised ValueError", message)

  def test_missing_compile_module_decorator_is_a_clear_error(self):

    class Undecorated(tf_test_utils.TracedModuleTestCase):

      def test_nothing(self):
        pass

    result = run_test_case(Undecorated)
    self.assertLen(result.errors, 1)
    self.assertIn("decorate it with @tf_test_utils.compile_module", result.errors[0][1])


if __name__ == "__main__":
  absltest.main()
