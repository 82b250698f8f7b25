"""What a run of a module with big weights writes (issue 23 item 3: a ResNet50-sized model wrote
188 MB of iree_input.mlir, its weights printed as hex text): iree_input.mlir above 4 MiB of text
is MLIR bytecode, the weights once as bytes, and every reader still works from it: replay, a
bundle and its replay, iree-compile itself, and IREE's own printer for people."""

import os
import subprocess
import sys
import tempfile

from absl.testing import absltest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.dirname(sys.executable)
ROWS, COLS = 1024, 1280
WEIGHT_BYTES = ROWS * COLS * 4  # 5.2 MB of float32: 10.5 MB as hex text.
BYTECODE = b"ML\xefR"  # MLIR bytecode's magic number.

USER_TEST = f'''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class BigWeights(tf.Module):
  def __init__(self):
    super().__init__()
    self.w = tf.Variable(np.random.RandomState(0).uniform(
        -1, 1, size=({ROWS}, {COLS})).astype(np.float32))

  @tf.function(input_signature=[tf.TensorSpec([1, {ROWS}], tf.float32)])
  def predict(self, x):
    return tf.matmul(x, self.w)

def predict(module):
  module.predict(np.random.RandomState(1).uniform(size=(1, {ROWS})).astype(np.float32),
                 rtol=1e-4, atol=1e-4)

@tf_test_utils.compile_module(BigWeights)
class BigWeightsTest(tf_test_utils.TracedModuleTestCase):
  def test_predict(self):
    self.compare_backends(predict)

if __name__ == "__main__":
  tf.test.main()
'''


def run(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                        timeout=600, check=False,
                        env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2"))


def tree_bytes(directory: str) -> int:
  return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(directory)
             for f in files)


class BigModuleFilesTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.work = tempfile.mkdtemp(prefix="big_module_")
    test_file = os.path.join(cls.work, "big_weights_test.py")
    with open(test_file, "w") as f:
      f.write(USER_TEST)
    cls.artifacts_dir = os.path.join(cls.work, "artifacts")
    ran = run(test_file, "--target_backends=iree_llvmjit", f"--artifacts_dir={cls.artifacts_dir}",
              "--nocompile_cache")
    assert ran.returncode == 0, ran.stderr[-3000:]
    cls.module_dir = os.path.join(cls.artifacts_dir, "BigWeights")
    cls.iree_input = os.path.join(cls.module_dir, "iree_input.mlir")
    cls.trace = os.path.join(cls.module_dir, "traces", "predict__tf_ref")

  def test_iree_input_holds_the_weights_once_as_bytes(self):
    with open(self.iree_input, "rb") as f:
      self.assertEqual(f.read(4), BYTECODE)
    self.assertLess(os.path.getsize(self.iree_input), 1.1 * WEIGHT_BYTES)
    # iree_input.mlir as bytecode, the vmfb and small files (today's text alone was 2x weights).
    self.assertLess(tree_bytes(self.module_dir), 2.3 * WEIGHT_BYTES)

  def test_replay_reads_it(self):
    replayed = run("-m", "pyiree_tf_support.replay", self.trace,
                   "--target_backends=iree_llvmjit", "--nocompile_cache")
    self.assertEqual(replayed.returncode, 0, replayed.stdout + replayed.stderr[-3000:])
    self.assertIn("1 pass (iree_llvmjit)", replayed.stdout)

  def test_a_bundle_holds_it_and_replays(self):
    bundles = os.path.join(self.work, "bundles")
    made = run("-m", "pyiree_tf_support.bundle", self.module_dir, bundles,
               "--target_backends=iree_llvmjit", "--nocompile_cache")
    self.assertEqual(made.returncode, 0, made.stderr[-3000:])
    bundled = os.path.join(bundles, "BigWeights")
    with open(os.path.join(bundled, "iree_input.mlir"), "rb") as f:
      self.assertEqual(f.read(4), BYTECODE)
    replayed = run("-m", "pyiree_tf_support.replay",
                   os.path.join(bundled, "traces", "predict__tf_ref"))
    self.assertEqual(replayed.returncode, 0, replayed.stdout + replayed.stderr[-3000:])
    self.assertIn("1 pass (iree_llvmjit)", replayed.stdout)

  def test_iree_compile_reads_it_and_iree_opt_prints_it(self):
    compiled = subprocess.run(
        [os.path.join(BIN, "iree-compile"), self.iree_input, "--iree-input-type=stablehlo",
         "--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic",
         "-o", os.path.join(self.work, "by_hand.vmfb")],
        capture_output=True, text=True, timeout=600, check=False)
    self.assertEqual(compiled.returncode, 0, compiled.stderr[-3000:])
    printed = subprocess.run([os.path.join(BIN, "iree-opt"), self.iree_input],
                             capture_output=True, text=True, timeout=600, check=False)
    self.assertEqual(printed.returncode, 0, printed.stderr[-3000:])
    self.assertIn("func.func @predict(", printed.stdout)


if __name__ == "__main__":
  absltest.main()
