"""Batch matmul whose batch dimensions broadcast, with dynamic (None) batch dimensions.

In the corpus because a batched `tf.matmul` that broadcasts over a dynamic batch dim lowers to
`stablehlo.dynamic_broadcast_in_dim` of both operands to the common batch shape, which TF's
lowering leaves without expanding / non-expanding annotations; IREE's input conversion marks it
illegal. Where both sides are dynamic (`[None,None,2,3] @ [None,None,3,2]`) whether a dim expands
is only known at run time: a correct import has to check it then, not assume it.
The importer's dynamic-broadcast rewrite (docs/dynamic_broadcasts.md) makes these compile without
assuming anything that could compute a wrong answer: this file guards it.
"""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class BatchMatmulBroadcastModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([None, 1, 2, 3], tf.float32),
      tf.TensorSpec([4, 3, 2], tf.float32),
  ])
  def unit_dim_against_static_batch(self, lhs, rhs):
    """[B,1,2,3] @ [4,3,2] -> [B,4,2,2]: lhs' 1 expands to 4, rhs gains the leading B."""
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([None, 2, 3], tf.float32),
      tf.TensorSpec([3, 4], tf.float32),
  ])
  def batch_against_matrix(self, lhs, rhs):
    """[B,2,3] @ [3,4] -> [B,2,4]: a plain matrix broadcast over a dynamic batch."""
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[
      tf.TensorSpec([None, None, 2, 3], tf.float32),
      tf.TensorSpec([None, None, 3, 2], tf.float32),
  ])
  def both_batches_dynamic(self, lhs, rhs):
    """[B1,B2,2,3] @ [C1,C2,3,2]: either side's batch dims may be 1 and expand."""
    return tf.matmul(lhs, rhs)


@tf_test_utils.compile_module(BatchMatmulBroadcastModule)
class BatchMatmulBroadcastTest(tf_test_utils.TracedModuleTestCase):

  def test_unit_dim_against_static_batch(self):

    def unit_dim_against_static_batch(module):
      module.unit_dim_against_static_batch(tf_utils.uniform([2, 1, 2, 3]),
                                           tf_utils.uniform([4, 3, 2]), rtol=1e-5)

    self.compare_backends(unit_dim_against_static_batch)

  def test_batch_against_matrix(self):

    def batch_against_matrix(module):
      for batch in [1, 3]:
        module.batch_against_matrix(tf_utils.uniform([batch, 2, 3]),
                                    tf_utils.uniform([3, 4]), rtol=1e-5)

    self.compare_backends(batch_against_matrix)

  def test_both_batches_dynamic(self):

    def both_batches_dynamic(module):
      # Same batch shapes, then a broadcast of each side's unit dims.
      module.both_batches_dynamic(tf_utils.uniform([2, 3, 2, 3]),
                                  tf_utils.uniform([2, 3, 3, 2]), rtol=1e-5)
      module.both_batches_dynamic(tf_utils.uniform([1, 3, 2, 3]),
                                  tf_utils.uniform([2, 1, 3, 2]), rtol=1e-5)

    self.compare_backends(both_batches_dynamic)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
