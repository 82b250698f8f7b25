"""The verdicts no planted dispatch edit reaches: target-independent, not traceable, masked by
tracing. Real TensorFlow traces, real iree-compile, real runs on each backend.

- target-independent: IREE loses a variable stored inside a tf.cond branch on every backend
  (e2e/conditional_assign_test.py), so no trusted backend is right and a cross-backend diff can
  say nothing; without the oracle outside IREE the localizer must say so, never "no
  divergence" (with it: localize_oracle_test.py).
- not traceable: a matmul inside a while loop needs regex tracing (top-level tracing does not
  see inside loops), and with --iree-opt-data-tiling regex tracing does not compile (its trace
  ops carry data-tiled encodings); the test shows iree-compile failing so.
- masked by tracing: no IREE 3.13 miscompile is known to vanish when traced (the copy-only
  Vulkan state bug, e2e/repros/findings/vulkan_copy_only_state, vanishes as soon as the module
  has a dispatch, so nothing traced can mask it). The case is planted through a real flag
  instead: the module as tested is compiled with --iree-hal-substitute-executable-source (an add
  edited into a sub), the traced formation without it, which is what masking looks like to the
  localizer: wrong as tested, right when traced.
"""

import importlib.util
import os
import re
import subprocess
import sys
import tempfile
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.localizing import formation
from pyiree_tf_support.localizing import oracle_run
from tests.support import recorded_traces


class StoreIf(tf.Module):
  """conditional_assign_test.py's store_if, with a dispatch in the branch (x * 2): the read
  after the branch sees the old value on every IREE backend."""

  def __init__(self):
    super().__init__()
    self.value = tf.Variable(np.zeros([2], np.float32))

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.bool)])
  def store_if(self, x, pred):
    if pred:
      self.value.assign(x * 2.0)
    return self.value.read_value()


class StoreIfCopy(tf.Module):
  """store_if itself: no dispatch at all (the localizer's path for copy-only modules)."""

  def __init__(self):
    super().__init__()
    self.value = tf.Variable(np.zeros([2], np.float32))

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32), tf.TensorSpec([], tf.bool)])
  def store_if(self, x, pred):
    if pred:
      self.value.assign(x)
    return self.value.read_value()


class MatmulLoop(tf.Module):
  """A matmul inside a while loop (a dispatch only regex tracing sees)."""

  @tf.function(input_signature=[tf.TensorSpec([8, 8], tf.float32)])
  def iterate(self, x):
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.matmul(v, x) * 0.5),
                         (tf.constant(0), x))
    return y


class Adding(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def add(self, x):
    return x + np.array([1., 2., 3., 4.], np.float32)


class Truncating(tf.Module):
  """vmvx rounds an f32 -> i32 convert that TensorFlow truncates (a real miscompile)."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32)


def truncate_once(module):
  module.truncate(np.array([0.7, 1.2, 2.6, -3.3], np.float32))


def store_once(module):
  module.store_if(np.array([1., 2.], np.float32), np.array(True))


def iterate_once(module):
  module.iterate(np.eye(8, dtype=np.float32) * 0.9)


def add_once(module):
  module.add(np.array([0.5, -1., 2., 0.], np.float32))


def _localize(trace_dir: str, backend: str, *extra: str, env=None) -> str:
  completed = subprocess.run(
      [sys.executable, "-m", "pyiree_tf_support.localize", trace_dir,
       f"--target_backends={backend}", *extra],
      capture_output=True, text=True, check=False, timeout=900, env=env)
  if completed.returncode != 0:
    raise AssertionError(f"localize failed ({completed.returncode}): {completed.stderr[-3000:]}")
  return completed.stdout.splitlines()[0]


class VerdictTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((StoreIf, store_once, ("iree_llvmcpu",), False),
           (StoreIfCopy, store_once, ("iree_llvmcpu",), False),
           (MatmulLoop, iterate_once, ("iree_llvmcpu",), True),
           (Adding, add_once, ("iree_llvmcpu",), True),
           (Truncating, truncate_once, ("iree_llvmcpu",), True))

  def test_target_independent_when_every_trusted_backend_is_wrong(self):
    """Without the oracle (localize_oracle_test.py: with it) nothing outside IREE can say more:
    target-independent, and why the oracle did not run."""
    if importlib.util.find_spec("jaxlib") is not None:
      self.skipTest("jaxlib is installed in this environment itself: the oracle always runs")
    no_oracle = dict(os.environ, **{oracle_run.PATH_VARIABLE: self.artifacts_dir})
    for module in ("StoreIf", "StoreIfCopy"):
      with self.subTest(module):
        verdict = _localize(self.trace_dirs[module], "iree_llvmcpu", env=no_oracle)
        self._assert_target_independent(verdict)
        self.assertIn(f"; the oracle could not run: {oracle_run.MISSING_MESSAGE}", verdict)

  def _assert_target_independent(self, verdict: str):
    # No trusted backend backs the verdict: the headline names none (none was right).
    self.assertIn("localized call 0 (store_if) on iree_llvmcpu: target-independent", verdict)
    self.assertIn(": target-independent: every trusted backend tried (iree_vmvx, iree_vulkan)"
                  " also gets calls 0..0 wrong", verdict)
    self.assertNotIn("no divergence", verdict)

  def test_not_traceable_with_data_tiling_inside_a_loop(self):
    # Without data tiling the loop's dispatches are traced (inside the loop): no divergence.
    self.assertIn(": no divergence", _localize(self.trace_dirs["MatmulLoop"], "iree_llvmcpu"))
    verdict = _localize(self.trace_dirs["MatmulLoop"], "iree_llvmcpu",
                        "--iree_compile_flags=iree_llvmcpu:--iree-opt-data-tiling")
    self.assertRegex(verdict, r": not traceable: 2 of 2 dispatches sit inside control flow.*"
                     "data-tiled encodings")
    # Why: regex tracing with data tiling does not compile in IREE 3.13.
    module_dir = os.path.dirname(os.path.dirname(self.trace_dirs["MatmulLoop"]))
    completed = subprocess.run(
        [formation.compiler_tool(), os.path.join(module_dir, "iree_input.mlir"),
         f"--iree-input-type={formation.INPUT_TYPE}", "--iree-hal-target-backends=llvm-cpu",
         "--iree-opt-data-tiling", formation.TRACE_EVERY_REGION, "-o", os.devnull],
        capture_output=True, text=True, check=False, timeout=600)
    self.assertNotEqual(completed.returncode, 0)
    self.assertIn("'hal.encoding_type' op unsupported encoding type", completed.stderr)

  def test_masked_by_tracing(self):
    trace_dir = self.trace_dirs["Adding"]
    clean = localize.localize(trace_dir, "iree_llvmcpu")
    self.assertIs(clean.kind, engine.Kind.NONE)
    sources = clean.formed.suspect.sources_dir
    (name,) = os.listdir(sources)
    with open(os.path.join(sources, name)) as f:
      text = f.read()
    executable = re.search(r"hal\.executable public @(\S+)", text).group(1)
    planted = os.path.join(self.artifacts_dir, name)
    with open(planted, "w") as f:
      f.write(text.replace("arith.addf", "arith.subf", 1))
    real_compile = engine._untraced_vmfb

    def as_tested(loaded, spec, flags, *args, **kwargs):
      """The real compile of the module as tested, the suspect's with the planted edit."""
      if spec.name == "iree_llvmcpu":
        flags = tuple(flags) + (
            f"--iree-hal-substitute-executable-source={executable}={planted}",)
      return real_compile(loaded, spec, flags, *args, **kwargs)

    with mock.patch.object(engine, "_untraced_vmfb", as_tested):
      result = localize.localize(trace_dir, "iree_llvmcpu")
    self.assertIs(result.kind, engine.Kind.MASKED, result.detail)
    self.assertIn("iree_llvmcpu gets call 0 wrong as compiled for the test, but right with a "
                  "trace at every dispatch", result.detail)


  def test_not_traceable_when_the_tensors_are_over_the_memory_budget(self):
    """Kept as digests only, a differing tensor's error is unknown: nothing is blamed or
    cleared (with the default budget, the same call names the convert's dispatch)."""
    result = localize.localize(self.trace_dirs["Truncating"], "iree_vmvx", tensor_budget=0)
    self.assertIs(result.kind, engine.Kind.NOT_TRACEABLE, result.detail)
    self.assertIn("over the memory budget", result.detail)
    result = localize.localize(self.trace_dirs["Truncating"], "iree_vmvx")
    self.assertIs(result.kind, engine.Kind.DISPATCH, result.detail)

  def test_the_module_as_tested_goes_through_the_compile_cache(self):
    """The test's own compile (same input, targets, flags) is reused; a flag naming a file keys
    the file's contents, so an edited file is a new entry, never a stale hit."""
    cache_dir = tempfile.mkdtemp(dir=self.artifacts_dir)
    _localize(self.trace_dirs["Adding"], "iree_llvmcpu", f"--compile_cache_dir={cache_dir}")
    self.assertNotEmpty(os.listdir(cache_dir))
    planted = os.path.join(self.artifacts_dir, "unused_source.mlir")
    cache_dir = tempfile.mkdtemp(dir=self.artifacts_dir)

    def entries():
      return {name for sub in os.listdir(cache_dir) if len(sub) == 2
              for name in os.listdir(os.path.join(cache_dir, sub))}

    seen = []
    for text in ("// not an executable of this module\n", "// edited\n"):
      with open(planted, "w") as f:
        f.write(text)
      _localize(self.trace_dirs["Adding"], "iree_llvmcpu", f"--compile_cache_dir={cache_dir}",
                "--iree_compile_flags=iree_llvmcpu:--iree-hal-substitute-executable-source="
                f"no_such_executable={planted}")
      seen.append(entries())
    self.assertNotEmpty(seen[0])
    self.assertGreater(len(seen[1]), len(seen[0]))

if __name__ == "__main__":
  absltest.main()
