"""Structured results: tuples, lists, dicts (with unsorted keys), nested structures, a one-element
tuple, and structured results from a stateful function."""

import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf


class StructuredResultsModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.calls = tf.Variable(0, dtype=tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def tuple_result(self, x):
    return x + 1.0, x * 2.0, tf.reduce_sum(x)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def single_element_tuple(self, x):
    return (x - 1.0,)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def list_result(self, x):
    return [tf.reduce_min(x), tf.reduce_max(x)]

  @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float32)])
  def dict_result(self, x):
    # Keys deliberately not in sorted order.
    return {"trace": tf.linalg.trace(x), "doubled": x * 2.0, "abs_max": tf.reduce_max(tf.abs(x))}

  @tf.function(input_signature=[
      tf.TensorSpec([2], tf.float32),
      tf.TensorSpec([2], tf.int32),
  ])
  def nested_result(self, f, i):
    return {
        "floats": (f, f * f),
        "ints": {"sum": tf.reduce_sum(i), "negated": -i},
        "mixed": [tf.cast(i, tf.float32) + f, i * 3],
    }

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def stateful_dict(self, x):
    self.calls.assign_add(1)
    return {"calls": self.calls.read_value(), "scaled": x * tf.cast(self.calls, tf.float32)}


@tf_test_utils.compile_module(StructuredResultsModule)
class StructuredResultsTest(tf_test_utils.TracedModuleTestCase):

  def test_tuple_result(self):

    def tuple_result(module):
      module.tuple_result(np.array([1., 2., 3.], dtype=np.float32))

    self.compare_backends(tuple_result)

  def test_single_element_tuple(self):

    def single_element_tuple(module):
      module.single_element_tuple(np.array([1., 2., 3.], dtype=np.float32))

    self.compare_backends(single_element_tuple)

  def test_list_result(self):

    def list_result(module):
      module.list_result(np.array([4., -2., 9.], dtype=np.float32))

    self.compare_backends(list_result)

  def test_dict_result(self):

    def dict_result(module):
      module.dict_result(np.array([[1., -5.], [2., 3.]], dtype=np.float32))

    self.compare_backends(dict_result)

  def test_nested_result(self):

    def nested_result(module):
      module.nested_result(tf_utils.uniform([2]), np.array([4, -9], dtype=np.int32))

    self.compare_backends(nested_result)

  def test_stateful_dict(self):

    def stateful_dict(module):
      module.stateful_dict(np.float32(1.5))
      module.stateful_dict(np.float32(1.5))
      module.stateful_dict(np.float32(-2.0))

    self.compare_backends(stateful_dict)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
