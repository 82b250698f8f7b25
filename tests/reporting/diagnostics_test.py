"""Diagnostics a compiler engineer acts on: saved traces, replay, iree-run-module repro files,
and expected failures held to account (XFAIL / XPASS)."""

import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core.signatures import signatures_from_json
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.reporting import verdicts

VENV_BIN = os.path.dirname(sys.executable)


class DenseModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.w = tf.constant(np.arange(12, dtype=np.float32).reshape([3, 4]) / 10.0)

  @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
  def logits(self, x):
    y = tf.matmul(x, self.w)
    return {"logits": y, "argmax": tf.argmax(y, axis=1, output_type=tf.int32)}


  @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([], tf.int32)])
  def count_above(self, x, threshold):
    return tf.reduce_sum(tf.cast(x > tf.cast(threshold, tf.float32), tf.int32)), tf.reduce_max(x)


class SignModule(tf.Module):
  """tf.sign lowers to math.copysign, which today's vmvx target cannot compile; llvm-cpu can."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def sign(self, x):
    return tf.sign(x)


def predict(module):
  module.logits(np.array([[1, 2, 3], [4, 5, 6]], np.float32))
  module.logits(np.array([[0, 1, 0], [1, 0, 0]], np.float32))


def run_case(test_class):
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def make_case(trace_function):

  @tf_test_utils.compile_module(DenseModule)
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  return Case


class BazelLocationTest(absltest.TestCase):
  """Under Bazel the sandbox is gone after the test: paths point into the outputs.zip."""

  def test_paths_and_commands_name_the_outputs_zip(self):
    environment = {"TEST_UNDECLARED_OUTPUTS_DIR": "/sandbox/out", "TEST_TARGET": "//e2e:t__x__y"}
    with absltest.mock.patch.dict(os.environ, environment):
      self.assertEqual(bazel_paths.display_path("/sandbox/out/M/traces/f__b.txt"),
                       "M/traces/f__b.txt in bazel-testlogs/e2e/t__x__y/test.outputs/outputs.zip")
      # No execroot holds /sandbox/out: the workspace root is found when the command runs.
      command = bazel_paths.shell_cd("/sandbox/out/M/repro/f__b/call_0_f")
      self.assertStartsWith(command, 'cd "$(d="$PWD"; until [ -e "$d/WORKSPACE" ]')
      self.assertEndsWith(command, '&& cd "$(mktemp -d)" && unzip -q "$OLDPWD"/bazel-testlogs/e2e/'
                          't__x__y/test.outputs/outputs.zip && cd M/repro/f__b/call_0_f')
      self.assertEqual(bazel_paths.display_path("/elsewhere/x"), "/elsewhere/x")

  def test_outside_bazel_paths_are_absolute(self):
    with absltest.mock.patch.dict(os.environ, {"TEST_UNDECLARED_OUTPUTS_DIR": ""}):
      self.assertEqual(bazel_paths.shell_cd("/a/b"), "cd /a/b")


class SavedTraceTest(absltest.TestCase):

  def test_traces_round_trip_through_json_and_npz(self):
    trace = Trace(module_name="M", backend="tf_ref", function_name="f")
    trace.calls.append(ModuleCall("f", [np.arange(3, dtype=np.int8), 2.5, [1.0, 2.0]],
                                  {"b": (np.bool_(True), None), "a": np.array([b"x"], object)},
                                  rtol=1e-3, kwargs={"k": np.float32(1)}))
    directory = tempfile.mkdtemp()
    trace_io.save_trace(trace, directory)
    self.assertEqual(sorted(os.listdir(directory)), ["arrays.npz", "trace.json"])
    loaded = trace_io.load_trace(directory)
    self.assertEqual((loaded.module_name, loaded.backend, loaded.function_name),
                     ("M", "tf_ref", "f"))
    call = loaded.calls[0]
    self.assertEqual(call.method, "f")
    self.assertEqual(call.inputs[0].dtype, np.int8)
    self.assertIsInstance(call.inputs[1], float)
    self.assertEqual(call.inputs[2], [1.0, 2.0])
    self.assertEqual(call.rtol, 1e-3)
    self.assertIsNone(call.given_atol)
    self.assertIsNone(call.outputs[0]["b"][1])
    self.assertEqual(call.outputs[0]["a"][0], b"x")
    self.assertTrue(Trace.compare_traces(trace, loaded))


class CompileFailureOutcomeTest(absltest.TestCase):

  def test_one_backend_failing_to_compile_does_not_stop_the_others(self):
    cli_flags.ensure_parsed()
    artifacts_dir = tempfile.mkdtemp()

    @tf_test_utils.compile_module(SignModule)
    class SignTest(tf_test_utils.TracedModuleTestCase):

      def test_sign(self):
        self.compare_backends(lambda module: module.sign(np.array([-2, 0, 3, -0.5], np.float32)))

    with flagsaver.flagsaver(artifacts_dir=artifacts_dir, compile_cache=False,
                             target_backends=["iree_vmla", "iree_llvmjit"]):
      result = run_case(SignTest)
    self.assertLen(result.failures, 1)
    message = result.failures[0][1]
    self.assertIn("failed on 1 of 2 target backend(s) compared with the reference 'tf_ref': "
                  "iree_vmla (compile error)", message)
    self.assertIn("failed to legalize operation 'math.copysign'", message)
    reproducer = os.path.join(artifacts_dir, "SignModule", "reproducer__iree_vmla.mlir")
    self.assertIn(f"Reproducer: {reproducer}", message)
    self.assertTrue(os.path.exists(reproducer))
    self.assertIn("iree_llvmjit: PASS", message)


class LiveDiagnosticsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.artifacts_dir = tempfile.mkdtemp()
    self.module_dir = os.path.join(self.artifacts_dir, "DenseModule")

  def run_with(self, trace_function, **flag_values):
    with flagsaver.flagsaver(artifacts_dir=self.artifacts_dir, **flag_values):
      return run_case(make_case(trace_function))

  def write_call_repro(self, trace_name: str, backend: str, index: int) -> str:
    """Writes call `index`'s iree-run-module files from the saved traces, as a failing report
    would (a passing run writes none); returns their directory."""
    traces_dir = os.path.join(self.module_dir, "traces")
    with open(artifacts.signatures_path(self.module_dir)) as f:
      signatures = signatures_from_json(f.read())
    with open(os.path.join(self.module_dir, "iree_input.mlir")) as f:
      iree_input = f.read()
    call = repro.CallRepros(
        self.module_dir, trace_io.load_trace(os.path.join(traces_dir, f"{trace_name}__tf_ref")),
        trace_io.load_trace(os.path.join(traces_dir, f"{trace_name}__{backend}")),
        artifacts.compiled_path(self.module_dir, backend), backends.lookup(backend).driver,
        signatures, iree_input).call(index)
    self.assertIsNotNone(call.run_module_command, call.no_run_module_reason)
    call_dir = os.path.join(artifacts.repro_dir(self.module_dir, trace_name, backend),
                            f"call_{index}_{call.method}")
    self.assertTrue(os.path.isdir(call_dir), call_dir)
    return call_dir

  def test_a_passing_run_writes_no_call_files_and_a_written_flagfile_passes(self):
    result = self.run_with(predict, target_backends=["iree_vmla"])
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertFalse(os.path.exists(os.path.join(self.module_dir, "repro", "predict__iree_vmla")))
    call_dir = self.write_call_repro("predict", "iree_vmla", 1)
    self.assertEqual(call_dir, os.path.join(self.module_dir, "repro", "predict__iree_vmla",
                                            "call_1_logits"))
    self.assertEqual(sorted(os.listdir(call_dir)), [
        "expected_output_0.bin", "expected_output_1.bin", "flagfile", "input_0.bin"])
    process = subprocess.run([os.path.join(VENV_BIN, "iree-run-module"), "--flagfile=flagfile"],
                             cwd=call_dir, capture_output=True, text=True, check=False)
    self.assertEqual(process.returncode, 0, process.stdout + process.stderr)

  def test_scalar_inputs_and_outputs_re_run_from_their_flagfile(self):

    def count(module):
      module.count_above(np.array([[1, 2, 3], [4, 5, 6]], np.float32), 3)

    result = self.run_with(count, target_backends=["iree_llvmjit"])
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    call_dir = self.write_call_repro("count", "iree_llvmjit", 0)
    with open(os.path.join(call_dir, "flagfile")) as f:
      flagfile = f.read()
    self.assertIn("--input=i32=@input_1.bin", flagfile)
    self.assertIn("--expected_output=i32=@expected_output_0.bin", flagfile)
    process = subprocess.run([os.path.join(VENV_BIN, "iree-run-module"), "--flagfile=flagfile"],
                             cwd=call_dir, capture_output=True, text=True, check=False)
    self.assertEqual(process.returncode, 0, process.stdout + process.stderr)

  def test_a_live_mismatch_ends_with_a_command_that_reproduces_it(self):
    def diverging(module):  # deterministic: every run on the reference sees x.
      x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
      module.logits(x if module.backend == "tf_ref" else x * 2)

    result = self.run_with(diverging, target_backends=["iree_llvmjit"])
    self.assertLen(result.failures, 1)
    message = result.failures[0][1]
    self.assertIn("iree_llvmjit: MISMATCH", message)
    self.assertIn("call 0 (logits)", message)
    self.assertIn("outputs['logits']: float32[2, 4] arrays are not close: 8 of 8 elements "
                  "(100.0%) differ", message)
    self.assertIn("greatest absolute difference 11.3 at index [1, 3] (expected 11.3, got 22.6)",
                  message)
    self.assertIn("rtol=1e-06, atol=1e-06", message)
    last_line = message.strip().splitlines()[-1]
    command = re.fullmatch(
        r"\s*re-run call 0 alone: (cd .* && \S+/iree-run-module --flagfile=flagfile)",
        last_line).group(1)
    process = subprocess.run(command, shell=True, capture_output=True, text=True, check=False,
                             env=dict(os.environ, PATH=VENV_BIN + os.pathsep + os.environ["PATH"]))
    self.assertNotEqual(process.returncode, 0)
    self.assertIn("does not match the expected", process.stdout + process.stderr)

  def test_an_expected_failure_that_fails_is_xfail_and_the_test_passes(self):
    def diverging(module):  # deterministic: every run on the reference sees ones.
      module.logits(np.ones([2, 3], np.float32) * (1 if module.backend == "tf_ref" else 2))

    result = self.run_with(diverging, target_backends=["iree_vmla"], xfail_backends=["iree_vmla"])
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)

  def test_an_expected_failure_that_passes_everything_is_an_xpass_error(self):
    result = self.run_with(predict, target_backends=["iree_vmla"], xfail_backends=["iree_vmla"])
    self.assertFalse(result.wasSuccessful())
    self.assertIn("XPASS: Case passed every trace on iree_vmla", result.errors[0][1])

  def test_replay_of_a_perturbed_reference_reports_the_mismatch_without_tensorflow(self):
    result = self.run_with(predict, target_backends=["iree_vmla"])
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    saved = os.path.join(self.module_dir, "traces", "predict__tf_ref")
    perturbed = os.path.join(self.module_dir, "traces", "predict__perturbed")
    shutil.copytree(saved, perturbed)
    trace = trace_io.load_trace(perturbed)
    trace.calls[1].outputs[0]["logits"][0, 2] += 0.5
    with open(os.path.join(self.module_dir, "iree_input.mlir")) as f:
      trace_io.save_trace(trace, perturbed, reference=True, iree_input=f.read())

    outcomes = replay.replay(perturbed, ["iree_vmla"])
    self.assertEqual([o.status for o in outcomes], [verdicts.Status.MISMATCH])
    self.assertIn("call 1 (logits)", outcomes[0].detail)
    self.assertIn("outputs['logits']: float32[2, 4] arrays are not close: 1 of 8 elements (12.5%)",
                  outcomes[0].detail)

    # The command-line replay runs in a process that never imports TensorFlow.
    script = ("import sys, runpy; "
              "sys.argv = ['replay', sys.argv[1], '--target_backends=iree_vmla'];"
              "exit_code = 0\n"
              "try:\n  runpy.run_module('pyiree_tf_support.replay', run_name='__main__')\n"
              "except SystemExit as e:\n  exit_code = e.code\n"
              "assert 'tensorflow' not in sys.modules, 'replay imported TensorFlow'\n"
              "sys.exit(exit_code)")
    process = subprocess.run([sys.executable, "-c", script, perturbed], capture_output=True,
                             text=True, check=False)
    self.assertEqual(process.returncode, 1, process.stderr[-2000:])
    self.assertIn("Trace 'predict' failed on 1 of 1 target backend(s) compared with the "
                  "reference 'tf_ref': iree_vmla (mismatch).", process.stdout)
    self.assertIn("greatest absolute difference 0.5 at index [0, 2]", process.stdout)

  def test_replay_rejects_bad_input_with_one_line(self):
    process = subprocess.run([sys.executable, "-m", "pyiree_tf_support.replay", self.artifacts_dir,
                              "--target_backends=iree_vmla"], capture_output=True, text=True,
                             check=False)
    self.assertEqual(process.returncode, 2)
    self.assertIn("No saved trace in", process.stderr)


if __name__ == "__main__":
  absltest.main()
