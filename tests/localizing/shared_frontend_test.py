"""A big module's localization parses and optimizes its input once: the module as tested and the
traced formation are both compiled on from one compile up to dispatch creation.

Counted, not timed (the phases each iree-compile runs, recorded by wrapping the function that
starts them; every compile is real): before, a ResNet50's localization compiled its 188 MB of
text twice from the start (the module as tested, then the formation). The module here is big
the same way: a 1024x1024 weight makes its iree_input.mlir over 4 MiB of text, saved as MLIR
bytecode. The verdicts are those of the small modules' path: none for the module itself, the
edited dispatch for a planted miscompile. With the compile cache the test filled, the module as
tested is not compiled again at all (its entry is found from the saved file's digest).
"""

import os
import re
import tempfile
import time
from typing import List, Optional, Sequence, Tuple

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.localizing import formation
from tests.support import recorded_traces

RNG = np.random.default_rng(11)
# Small integers (the weight's scaled by 2^-8): the matmul is exact on every backend, so only
# tanh's last bits differ between them.
X = RNG.integers(-2, 3, (4, 1024)).astype(np.float32)
W = (RNG.integers(-1, 2, (1024, 1024)) / 256).astype(np.float32)


class BigMlp(tf.Module):
  """A matmul with a 4 MB weight, a bias and tanh: one dispatch."""

  def __init__(self):
    super().__init__()
    self.w = tf.constant(W)
    self.b = tf.constant(np.linspace(-1, 1, 1024, dtype=np.float32))

  @tf.function(input_signature=[tf.TensorSpec([4, 1024], tf.float32)])
  def predict(self, x):
    return tf.tanh(tf.matmul(x, self.w) + self.b)


class OtherBigMlp(BigMlp):
  """Another module (its own bias), so that this process compiles it afresh into a cache."""

  def __init__(self):
    super().__init__()
    self.b = tf.constant(np.linspace(-2, 2, 1024, dtype=np.float32))


def predict_once(module):
  module.predict(X)


def _phases(command: Sequence[str]) -> Tuple[str, str]:
  """(the phase a compile starts from, the one it stops after): `input` and `end` by default."""
  start = next((a.split("=", 1)[1] for a in command if a.startswith("--compile-from=")),
               "input")
  stop = next((a.split("=", 1)[1] for a in command if a.startswith("--compile-to=")), "end")
  return start, stop


class SharedFrontendTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((BigMlp, predict_once, ("iree_llvmcpu",), True),)

  def _localize(self, *flags: str, trace_dir: str = "",
                cache: Optional[CompileCache] = None
                ) -> Tuple[engine.Localization, List[List[str]]]:
    """Localizes on llvm-cpu in this process; the result and every compile's command line."""
    commands: List[List[str]] = []
    run = iree_compile.run

    def recording(command, stdin, timeout):
      commands.append(list(command) + ([f"<{len(stdin)} bytes on stdin>"] if stdin else []))
      return run(command, stdin, timeout)

    iree_compile.run = recording
    try:
      result = localize.localize(trace_dir or self.trace_dirs["BigMlp"], "iree_llvmcpu",
                                 extra_flags=tuple(("iree_llvmcpu", f) for f in flags),
                                 cache=cache)
    finally:
      iree_compile.run = run
    return result, commands

  def test_input_is_compiled_once_and_the_rest_from_its_phases(self):
    with open(os.path.join(os.path.dirname(os.path.dirname(self.trace_dirs["BigMlp"])),
                           "iree_input.mlir"), "rb") as f:
      self.assertTrue(artifacts.is_mlir_bytecode(f.read(4)))  # a big module, as saved
    result, commands = self._localize()
    self.assertIs(result.kind, engine.Kind.NONE, result.detail)
    module = [c for c in commands if "device_probe.mlir" not in " ".join(c)]
    self.assertCountEqual([_phases(c) for c in module], [
        ("input", formation.FRONTEND_PHASE),  # the one compile reading the input
        (formation.FRONTEND_PHASE, "end"),  # the module as tested
        (formation.FRONTEND_PHASE, "flow"),  # the traced formation
        ("flow", "end"), ("flow", "end")])  # the suspect and the trusted backend, traced
    self.assertFalse([c for c in module if c[-1].endswith("bytes on stdin>")])
    (first,) = [c for c in module if _phases(c)[0] == "input"]
    self.assertEqual(os.path.basename(first[1]), "iree_input.mlir")
    traced = [c for c in module if _phases(c) == (formation.FRONTEND_PHASE, "flow")]
    self.assertIn(formation.TRACE_ALL_TOP_LEVEL, traced[0])

  def test_the_tests_own_compile_is_taken_from_the_cache(self):
    cache_dir = tempfile.mkdtemp(dir=self.artifacts_dir)
    with flagsaver.flagsaver(compile_cache_dir=cache_dir, compile_cache=True):
      trace_dir, recorded = recorded_traces.record(
          tempfile.mkdtemp(dir=self.artifacts_dir), OtherBigMlp, predict_once)
    self.assertTrue(recorded.wasSuccessful())
    result, commands = self._localize(trace_dir=trace_dir, cache=CompileCache(cache_dir))
    self.assertIs(result.kind, engine.Kind.NONE, result.detail)
    module = [c for c in commands if "device_probe.mlir" not in " ".join(c)]
    # No compile of the module as tested: the formation and the two traced compiles only.
    self.assertCountEqual([_phases(c) for c in module],
                          [("input", "flow"), ("flow", "end"), ("flow", "end")])

  def test_the_formation_runs_while_the_module_as_tested_does(self):
    started: List[float] = []
    untraced: List[Tuple[float, float]] = []
    run, run_child = iree_compile.run, engine.run_child

    def recording(command, stdin, timeout):
      if ("--compile-to=flow" in command and "device_probe.mlir" not in " ".join(command)):
        started.append(time.monotonic())
      return run(command, stdin, timeout)

    def timed_child(vmfb_path, *args, **kwargs):
      begun = time.monotonic()
      try:
        return run_child(vmfb_path, *args, **kwargs)
      finally:
        if os.path.basename(vmfb_path) == "suspect_untraced.vmfb":
          untraced.append((begun, time.monotonic()))

    iree_compile.run, engine.run_child = recording, timed_child
    try:
      result = localize.localize(self.trace_dirs["BigMlp"], "iree_llvmcpu")
    finally:
      iree_compile.run, engine.run_child = run, run_child
    self.assertIs(result.kind, engine.Kind.NONE, result.detail)
    (formed,) = started
    ((begun, ended),) = untraced
    self.assertLess(formed, ended)  # started before the run as tested was over

  def test_planted_miscompile_is_named_on_the_shared_path(self):
    clean, _ = self._localize()
    sources = clean.formed.suspect.sources_dir
    name = next(n for n in sorted(os.listdir(sources))
                if "math.tanh" in open(os.path.join(sources, n)).read())
    with open(os.path.join(sources, name)) as f:
      text = f.read()
    executable = re.search(r"hal\.executable public @(\S+)", text).group(1)
    planted = os.path.join(tempfile.mkdtemp(dir=self.artifacts_dir), name)
    with open(planted, "w") as f:
      f.write(text.replace("math.tanh", "math.exp", 1))
    result, commands = self._localize(
        f"--iree-hal-substitute-executable-source={executable}={planted}")
    self.assertIs(result.kind, engine.Kind.DISPATCH, result.detail)
    self.assertEqual(result.finding.culprit.key.split("::")[0], executable)
    self.assertEqual([_phases(c)[0] for c in commands].count("input"), 2)  # with the probe


if __name__ == "__main__":
  absltest.main()
