"""The bundle and replay commands as a user runs them (real processes, TensorFlow and IREE) on a
user's own module with one method IREE cannot compile (tf.math.erf) and one it can: the bundle
holds what compiles and says what is absent, never a partial bundle; replay is quiet, lists its
own flags and replays a bundle's backends without being told them."""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest

from tests.support.repo import ROOT

USER_TEST = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

X = np.array([1., 2., 3., 4.], np.float32)

class Mixed(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return 2 * x

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)

class OnlyErf(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)

def call_double(module):
  module.double(X)

def call_erf(module):
  module.erf(X)

@tf_test_utils.compile_module(Mixed)
class MixedTest(tf_test_utils.TracedModuleTestCase):
  def test_double(self):
    self.compare_backends(call_double)

  def test_erf(self):
    self.compare_backends(call_erf)

@tf_test_utils.compile_module(OnlyErf)
class OnlyErfTest(tf_test_utils.TracedModuleTestCase):
  def test_erf(self):
    self.compare_backends(call_erf)

if __name__ == "__main__":
  tf.test.main()
'''
BACKENDS = "iree_vmvx,iree_llvmjit"


def run(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                        timeout=600, check=False,
                        env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2"))


class CommandsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    work = tempfile.mkdtemp()
    test_file = os.path.join(work, "mixed_test.py")
    with open(test_file, "w") as f:
      f.write(USER_TEST)
    cls.artifacts_dir = os.path.join(work, "artifacts")
    ran = run(test_file, f"--target_backends={BACKENDS}", f"--artifacts_dir={cls.artifacts_dir}",
              "--nocompile_cache")
    assert "FAILED (failures=2)" in ran.stderr, ran.stderr[-3000:]  # the two erf traces.
    cls.bundles = os.path.join(work, "bundles")
    cls.made = run("-m", "pyiree_tf_support.bundle", os.path.join(cls.artifacts_dir, "Mixed"),
                   cls.bundles, f"--target_backends={BACKENDS}", "--nocompile_cache")
    cls.module = os.path.join(cls.bundles, "Mixed")

  def trace(self, name: str, module_dir=None) -> str:
    return os.path.join(module_dir or self.module, "traces", f"{name}__tf_ref")

  # Item 3: a module that compiles in part.
  def test_a_partly_compiling_module_is_bundled_with_the_absent_methods_recorded(self):
    self.assertEqual(self.made.returncode, 0, self.made.stderr[-3000:])
    self.assertEqual(self.made.stdout.strip(), self.module)
    self.assertNotIn("Traceback", self.made.stderr)
    self.assertIn("bundle: iree_vmvx lacks the method(s) that did not compile: erf",
                  self.made.stderr)
    with open(os.path.join(self.module, "manifest.json")) as f:
      manifest = json.load(f)
    for backend in BACKENDS.split(","):
      self.assertEqual(list(manifest["backends"][backend]["absent_methods"]), ["erf"])
      self.assertRegex(manifest["backends"][backend]["absent_methods"]["erf"],
                       r"^iree_input.mlir:\d+:\d+: error: failed to legalize operation "
                       r"'stablehlo.custom_call'")
    self.assertEqual(sorted(os.listdir(self.bundles)), ["Mixed"])  # no temporary dir left.

  def test_replay_of_a_bundle_runs_what_compiled_and_names_the_absent_method(self):
    passed = run("-m", "pyiree_tf_support.replay", self.trace("call_double"),
                 "--target_backends=iree_vmvx")
    self.assertEqual(passed.returncode, 0, passed.stdout + passed.stderr[-3000:])
    self.assertIn("iree_vmvx: PASS", passed.stdout)
    absent = run("-m", "pyiree_tf_support.replay", self.trace("call_erf"),
                 "--target_backends=iree_vmvx")
    self.assertEqual(absent.returncode, 1, absent.stdout + absent.stderr[-3000:])
    self.assertRegex(absent.stdout, r"iree_vmvx: COMPILE ERROR\n  call 0 \(erf\): method 'erf' did "
                     r"not compile for iree_vmvx: iree_input.mlir:\d+:\d+: error: failed to "
                     r"legalize operation 'stablehlo.custom_call'")

  def test_a_bundle_nothing_compiles_for_leaves_nothing_and_says_so_in_one_line(self):
    bundles = tempfile.mkdtemp()
    failed = run("-m", "pyiree_tf_support.bundle", os.path.join(self.artifacts_dir, "OnlyErf"),
                 bundles, "--target_backends=iree_vmvx", "--nocompile_cache")
    self.assertEqual((failed.returncode, failed.stdout), (2, ""), failed.stderr[-3000:])
    self.assertLen(failed.stderr.splitlines(), 1, failed.stderr)
    self.assertIn("bundle: No method of module 'OnlyErf' compiles for iree_vmvx: iree_input.mlir:",
                  failed.stderr)
    self.assertEqual(os.listdir(bundles), [])

  # Item 16: replay's command line.
  def test_replay_is_quiet_unless_verbose(self):
    trace = self.trace("call_double", os.path.join(self.artifacts_dir, "Mixed"))
    quiet = run("-m", "pyiree_tf_support.replay", trace, "--target_backends=iree_vmvx",
                "--nocompile_cache")
    self.assertEqual(quiet.returncode, 0, quiet.stdout + quiet.stderr[-3000:])
    self.assertEqual(quiet.stderr, "")
    verbose = run("-m", "pyiree_tf_support.replay", trace, "--target_backends=iree_vmvx",
                  "--nocompile_cache", "--verbose")
    self.assertEqual(verbose.returncode, 0, verbose.stdout + verbose.stderr[-3000:])
    self.assertIn("Invoke IREE Tool", verbose.stderr)

  def test_help_lists_replays_flags_and_helpfull_the_rest(self):
    shown = run("-m", "pyiree_tf_support.replay", "--help")  # exit 1, as absl's --help.
    self.assertIn("python -m pyiree_tf_support.replay <artifacts>/<Module>/traces/", shown.stdout)
    for flag in ("--target_backends", "--tolerances", "--[no]recompile", "--[no]verbose",
                 "--compile_timeout", "--call_timeout", "--[no]compile_cache"):
      self.assertIn(flag, shown.stdout)
    for flag in ("xfail_backends", "artifacts_dir", "logtostderr"):
      self.assertNotIn(flag, shown.stdout)
    everything = run("-m", "pyiree_tf_support.replay", "--helpfull")
    for flag in ("--target_backends", "--xfail_backends", "--[no]logtostderr"):
      self.assertIn(flag, everything.stdout)

  def test_a_bundle_supplies_the_backends_when_none_are_named(self):
    replayed = run("-m", "pyiree_tf_support.replay", self.trace("call_double"))
    self.assertEqual(replayed.returncode, 0, replayed.stdout + replayed.stderr[-3000:])
    self.assertIn("2 pass (iree_llvmjit, iree_vmvx)", replayed.stdout)
    outside = run("-m", "pyiree_tf_support.replay",
                  self.trace("call_double", os.path.join(self.artifacts_dir, "Mixed")))
    self.assertEqual((outside.returncode, outside.stdout), (2, ""), outside.stderr)
    self.assertLen(outside.stderr.splitlines(), 1, outside.stderr)
    self.assertIn("--target_backends is required outside a bundle", outside.stderr)


if __name__ == "__main__":
  absltest.main()
