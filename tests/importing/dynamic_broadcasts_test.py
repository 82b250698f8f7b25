"""Binary ops broadcasting on None dims compile, and never compute a wrong answer: each result is
TF's, or the call fails loudly at run time (incompatible shapes; a size-1 dim expanding where the
rewrite gives up deciding at run time).

The modules are imported by the real TF and compiled by the real IREE; the rewrite's own decisions
(proven, decided at run time, asserted) are checked on TF's real lowering of each function."""

import tempfile

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing import pass_pipelines
from pyiree_tf_support.importing.rewrites import dynamic_broadcasts

EXPANDS = "a dynamic broadcast's operand dim 0 differs from result dim 0"
NOT_BROADCASTABLE = "shapes are not broadcastable"
INCOMPATIBLE = "a dynamic broadcast's operand dim 0 is neither 1 nor result dim 0's extent"


class BroadcastModule(tf.Module):
  """One function per kind of dynamic broadcast TF's lowering emits."""

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                tf.TensorSpec([4], tf.float32)])
  def rows_plus_bias(self, x, b):  # provable: only x gives the batch dim
    return x + b

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32),
                                tf.TensorSpec([4, 3], tf.float32),
                                tf.TensorSpec([3], tf.float32)])
  def dense(self, x, w, b):  # provable: x @ w + b
    return tf.matmul(x, w) + b

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                tf.TensorSpec([None, 1], tf.float32)])
  def outer_sum(self, row, col):  # provable: each dim comes from one operand only
    return row + col

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32),
                                tf.TensorSpec([None], tf.float32)])
  def vector_sum(self, a, b):  # ambiguous: either side may be 1
    return a + b

  @tf.function(input_signature=[tf.TensorSpec([None, 2, 3], tf.float32),
                                tf.TensorSpec([None, 3, 2], tf.float32)])
  def batch_matmul(self, a, b):  # ambiguous: either batch may be 1
    return tf.matmul(a, b)

  @tf.function(input_signature=[tf.TensorSpec([None] * 4, tf.float32)] * 2)
  def rank4_sum(self, a, b):  # 4 dims that may expand: more than MAX_BRANCHED_DIMS, asserted
    return a + b

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def softmax(self, x):  # reductions keeping dims: unit-dim dynamic_reshape, then broadcasts
    return tf.nn.softmax(x)


# name: (proven dynamic dims, dims decided at run time, dims asserted not to expand,
#        cstr_broadcastable turned into asserts)
DECISIONS = {
    "rows_plus_bias": (1, 0, 0, 0),
    "dense": (1, 0, 0, 0),
    "outer_sum": (2, 0, 0, 0),
    "vector_sum": (0, 2, 0, 1),
    "batch_matmul": (0, 2, 0, 0),
    "rank4_sum": (0, 0, 8, 1),
}


def f32(shape, *values):
  return np.array(values, np.float32).reshape(shape)


class RewriteDecisionsTest(parameterized.TestCase):
  """What the rewrite proves, decides at run time or asserts, on TF's real lowering."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.lowered = {name: importer.lower_to_iree_input(
        importer.import_tf_dialect(BroadcastModule(), [name])) for name in DECISIONS}

  @parameterized.parameters(*DECISIONS.items())
  def test_proven_dims_need_no_check_the_others_are_decided_or_asserted_at_run_time(
      self, name, expected):
    rewrite = dynamic_broadcasts.rewrite_dynamic_broadcasts(self.lowered[name])
    _, branched, guarded, constraints = expected
    self.assertEqual(
        (rewrite.proven, rewrite.branched, rewrite.guarded, rewrite.constraints), expected)
    self.assertEqual(rewrite.text.count("cf.assert"), branched + guarded + constraints)
    self.assertEqual(rewrite.text.count("scf.if"), branched)
    self.assertNotIn("shape.cstr_broadcastable", rewrite.text)
    self.assertNotIn("!shape.shape", rewrite.text)  # IREE lowers neither.

  def test_the_importer_applies_it(self):
    imported = tf_utils.import_module_class(BroadcastModule, exported_names=["vector_sum"])
    self.assertEqual(pass_pipelines.strip_header(imported.iree_input),
                     dynamic_broadcasts.rewrite_dynamic_broadcasts(
                         self.lowered["vector_sum"]).text)
    self.assertIn("dynamic-broadcasts", imported.iree_input.split("module", 1)[0])

  def test_text_without_dynamic_broadcasts_is_returned_as_it_is(self):
    text = "module {\n  func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n" \
           "    return %arg0 : tensor<4xf32>\n  }\n}\n"
    rewrite = dynamic_broadcasts.rewrite_dynamic_broadcasts(text)
    self.assertIs(rewrite.text, text)
    self.assertFalse(rewrite.changed)

  def test_a_shape_it_cannot_trace_is_left_as_it_is(self):
    text = """module {
  func.func @f(%arg0: tensor<?xf32>, %shape: tensor<1xindex>) -> tensor<?xf32> {
    %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %shape, dims = [0] \
: (tensor<?xf32>, tensor<1xindex>) -> tensor<?xf32>
    return %0 : tensor<?xf32>
  }
}
"""
    rewrite = dynamic_broadcasts.rewrite_dynamic_broadcasts(text)
    self.assertIs(rewrite.text, text)

  def test_a_reshape_to_extents_it_cannot_trace_is_left_as_it_is(self):
    text = """module {
  func.func @f(%arg0: tensor<?xf32>, %n: index) -> tensor<?x1xf32> {
    %c1 = arith.constant 1 : index
    %shape = tensor.from_elements %n, %c1 : tensor<2xindex>
    %0 = stablehlo.dynamic_reshape %arg0, %shape \
: (tensor<?xf32>, tensor<2xindex>) -> tensor<?x1xf32>
    return %0 : tensor<?x1xf32>
  }
}
"""
    rewrite = dynamic_broadcasts.rewrite_dynamic_broadcasts(text)
    self.assertIs(rewrite.text, text)


class CompiledBroadcastsTest(parameterized.TestCase):
  """Each call gives TF's answer or fails loudly; none returns a wrong answer."""

  backend_name = "iree_llvmjit"

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    artifacts_dir = tempfile.mkdtemp()
    cls.iree = tf_utils.BackendInfo(cls.backend_name).compile(BroadcastModule,
                                                              artifacts_dir=artifacts_dir)
    cls.tf = tf_utils.BackendInfo("tf").compile(BroadcastModule)

  @parameterized.named_parameters(
      ("rows_plus_bias_batch_1", "rows_plus_bias", (f32([1, 4], 1, 2, 3, 4), f32([4], 1, 2, 3, 4))),
      ("dense_batch_1", "dense", (f32([1, 4], 1, 2, 3, 4), np.ones([4, 3], np.float32),
                                  f32([3], 10, 20, 30))),
      ("dense_batch_3", "dense", (np.ones([3, 4], np.float32), np.ones([4, 3], np.float32),
                                  f32([3], 10, 20, 30))),
      ("outer_sum_expands_both", "outer_sum", (f32([1], 1), f32([3, 1], 10, 20, 30))),
      ("outer_sum_row", "outer_sum", (f32([2], 1, 2), f32([1, 1], 10))),
      ("vector_sum_equal", "vector_sum", (f32([3], 1, 2, 3), f32([3], 10, 20, 30))),
      ("vector_sum_1_and_3", "vector_sum", (f32([1], 1), f32([3], 10, 20, 30))),
      ("vector_sum_3_and_1", "vector_sum", (f32([3], 1, 2, 3), f32([1], 10))),
      ("vector_sum_0_and_1", "vector_sum", (f32([0]), f32([1], 10))),
      ("batch_matmul_equal", "batch_matmul", (np.ones([4, 2, 3], np.float32),
                                              np.ones([4, 3, 2], np.float32))),
      ("batch_matmul_1_and_4", "batch_matmul", (np.arange(6, dtype=np.float32).reshape(1, 2, 3),
                                                np.arange(24, dtype=np.float32).reshape(4, 3, 2))),
      ("batch_matmul_4_and_1", "batch_matmul", (np.arange(24, dtype=np.float32).reshape(4, 2, 3),
                                                np.arange(6, dtype=np.float32).reshape(1, 3, 2))),
      ("rank4_sum_equal", "rank4_sum", (np.ones([1, 2, 1, 3], np.float32),
                                        np.ones([1, 2, 1, 3], np.float32))),
      ("softmax_batch_1", "softmax", (f32([1, 4], 1, 2, 3, 4),)),
      ("softmax_batch_3", "softmax", (np.arange(12, dtype=np.float32).reshape(3, 4),)),
  )
  def test_gives_tfs_answer(self, name, args):
    np.testing.assert_allclose(getattr(self.iree, name)(*args), getattr(self.tf, name)(*args),
                               rtol=1e-6)

  @parameterized.named_parameters(
      ("vector_sum_2_and_3", "vector_sum", (f32([2], 1, 2), f32([3], 1, 2, 3)), NOT_BROADCASTABLE),
      ("batch_matmul_2_and_3", "batch_matmul", (np.ones([2, 2, 3], np.float32),
                                                np.ones([3, 3, 2], np.float32)), INCOMPATIBLE),
      ("rank4_sum_expanding", "rank4_sum", (np.ones([1, 1, 1, 1], np.float32),
                                            np.ones([2, 1, 1, 1], np.float32)), EXPANDS),
  )
  def test_fails_loudly(self, name, args, message):
    with self.assertRaisesRegex(Exception, message):
      getattr(self.iree, name)(*args)


class CompiledBroadcastsVmvxTest(CompiledBroadcastsTest):
  backend_name = "iree_vmla"


if __name__ == "__main__":
  absltest.main()
