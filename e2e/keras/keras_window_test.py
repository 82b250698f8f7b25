"""A Keras 2 layer holding a window of its last 3 inputs in a non-trainable weight of shape
[1, 3, 2] (zeros init): each call shifts the window by one step, `assign`s it, and returns the
variable itself (`return self.states`), not a value computed from it.

In the corpus because, on iree_vulkan only, the calls after the first return a wrong window
while vmvx and llvm-cpu are right (once all zeros on the second call; this file gets
[[1, 10], [0, 0], [0, 0]] on calls 1-3): IREE's: the update compiles to buffer copies only,
reproduced with iree-run-module alone (e2e/repros/findings/vulkan_copy_only_state). sliding_window_test.py returns
`window.read_value()` from a plain tf.Module and passes everywhere. The trace makes several calls
so a stale or aliased readback of any call after the first shows as a mismatch.

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macros).
"""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

WINDOW = 3
FEATURES = 2


class WindowLayer(tf.keras.layers.Layer):

  def build(self, input_shape):
    self.states = self.add_weight(name="states", shape=[1, WINDOW, FEATURES],
                                  initializer="zeros", trainable=False)
    super().build(input_shape)

  def call(self, frame):
    """frame [1, 1, FEATURES]: drops the oldest step, appends `frame`."""
    self.states.assign(tf.concat([self.states[:, 1:, :], frame], axis=1))
    return self.states


class KerasWindowModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(batch_size=1, shape=(1, FEATURES))
    self.m = tf.keras.Model(inputs, WindowLayer()(inputs))
    self.push = tf.function(
        input_signature=[tf.TensorSpec([1, 1, FEATURES], tf.float32)])(self.m.call)


@tf_test_utils.compile_module(KerasWindowModule, exported_names=["push"])
class KerasWindowTest(tf_test_utils.TracedModuleTestCase):

  def test_slide(self):

    def slide(module):
      for i in range(WINDOW + 1):
        module.push(np.array([[[i + 1., 10. * (i + 1.)]]], dtype=np.float32))

    self.compare_backends(slide)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
