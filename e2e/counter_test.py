"""A stateful counter: an int32 tf.Variable changed by several exported functions."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class CounterModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.count = tf.Variable(0, dtype=tf.int32)
    self.total = tf.Variable(0.0, dtype=tf.float32)

  @tf.function(input_signature=[])
  def get_count(self):
    return self.count.read_value()

  @tf.function(input_signature=[])
  def increment(self):
    self.count.assign_add(1)
    return self.count.read_value()

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def increment_by(self, n):
    self.count.assign_add(n)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def record(self, value):
    """Counts a sample and accumulates it; returns the running mean."""
    self.count.assign_add(1)
    self.total.assign_add(value)
    return self.total / tf.cast(self.count, tf.float32)

  @tf.function(input_signature=[])
  def reset(self):
    self.count.assign(0)
    self.total.assign(0.0)


@tf_test_utils.compile_module(CounterModule)
class CounterTest(tf_test_utils.TracedModuleTestCase):

  def test_initial_value(self):

    def initial_value(module):
      module.get_count()

    self.compare_backends(initial_value)

  def test_increment(self):

    def increment(module):
      module.increment()
      module.increment()
      module.increment_by(np.int32(40))
      module.increment()
      module.get_count()

    self.compare_backends(increment)

  def test_negative_increment(self):

    def negative_increment(module):
      module.increment_by(np.int32(-7))
      module.get_count()
      module.increment()

    self.compare_backends(negative_increment)

  def test_running_mean(self):

    def running_mean(module):
      for value in [3.0, 5.0, -2.0, 10.5]:
        module.record(value)
      module.get_count()

    self.compare_backends(running_mean)

  def test_reset(self):

    def reset(module):
      module.increment_by(np.int32(5))
      module.record(2.0)
      module.reset()
      module.get_count()
      module.record(4.0)

    self.compare_backends(reset)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
