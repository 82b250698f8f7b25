"""A tf.Variable counter: state persists across calls and is reset between test methods."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class Stateful(tf.Module):

  def __init__(self):
    super().__init__()
    self.counter = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def inc_by(self, x):
    self.counter.assign(self.counter + x)

  @tf.function(input_signature=[])
  def get_state(self):
    return self.counter


@tf_test_utils.compile_module(Stateful)
class StatefulTest(tf_test_utils.TracedModuleTestCase):

  def test_stateful(self):

    def get_state(module):
      module.inc_by(np.array(1., dtype=np.float32))
      module.get_state()

    self.compare_backends(get_state)

  def test_state_starts_fresh_in_every_test(self):

    def starts_at_zero(module):
      module.get_state()
      module.inc_by(np.array(2.5, dtype=np.float32))
      module.inc_by(4.0)  # a Python float is cast to the signature's float32.
      module.get_state()

    self.compare_backends(starts_at_zero)

  def test_many_increments(self):

    def many_increments(module):
      for step in range(5):
        module.inc_by(np.float32(step))
      module.get_state()

    self.compare_backends(many_increments)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
