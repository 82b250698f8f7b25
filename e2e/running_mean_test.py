"""A running mean kept in variables, the batch size counted with tf.shape: `tf.shape(x)[0]` is
used as data (cast to float and added to a tf.Variable), not only as a shape."""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

FEATURES = 4


class RunningMeanModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.count = tf.Variable(0.0, dtype=tf.float32)
    self.total = tf.Variable(tf.zeros([FEATURES]), dtype=tf.float32)

  @tf.function(input_signature=[tf.TensorSpec([None, FEATURES], tf.float32)])
  def update(self, x):
    """Adds a batch of any size; returns the mean over every row seen so far."""
    self.count.assign_add(tf.cast(tf.shape(x)[0], tf.float32))
    self.total.assign_add(tf.reduce_sum(x, axis=0))
    return self.total / self.count


@tf_test_utils.compile_module(RunningMeanModule)
class RunningMeanTest(tf_test_utils.TracedModuleTestCase):

  def test_update(self):

    def update(module):
      for rows in (2, 3, 1):
        module.update(tf_utils.ndarange([rows, FEATURES]), rtol=1e-6)

    self.compare_backends(update)


if __name__ == "__main__":
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  tf.test.main()
