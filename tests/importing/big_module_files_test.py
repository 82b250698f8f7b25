"""What a run of a module with big weights writes (a ResNet50-sized model once wrote
188 MB of iree_input.mlir, its weights printed as hex text): iree_input.mlir above 4 MiB of text
is MLIR bytecode, the weights once as bytes, and every reader still works from it: replay, a
bundle and its replay, the localizer, make_repros, iree-compile itself, and IREE's own printer
for people. A vmfb over 4 MiB is written only for a backend that fails (its repro runs it), not
for one that passes."""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest

from pyiree_tf_support.tools import make_repros
from pyiree_tf_support.tools import repro_layout
from tests.support.repo import ROOT

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

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def truncate(self, x):  # vmvx rounds f32 -> i32 where TF truncates: a real mismatch.
    return tf.cast(x, tf.int32) * tf.cast(self.w[0, 0] > -2, tf.int32)

def predict(module):
  module.predict(np.random.RandomState(1).uniform(size=(1, {ROWS})).astype(np.float32),
                 rtol=1e-4, atol=1e-4)

def truncate(module):
  module.truncate(np.array([0.2, 0.7, 2.6, -3.1], np.float32))

@tf_test_utils.compile_module(BigWeights)
class BigWeightsTest(tf_test_utils.TracedModuleTestCase):
  def test_predict(self):
    self.compare_backends(predict)

  def test_truncate(self):
    self.compare_backends(truncate)

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
    ran = run(test_file, "--target_backends=iree_llvmjit,iree_vmvx",
              f"--artifacts_dir={cls.artifacts_dir}", "--nocompile_cache")
    assert "FAILED (failures=1)" in ran.stderr, ran.stderr[-3000:]  # truncate on vmvx.
    cls.module_dir = os.path.join(cls.artifacts_dir, "BigWeights")
    cls.iree_input = os.path.join(cls.module_dir, "iree_input.mlir")
    cls.trace = os.path.join(cls.module_dir, "traces", "predict__tf_ref")

  def test_iree_input_holds_the_weights_once_as_bytes(self):
    with open(self.iree_input, "rb") as f:
      self.assertEqual(f.read(4), BYTECODE)
    self.assertLess(os.path.getsize(self.iree_input), 1.1 * WEIGHT_BYTES)

  def test_only_a_failing_backend_writes_its_vmfb(self):
    passing = os.path.join(self.module_dir, "compiled__iree_llvmjit.vmfb")
    failing = os.path.join(self.module_dir, "compiled__iree_vmvx.vmfb")
    self.assertFalse(os.path.exists(passing))
    self.assertTrue(os.path.isfile(failing))
    # The weights once (iree_input.mlir) besides the failing backend's vmfb: text and both
    # vmfbs were 4x the weights.
    self.assertLess(tree_bytes(self.module_dir) - os.path.getsize(failing), 1.2 * WEIGHT_BYTES)

  def test_the_failing_calls_repro_runs_its_vmfb(self):
    with open(os.path.join(self.module_dir, "report.json")) as f:
      report = json.load(f)
    [trace] = report["tests"]["__main__.BigWeightsTest.test_truncate"]["traces"]
    [vmvx] = [b for b in trace["backends"] if b["backend"] == "iree_vmvx"]
    self.assertTrue(os.path.isfile(vmvx["paths"]["compiled"]))
    rerun = subprocess.run(vmvx["commands"]["iree_run_module"], shell=True, capture_output=True,
                           text=True, timeout=600, check=False)
    self.assertEqual(rerun.returncode, 1, rerun.stdout + rerun.stderr)
    self.assertIn("4xi32=0 1 3 -3", rerun.stdout)  # vmvx's rounding, reproduced.

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

  def test_the_localizer_shows_the_lines_of_its_text(self):
    localized = run("-m", "pyiree_tf_support.localize",
                    os.path.join(self.module_dir, "traces", "truncate__tf_ref"),
                    "--target_backends=iree_vmvx")
    self.assertEqual(localized.returncode, 0, localized.stdout + localized.stderr[-3000:])
    source = os.path.join(self.module_dir, "localize", "truncate__tf_ref__iree_vmvx",
                          "iree_input.mlir")
    self.assertIn(f"its ops come from {source}:", localized.stdout)
    self.assertRegex(localized.stdout, r"\(truncate\) %0 = stablehlo.convert %arg0")


  def test_make_repros_writes_its_text(self):
    out = os.path.join(self.work, "repro_compile")
    os.makedirs(out)
    make_repros.write_compile(
        repro_layout.Listed("e2e", "iree_vmvx", "big_weights_test.py", "compile", "reason"),
        make_repros.Found(self.module_dir, "truncate", {}, {}, "compile"), out)
    with open(os.path.join(out, "iree_input.mlir")) as f:
      text = f.read()
    self.assertIn("func.func @truncate(", text)
    self.assertGreater(len(text), 2 * WEIGHT_BYTES)  # the weights as hex: a person's text.

if __name__ == "__main__":
  absltest.main()
