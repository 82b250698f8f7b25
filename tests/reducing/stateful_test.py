"""The reducer's op level on stateful traces: a failing call that reads a variable updated by
the calls before it reduces to a stateless program, the state it starts from fed as inputs
(what the trusted backend holds after the earlier calls); a failure that needs its globals
keeps them, written with the state as their initial values, one call.

The mismatch is real: vmvx rounds the f32 -> i32 convert where TensorFlow truncates (the
corpus' integer_test), here of a variable the earlier calls accumulated; and IREE's hoisted
global load of conditional_assign_test (every backend). Real TensorFlow (to record the
traces), IREE compiler and runtime."""

import os
import subprocess
import sys

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from tests.reducing import op_level_test
from tests.support import recorded_traces


class Accumulator(tf.Module):
  """Adds each input to a variable and returns the variable cast to int32: exact until the
  sum's fraction reaches one half (0.25, then 0.75), where vmvx rounds up."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(np.zeros([2], np.float32))
    self.calls = tf.Variable(0, dtype=tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def add(self, x):
    self.total.assign(self.total + x * 0.5)
    self.calls.assign_add(1)
    return tf.cast(self.total, tf.int32) + self.calls


class ConditionalAssign(tf.Module):
  """e2e/conditional_assign_test.py's miscompile, one branch storing: the read after the `if`
  that stores is hoisted above it (every backend); made stateless, the bug is gone."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(0, dtype=tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def add_if_positive(self, n):
    if n > 0:
      self.total.assign_add(n)
    return self.total.read_value()


def accumulate(module):
  module.add(np.array([0.5, 2.0], np.float32))  # total 0.25, 1.0: both exact
  module.add(np.array([1.0, 0.0], np.float32))  # total 0.75, 1.0: vmvx gives 1 for 0.75


def add_if_positive(module):
  for n in [3, 0, 5]:
    module.add_if_positive(np.int32(n))


def assert_diverges(test: absltest.TestCase, directory: str) -> None:
  """reduced.py, pasted from / without the venv on PATH, prints DIVERGES and exits 1."""
  rerun = subprocess.run([sys.executable, "-I", os.path.join(directory, "reduced.py")],
                         cwd="/", capture_output=True, text=True, check=False,
                         env={"PATH": "/usr/bin:/bin"}, timeout=300)
  test.assertEqual(rerun.returncode, 1, rerun.stdout + rerun.stderr[-3000:])
  test.assertIn("DIVERGES", rerun.stdout)


class StatefulTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((Accumulator, accumulate, ("iree_vmvx",), False),
           (ConditionalAssign, add_if_positive, ("iree_vmvx",), False))

  def reduced(self, name: str, backend: str):
    return op_level_test.reduced(self, self.trace_dirs[name], backend)

  def test_the_state_a_failing_call_starts_from_becomes_its_inputs(self):
    completed, directory, program = self.reduced("Accumulator", "iree_vmvx")
    self.assertIn("calls 2 -> 1", completed.stdout)  # the state replaces the first call
    self.assertIn("op level against iree_llvmcpu", completed.stdout)
    self.assertEqual(op_level_test.op_names(program), ["func.func", "stablehlo.convert"], program)
    self.assertNotIn("ml_program", program)  # stateless and standalone
    # The call left starts from the state llvm-cpu computes for the first call (the
    # variables' initial values in the reduced module), not from the module's zeros.
    with open(os.path.join(directory, "iree_input.mlir")) as f:
      module = f.read()
    self.assertIn("dense<[2.500000e-01, 1.000000e+00]> : tensor<2xf32>", module)
    self.assertIn("dense<1> : tensor<i32>", module)
    # The convert's input (0.75, 1.0 there) shrunk to the simplest value vmvx rounds up.
    np.testing.assert_array_equal(np.load(os.path.join(directory, "input_0.npy")), [0.5])
    assert_diverges(self, directory)
    with open(os.path.join(directory, "report.md")) as f:
      report = f.read()
    self.assertIn("the state it starts from (what iree_llvmcpu holds after call 0)", report)
    # Deterministic: the same trace reduces to the same program and inputs.
    _, _, again = self.reduced("Accumulator", "iree_vmvx")
    self.assertEqual(again, program)
    np.testing.assert_array_equal(np.load(os.path.join(directory, "input_0.npy")), [0.5])

  def test_a_failure_that_needs_its_globals_keeps_them_initialized(self):
    completed, directory, program = self.reduced("ConditionalAssign", "iree_vmvx")
    self.assertIn("calls 3 -> 1", completed.stdout)
    self.assertIn("ml_program.global", program)
    assert_diverges(self, directory)
    with open(os.path.join(directory, "report.md")) as f:
      report = f.read()
    self.assertIn("needs its globals", report)


if __name__ == "__main__":
  absltest.main()
