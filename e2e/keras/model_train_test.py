"""One Keras 2 training step: a dense regression model, mean squared error, GradientTape, and the
optimizer named by --optimizer_name (`tf.keras.optimizers.get`). Two steps are traced, so the
second one sees the weights and optimizer slots the first one updated.

Run with TF_USE_LEGACY_KERAS=1 (set by the Bazel macro `iree_train_test_suite`):

  TF_USE_LEGACY_KERAS=1 python e2e/keras/model_train_test.py --optimizer_name=adam \
      --target_backends=iree_llvmjit
"""

from absl import app
from absl import flags
import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

FLAGS = flags.FLAGS
flags.DEFINE_string("optimizer_name", "sgd",
                    "a name tf.keras.optimizers.get accepts: sgd, adam, rmsprop, adagrad, ...")

DEGREE = 3
FEATURES = DEGREE + 1  # polynomial features 1, x, x^2, x^3
BATCH = 8


class ModelTrain(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()  # every backend's instance starts from the same weights
    inputs = tf.keras.layers.Input(FEATURES)  # Keras 2 accepts a bare int shape
    self.model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    self.loss = tf.keras.losses.MeanSquaredError()
    self.optimizer = tf.keras.optimizers.get(FLAGS.optimizer_name)

  @tf.function(input_signature=[tf.TensorSpec([BATCH, FEATURES], tf.float32),
                                tf.TensorSpec([BATCH, 1], tf.float32)])
  def train_step(self, inputs, targets):
    with tf.GradientTape() as tape:
      predictions = self.model(inputs, training=True)
      loss = self.loss(targets, predictions)
    gradients = tape.gradient(loss, self.model.trainable_variables)
    self.optimizer.apply_gradients(zip(gradients, self.model.trainable_variables))
    return loss


def regression_data():
  """Noisy samples of a cubic, as polynomial features and targets, both scaled into [-1, 1]."""
  x = (np.arange(BATCH) - BATCH // 2).astype(np.float32)
  rng = np.random.RandomState(0)
  y = x**3 + x**2 + x + rng.randn(BATCH).astype(np.float32) * BATCH
  x /= np.abs(x).max()
  y /= np.abs(y).max()
  features = np.stack([x**d for d in range(FEATURES)], axis=1)
  return features.astype(np.float32), y[:, None].astype(np.float32)


@tf_test_utils.compile_module(ModelTrain, exported_names=["train_step"])
class ModelTrainTest(tf_test_utils.TracedModuleTestCase):

  def test_train_step(self):
    inputs, targets = regression_data()

    def train_step(module):
      module.train_step(inputs, targets, rtol=1e-5, atol=1e-6)
      module.train_step(inputs, targets, rtol=1e-5, atol=1e-6)

    self.compare_backends(train_step)


def main(argv):
  del argv
  ModelTrain.__name__ = f"ModelTrain_{FLAGS.optimizer_name}"
  tf.test.main()


if __name__ == "__main__":
  app.run(main)
