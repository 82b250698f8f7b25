"""Elementwise binary and ternary ops between rank-1 operands of unknown length ([None]).

In the corpus because TF's lowering of a binary op on two `[None]` operands broadcasts each to
the common shape with an unannotated `stablehlo.dynamic_broadcast_in_dim` (either side could be
the 1 that expands), which IREE's input conversion rejects. dynamic_broadcasting_test.py covers
mixed ranks (`[None,3] + [3]`, `[None] + [None,1]`); this file is the same-rank case, where the
only broadcast possible is a length-1 operand, decided at run time.
The importer's dynamic-broadcast rewrite (docs/dynamic_broadcasts.md) makes these compile without
assuming anything that could compute a wrong answer: this file guards it.
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class DynamicElementwiseModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([None], tf.float32),
      tf.TensorSpec([None], tf.float32),
  ])
  def add(self, a, b):
    return a + b

  @tf.function(input_signature=[
      tf.TensorSpec([None], tf.float32),
      tf.TensorSpec([None], tf.float32),
  ])
  def maximum(self, a, b):
    return tf.maximum(a, b)

  @tf.function(input_signature=[
      tf.TensorSpec([None], tf.bool),
      tf.TensorSpec([None], tf.float32),
      tf.TensorSpec([None], tf.float32),
  ])
  def where(self, cond, a, b):
    return tf.where(cond, a, b)


@tf_test_utils.compile_module(DynamicElementwiseModule)
class DynamicElementwiseTest(tf_test_utils.TracedModuleTestCase):

  def test_add(self):

    def add(module):
      module.add(tf_utils.ndarange([5]), tf_utils.uniform([5]))
      module.add(tf_utils.ndarange([1]), tf_utils.uniform([3]))

    self.compare_backends(add)

  def test_maximum(self):

    def maximum(module):
      module.maximum(tf_utils.uniform([4]), np.array([0.5, 0., 1., 0.25], dtype=np.float32))
      module.maximum(tf_utils.uniform([3]), np.array([0.5], dtype=np.float32))

    self.compare_backends(maximum)

  def test_where(self):

    def where(module):
      module.where(np.array([True, False, False, True]), tf_utils.ndarange([4]),
                   -tf_utils.ndarange([4]))
      module.where(np.array([False, True, True]), tf_utils.ndarange([3]),
                   np.array([-1.], dtype=np.float32))

    self.compare_backends(where)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
