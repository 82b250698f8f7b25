"""The `tflite` backend (2020's TfLiteCompiledModule): one TFLite interpreter per exported method,
converted from its concrete function, as a target and as the reference, with a method the
converter cannot do reported as that backend's COMPILE ERROR naming the converter's first cause."""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
import keras
import numpy as np
import tensorflow as tf

from pyiree_tf_support import replay
from pyiree_tf_support import tf_utils
from pyiree_tf_support.core import backends
from pyiree_tf_support.runtime import tflite_modules
from tests.support import test_files
from tests.support.repo import ROOT


class SmallModule(tf.Module):
  """Element-wise arithmetic, a nested result, a variable and a method TFLite cannot do (erf)."""

  def __init__(self):
    super().__init__()
    self.count = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32)])
  def mul(self, a, b):
    return a * b

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
  def parts(self, a):
    return {"sum": tf.reduce_sum(a), "pair": (a * 2.0, a > 1.0)}

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add(self, x):
    self.count.assign_add(x)
    return self.count

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, a):
    return tf.math.erf(a)


class KerasAndStringsModule(tf.Module):
  """A Keras 3 layer read by a method (its variables), and a string input TFLite cannot take."""

  def __init__(self):
    super().__init__()
    self.dense = keras.layers.Dense(3, activation="softmax")
    self.dense.build((None, 4))
    self.dense.set_weights([np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0,
                            np.array([0.1, -0.2, 0.3], np.float32)])

  @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32)])
  def predict(self, x):
    return self.dense(x)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.string)])
  def lengths(self, s):
    return tf.strings.length(s)


class TfLiteKerasAndStringsTest(absltest.TestCase):

  def test_a_keras_3_layer_gives_tensorflows_values(self):
    module = tf_utils.BackendInfo("tflite").compile(KerasAndStringsModule)
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    reference = KerasAndStringsModule()
    np.testing.assert_allclose(module.predict(x), reference.predict(x), rtol=1e-5)

  def test_a_string_method_is_its_own_compile_error(self):
    module = tf_utils.BackendInfo("tflite").compile(KerasAndStringsModule)
    self.assertIn("tf.StringLength", module.method_compile_error("lengths"))


class TfLiteCompiledModuleTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.artifacts_dir = tempfile.mkdtemp()
    cls.module = tf_utils.BackendInfo("tflite").compile(SmallModule,
                                                        artifacts_dir=cls.artifacts_dir)

  def test_the_backend_is_a_row_of_the_table_outside_default_runs(self):
    spec = backends.lookup("tflite")
    self.assertFalse(spec.is_iree)
    self.assertFalse(spec.default_target)
    self.assertIsInstance(self.module, tf_utils.TfLiteCompiledModule)
    self.assertIn("tflite", [i.name for i in tf_utils.BackendInfo.get_all_backends()])

  def test_each_method_is_a_tflite_file_under_the_module_dir(self):
    self.assertCountEqual(os.listdir(os.path.join(self.artifacts_dir, "tflite")),
                          ["mul.tflite", "parts.tflite", "add.tflite", "conversions.json"])
    self.assertTrue(self.module.tflite_serializable())

  def test_calls_give_numpy_in_the_structure_tensorflow_returns(self):
    a = np.array([1., 2., 3., 4.], np.float32)
    np.testing.assert_array_equal(self.module.mul(a, a), a * a)
    result = self.module.parts(np.array([0.5, 1.5, 3.0], np.float32))
    self.assertEqual(set(result), {"sum", "pair"})
    np.testing.assert_allclose(result["sum"], 5.0)
    np.testing.assert_array_equal(result["pair"][1], [False, True, True])

  def test_state_persists_between_calls_and_reinitialize_resets_it(self):
    module = self.module.create_reinitialized()
    self.assertEqual(float(module.add(np.float32(2))), 2.0)
    self.assertEqual(float(module.add(np.float32(3))), 5.0)
    module.reinitialize()
    self.assertEqual(float(module.add(np.float32(1))), 1.0)

  def test_a_method_the_converter_cannot_do_says_why_in_one_line(self):
    error = self.module.method_compile_error("erf")
    self.assertIn("'tf.Erf' op is neither a custom op nor a flex op", error)
    self.assertNotIn("\n", error)
    with self.assertRaisesRegex(tf_utils.MethodNotCompiledError, "tf.Erf"):
      self.module.erf(np.zeros(4, np.float32))


TEST_FILE = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class LiteModule(tf.Module):
  def __init__(self):
    super().__init__()
    self.total = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def accumulate(self, a):
    self.total.assign_add(tf.reduce_sum(a))
    return self.total * a

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, a):
    return tf.math.erf(a)

@tf_test_utils.compile_module(LiteModule, exported_names=["accumulate"])
class LiteTest(tf_test_utils.TracedModuleTestCase):
  def test_accumulate(self):
    def accumulate(module):
      module.accumulate(np.arange(4, dtype=np.float32))
      module.accumulate(np.ones(4, dtype=np.float32))
    self.compare_backends(accumulate)

@tf_test_utils.compile_module(LiteModule)
class LiteErfTest(tf_test_utils.TracedModuleTestCase):
  def test_erf(self):
    def erf(module):
      module.erf(np.ones(4, dtype=np.float32))
    self.compare_backends(erf)

if __name__ == "__main__":
  tf.test.main()
'''


class TfLiteBackendRunTest(absltest.TestCase):
  """A user's test file on tflite: as a target beside llvm-cpu, and as the reference."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.root = tempfile.mkdtemp()
    cls.path = os.path.join(cls.root, "lite_test.py")
    with open(cls.path, "w") as f:
      f.write(TEST_FILE)

  def _run(self, name: str, *flags: str):
    artifacts = os.path.join(self.root, name)
    ran = test_files.run_test_file(self.path, f"--artifacts_dir={artifacts}",
                                   "--nocompile_cache", *flags)
    return ran, artifacts

  def test_tflite_as_a_target_passes_beside_llvm_cpu(self):
    ran, artifacts = self._run("target", "--target_backends=tflite,iree_llvmjit",
                               "LiteTest")
    self.assertEqual(ran.returncode, 0, ran.stderr[-3000:])
    self.assertTrue(os.path.isfile(
        os.path.join(artifacts, "LiteModule", "tflite", "accumulate.tflite")))

  def test_tflite_as_the_reference(self):
    ran, artifacts = self._run("reference", "--reference_backend=tflite",
                               "--target_backends=iree_llvmjit,tf", "LiteTest")
    self.assertEqual(ran.returncode, 0, ran.stderr[-3000:])
    traces = os.listdir(os.path.join(artifacts, "LiteModule", "traces"))
    self.assertIn("accumulate__tflite_ref", traces)

  def test_replay_runs_the_tflite_models_without_tensorflow(self):
    _, artifacts = self._run("replayed", "--target_backends=tflite,iree_llvmjit", "LiteTest")
    trace = os.path.join(artifacts, "LiteModule", "traces", "accumulate__tf_ref")
    ran = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.replay", trace, "--target_backends=tflite"],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
            [ROOT] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])),
        check=False, timeout=300)
    if tflite_modules.litert_interpreter_class() is None:  # LiteRT is what bootstrap installs.
      self.assertEqual(ran.returncode, 2, ran.stdout + ran.stderr)
      self.assertIn("pip install ai-edge-litert", ran.stderr)
    else:
      self.assertEqual(ran.returncode, 0, ran.stdout + ran.stderr)
      self.assertIn("tflite", ran.stdout)

  def test_replay_on_tflite_names_a_method_that_did_not_convert(self):
    _, artifacts = self._run("replayed_erf", "--target_backends=tflite,iree_llvmjit",
                             "LiteErfTest")
    if tflite_modules.litert_interpreter_class() is None:
      self.skipTest("LiteRT's interpreter is not installed (scripts/bootstrap.sh installs it)")
    outcome, = replay.replay(os.path.join(artifacts, "LiteModule", "traces", "erf__tf_ref"),
                             ["tflite"])
    self.assertEqual(outcome.status.name, "COMPILE_ERROR")
    self.assertIn("'tf.Erf' op is neither a custom op nor a flex op", outcome.detail)

  def test_a_method_tflite_cannot_convert_is_its_compile_error(self):
    ran, artifacts = self._run("erf", "--target_backends=tflite", "LiteErfTest")
    self.assertNotEqual(ran.returncode, 0)
    with open(os.path.join(artifacts, "LiteModule", "report.json")) as f:
      report = json.load(f)
    text = json.dumps(report)
    self.assertIn("COMPILE", text)
    self.assertIn("'tf.Erf' op is neither a custom op nor a flex op", text)
    with open(os.path.join(artifacts, "LiteModule", "report.txt")) as f:
      self.assertNotIn("Traceback", f.read())


if __name__ == "__main__":
  absltest.main()
