"""Two module classes, six test methods (five of Adder, one of Multiplier): split over three
Bazel shards by tests/behaviour/scale_out_test.py, only the shard running test_m1 may compile
Multiplier."""
import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class Adder(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def add(self, a):
    return a + a


class Multiplier(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def mul(self, a):
    return a * a


def _calls(method, value):
  def trace(module):
    getattr(module, method)(np.array([value, 2.0], np.float32))
  return trace


@tf_test_utils.compile_module(Adder)
class AdderTest(tf_test_utils.TracedModuleTestCase):
  def test_a1(self): self.compare_backends(_calls("add", 1.0))
  def test_a2(self): self.compare_backends(_calls("add", 2.0))
  def test_a3(self): self.compare_backends(_calls("add", 3.0))
  def test_a4(self): self.compare_backends(_calls("add", 4.0))
  def test_a5(self): self.compare_backends(_calls("add", 5.0))


@tf_test_utils.compile_module(Multiplier)
class MultiplierTest(tf_test_utils.TracedModuleTestCase):
  def test_m1(self): self.compare_backends(_calls("mul", 1.0))


if __name__ == "__main__":
  tf.test.main()
