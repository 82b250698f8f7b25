"""A compile error names the TF method it is in; a module with one method IREE cannot compile
still compiles, runs and compares its other methods, and names the bad one (real TF and IREE)."""

import io
import os
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.reporting.verdicts import Status


class DoubleAndErf(tf.Module):
  """`erf` lowers to stablehlo.custom_call @mhlo.erf, which no IREE backend here compiles."""

  def __init__(self):
    super().__init__()
    self.calls = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    self.calls.assign_add(1.0)
    return 2 * x

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def count(self, unused):
    return self.calls.read_value()

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)


class OnlyErf(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)


X = np.array([1., 2., 3., 4.], np.float32)

# A private callee inlined by iree-compile: the error is reported in @helper with a
# "called from" note in @outer, which is what names the method.
CALLEE_MLIR = """module {
  func.func @double(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @mhlo.erf(%arg0) {mhlo.attributes = {}, mhlo.version = 1 : i64} \
: (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @outer(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = func.call @helper(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def run_case(test_class) -> unittest.TestResult:
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


class CompileErrorNamesTheMethodTest(absltest.TestCase):

  def test_error_in_a_private_callee_names_the_exported_caller(self):
    with self.assertRaises(compiler.CompileError) as raised:
      compiler.compile_request(compiler.CompileRequest(CALLEE_MLIR, ("vmvx",)), "module 'M'")
    self.assertEqual(raised.exception.methods, ("outer",))
    self.assertIn("Compiling module 'M' failed in method outer: iree_input.mlir:7:10: error: "
                  "failed to legalize operation 'stablehlo.custom_call'", str(raised.exception))

  def test_backend_compile_without_per_method_fallback_raises_naming_the_method(self):
    cli_flags.ensure_parsed()
    with self.assertRaisesRegex(compiler.CompileError,
                                r"module 'DoubleAndErf' for backend\(s\) iree_vmvx failed in "
                                r"method erf: iree_input.mlir:\d+:\d+: error:"):
      tf_utils.BackendInfo("iree_vmvx").compile(DoubleAndErf)


class ModuleWithAnUncompilableMethodTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.artifacts_dir = tempfile.mkdtemp()

    @tf_test_utils.compile_module(DoubleAndErf)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_double(self):
        def double_twice(module):
          module.double(X)
          module.double(X)
          module.count(np.float32(0))  # state shared between the methods that compiled.
        self.compare_backends(double_twice)

      def test_erf(self):
        def erf_after_double(module):
          module.double(X)
          module.erf(X)
        self.compare_backends(erf_after_double)

    with flagsaver.flagsaver(artifacts_dir=cls.artifacts_dir, compile_cache=False,
                             target_backends="iree_vmvx"):
      cls.result = run_case(Case)
    cls.case = Case

  def test_traces_of_compilable_methods_compare_and_pass(self):
    self.assertEqual([t.id().rsplit(".", 1)[1] for t, _ in self.result.failures], ["test_erf"])
    self.assertEqual(self.result.errors, [])

  def test_a_call_of_the_bad_method_is_a_compile_error_naming_it(self):
    message = self.result.failures[0][1]
    self.assertIn("iree_vmvx (compile error)", message)
    self.assertRegex(message, r"iree_vmvx: COMPILE ERROR\n  call 1 \(erf\): method 'erf' did not "
                     r"compile for iree_vmvx: iree_input.mlir:\d+:\d+: error: failed to legalize "
                     r"operation 'stablehlo.custom_call'")

  def test_the_report_lists_per_method_which_compile(self):
    message = self.result.failures[0][1]
    self.assertIn("iree_vmvx: the whole module did not compile; compiled alone, 2 of 3 method(s) "
                  "compile:\n  count: compiles\n  double: compiles\n  erf: does not compile: "
                  "iree_input.mlir:", message)
    reproducer = os.path.join(self.artifacts_dir, "DoubleAndErf", "reproducer__iree_vmvx.erf.mlir")
    self.assertIn(f"Reproducer: {reproducer}", message)
    self.assertTrue(os.path.exists(reproducer))

  def test_the_module_records_which_methods_compiled(self):
    module = self.case._setup.targets[0].module
    self.assertEqual(module.method_compiles.compiled, ("count", "double"))
    self.assertEqual([f.method for f in module.method_compiles.failed], ["erf"])
    self.assertIsNone(module.method_compile_error("double"))
    with self.assertRaisesRegex(tf_utils.MethodNotCompiledError,
                                "method 'erf' did not compile for iree_vmvx"):
      module.erf(X)

  def test_replay_of_a_trace_of_compilable_methods_compiles_what_the_trace_calls(self):
    trace_dir = os.path.join(self.artifacts_dir, "DoubleAndErf", "traces", "double_twice__tf_ref")
    (outcome,) = replay.replay(trace_dir, ["iree_vmvx"])
    self.assertEqual(outcome.status, Status.PASS, outcome.detail)


class NoMethodCompilesTest(absltest.TestCase):

  def test_single_method_module_is_a_compile_error_naming_it(self):
    cli_flags.ensure_parsed()

    @tf_test_utils.compile_module(OnlyErf)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_erf(self):
        self.compare_backends(lambda module: module.erf(X))

    with flagsaver.flagsaver(artifacts_dir=tempfile.mkdtemp(), compile_cache=False,
                             target_backends="iree_vmvx"):
      result = run_case(Case)
    (_, message), = result.failures
    self.assertIn("iree_vmvx: COMPILE ERROR\n  CompileError: Compiling module 'OnlyErf' for "
                  "backend(s) iree_vmvx failed in method erf: iree_input.mlir:", message)


if __name__ == "__main__":
  absltest.main()
