"""The localizer names exactly the dispatch a planted miscompile edited, on llvm-cpu and Vulkan.

Each miscompile is real IREE output: an executable's source as iree-compile dumped it, edited
(an add turned into a sub, exp into exp2, an accumulator initialised to 1e-4) and compiled back
in with --iree-hal-substitute-executable-source, passed through --iree_compile_flags like any
flag a user adds. The same module without the edit has no divergence. The localizer runs as a
user runs it: `python -m pyiree_tf_support.localize` in a process of its own.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from tests.support import recorded_traces

# A matmul's accumulator is filled with this constant (a reduction's with -0.0, not matched).
ACC_ZERO = "arith.constant 0.000000e+00 : f32"
ACC_PLANTED = "arith.constant 1.000000e-04 : f32"
RNG = np.random.default_rng(7)
A = RNG.standard_normal((4, 8)).astype(np.float32)
W = RNG.standard_normal((8, 16)).astype(np.float32) * 0.3
W2 = RNG.standard_normal((16, 8)).astype(np.float32) * 0.3


class Mlp(tf.Module):
  """Three dispatches: matmul + bias + tanh, a reduction, and matmul + exp."""

  def __init__(self):
    super().__init__()
    self.w = tf.constant(W)
    self.b = tf.constant(np.linspace(-1, 1, 16, dtype=np.float32))
    self.w2 = tf.constant(W2)

  @tf.function(input_signature=[tf.TensorSpec([4, 8], tf.float32)])
  def predict(self, x):
    h = tf.tanh(tf.matmul(x, self.w) + self.b)
    total = tf.reduce_sum(h, axis=1)
    return total, tf.exp(tf.matmul(h, self.w2))


class Mlp64(tf.Module):
  """f64 kept on the CPU targets: dispatches formed with the suspect's flags stay f64."""

  @tf.function(input_signature=[tf.TensorSpec([4, 8], tf.float64)])
  def predict(self, x):
    return tf.exp(tf.matmul(x, tf.constant(W.astype(np.float64))) + 0.5)


class Accumulator(tf.Module):
  """A running total: an add turned into a sub is only visible once something is added."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(tf.ones([4], tf.float32))

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def accumulate(self, x):
    self.total.assign(self.total * 1.5 + x)
    return self.total


class Looping(tf.Module):
  """A dispatch inside a while loop, which top-level tracing does not see."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def iterate(self, x):
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.exp(v) * 0.5 + v),
                         (tf.constant(0), x))
    return y


class Window(tf.Module):
  """Only copies: a window shifted by slicing and concatenating, stored and returned. Vulkan
  (lavapipe) loses the stored window across invocations (e2e/repros/findings/
  vulkan_copy_only_state): the wrong step is a copy, not a dispatch."""

  def __init__(self):
    super().__init__()
    self.window = tf.Variable(tf.zeros([4, 3], tf.float32))

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def push(self, x):
    self.window.assign(tf.concat([self.window[1:], x[None]], axis=0))
    return self.window


class Truncating(tf.Module):
  """A real miscompile: vmvx rounds an f32 -> i32 convert that TensorFlow truncates."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32) * np.array([1, 10, 100, 1000], np.int32)


def truncate_once(module):
  module.truncate(np.array([0.7, 1.2, 2.6, -3.3], np.float32))


def push_three(module):
  for i in range(3):
    module.push(np.array([i + 1., 10. * (i + 1.), -1.], np.float32))


def predict_once(module):
  module.predict(A)


def predict_once_64(module):
  module.predict(A.astype(np.float64) * 0.1)


def accumulate_three(module):
  zero = np.zeros([4], np.float32)
  module.accumulate(zero)
  module.accumulate(zero)
  module.accumulate(np.array([0.5, -1.0, 2.0, 0.25], np.float32))


def iterate_once(module):
  module.iterate(np.array([0.1, -0.2, 0.3, 0.0], np.float32))


def _localize(trace_dir: str, backend: str, *extra: str) -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, "-m", "pyiree_tf_support.localize", trace_dir,
       f"--target_backends={backend}", *extra],
      capture_output=True, text=True, check=False, timeout=900)


def _verdict(completed: subprocess.CompletedProcess) -> str:
  if completed.returncode != 0:
    raise AssertionError(f"localize failed ({completed.returncode}): {completed.stderr[-3000:]}")
  return completed.stdout.splitlines()[0]


class InjectedMiscompileTest(recorded_traces.RecordedTraces, parameterized.TestCase):
  """Every planted miscompile is named, exactly; without one there is no divergence."""

  CASES = tuple((module_class, trace_function, ("iree_llvmcpu",), True)
                for module_class, trace_function in (
                    (Mlp, predict_once), (Mlp64, predict_once_64),
                    (Accumulator, accumulate_three), (Looping, iterate_once),
                    (Window, push_three), (Truncating, truncate_once)))

  def _clean_sources(self, module: str, backend: str) -> str:
    """Localizes the unedited module (no divergence) and returns the suspect's sources dir."""
    verdict = _verdict(_localize(self.trace_dirs[module], backend))
    self.assertIn("no divergence", verdict)
    localized = os.path.join(os.path.dirname(os.path.dirname(self.trace_dirs[module])),
                             "localize")
    (run_dir,) = [os.path.join(localized, d) for d in os.listdir(localized)
                  if d.endswith("__" + backend)]
    (side,) = [d for d in os.listdir(run_dir)
               if d.startswith("iree_") and os.path.isdir(os.path.join(run_dir, d))]
    return os.path.join(run_dir, side, "sources_suspect")

  def _planted(self, sources: str, holding: str, old: str, new: str):
    """(executable name, edited copy's path) of the first dumped source holding `holding` and
    `old`, with the first `old` replaced by `new`."""
    texts = {}
    for name in sorted(os.listdir(sources)):
      with open(os.path.join(sources, name)) as f:
        texts[name] = f.read()
    name = next((n for n, t in texts.items() if holding in t and old in t), None)
    self.assertIsNotNone(name, f"no source holds {holding!r} and {old!r}: {sorted(texts)}")
    text = texts[name]
    executable = re.search(r"hal\.executable public @(\S+)", text).group(1)
    path = os.path.join(tempfile.mkdtemp(dir=self.artifacts_dir), name)
    with open(path, "w") as f:
      f.write(text.replace(old, new, 1))
    return executable, path

  @parameterized.named_parameters(
      ("add_to_sub_llvmcpu", "iree_llvmcpu", "math.tanh", "arith.addf", "arith.subf"),
      ("exp_to_exp2_llvmcpu", "iree_llvmcpu", "matmul", "math.exp ", "math.exp2 "),
      ("accumulator_init_llvmcpu", "iree_llvmcpu", "matmul", ACC_ZERO, ACC_PLANTED),
      ("add_to_sub_vulkan", "iree_vulkan", "math.tanh", "arith.addf", "arith.subf"),
      ("exp_to_exp2_vulkan", "iree_vulkan", "matmul", "math.exp ", "math.exp2 "),
      ("accumulator_init_vulkan", "iree_vulkan", "matmul", ACC_ZERO, ACC_PLANTED),
  )
  def test_names_the_edited_dispatch(self, backend, part, old, new):
    executable, path = self._planted(self._clean_sources("Mlp", backend), part, old, new)
    verdict = _verdict(_localize(
        self.trace_dirs["Mlp"], backend,
        f"--iree_compile_flags={backend}:--iree-hal-substitute-executable-source="
        f"{executable}={path}"))
    self.assertRegex(verdict, rf": dispatch {re.escape(executable)}::\S+ \(occurrence 0\)")
    if old == "arith.addf":  # the first dispatch: the suspect's run stops right after it.
      run_dir = os.path.dirname(os.path.dirname(self.trace_dirs["Mlp"]))
      (result,) = glob.glob(os.path.join(run_dir, "localize", f"*__{backend}", "iree_*",
                                         "suspect_run", "result.json"))
      with open(result) as f:
        document = json.load(f)
      traced = document["events"]
      self.assertLen(traced, 2)  # the dispatch's inputs and outputs, nothing after
      self.assertIn(executable, traced[1]["label"])
      self.assertTrue(traced[1]["label"].endswith(" outputs"))
      self.assertIn("array", traced[1]["tensors"][0])  # compared: the divergence
      self.assertIsNone(document["error"])
      self.assertRegex(document["stopped"], r"^at the divergence \(event 1, call 0\): dispatch$")

  def test_stateful_module_failing_at_call_2(self):
    executable, path = self._planted(self._clean_sources("Accumulator", "iree_llvmcpu"),
                                     "accumulate", "arith.addf", "arith.subf")
    verdict = _verdict(_localize(
        self.trace_dirs["Accumulator"], "iree_llvmcpu",
        f"--iree_compile_flags=iree_llvmcpu:--iree-hal-substitute-executable-source="
        f"{executable}={path}"))
    self.assertIn("localized call 2 (accumulate)", verdict)
    self.assertRegex(verdict, rf": dispatch {re.escape(executable)}::\S+ \(occurrence 0\)")

  def test_f64_module(self):
    executable, path = self._planted(self._clean_sources("Mlp64", "iree_llvmcpu"),
                                     "f64", "math.exp ", "math.exp2 ")
    verdict = _verdict(_localize(
        self.trace_dirs["Mlp64"], "iree_llvmcpu",
        f"--iree_compile_flags=iree_llvmcpu:--iree-hal-substitute-executable-source="
        f"{executable}={path}"))
    self.assertRegex(verdict, rf": dispatch {re.escape(executable)}::\S+_f64 \(occurrence 0\)")

  def test_loop_module(self):
    executable, path = self._planted(self._clean_sources("Looping", "iree_llvmcpu"),
                                     "iterate", "math.exp ", "math.exp2 ")
    completed = _localize(
        self.trace_dirs["Looping"], "iree_llvmcpu",
        f"--iree_compile_flags=iree_llvmcpu:--iree-hal-substitute-executable-source="
        f"{executable}={path}")
    self.assertRegex(_verdict(completed),
                     rf": dispatch {re.escape(executable)}::\S+ \(occurrence 0\)")
    # Top-level tracing does not see inside the loop: the formation traced every region.
    self.assertIn("(--iree-flow-trace-dispatch=.*)", completed.stdout)

  def test_copy_only_wrong_step_is_outside_any_dispatch(self):
    verdict = _verdict(_localize(self.trace_dirs["Window"], "iree_vulkan"))
    self.assertIn("localized call 1 (push) on iree_vulkan against iree_llvmcpu: outside any "
                  "dispatch", verdict)

  def test_standalone_repro_shows_the_divergence(self):
    completed = _localize(self.trace_dirs["Truncating"], "iree_vmvx")
    self.assertRegex(_verdict(completed), r": dispatch truncate_dispatch_0::\S+ \(occurrence 0\)")
    script = re.search(r"the dispatch alone, on both backends: (\S+) (\S+)$", completed.stdout,
                       re.MULTILINE)
    self.assertIsNotNone(script, completed.stdout)
    self.assertTrue(os.path.isabs(script.group(1)))
    # Pasted from / without the venv on PATH: it needs neither the library nor TensorFlow.
    rerun = subprocess.run([script.group(1), "-I", script.group(2)], cwd="/",
                           capture_output=True, text=True, check=False,
                           env={"PATH": "/usr/bin:/bin"}, timeout=300)
    self.assertEqual(rerun.stdout.splitlines()[-1:], ["DIVERGES"], rerun.stderr[-3000:])
    self.assertEqual(rerun.returncode, 1)
    # 0.7 rounded to 1 on vmvx, truncated to 0 on llvm-cpu (as TensorFlow does).
    self.assertIn("at [0]: iree_vmvx 1 vs iree_llvmcpu 0", rerun.stdout)


if __name__ == "__main__":
  absltest.main()
