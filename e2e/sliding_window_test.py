"""A sliding window over a stream: the state is the last WINDOW frames, shifted on each push."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

WINDOW = 4
FEATURES = 3


class SlidingWindowModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.window = tf.Variable(tf.zeros([WINDOW, FEATURES], tf.float32))
    self.steps = tf.Variable(0, dtype=tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([FEATURES], tf.float32)])
  def push(self, frame):
    """Drops the oldest frame, appends `frame`, returns the whole window."""
    shifted = tf.concat([self.window[1:], tf.expand_dims(frame, 0)], axis=0)
    self.window.assign(shifted)
    self.steps.assign_add(1)
    return self.window.read_value()

  @tf.function(input_signature=[])
  def moving_average(self):
    filled = tf.cast(tf.minimum(self.steps, WINDOW), tf.float32)
    return tf.reduce_sum(self.window, axis=0) / tf.maximum(filled, 1.0)

  @tf.function(input_signature=[tf.TensorSpec([WINDOW], tf.float32)])
  def filter(self, taps):
    """A FIR filter over the window: one weighted sum per feature."""
    return tf.linalg.matvec(self.window, taps, transpose_a=True)


@tf_test_utils.compile_module(SlidingWindowModule)
class SlidingWindowTest(tf_test_utils.TracedModuleTestCase):

  def test_fill_window(self):

    def fill_window(module):
      for i in range(WINDOW):
        module.push(np.full([FEATURES], i + 1, dtype=np.float32))
      module.moving_average()

    self.compare_backends(fill_window)

  def test_slide_past_window(self):

    def slide_past_window(module):
      for _ in range(WINDOW + 3):
        module.push(tf_utils.uniform([FEATURES]))
      module.moving_average(rtol=1e-5)
      module.filter(np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32),
                    rtol=1e-5)

    self.compare_backends(slide_past_window)

  def test_partial_average(self):

    def partial_average(module):
      module.push(np.array([3., 6., 9.], dtype=np.float32))
      module.moving_average()
      module.push(np.array([1., 0., -9.], dtype=np.float32))
      module.moving_average()

    self.compare_backends(partial_average)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
