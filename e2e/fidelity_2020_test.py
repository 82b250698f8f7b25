"""A test file written against IREE's 2020 `pyiree.tf.support` API; only the import line differs.

It relies on what 2020 users' files rely on: weights drawn at random in `__init__` (the library
seeds every construction), `ModuleCall.outputs` tuples read through `Trace` objects,
`tf_utils.save_input_values`, and `TracedModule.backend` inside a trace function.
"""

import os

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class RandomDense(tf.Module):

  def __init__(self):
    super().__init__()
    self.w = tf.Variable(tf.random.uniform([8, 4]))
    self.b = tf.Variable(np.random.uniform(size=[4]).astype(np.float32))
    self.total = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([2, 8], tf.float32)])
  def predict(self, x):
    return tf.nn.relu(tf.matmul(x, self.w) + self.b)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add(self, x):
    self.total.assign_add(x)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def pair(self, x):
    return x, x * 2.0


def calls_every_kind_of_result(module):
  module.add(np.array(1.5, np.float32))
  module.predict(tf_utils.uniform([2, 8]), rtol=1e-5, atol=1e-5)
  module.pair(np.array([1.0, 2.0], np.float32))


@tf_test_utils.compile_module(RandomDense)
class Fidelity2020Test(tf_test_utils.TracedModuleTestCase):

  def test_random_weights_agree(self):

    def predict(module):
      module.predict(tf_utils.uniform([2, 8]), rtol=1e-5, atol=1e-5)

    self.compare_backends(predict)

  def test_traced_module_backend(self):

    def per_backend(module):
      assert isinstance(module.backend, str) and module.backend, module.backend
      assert module.module_name == "RandomDense", module.module_name
      module.add(np.array(2.0, np.float32))

    self.compare_backends(per_backend)

  def test_module_call_tuples(self):
    ref_trace = tf_test_utils.Trace(self._ref_module, calls_every_kind_of_result)
    tf_utils.set_random_seed()
    calls_every_kind_of_result(tf_test_utils.TracedModule(self._ref_module, ref_trace))
    add, predict, pair = ref_trace
    self.assertEqual(add.outputs, ())
    self.assertLen(predict.outputs, 1)
    self.assertEqual(predict.outputs[0].shape, (2, 4))
    self.assertEqual(predict.get_tolerances(), (1e-5, 1e-5))
    self.assertLen(pair.outputs, 2)
    self.assertEqual(pair.get_tolerances(), (1e-6, 1e-6))
    self.assertEqual(ref_trace.function_name, "calls_every_kind_of_result")

    for module in filter(None, self._tar_modules):  # None: a backend skipped here.
      tar_trace = tf_test_utils.Trace(module, calls_every_kind_of_result)
      tf_utils.set_random_seed()  # the same inputs as the reference saw.
      calls_every_kind_of_result(tf_test_utils.TracedModule(module, tar_trace))
      self.assertEqual([len(call.outputs) for call in tar_trace], [0, 1, 2])
      self.assertTrue(tf_test_utils.Trace.compare_traces(ref_trace, tar_trace), module.backend)

  def test_save_input_values(self):
    x = np.array([[1.0, 2.0]], np.float32)
    self.assertEqual(tf_utils.save_input_values([x, np.array([3], np.int32)], self._artifacts_dir),
                     "1x2xf32=1.0 2.0\n1xi32=3")
    self.assertTrue(os.path.exists(os.path.join(self._artifacts_dir, "inputs.txt")))


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
