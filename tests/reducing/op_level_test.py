"""The reducer's op level on real failures: a vmvx rounding bug reduces to its one convert, a
miscompile planted in one dispatch of a three-dispatch model reduces to that dispatch's ops
alone, a compile error to the op that fails; each written as reduced.mlir with its inputs, the
trusted outputs and reduced.py, which fails the same way run from / with IREE's tools alone.

The planted miscompile is real IREE output: dispatch 0's executable as iree-compile dumps it,
its add turned into a sub, compiled back in with --iree-hal-substitute-executable-source (a
flag the reducer passes to the suspect only, as a user's --iree_compile_flags). Real
TensorFlow (to record the traces), IREE compiler and runtime."""

import os
import re
import subprocess
import sys
import tempfile

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from tests.localizing import localize_test
from tests.support import recorded_traces

# The localizer's three-dispatch model (matmul + bias + tanh, a reduction, matmul + exp) and
# its input; its dispatch 0's ops on llvm-cpu, and ops of the other two.
Mlp, A = localize_test.Mlp, localize_test.A
DISPATCH_0 = {"stablehlo.dot", "stablehlo.broadcast_in_dim", "stablehlo.add", "stablehlo.tanh",
              "ml_program.global_load", "stablehlo.constant"}
OTHER_DISPATCHES = ("stablehlo.reduce", "stablehlo.exponential")


class Casting(tf.Module):
  """vmvx rounds the f32 -> i32 convert where TensorFlow truncates; the rest is right."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def f(self, x):
    y = tf.exp(x) * 2.0
    return tf.cast(y + x, tf.int32) * 3, tf.reduce_sum(x)


class DynamicWhere(tf.Module):
  """Lavapipe reads a 3-element i1 condition as zeros (e2e/dynamic_elementwise_test.py): the
  select sits inside the shape.assuming the import wraps dynamic broadcasts in, among 90 ops
  of shape arithmetic, and the inputs' length is dynamic."""

  @tf.function(input_signature=[tf.TensorSpec([None], tf.bool),
                                tf.TensorSpec([None], tf.float32),
                                tf.TensorSpec([None], tf.float32)])
  def where(self, cond, a, b):
    return tf.where(cond, a, b)


class Erf(tf.Module):
  """erf lowers to a custom call no IREE backend compiles."""

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x * 2.0 + 1.0) - x


def predict_once(module):
  module.predict(A)


def cast_once(module):
  # exp(x) * 2 + x: 2.0, 7.84, 0.29, 2.15; only 7.84 rounds and truncates differently.
  module.f(np.array([0.0, 1.2, -0.7, 0.05], np.float32))


def where_once(module):
  module.where(np.array([True, False, True]), np.array([1.0, 2.0, 3.0], np.float32),
               np.array([-1.0, -2.0, -3.0], np.float32))


def erf_once(module):
  module.erf(np.array([0.1, 0.2, 0.3], np.float32))


def reduce(trace_dir: str, *args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "pyiree_tf_support.reduce", trace_dir, *args],
                        capture_output=True, text=True, check=False, timeout=900)


def op_names(program: str):
  return re.findall(r"^\s*(?:%\S+ = )?\"?([a-z_]+\.[a-z_.]+)", program, re.MULTILINE)


def reduced(test: absltest.TestCase, trace_dir: str, backend: str, *args: str):
  """(the reduce command's result, the reduced dir, reduced.mlir's text), asserting it made
  a reduced program."""
  completed = reduce(trace_dir, f"--target_backends={backend}", *args)
  test.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
  script = re.search(r"^reduced program: (\S+) (\S+)$", completed.stdout, re.MULTILINE)
  test.assertIsNotNone(script, completed.stdout)
  assert script is not None
  directory = os.path.dirname(script.group(2))
  with open(os.path.join(directory, "reduced.mlir")) as f:
    program = f.read()
  return completed, directory, program


class OpLevelTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((Mlp, predict_once, ("iree_llvmcpu",), True),
           (Casting, cast_once, ("iree_vmvx",), False),
           (DynamicWhere, where_once, ("iree_vulkan",), False),
           (Erf, erf_once, ("iree_vmvx",), False))

  def reduced(self, name: str, backend: str, *args: str):
    return reduced(self, self.trace_dirs[name], backend, *args)

  def assert_script(self, directory: str, expected: str) -> None:
    """reduced.py, pasted from / without the venv on PATH, fails as the original did."""
    rerun = subprocess.run([sys.executable, "-I", os.path.join(directory, "reduced.py")],
                           cwd="/", capture_output=True, text=True, check=False,
                           env={"PATH": "/usr/bin:/bin"}, timeout=300)
    self.assertEqual(rerun.returncode, 1, rerun.stdout + rerun.stderr[-3000:])
    self.assertIn(expected, rerun.stdout.splitlines()[-1])

  def test_a_rounding_convert_reduces_to_the_convert_alone(self):
    completed, directory, program = self.reduced("Casting", "iree_vmvx")
    self.assertIn("op level against iree_llvmcpu: f ops 9 -> 1", completed.stdout)
    self.assertEqual(op_names(program), ["func.func", "stablehlo.convert"])
    self.assertIn("(tensor<1xf32>) -> tensor<1xi32>", program)  # 4 elements cut to 1
    self.assert_script(directory, "DIVERGES")
    # The wrong element (2 * exp(1.2) + 1.2 = 7.84) shrunk to the simplest value that still
    # fails: 0.5 (vmvx rounds it away from zero).
    value = np.load(os.path.join(directory, "input_0.npy"))
    np.testing.assert_array_equal(value, [0.5])
    expected = np.load(os.path.join(directory, "expected_0.npy"))
    np.testing.assert_array_equal(expected, [0])  # llvm-cpu truncates as TensorFlow does
    with open(os.path.join(directory, "report.md")) as f:
      report = f.read()
    for part in ("## The op level", "9 -> 1 top-level ops", "Expected (iree_llvmcpu) vs got",
                 "--iree-hal-target-backends=vmvx", "IREE: iree-base-compiler"):
      self.assertIn(part, report)
    # Deterministic: the same input reduces to the same program.
    again, _, program_again = self.reduced("Casting", "iree_vmvx")
    self.assertEqual(program_again, program)

  def test_the_time_budget_keeps_what_was_reduced(self):
    completed = reduce(self.trace_dirs["Casting"], "--target_backends=iree_vmvx",
                       "--reduce_timeout=0.001")
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    self.assertIn("not at the op level: the time budget ended before the op level could start",
                  completed.stdout)
    self.assertIn("time budget reached", completed.stdout)

  def test_a_dynamic_body_is_taken_apart_and_its_length_cut(self):
    completed, directory, program = self.reduced("DynamicWhere", "iree_vulkan")
    self.assertRegex(completed.stdout, r"op level against iree_llvmcpu: where ops 9\d -> 1 ")
    self.assertEqual(op_names(program), ["func.func", "stablehlo.select"])
    self.assertIn("tensor<?xi1>", program)
    self.assertLess(np.load(os.path.join(directory, "input_0.npy")).shape[0], 3)
    self.assert_script(directory, "DIVERGES")

  def test_a_miscompiled_dispatch_reduces_to_its_ops_alone(self):
    module_dir = os.path.dirname(os.path.dirname(self.trace_dirs["Mlp"]))
    sources = tempfile.mkdtemp(dir=self.artifacts_dir)
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "iree-compile"),
                    os.path.join(module_dir, "iree_input.mlir"), "--iree-input-type=stablehlo_xla",
                    "--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
                    "--iree-input-demote-f64-to-f32=false",
                    f"--iree-hal-dump-executable-sources-to={sources}", "-o", os.devnull],
                   check=True, capture_output=True, timeout=300)
    with open(os.path.join(sources, "module_predict_dispatch_0.mlir")) as f:
      text = f.read()
    self.assertIn("math.tanh", text)
    planted = os.path.join(sources, "planted.mlir")
    with open(planted, "w") as f:
      f.write(text.replace("arith.addf", "arith.subf", 1))
    completed, directory, program = self.reduced(
        "Mlp", "iree_llvmcpu", "--iree_compile_flags=iree_llvmcpu:"
        f"--iree-hal-substitute-executable-source=predict_dispatch_0={planted}")
    names = [n for n in op_names(program) if n != "func.func"]
    self.assertTrue(names, program)
    self.assertLessEqual(set(names), DISPATCH_0, program)
    for other in OTHER_DISPATCHES:
      self.assertNotIn(other, program)
    self.assertNotIn("ml_program.global private", program)  # unused weights are dropped
    self.assertIn("op level against iree_vmvx", completed.stdout)
    self.assert_script(directory, "DIVERGES")

  def test_a_compile_error_reduces_to_the_failing_op(self):
    completed, directory, program = self.reduced("Erf", "iree_vmvx")
    self.assertRegex(completed.stdout, r"op level: erf ops \d+ -> 1 ")
    self.assertIn("stablehlo.custom_call", program)
    self.assert_script(directory, "compile error: ")
    with open(os.path.join(directory, "report.md")) as f:
      self.assertIn("failed to legalize operation 'stablehlo.custom_call'", f.read())


if __name__ == "__main__":
  absltest.main()
