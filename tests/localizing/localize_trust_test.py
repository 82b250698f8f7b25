"""Verdicts rest on what they say: traced values that agree with the run as tested, trusted
backends judged by how close they are, errors that are errors. Real TensorFlow traces, real
iree-compile, real runs on llvm-cpu, vmvx and Vulkan (lavapipe).

- A stateful module on Vulkan, call 1 and later: with IREE's default indirect command buffers the
  copies that hand a dispatch's inputs to the trace read an earlier call's buffers
  (e2e/repros/findings/vulkan_stale_command_buffer_copies), which once gave "diverged outside
  any dispatch" on a module Vulkan gets right. The traced modules are compiled without them;
  with them (the flag taken away, as the bug is real), the traced values contradict the run as
  tested and the verdict must say so, never blame.
- A float32 sum of 10^6 elements: Vulkan (lavapipe) is 93 % off, llvm-cpu and vmvx 2.4e-5
  relative off (24x the default tolerance): a trusted backend is one far closer to the
  reference than the suspect, not one within tolerance, and the verdict says how close.
- A chaotic map (the sine map, 40 steps): every backend is O(1) off the reference and off each
  other, and moving the inputs by one ulp moves the results as much: accumulated drift on every
  backend, no target-independent bug.
- A trusted backend that cannot compile or run the module is no evidence: f16 (vmvx has none,
  Vulkan's default target gets f16 wrong on lavapipe) gives one line naming why each could not
  be used and a trusted backend that can (Vulkan with an f16 target, given its own flags, then
  gives a verdict); inputs every backend refuses (signatures.json out of step with the module)
  and a traced run that cannot save its tensors (a file size limit, as a full disk) are errors,
  exit status 2, never "target-independent".
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.localizing import formation
from pyiree_tf_support.localizing import report
from tests.support import recorded_traces


class Smoother(tf.Module):
  """An exponential smoother: the level (a variable) and each input meet in one dispatch."""

  def __init__(self):
    super().__init__()
    self.level = tf.Variable(tf.zeros([4], tf.float32))

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def smooth(self, x):
    self.level.assign(self.level * 0.75 + x)
    return self.level - x


def smooth_three(module):
  module.smooth(np.array([1.0, -2.0, 3.5, 0.25], np.float32))
  module.smooth(np.array([0.5, 4.0, -1.0, 2.0], np.float32))
  module.smooth(np.array([-3.0, 1.5, 0.0, 8.0], np.float32))


class Total(tf.Module):
  """A float32 sum of 10^6 elements (Vulkan on lavapipe gets it 93 % wrong)."""

  @tf.function(input_signature=[tf.TensorSpec([1000000], tf.float32)])
  def total(self, x):
    return tf.reduce_sum(x * 0.5 + 1.0)


def total_once(module):
  module.total(np.random.default_rng(3).random(1000000, dtype=np.float32))


def total_once_rtol(module):
  module.total(np.random.default_rng(3).random(1000000, dtype=np.float32), rtol=1e-4)


class SineMap(tf.Module):
  """x <- 0.99 sin(pi x), 40 times: rounding differences grow to O(1), no backend is wrong."""

  @tf.function(input_signature=[tf.TensorSpec([8], tf.float32)])
  def iterate(self, x):
    for _ in range(40):
      x = 0.99 * tf.sin(3.14159265 * x)
    return x


def iterate_once(module):
  module.iterate(np.linspace(0.1, 0.9, 8).astype(np.float32))


class HalfAttention(tf.Module):
  """softmax(q k / 2) in float16."""

  @tf.function(input_signature=[tf.TensorSpec([4, 8], tf.float16),
                                tf.TensorSpec([8, 4], tf.float16)])
  def attend(self, q, k):
    return tf.nn.softmax(tf.matmul(q, k) * tf.constant(0.5, tf.float16))


def attend_once(module):
  rng = np.random.default_rng(1)
  module.attend(rng.standard_normal((4, 8)).astype(np.float16),
                rng.standard_normal((8, 4)).astype(np.float16))


class Squares(tf.Module):
  """Two dispatches whose traced tensors are 256 KiB each, the rest of the run far less."""

  @tf.function(input_signature=[tf.TensorSpec([256], tf.float32)])
  def squares(self, x):
    outer = x[:, None] * x[None, :]
    return tf.reduce_sum(tf.matmul(outer, outer))


def squares_once(module):
  module.squares(np.linspace(-1, 1, 256).astype(np.float32))


def _localize(trace_dir: str, backend: str, *extra: str,
              file_size_limit: int = 0) -> subprocess.CompletedProcess:
  """The localize command as a user runs it (its files at most `file_size_limit` bytes)."""

  def limit():
    if file_size_limit:  # Python ignores SIGXFSZ: a longer write raises EFBIG.
      resource.setrlimit(resource.RLIMIT_FSIZE, (file_size_limit, file_size_limit))

  return subprocess.run(
      [sys.executable, "-m", "pyiree_tf_support.localize", trace_dir,
       f"--target_backends={backend}", "--nocompile_cache", *extra],
      capture_output=True, text=True, check=False, timeout=900, preexec_fn=limit)


class StatefulTracingTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((Smoother, smooth_three, ("iree_llvmcpu", "iree_vulkan")),)

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.trace_dir = cls.trace_dirs["smooth_three"]
    result = cls.results["smooth_three"]
    assert result.wasSuccessful(), ("the smoother passes on llvm-cpu and Vulkan",
                                    result.failures)

  def test_no_divergence_at_every_call_on_every_backend(self):
    for suspect in ("iree_vulkan", "iree_llvmcpu", "iree_vmvx"):
      for call in (1, 2):
        with self.subTest(suspect=suspect, call=call):
          result = localize.localize(self.trace_dir, suspect, call=call)
          self.assertIs(result.kind, engine.Kind.NONE, report.verdict_line(result))
          # Every traced dispatch input was compared, call 0 up to this call.
          self.assertEqual(sorted({row.call for row in result.finding.rows}), list(range(call + 1)))

  def test_traced_values_that_contradict_the_run_as_tested_blame_nothing(self):
    with mock.patch.object(formation, "TRACED_MODULE_FLAGS", ()):
      result = localize.localize(self.trace_dir, "iree_vulkan", call=1)
    line = report.verdict_line(result)
    self.assertIs(result.kind, engine.Kind.NOT_TRACEABLE, line)
    self.assertIn("iree_vulkan gets calls 0..1 right as compiled for the test", line)
    self.assertIn("the traced values blame", line)
    self.assertNotIn(": diverged outside any dispatch", line)


class TrustedClosenessTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((Total, total_once), (Total, total_once_rtol), (SineMap, iterate_once))

  def test_an_imprecise_trusted_backend_far_closer_than_the_suspect_is_trusted(self):
    for trusted in (None, "iree_llvmcpu", "iree_vmvx"):
      with self.subTest(trusted=trusted):
        result = localize.localize(self.trace_dirs["total_once"], "iree_vulkan", trusted)
        line = report.verdict_line(result)
        self.assertIs(result.kind, engine.Kind.DISPATCH, line)
        self.assertRegex(line, r"on iree_vulkan against iree_(llvmcpu|vmvx) \(itself 2\d(\.\d)?x "
                         r"tolerance off the reference, [\d.e+]+x closer than iree_vulkan\): "
                         r"dispatch total_dispatch_0::\S+_reduction_")
        if trusted:
          self.assertEqual(result.trusted, trusted)

  def test_the_call_s_own_tolerance_applies_to_the_trusted_backend(self):
    result = localize.localize(self.trace_dirs["total_once_rtol"], "iree_vulkan")
    line = report.verdict_line(result)
    self.assertIs(result.kind, engine.Kind.DISPATCH, line)
    self.assertIn("on iree_vulkan against iree_llvmcpu: dispatch total_dispatch_0::", line)

  def test_drift_on_every_backend_is_no_target_independent_bug(self):
    for suspect in ("iree_vulkan", "iree_llvmcpu"):
      with self.subTest(suspect=suspect):
        result = localize.localize(self.trace_dirs["iterate_once"], suspect)
        line = report.verdict_line(result)
        self.assertIs(result.kind, engine.Kind.DRIFT, line)
        self.assertRegex(line, rf"^localized call 0 \(iterate\) on {suspect}: accumulated drift "
                         r"on every backend: ")
        self.assertRegex(line, r"moving the inputs by one ulp moves .* results by ")
        self.assertNotIn("target-independent", line)


class TrustedFailuresTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((HalfAttention, attend_once), (Smoother, smooth_three), (Squares, squares_once))

  def assert_one_line_error(self, completed: subprocess.CompletedProcess, *needles: str):
    self.assertEqual(completed.returncode, 2, completed.stdout)
    lines = completed.stderr.strip().splitlines()
    self.assertLen(lines, 1, completed.stderr[-3000:])
    self.assertTrue(lines[0].startswith("localize: "), lines[0])
    for needle in needles:
      self.assertIn(needle, lines[0])

  def test_f16_names_a_trusted_backend_that_can_be_used(self):
    # llvm-cpu made a suspect by a tolerance tighter than its f16 rounding.
    tight = tolerances.parse_overrides("iree_llvmcpu:float16:1e-5:1e-5")
    with self.assertRaises(engine.LocalizeError) as raised:
      localize.localize(self.trace_dirs["attend_once"], "iree_llvmcpu", policy=tight)
    message = str(raised.exception)
    self.assertIn("no trusted backend to diff iree_llvmcpu's calls 0..0 against", message)
    self.assertRegex(message, r"iree_vmvx: compiling the traced module for iree_vmvx "
                     r"\(trusted\) failed: .*f16")
    self.assertIn("iree_vulkan is infx tolerance off the reference itself", message)
    self.assertIn("--trusted_backend=iree_vulkan --iree_compile_flags=iree_vulkan:"
                  "--iree-vulkan-target=valhall4", message)
    # Taken: Vulkan with an f16 target, its own flag, is right and gives a verdict.
    result = localize.localize(
        self.trace_dirs["attend_once"], "iree_llvmcpu", "iree_vulkan", policy=tight,
        extra_flags=compile_flags.parse(["iree_vulkan:--iree-vulkan-target=valhall4"]))
    self.assertEqual(result.trusted, "iree_vulkan")
    self.assertIn(result.kind, (engine.Kind.DISPATCH, engine.Kind.DRIFT, engine.Kind.NONE),
                  report.verdict_line(result))

  def test_inputs_every_backend_refuses_are_an_error(self):
    module_dir = tempfile.mkdtemp(dir=self.artifacts_dir)
    copy = os.path.join(module_dir, "Smoother")
    shutil.copytree(os.path.dirname(os.path.dirname(self.trace_dirs["smooth_three"])), copy)
    path = os.path.join(copy, "signatures.json")
    with open(path) as f:
      signatures = json.load(f)
    signatures["smooth"]["inputs"][0]["dtype"] = "float64"  # the module takes float32.
    with open(path, "w") as f:
      json.dump(signatures, f)
    self.assert_one_line_error(
        _localize(copy, "iree_llvmcpu"), "every backend tried fails as the trace feeds it",
        "expected f32", "signatures.json")

  def test_a_traced_run_that_cannot_save_its_tensors_is_an_error(self):
    completed = _localize(self.trace_dirs["squares_once"], "iree_llvmcpu",
                          file_size_limit=200 << 10)
    self.assert_one_line_error(completed, "trusted_run/tensors/", ".npy' failed: EFBIG",
                               "not a backend's")


if __name__ == "__main__":
  absltest.main()
