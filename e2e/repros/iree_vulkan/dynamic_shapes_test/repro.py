"""e2e/dynamic_shapes_test.py: import failure (before any backend)

TensorFlow only: the module source of e2e/dynamic_shapes_test.py (its tests left out), saved as a SavedModel,
converted with convert_saved_model and lowered with run_pass_pipeline("tf-lower-to-mlprogram-and-hlo"), as
pyiree_tf_support does. Prints "error: ..." and exits 1 while the import fails.
"""
# pylint: skip-file
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np
import tensorflow.compat.v2 as tf

# ---- e2e/dynamic_shapes_test.py, without its tests ----
class DynamicShapesModule(tf.Module):

  @tf.function(input_signature=[
      tf.TensorSpec([None, 2, 3], tf.float32),
      tf.TensorSpec([None, 3, 2], tf.float32),
  ])
  def batch_matmul_dynamic_batch(self, lhs, rhs):
    return tf.matmul(lhs, rhs)

  @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
  def flatten(self, x):
    return tf.reshape(x, [-1])

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def split_rows_in_pairs(self, x):
    return tf.reshape(x, [-1, 2, 4])

  @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)])
  def shape_as_data(self, x):
    shape = tf.shape(x)
    return shape, tf.cast(tf.reduce_prod(shape), tf.float32) * x

  @tf.function(input_signature=[tf.TensorSpec([None, 1, 3], tf.float32)])
  def squeeze_then_expand(self, x):
    return tf.expand_dims(tf.squeeze(x, axis=1), axis=0)

# ---- the import ----
EXPORTED_NAMES = ()  # empty: every tf.function with an input_signature
PIPELINE = 'tf-lower-to-mlprogram-and-hlo'


def _exported(module):
  if EXPORTED_NAMES:
    return list(EXPORTED_NAMES)
  return sorted(name for name in dir(module) if not name.startswith("__")
                and isinstance(getattr(module, name, None), tf.types.experimental.PolymorphicFunction)
                and getattr(module, name).input_signature is not None)


def main():
  tf.random.set_seed(0)
  np.random.seed(0)
  module = DynamicShapesModule()
  with tempfile.TemporaryDirectory() as saved_model:
    tf.saved_model.save(module, saved_model)
    try:
      text = tf.mlir.experimental.convert_saved_model(
          saved_model, exported_names=",".join(_exported(module)), show_debug_info=False)
      lowered = tf.mlir.experimental.run_pass_pipeline(text, PIPELINE)
    except Exception as e:  # the converter's and the pipeline's errors
      lines = [line.strip() for line in str(e).splitlines() if line.strip()]
      first = lines[0] if lines else type(e).__name__
      # TF appends the MLIR diagnostic's location ("<unknown>:0: error: loc(...)") to the message.
      first = first.split("<unknown>:")[0].strip()
      located = re.match(r"^\S+:\d+:\d+: (error: .*)", first)  # "-:3696:62: error: ..."
      first = located.group(1) if located else first
      print(first if first.startswith("error: ") else "error: " + first)
      return 1
  left = sorted(set(re.findall(r'"(tf(?:_executor|_device)?\.\w+)"\(', lowered)))
  if left:
    print("error: TF ops left unconverted: " + ", ".join(left))
    return 1
  print("imported without TF ops left")
  return 0


if __name__ == "__main__":
  sys.exit(main())
