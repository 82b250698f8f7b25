"""e2e/keras/bidirectional_lstm_test.py: import failure (before any backend)

TensorFlow only: the module source of e2e/keras/bidirectional_lstm_test.py (its tests left out), saved as a SavedModel,
converted with convert_saved_model and lowered with run_pass_pipeline("tf-lower-to-mlprogram-and-hlo"), as
pyiree_tf_support does. Prints "error: ..." and exits 1 while the import fails.
"""
# pylint: skip-file
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # Keras 2, as the suite runs
import numpy as np
import tensorflow.compat.v2 as tf


class tf_utils:  # stand-in for pyiree_tf_support.tf_utils: the helpers module code may call
  @staticmethod
  def set_random_seed(seed=0):
    tf.random.set_seed(seed)
    np.random.seed(seed)

  @staticmethod
  def uniform(shape, dtype=np.float32):
    return np.random.uniform(size=shape).astype(dtype)

  @staticmethod
  def ndarange(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)

# ---- e2e/keras/bidirectional_lstm_test.py, without its tests ----
STEPS = 4


FEATURES = 3


UNITS = 2


class BidirectionalLstmModule(tf.Module):

  def __init__(self):
    super().__init__()
    tf_utils.set_random_seed()
    inputs = tf.keras.layers.Input(shape=(STEPS, FEATURES))
    outputs = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(UNITS))(inputs)
    self.m = tf.keras.Model(inputs, outputs)
    self.predict = tf.function(
        input_signature=[tf.TensorSpec([None, STEPS, FEATURES], tf.float32)])(self.m.call)

# ---- the import ----
EXPORTED_NAMES = ('predict',)  # empty: every tf.function with an input_signature
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
  module = BidirectionalLstmModule()
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
