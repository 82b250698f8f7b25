"""Keras 2's learning phase under Keras 3 (importing/keras_compat): 2020 files call
`tf.keras.backend.set_learning_phase(False)`, which Keras 3 removed. Each case runs in a fresh
interpreter: which Keras `tf.keras` is depends on TF_USE_LEGACY_KERAS when TensorFlow is
imported."""

import os
import subprocess
import sys
import textwrap
import unittest

from tests.support.repo import ROOT

_PROBE = textwrap.dedent("""
    import sys
    from pyiree_tf_support import tf_utils
    import tensorflow as tf
    backend = tf.keras.backend
    print("keras", tf.keras.__name__.split(".")[0])
    backend.set_learning_phase(False)
    backend.set_learning_phase(0)
    print("phase", backend.learning_phase())
    try:
      backend.set_learning_phase(True)
    except ValueError as e:
      print("refused", e)
    """)


def _run(legacy: bool) -> str:
  env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="3")
  env.pop("TF_USE_LEGACY_KERAS", None)
  if legacy:
    env["TF_USE_LEGACY_KERAS"] = "1"
  result = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
  assert result.returncode == 0, result.stderr[-3000:]
  return result.stdout


class KerasCompatTest(unittest.TestCase):

  def test_keras_3_gets_the_inference_phase_and_refuses_training(self):
    out = _run(legacy=False)
    self.assertIn("keras keras", out)  # tf.keras is Keras 3's keras._tf_keras.
    self.assertIn("phase 0", out)
    refusal = [line for line in out.splitlines() if line.startswith("refused")]
    self.assertEqual(len(refusal), 1, out)
    self.assertIn("training=True", refusal[0])
    self.assertIn("TF_USE_LEGACY_KERAS=1", refusal[0])

  def test_keras_2_is_left_alone(self):
    out = _run(legacy=True)
    self.assertIn("keras tf_keras", out)
    self.assertIn("phase 0", out)
    self.assertNotIn("refused", out)  # Keras 2's own set_learning_phase(True) is a real phase.


if __name__ == "__main__":
  unittest.main()
