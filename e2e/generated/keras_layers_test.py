"""A few Keras 3 layers as generated tests (IREE's later API): each layer's call with static
dims and with a dynamic batch dim (inputs drawn at the static shape). Weights are drawn from a
seeded generator, so every backend builds the same layer. One test class per (layer, variant)."""

import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

# The library first: it configures TensorFlow's logging before keras imports TensorFlow.
from pyiree_tf_support import tf_test_utils

# isort: split
import keras
import numpy as np
import tensorflow.compat.v2 as tf

# layer -> (constructor, input shape)
LAYERS = {
    "Dense": (lambda: keras.layers.Dense(5, activation="relu"), [2, 4]),
    "Conv2D": (lambda: keras.layers.Conv2D(3, 3, padding="same"), [2, 6, 6, 2]),
    "MaxPooling2D": (lambda: keras.layers.MaxPooling2D(2), [2, 6, 6, 2]),
    "AveragePooling1D": (lambda: keras.layers.AveragePooling1D(2), [2, 6, 3]),
    "Softmax": (lambda: keras.layers.Softmax(), [2, 5]),
    "LayerNormalization": (lambda: keras.layers.LayerNormalization(), [2, 3, 4]),
}

VARIANTS = ("static", "dynamic")


def _seeded_weights(layer: keras.layers.Layer) -> None:
  rng = np.random.RandomState(5)
  layer.set_weights([rng.uniform(-0.5, 0.5, w.shape).astype(w.dtype)
                     for w in layer.get_weights()])


def make_test_class(layer_name: str, variant: str):
  """A TestModule calling the layer, and a test class with one test of it."""
  build, shape = LAYERS[layer_name]
  static = [tf.TensorSpec(shape, tf.float32)]
  signature = static if variant == "static" else [
      tf.TensorSpec([None] + shape[1:], tf.float32)]

  def __init__(self):
    tf_test_utils.TestModule.__init__(self)
    self.layer = build()
    self.layer.build(shape)
    _seeded_weights(self.layer)
    self.call = tf_test_utils.tf_function_unit_test(
        input_signature=signature, static_signature=static, name="call", rtol=1e-5,
        atol=1e-5)(lambda x: self.layer(x, training=False))

  module_class = type(f"{layer_name}{variant.title()}Module", (tf_test_utils.TestModule,),
                      {"__init__": __init__})

  def test_init(self, *args, **kwargs):
    tf_test_utils.TracedModuleTestCase.__init__(self, *args, **kwargs)
    self._modules = tf_test_utils.compile_tf_module(module_class, exported_names=["call"])

  test_class = type(f"{layer_name}{variant.title()}Test", (tf_test_utils.TracedModuleTestCase,),
                    {"__init__": test_init, "__module__": __name__})
  test_class.generate_unit_tests(module_class)
  return test_class


def define_test_classes() -> None:
  """A test class per (layer, variant), as a global of this file (so that absltest and pytest
  find it; no other global names a class)."""
  for layer in LAYERS:
    for variant in VARIANTS:
      test_class = make_test_class(layer, variant)
      globals()[test_class.__name__] = test_class


define_test_classes()

if __name__ == "__main__":
  tf.test.main()
