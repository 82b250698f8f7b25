"""Compiler lit tests with tf_test_driver: what today's TF import and lowering make of small modules.

Run: `python docs/examples/saved_model_import_lit.py` (exit status is FileCheck's), or with
`--disable_filecheck` to see the output the CHECK comments below are matched against.
"""

import numpy as np
import tensorflow.compat.v2 as tf

from pyiree_tf_support import tf_test_driver

# The list 2020 test files used; the IREE pass in it now names the importer's lowering.
SAVED_MODEL_IMPORT_PASSES = [
    "tf-executor-graph-pruning",
    "tf-standard-pipeline",
    "iree-tf-saved-model-adopt-exports",
    "canonicalize",
]


class SimpleMul(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32)])
  def simple_mul(self, a, b):
    return a * b


class Counter(tf.Module):

  def __init__(self):
    self.count = tf.Variable(np.array([1., 2.], np.float32))

  @tf.function(input_signature=[])
  def increment(self):
    self.count.assign_add([1., 1.])
    return self.count


class TensorArrayLoop(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    doubled = tf.TensorArray(tf.float32, size=4)
    for i in tf.range(4):
      doubled = doubled.write(i, x[i] * 2.0)
    return doubled.stack()


# The imported TF dialect, before any pass: functions carry the names users call them by.
# CHECK-LABEL: RUN_TEST: T1_TfDialect
# CHECK: tf_saved_model.semantics
# CHECK: func.func @simple_mul(
# CHECK: "tf.Mul"
# CHECK: FINISH_TEST: T1_TfDialect
tf_test_driver.add_test(test_name="T1_TfDialect", tf_module_builder=SimpleMul,
                        print_input_module=True)

# The 2020 pass list lowers to StableHLO.
# CHECK-LABEL: RUN_TEST: T2_ImportPasses
# CHECK-NOT: tf_saved_model
# CHECK: func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32>
# CHECK-NEXT: stablehlo.multiply %arg0, %arg1
# CHECK: FINISH_TEST: T2_ImportPasses
tf_test_driver.add_test(test_name="T2_ImportPasses", tf_module_builder=SimpleMul,
                        passes=SAVED_MODEL_IMPORT_PASSES, print_input_module=True)

# Variables become ml_program globals.
# CHECK-LABEL: RUN_TEST: T3_Variable
# CHECK: ml_program.global public mutable @[[VAR:[^(]+]](dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>)
# CHECK: func.func @increment()
# CHECK: ml_program.global_load @[[VAR]]
# CHECK: stablehlo.add
# CHECK: ml_program.global_store @[[VAR]]
# CHECK: FINISH_TEST: T3_Variable
tf_test_driver.add_test(test_name="T3_Variable", tf_module_builder=Counter,
                        passes=["iree-tf-import-pipeline"], print_input_module=True)

# Without print_input_module only the markers are printed.
# CHECK-LABEL: RUN_TEST: T4_NotPrinted
# CHECK-NEXT: FINISH_TEST: T4_NotPrinted
tf_test_driver.add_test(test_name="T4_NotPrinted", tf_module_builder=SimpleMul,
                        passes=["canonicalize"])

# A known lowering failure: the diagnostics are part of the checked output.
# CHECK-LABEL: RUN_TEST: T5_ExpectedPassFailure
# CHECK: PassFailedError: pass 'iree-tf-import-pipeline' (run as 'tf-lower-to-mlprogram-and-hlo') failed:
# CHECK: error: failed to legalize unresolved materialization
# CHECK: FINISH_TEST_WITH_EXCEPTION: T5_ExpectedPassFailure
tf_test_driver.add_test(test_name="T5_ExpectedPassFailure", tf_module_builder=TensorArrayLoop,
                        passes=["iree-tf-import-pipeline"], print_input_module=True,
                        expect_pass_failure=True)

if __name__ == "__main__":
  tf_test_driver.run_tests(__file__, with_filecheck=True)
