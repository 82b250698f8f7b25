"""A keras.applications vision model, built with random weights (`weights=None`: nothing is
downloaded), compared on one batch of images.

Keras 2 era (`tf.keras.backend.set_learning_phase`): it runs with TF_USE_LEGACY_KERAS=1, which
the Bazel macro `iree_vision_test_suite` sets, and under Keras 3 as well (`keras = 3` in the
macro; the library gives Keras 3 the phase 0 back). One model per run, chosen by flags:

  TF_USE_LEGACY_KERAS=1 python e2e/keras/vision_model_test.py --model=MobileNet --data=cifar10 \
      --include_top=1 --target_backends=iree_llvmjit
"""

from absl import app
from absl import flags
import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

FLAGS = flags.FLAGS
flags.DEFINE_string("model", "MobileNet", "keras.applications model: one of MODELS' keys")
flags.DEFINE_enum("data", "cifar10", ["cifar10", "imagenet"],
                  "the image shape the model is built for: cifar10 32x32, imagenet 224x224")
flags.DEFINE_integer("include_top", 0, "1 keeps the classifier layers on top of the model")
flags.DEFINE_string("url", "", "directory URL of trained cifar10 weights, "
                    "'cifar10_include_top_<0|1>_<model>.h5'; empty keeps the random weights")

# Model name -> (constructor, extra keyword arguments). MobileNet is built at width 0.25 so that
# the slowest backend (vmvx) stays within seconds; MobileNetV2 and ResNet50 are full width.
MODELS = {
    "MobileNet": (lambda: tf.keras.applications.MobileNet, {"alpha": 0.25}),
    "MobileNetV2": (lambda: tf.keras.applications.MobileNetV2, {"alpha": 0.35}),
    "ResNet50": (lambda: tf.keras.applications.ResNet50, {}),
}
IMAGE_SIZES = {"cifar10": 32, "imagenet": 224}
CLASSES = {"cifar10": 10, "imagenet": 1000}
BATCH = 1


def input_shape():
  size = IMAGE_SIZES[FLAGS.data]
  return [BATCH, size, size, 3]


def build_model():
  tf_utils.set_random_seed()  # every backend's instance starts from the same weights
  tf.keras.backend.set_learning_phase(False)
  constructor, extra = MODELS[FLAGS.model]
  model = constructor()(weights=None, include_top=bool(FLAGS.include_top),
                        input_shape=tuple(input_shape()[1:]), classes=CLASSES[FLAGS.data],
                        **extra)
  if FLAGS.url:
    name = f"cifar10_include_top_{FLAGS.include_top}_{FLAGS.model}.h5"
    model.load_weights(tf.keras.utils.get_file(name, FLAGS.url.rstrip("/") + "/" + name))
  return model


class VisionModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.m = build_model()
    self.predict = tf.function(input_signature=[tf.TensorSpec(input_shape(), tf.float32)])(
        self.m.call)


@tf_test_utils.compile_module(VisionModule, exported_names=["predict"])
class VisionModelTest(tf_test_utils.TracedModuleTestCase):

  def test_predict(self):

    def predict(module):
      tf_utils.set_random_seed()
      images = tf_utils.uniform(input_shape()).astype(np.float32)
      module.predict(images, rtol=1e-4, atol=1e-4)

    self.compare_backends(predict)


def main(argv):
  del argv
  if FLAGS.model not in MODELS:
    raise app.UsageError(f"--model={FLAGS.model} is not one of {', '.join(MODELS)}")
  VisionModule.__name__ = f"{FLAGS.model}_{FLAGS.data}_top{FLAGS.include_top}"
  tf.test.main()


if __name__ == "__main__":
  app.run(main)
