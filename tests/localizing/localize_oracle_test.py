"""The localizer against the oracle outside IREE (the StableHLO reference interpreter): on
request (--trusted_backend=oracle) and when every IREE backend is wrong alike.

Target-independent miscompiles are planted as localize_test.py plants one, with real IREE
output: an executable's source as iree-compile dumped it, an add edited into a sub, compiled
back in with --iree-hal-substitute-executable-source; here the same edit on every backend
(each its own dumped source), so that every IREE backend is wrong alike and only the oracle can
name the dispatch. A value the oracle cannot give (inside nested branches) is listed as
compared with nothing, never counted as agreeing. The real target-independent bug is
conditional_assign_test.py's: the read of a variable after a tf.cond branch that stored it
sees the old value on every backend (IREE hoists the global load above the branch, as the flow
IR shows). Without jaxlib, --trusted_backend=oracle is one line naming the `oracle` extra.
"""

import importlib.util
import json
import os
import re
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from pyiree_tf_support.localizing import oracle_run
from tests.support import recorded_traces

RNG = np.random.default_rng(11)
X = RNG.standard_normal((4, 8)).astype(np.float32)
W = (RNG.standard_normal((8, 16)) * 0.3).astype(np.float32)


class TanhSum(tf.Module):
  """Two dispatches: matmul + bias + tanh, then a row sum."""

  def __init__(self):
    super().__init__()
    self.w = tf.constant(W)
    self.b = tf.constant(np.linspace(-1, 1, 16, dtype=np.float32))

  @tf.function(input_signature=[tf.TensorSpec([4, 8], tf.float32)])
  def predict(self, x):
    return tf.reduce_sum(tf.tanh(tf.matmul(x, self.w) + self.b), axis=1)


class AddIfPositive(tf.Module):
  """Like conditional_assign_test.py's add_if_positive: a variable stored in each branch of a
  tf.cond, read after it."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(1, dtype=tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def add_if_positive(self, n):
    if n > 0:  # a dispatch in each branch: 2 * total + n, total - 1
      self.total.assign(self.total * 2 + n)
    else:
      self.total.assign_sub(1)
    return self.total.read_value()


class Nested(tf.Module):
  """A dispatch inside a branch inside a branch: the oracle probes no value there."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([], tf.bool),
                                tf.TensorSpec([], tf.bool)])
  def nested(self, x, p, q):
    if p:
      if q:
        y = tf.exp(x) * 3.0
      else:
        y = x - 1.0
    else:
      y = x + 2.0
    return y


def nested_once(module):
  module.nested(np.array([0.5, -1., 2., 0.], np.float32), np.array(True), np.array(True))


def predict_once(module):
  module.predict(X)


def add_four(module):
  for n in [3, 0, 5, -2]:
    module.add_if_positive(np.int32(n))


_localize = recorded_traces.localize


class OracleLocalizeTest(recorded_traces.RecordedTraces, parameterized.TestCase):

  CASES = ((TanhSum, predict_once, ("iree_llvmcpu",), True),
           (AddIfPositive, add_four, ("iree_llvmcpu",), False),
           (Nested, nested_once, ("iree_llvmcpu",), True))

  def _planted(self, sources_dir: str, backend: str = "iree_llvmcpu") -> str:
    """--iree-hal-substitute-executable-source=EXEC=PATH: the tanh dispatch's dumped source
    with its first add made a sub."""
    for name in sorted(os.listdir(sources_dir)):
      with open(os.path.join(sources_dir, name)) as f:
        text = f.read()
      if "math.tanh" in text and "arith.addf" in text:
        executable = re.search(r"hal\.executable public @(\S+)", text).group(1)
        path = os.path.join(self.artifacts_dir, f"{backend}_{name}")
        with open(path, "w") as f:
          f.write(text.replace("arith.addf", "arith.subf", 1))
        self.executable = executable
        return f"--iree-hal-substitute-executable-source={executable}={path}"
    raise AssertionError(f"no source of {sources_dir} holds the tanh dispatch")

  def test_on_request_names_the_planted_dispatch(self):
    trace_dir = self.trace_dirs["TanhSum"]
    clean = _localize(trace_dir, "iree_llvmcpu", "--trusted_backend=oracle")
    self.assertIn("on iree_llvmcpu against oracle: no divergence", clean.stdout)
    sources = localize.localize(trace_dir, "iree_llvmcpu").formed.suspect.sources_dir
    flag = self._planted(sources)
    planted = _localize(trace_dir, "iree_llvmcpu", "--trusted_backend=oracle",
                        f"--iree_compile_flags=iree_llvmcpu:{flag}")
    verdict = planted.stdout.splitlines()[0]
    self.assertRegex(verdict, rf"on iree_llvmcpu against oracle: dispatch {self.executable}::"
                     r"\S+ \(occurrence 0\): outputs .*; from the dispatch output at "
                     r"iree_input.mlir:\d+:\d+; its inputs (\S+)x tolerance$")
    # Its input, the matmul's output, agrees with the oracle's dot (within tolerance).
    self.assertLess(float(verdict.rsplit("its inputs ", 1)[1].split("x")[0]), 1.0)

  def test_the_same_miscompile_on_every_backend_is_localized_against_the_oracle(self):
    trace_dir = self.trace_dirs["TanhSum"]
    cpu = localize.localize(trace_dir, "iree_llvmcpu").formed
    vulkan = localize.localize(trace_dir, "iree_vulkan").formed
    flags = [f"--iree_compile_flags=iree_llvmcpu:{self._planted(cpu.suspect.sources_dir)}",
             "--iree_compile_flags=iree_vmvx:"
             + self._planted(cpu.trusted.sources_dir, "iree_vmvx"),
             "--iree_compile_flags=iree_vulkan:"
             + self._planted(vulkan.suspect.sources_dir, "iree_vulkan")]
    report_json = os.path.join(self.artifacts_dir, "planted.json")
    planted = _localize(trace_dir, "iree_llvmcpu", *flags, f"--report_json={report_json}")
    verdict = planted.stdout.splitlines()[0]
    self.assertIn("on iree_llvmcpu against oracle (every IREE backend tried is wrong too: "
                  "iree_vmvx ", verdict)
    self.assertIn("the bug is target-independent)", verdict)
    self.assertRegex(verdict, rf": dispatch {self.executable}::\S+ \(occurrence 0\)")
    with open(report_json) as f:
      document = json.load(f)
    self.assertEqual((document["verdict"], document["trusted"]), ("dispatch", "oracle"))

  def test_without_jaxlib_one_line_names_the_extra(self):
    if importlib.util.find_spec("jaxlib") is not None:
      self.skipTest("jaxlib is installed in this environment itself: the oracle always runs")
    completed = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localize", self.trace_dirs["TanhSum"],
         "--target_backends=iree_llvmcpu", "--trusted_backend=oracle"],
        env=dict(os.environ, **{oracle_run.PATH_VARIABLE: self.artifacts_dir}),
        capture_output=True, text=True, check=False, timeout=900)
    self.assertEqual(completed.returncode, 2)
    self.assertEqual(completed.stderr.strip().splitlines(),
                     [f"localize: {oracle_run.MISSING_MESSAGE}"])

  def test_a_dispatch_with_no_counterpart_is_said_never_cleared_by_omission(self):
    report_json = os.path.join(self.artifacts_dir, "nested.json")
    completed = _localize(self.trace_dirs["Nested"], "iree_llvmcpu", "--trusted_backend=oracle",
                          f"--report_json={report_json}")
    self.assertRegex(completed.stdout.splitlines()[0],
                     r"against oracle: no divergence: every traced dispatch and result that has "
                     r"a counterpart agrees with the oracle; [1-9]\d* traced tensors had none$")
    self.assertRegex(completed.stdout, r"no counterpart in the oracle, not compared \(\d+ "
                     r"traced tensors\):\n  call 0 nested_dispatch_\d+::\S+ outputs\[0\]: the "
                     r"dispatch output at iree_input.mlir:\d+:\d+ has no oracle value")
    with open(report_json) as f:
      self.assertNotEmpty(json.load(f)["unmatched"])

  @parameterized.parameters("iree_llvmcpu", "iree_vmvx", "iree_vulkan")
  def test_conditional_assign_names_the_hoisted_global_load(self, backend):
    trace_dir = self.trace_dirs["AddIfPositive"]
    completed = _localize(trace_dir, backend)
    verdict = completed.stdout.splitlines()[0]
    with open(os.path.join(os.path.dirname(os.path.dirname(trace_dir)),
                           "iree_input.mlir")) as f:
      lines = f.read().splitlines()
    # The read after the branch: the global load just before the function's return.
    (line,) = [n for n, text in enumerate(lines, start=1)
               if "ml_program.global_load" in text and "return" in lines[n]]
    column = lines[line - 1].index("ml_program.global_load") + 1
    self.assertIn(f"on {backend} against oracle (every IREE backend tried is wrong too:",
                  verdict)
    self.assertIn(": outside any dispatch: call 0's result 0 differs from the oracle's", verdict)
    self.assertRegex(verdict, rf"it is the global load at iree_input.mlir:{line}:{column} "
                     r"\(of @vars\.\S*total\), outside any dispatch")
    # The branch's own dispatch (the add) was compared, and agrees.
    table = completed.stdout.split("per-dispatch error", 1)[1]
    self.assertRegex(table, r"add_if_positive_dispatch_1::\S+ \(0\)\s+0\s+0\n")


if __name__ == "__main__":
  absltest.main()
