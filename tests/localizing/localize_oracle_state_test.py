"""The localizer against the oracle: state carried across calls, and dispatches in loops.

State: IREE's globals after each call (read back through the module's `global$<name>$get`
exports) against the globals the oracle threads, so that a trace whose calls each return the
right values while its state goes wrong is named at the first call whose state diverges, with
the global. The real case is e2e/repros/findings/vulkan_copy_only_state: on Vulkan (lavapipe)
a variable updated by buffer copies only loses the update of the second call; here `push`
returns its input unchanged, so only the later `peek` shows it.

Loops: a dispatch inside a `tf.while_loop` traces once per iteration
(`--iree-flow-trace-dispatch=.*`), and the oracle probes its StableHLO op once per iteration:
an edit planted in the loop body's executable is named at its first iteration.
"""

import os
import re

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from tests.support import recorded_traces


class Window(tf.Module):
  """A 4-frame window in a variable: push stores it (buffer copies only) and returns x."""

  def __init__(self):
    super().__init__()
    self.window = tf.Variable(tf.zeros([4, 3]))

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def push(self, x):
    self.window.assign(tf.concat([self.window[1:], tf.reshape(x, [1, 3])], axis=0))
    return x

  @tf.function(input_signature=[])
  def peek(self):
    return self.window.read_value()


def push_three(module):
  for n in (1., 2., 3.):
    module.push(np.full([3], n, np.float32))
  module.peek()


class Loop(tf.Module):
  """A while loop whose body is one dispatch (x * 0.5 + 1 per iteration)."""

  @tf.function(input_signature=[tf.TensorSpec([8], tf.float32)])
  def halve(self, x):
    i = tf.constant(0)
    _, y = tf.while_loop(lambda i, y: i < 5, lambda i, y: (i + 1, tf.tanh(y * 0.5) + 1.0),
                         (i, x))
    return y


def halve_once(module):
  module.halve(np.linspace(-2, 2, 8).astype(np.float32))


def _localize(trace_dir: str, backend: str, *extra: str):
  return recorded_traces.localize(trace_dir, backend, "--trusted_backend=oracle", *extra)


class OracleStateTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((Window, push_three, ("iree_vulkan",), False),
           (Loop, halve_once, ("iree_llvmcpu",), True))

  def test_state_diverging_with_right_results_is_named_at_its_call(self):
    completed = _localize(self.trace_dirs["Window"], "iree_vulkan")
    verdict = completed.stdout.splitlines()[0]
    # Calls 0..2 (push) return their input, right; call 3 (peek) is wrong. The window after
    # call 1 already is (the second update lost): named there, with the global.
    self.assertIn("on iree_vulkan against oracle: outside any dispatch: the module has no "
                  "dispatch to trace", verdict)
    self.assertIn(": call 1's state differs from the oracle's: @", verdict)
    self.assertRegex(verdict, r"@\S*window\S* \(.*tolerance.*\)")
    self.assertRegex(verdict, r"stored at iree_input\.mlir:\d+:\d+ \(push\)")

  def test_a_dispatch_in_a_loop_is_named_at_its_first_iteration(self):
    trace_dir = self.trace_dirs["Loop"]
    clean = _localize(trace_dir, "iree_llvmcpu")
    self.assertIn("against oracle: no divergence", clean.stdout.splitlines()[0])
    # Every iteration of the body's dispatch was compared: 5 rows of it, all agreeing.
    table = clean.stdout.split("per-dispatch error", 1)[1]
    body = re.findall(r"halve_dispatch_\d+::\S+ \((\d)\)\s+\S+\s+0\n", table)
    self.assertEqual(sorted(set(body)), ["0", "1", "2", "3", "4"])
    sources = localize.localize(trace_dir, "iree_llvmcpu").formed.suspect.sources_dir
    flag = None
    for name in sorted(os.listdir(sources)):
      with open(os.path.join(sources, name)) as f:
        text = f.read()
      if "math.tanh" in text and "arith.addf" in text:
        executable = re.search(r"hal\.executable public @(\S+)", text).group(1)
        path = os.path.join(self.artifacts_dir, name)
        with open(path, "w") as f:
          f.write(text.replace("arith.addf", "arith.subf", 1))
        flag = f"--iree-hal-substitute-executable-source={executable}={path}"
    self.assertIsNotNone(flag)
    planted = _localize(trace_dir, "iree_llvmcpu", f"--iree_compile_flags=iree_llvmcpu:{flag}")
    self.assertRegex(planted.stdout.splitlines()[0],
                     r"against oracle: dispatch halve_dispatch_\d+::\S+ \(occurrence 0\): ")


if __name__ == "__main__":
  absltest.main()
