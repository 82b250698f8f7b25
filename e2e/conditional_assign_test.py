"""Variables written inside a tf.cond branch, then read after the conditional.

In the corpus because IREE returns the value from before the branch's write: on vmvx, llvm-cpu and
vulkan the read after an `if` that stored to the variable gives the old value, while the store
itself persists to the next call (found writing keras/keras_ring_buffer_test.py; reproduced
without TF on a StableHLO `if` holding an `ml_program.global_store`). Each method's result is the
variable as it is once the conditional is done. Assigning outside any conditional
(simple_stateful_test.py, counter_test.py) passes.
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class ConditionalAssignModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.value = tf.Variable(np.zeros([2], dtype=np.float32))
    self.total = tf.Variable(0, dtype=tf.int32)

  @tf.function(input_signature=[
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([], tf.bool),
  ])
  def store_if(self, x, pred):
    """Stores x when pred holds; returns the variable's value afterwards."""
    if pred:
      self.value.assign(x)
    return self.value.read_value()

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def add_if_positive(self, n):
    """Adds n to the total when n > 0, else subtracts 1; returns the new total."""
    if n > 0:
      self.total.assign_add(n)
    else:
      self.total.assign_sub(1)
    return self.total.read_value()


@tf_test_utils.compile_module(ConditionalAssignModule)
class ConditionalAssignTest(tf_test_utils.TracedModuleTestCase):

  def test_store_if(self):

    def store_if(module):
      module.store_if(np.array([1., 2.], dtype=np.float32), np.array(True))
      module.store_if(np.array([3., 4.], dtype=np.float32), np.array(False))
      module.store_if(np.array([5., 6.], dtype=np.float32), np.array(True))

    self.compare_backends(store_if)

  def test_add_if_positive(self):

    def add_if_positive(module):
      for n in [3, 0, 5, -2]:
        module.add_if_positive(np.int32(n))

    self.compare_backends(add_if_positive)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
