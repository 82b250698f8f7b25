"""importer.function_signatures: the metadata of the exported functions, whatever Python callable
a tf.function wraps.

Keras-era files write `self.predict = tf.function(input_signature=[...])(self.m.call)`: a
tf.function held as an instance attribute, wrapping a bound method whose Python defaults
(`training=None, mask=None`) are not tensors. Only the arguments the input_signature covers are
inputs of the exported function; the defaults stay Python values traced into it.
"""

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.importing import importer


class _KerasLikeModel(tf.Module):
  """Stands for a Keras Model: `call(inputs, training=None, mask=None)`."""

  def __init__(self):
    super().__init__()
    self.scale = tf.Variable([2., 3.], dtype=tf.float32)

  def call(self, inputs, training=None, mask=None):
    if training:
      return inputs
    if mask is not None:
      return inputs * tf.cast(mask, tf.float32)
    return inputs * self.scale


def _plain(inputs, scale=3.0, name="unused"):
  del name
  return inputs * scale


class BoundMethodModule(tf.Module):
  """tf.functions as instance attributes around callables with non-tensor defaults."""

  def __init__(self):
    super().__init__()
    self.m = _KerasLikeModel()
    self.predict = tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])(self.m.call)
    self.plain = tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])(_plain)
    self.with_mask = tf.function(
        input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.bool)])(
            lambda inputs, mask, training=False: self.m.call(inputs, training, mask))
    self.bound_mask = tf.function(
        input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([2], tf.bool)])(
            lambda inputs, mask: self.m.call(inputs, False, mask))


class KerasModelModule(tf.Module):
  """The real thing: a Keras functional model's bound `call`."""

  def __init__(self):
    super().__init__()
    inputs = tf.keras.Input(shape=(3,), batch_size=2)
    self.m = tf.keras.Model(inputs, tf.keras.layers.Dense(2, kernel_initializer="ones")(inputs))
    self.predict = tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])(self.m.call)


class FunctionSignaturesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("bound_method_with_none_defaults", "predict", ("inputs",), [((2,), "float32")]),
      ("function_with_python_defaults", "plain", ("inputs",), [((2,), "float32")]),
      ("lambda_with_a_trailing_default", "with_mask", ("inputs", "mask"),
       [((2,), "float32"), ((2,), "bool")]),
  )
  def test_only_the_input_signature_arguments_are_inputs(self, name, arg_names, inputs):
    signature = importer.function_signatures(BoundMethodModule(), [name])[name]
    self.assertEqual(signature.arg_names, arg_names)
    self.assertEqual([(spec.shape, spec.dtype) for spec in signature.inputs], inputs)

  def test_keras_model_call_is_one_tensor_input(self):
    signature = importer.function_signatures(KerasModelModule(), ["predict"])["predict"]
    self.assertEqual(signature.arg_names, ("inputs",))
    self.assertEqual([(spec.shape, spec.dtype) for spec in signature.inputs],
                     [((2, 3), "float32")])

  def test_calls_bind_by_position_and_by_the_argument_name(self):
    signature = importer.function_signatures(BoundMethodModule(), ["predict"])["predict"]
    x = np.array([1., 1.], np.float32)
    self.assertLen(signature.bind("BoundMethodModule", [x], {}), 1)
    self.assertLen(signature.bind("BoundMethodModule", [], {"inputs": x}), 1)
    with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 'training'"):
      signature.bind("BoundMethodModule", [x], {"training": True})


class BoundMethodModuleRunsTest(parameterized.TestCase):
  """The same module imported, compiled and run: its Python defaults are baked in."""

  @parameterized.named_parameters(("tf", "tf"), ("llvm_cpu", "iree_llvmcpu"))
  def test_runs_with_the_defaults_traced_in(self, backend):
    module = tf_utils.BackendInfo(backend).compile(BoundMethodModule, ["predict", "bound_mask"])
    x = np.array([1., 2.], np.float32)
    np.testing.assert_array_equal(module.predict(x), [2., 6.])
    np.testing.assert_array_equal(module.bound_mask(x, np.array([True, False])), [1., 0.])


class UnimportableDefaultsTest(parameterized.TestCase):
  """The SavedModel importer takes only None defaults; others are named before it runs."""

  @parameterized.named_parameters(
      ("float_and_string", "plain", r"'plain'.*scale=3\.0, name='unused' \(only None"),
      ("bool", "with_mask", r"'with_mask'.*training=False \(only None"),
  )
  def test_non_none_defaults_are_a_clear_import_error(self, name, message):
    with self.assertRaisesRegex(importer.ModuleImportError, message):
      importer.import_module(BoundMethodModule(), "BoundMethodModule", [name])

  def test_they_still_run_on_tf(self):
    module = tf_utils.BackendInfo("tf").compile(BoundMethodModule, ["plain", "with_mask"])
    x = np.array([1., 2.], np.float32)
    np.testing.assert_array_equal(module.plain(x), [3., 6.])
    np.testing.assert_array_equal(module.with_mask(x, np.array([True, False])), [1., 0.])


if __name__ == "__main__":
  absltest.main()
