"""A method compiled "alone" is isolated from its bad siblings, wherever the library does it: the
per-method compile fallback, replay, bundles, the localizer's reduced module and make_repros.

The planted siblings are einsums with a repeated index (`ii->`, `bii->b`): IREE 3.13's StableHLO
preprocessing rejects them, and it runs on private functions too, so a sibling that is only made
private fails every method with its own error (0 of 15 methods compiled once, where 13 had
nothing wrong). Real TensorFlow, real iree-compile and runtime.
"""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import bundle
from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.reporting.verdicts import Status
from pyiree_tf_support.tools import make_repros
from pyiree_tf_support.tools.repro_layout import Listed

BACKEND = "iree_llvmcpu"
X = np.array([0.7, 1.2, 2.6, -3.3], np.float32)
M33 = np.arange(9, dtype=np.float32).reshape(3, 3)


class Siblings(tf.Module):
  """Two methods IREE rejects beside two it compiles, one of them keeping state."""

  def __init__(self):
    super().__init__()
    self.calls = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([2, 3, 3], tf.float32)])
  def batch_trace(self, x):
    return tf.einsum("bii->b", x)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    self.calls.assign_add(1.0)
    return 2 * x + self.calls

  @tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])
  def trace(self, x):
    return tf.einsum("ii->", x)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def truncate(self, x):
    """vmvx rounds this f32 -> i32 convert, TensorFlow and llvm-cpu truncate: for the localizer."""
    return tf.cast(x, tf.int32) * np.array([1, 10, 100, 1000], np.int32)


def double_twice(module):
  module.double(X)
  module.double(X)


def truncate_once(module):
  module.truncate(X)


def trace_once(module):
  module.trace(M33)


class IsolatedFallbackTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.artifacts_dir = tempfile.mkdtemp()

    @tf_test_utils.compile_module(Siblings)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_double(self):
        self.compare_backends(double_twice)

      def test_trace(self):
        self.compare_backends(trace_once)

      def test_truncate(self):
        self.compare_backends(truncate_once)

    with flagsaver.flagsaver(artifacts_dir=cls.artifacts_dir, compile_cache=False,
                             target_backends=BACKEND):
      suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
      cls.result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    cls.case = Case
    cls.module_dir = os.path.join(cls.artifacts_dir, "Siblings")

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.artifacts_dir, ignore_errors=True)
    super().tearDownClass()

  def trace_dir(self, name: str) -> str:
    return os.path.join(self.module_dir, "traces", f"{name}__tf_ref")

  def test_the_compile_fallback_compiles_every_good_method(self):
    record = self.case._setup.targets[0].module.method_compiles
    self.assertEqual(record.compiled, ("double", "truncate"))
    failed = {f.method: f.reason for f in record.failed}
    self.assertEqual(list(failed), ["batch_trace", "trace"])
    # Each bad method fails with its own error, not with the first sibling's.
    self.assertIn("number of output elements (2) doesn't match", failed["batch_trace"])
    self.assertIn("number of output elements (1) doesn't match", failed["trace"])
    self.assertEqual([t.id().rsplit(".", 1)[1] for t, _ in self.result.failures], ["test_trace"])
    self.assertEqual(self.result.errors, [])

  def test_replay_compiles_the_traced_methods_apart_from_the_bad_ones(self):
    (outcome,) = replay.replay(self.trace_dir("double_twice"), [BACKEND])
    self.assertEqual(outcome.status, Status.PASS, outcome.detail)

  def test_a_bundle_lacks_only_the_bad_methods(self):
    out = bundle.write(self.module_dir, tempfile.mkdtemp(dir=self.artifacts_dir), [BACKEND])
    with open(os.path.join(out, "manifest.json")) as f:
      manifest = json.load(f)
    self.assertEqual(sorted(manifest["backends"][BACKEND]["absent_methods"]),
                     ["batch_trace", "trace"])

  def test_a_compile_repro_shows_its_own_methods_error(self):
    with open(os.path.join(self.module_dir, "report.json")) as f:
      tests = json.load(f)["tests"]
    (test_id,) = [t for t in tests if t.endswith(".test_trace")]
    trace = tests[test_id]["traces"][0]
    found = make_repros.Found(self.module_dir, test_id, trace, trace["backends"][0], "compile")
    out = tempfile.mkdtemp(dir=self.artifacts_dir)
    make_repros.write_compile(Listed("e2e", BACKEND, "siblings_test.py", "compile", ""), found,
                              out)
    with open(os.path.join(out, "iree_input.mlir")) as f:
      reduced = f.read()
    with self.assertRaises(compiler.CompileError) as raised:
      compiler.compile_request(compiler.CompileRequest(reduced, ("llvm-cpu",)), "the repro")
    self.assertIn("number of output elements (1) doesn't match", raised.exception.reason)

  def test_the_localizer_reduces_the_module_to_the_traced_method(self):
    completed = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localize", self.trace_dir("truncate_once"),
         "--target_backends=iree_vmvx"], capture_output=True, text=True, check=False,
        timeout=900)
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    self.assertRegex(completed.stdout.splitlines()[0],
                     r": dispatch truncate_dispatch_0::\S+ \(occurrence 0\)")


if __name__ == "__main__":
  absltest.main()
