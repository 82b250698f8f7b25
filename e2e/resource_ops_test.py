"""Resource variable ops: read, assign, assign_add / assign_sub on variables of several dtypes and
shapes, variables read inside computations, and a function returning nothing."""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class ResourceOpsModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.scalar = tf.Variable(1.5, dtype=tf.float32)
    self.matrix = tf.Variable(np.arange(6, dtype=np.float32).reshape([2, 3]))
    self.int_vector = tf.Variable(np.array([10, 20, 30], dtype=np.int32))
    self.flag = tf.Variable(False)

  @tf.function(input_signature=[])
  def read_all(self):
    return (self.scalar.read_value(), self.matrix.read_value(),
            self.int_vector.read_value(), self.flag.read_value())

  @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
  def assign_matrix(self, value):
    self.matrix.assign(value)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add_to_scalar(self, delta):
    return self.scalar.assign_add(delta)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.int32)])
  def sub_from_int_vector(self, delta):
    self.int_vector.assign_sub(delta)
    return self.int_vector.read_value()

  @tf.function(input_signature=[tf.TensorSpec([], tf.bool)])
  def set_flag(self, value):
    self.flag.assign(value)

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def affine(self, x):
    """Uses the variables as parameters: scalar * (matrix @ x) + int_vector[:2]."""
    y = tf.linalg.matvec(self.matrix, x) * self.scalar
    return y + tf.cast(self.int_vector[:2], tf.float32)

  @tf.function(input_signature=[])
  def scale_matrix_by_scalar(self):
    """Reads one variable and writes another in the same call."""
    self.matrix.assign(self.matrix * self.scalar)
    return self.matrix.read_value()


@tf_test_utils.compile_module(ResourceOpsModule)
class ResourceOpsTest(tf_test_utils.TracedModuleTestCase):

  def test_initial_values(self):

    def initial_values(module):
      module.read_all()

    self.compare_backends(initial_values)

  def test_assign(self):

    def assign(module):
      module.assign_matrix(-np.ones([2, 3], dtype=np.float32))
      module.set_flag(np.array(True))
      module.read_all()

    self.compare_backends(assign)

  def test_assign_add_sub(self):

    def assign_add_sub(module):
      module.add_to_scalar(np.float32(0.25))
      module.add_to_scalar(np.float32(-3.0))
      module.sub_from_int_vector(np.array([1, 2, 3], dtype=np.int32))
      module.sub_from_int_vector(np.array([100, 0, -5], dtype=np.int32))
      module.read_all()

    self.compare_backends(assign_add_sub)

  def test_variables_in_computation(self):

    def variables_in_computation(module):
      x = np.array([1., -1., 0.5], dtype=np.float32)
      module.affine(x)
      module.add_to_scalar(np.float32(1.0))
      module.affine(x)
      module.scale_matrix_by_scalar()
      module.scale_matrix_by_scalar()
      module.affine(x)

    self.compare_backends(variables_in_computation)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
