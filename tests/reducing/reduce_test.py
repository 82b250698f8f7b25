"""`python -m pyiree_tf_support.reduce` on real failures: a mismatch in a long stateless trace
reduces to the failing call, a stateful one keeps the calls its state needs, a compile error
keeps the failing method; each reduced module dir fails as the original did when its repro.sh
runs, and replays like any module dir. Real TensorFlow (to make the traces), IREE and replay."""

import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils


class Mixed(tf.Module):
  """vmvx rounds f32 -> i32 where TF truncates; doubling is right everywhere; erf does not
  compile on any IREE backend."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(tf.zeros([2], tf.int32))

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def accumulate(self, x):
    self.total.assign_add(tf.cast(x, tf.int32))
    return self.total


class Erf(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)


def ones(value=1.0):
  return np.array([value, 2.0], np.float32)


def stateless(module):
  for i in range(3):
    module.double(ones(i))
    module.truncate(ones(float(i)))
  module.truncate(ones(0.7))  # call 6: the mismatch
  module.double(ones())


def stateful(module):
  module.double(ones())
  module.accumulate(ones(2.0))
  module.accumulate(ones(0.7))  # call 2: rounds to 1 on vmvx, truncates to 0 on TF
  module.accumulate(ones(1.0))
  module.double(ones())


def compile_error(module):
  module.double(ones())
  module.erf(ones())


def passing(module):
  module.double(ones())


def run_traces(module_class, *trace_functions, **flag_values):
  """The module dir after the trace functions ran on vmvx (and, with `flag_values`, the test
  result too)."""
  root = tempfile.mkdtemp()

  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):
    pass

  for function in trace_functions:
    setattr(Case, f"test_{function.__name__}",
            lambda self, f=function: self.compare_backends(f))
  cli_flags.ensure_parsed()
  with flagsaver.flagsaver(artifacts_dir=root, target_backends=["iree_vmla"], **flag_values):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
  module_dir = os.path.join(root, module_class.__name__)
  return (module_dir, result) if flag_values else module_dir


def reduce(trace_dir: str, *args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "pyiree_tf_support.reduce", trace_dir, *args],
                        capture_output=True, text=True, check=False, timeout=600)


def trace(module_dir: str, name: str) -> str:
  return os.path.join(module_dir, "traces", f"{name}__tf_ref")


class ReduceTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.mixed = run_traces(Mixed, stateless, stateful, passing)
    cls.erf = run_traces(Erf, compile_error)

  def reduced(self, module_dir: str, name: str) -> str:
    completed = reduce(trace(module_dir, name), "--target_backends=iree_vmla")
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    directory = os.path.join(module_dir, "reduce", f"{name}__iree_vmvx")
    self.assertIn(f"reproduce: {directory}/repro.sh", completed.stdout)
    return directory

  def assert_reproduces(self, directory: str, expected: str) -> None:
    script = os.path.join(directory, "repro.sh")
    done = subprocess.run([script], capture_output=True, text=True, check=False, timeout=600)
    self.assertEqual(done.returncode, 1, done.stdout + done.stderr[-2000:])
    self.assertIn(expected, done.stdout + done.stderr)

  def test_a_stateless_mismatch_reduces_to_the_failing_call(self):
    directory = self.reduced(self.mixed, "stateless")
    completed = reduce(trace(self.mixed, "stateless"), "--target_backends=iree_vmla")
    self.assertIn("reduced iree_vmla: MISMATCH in truncate (values): calls 8 -> 1",
                  completed.stdout)
    self.assert_reproduces(directory, "iree_vmla: MISMATCH")
    with open(os.path.join(directory, "report.md")) as f:
      report = f.read()
    for part in ("IREE: iree-base-compiler", "## Expected vs got", "expected 0, got 1",
                 "iree-compile", "calls 8 -> 1"):
      self.assertIn(part, report)

  def test_a_stateful_mismatch_starts_from_the_state_its_calls_leave(self):
    completed = reduce(trace(self.mixed, "stateful"), "--target_backends=iree_vmla")
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    # The two calls before the failing one become the state they leave (the globals' initial
    # values, as llvm-cpu computes them), the failing call alone is left.
    self.assertIn("MISMATCH in accumulate (values): calls 5 -> 1", completed.stdout)
    self.assertIn("op level against iree_llvmcpu", completed.stdout)
    self.assert_reproduces(os.path.join(self.mixed, "reduce", "stateful__iree_vmvx"),
                           "iree_vmla: MISMATCH")

  def test_a_compile_error_keeps_the_failing_method(self):
    directory = self.reduced(self.erf, "compile_error")
    with open(os.path.join(directory, "iree_input.mlir")) as f:
      reduced = f.read()
    self.assertIn("func.func @erf", reduced)
    self.assertNotIn("func.func @double", reduced.replace("func.func private @double", ""))
    self.assert_reproduces(directory, "failed to legalize operation 'stablehlo.custom_call'")

  def test_a_passing_trace_has_nothing_to_reduce(self):
    completed = reduce(trace(self.mixed, "passing"), "--target_backends=iree_vmla")
    self.assertEqual(completed.returncode, 2)
    self.assertRegex(completed.stderr.strip(), r"^reduce: iree_vmla: PASS on the whole trace "
                     r".*: nothing to reduce\.$")

  def test_reduce_failures_puts_the_reduction_into_the_report(self):
    module_dir, result = run_traces(Mixed, stateless, reduce_failures=True)
    (message,) = [text for _, text in result.failures]
    self.assertIn("reduced: iree_vmla: MISMATCH in truncate (values): calls 8 -> 1", message)
    self.assertIn(f"reproduce: {module_dir}/reduce/stateless__iree_vmvx/repro.sh", message)
    with open(os.path.join(module_dir, "report.json")) as f:
      (test,) = json.load(f)["tests"].values()
    reduction = test["traces"][0]["backends"][0]["reduction"]
    self.assertEqual(reduction["calls"], [8, 1])
    self.assert_reproduces(reduction["directory"], "iree_vmla: MISMATCH")

  def test_bad_requests_are_one_line(self):
    for args, expected in ((["--target_backends=tf"], "is not an IREE backend"),
                           (["--target_backends=iree_vmla,iree_llvmjit"], "names the one"),
                           (["--target_backends=iree_vmla", "--reduce_timeout=nan"],
                            "--reduce_timeout"),
                           ([], "names the one backend")):
      completed = reduce(trace(self.mixed, "stateless"), *args)
      self.assertEqual(completed.returncode, 2, (args, completed.stdout))
      lines = completed.stderr.strip().splitlines()
      self.assertLen(lines, 1, completed.stderr)
      self.assertIn(expected, lines[0])


if __name__ == "__main__":
  absltest.main()
