"""Examples end to end on the real toolchain: --examples finds the corpus' listed vmvx cast
miscompile with no hand-written input, shrinks it to a smaller input failing the same way, saves
it as a trace replay runs; the same seed finds the same input; inputs the reference rejects are
counted, never passed; a run that compared nothing fails; state never leaks between examples;
an own fault errors the test with no verdict."""

import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import hypothesis
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.examples import engine
from pyiree_tf_support.reporting.verdicts import Status
from tests.support import test_files


class CastModule(tf.Module):
  """e2e/integer_test.py's cast: vmvx rounds f32 -> i32 to nearest (listed as a mismatch)."""

  @tf.function(input_signature=[tf.TensorSpec([6], tf.float32)])
  def float_int_casts(self, x):
    as_int = tf.cast(x, tf.int32)
    return as_int, tf.cast(as_int, tf.float32) * 0.5


class RejectingModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
  def gather_far(self, i):  # TensorFlow raises for an index out of range; IREE clamps.
    return tf.gather(tf.constant([1., 2., 3.]), i + 1000)

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
  def pairs(self, x):  # odd sizes cannot be reshaped into pairs: TensorFlow raises.
    return tf.reshape(x, [-1, 2]) * 2.0


class WhereModule(tf.Module):
  """e2e/dynamic_elementwise_test.py's select, listed as a miscompile on lavapipe."""

  @tf.function(input_signature=[tf.TensorSpec([None], tf.bool), tf.TensorSpec([None], tf.float32),
                                tf.TensorSpec([None], tf.float32)])
  def where(self, cond, a, b):
    return tf.where(cond, a, b)


class StringModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.string)])
  def length(self, s):  # IREE has no strings: an import error on every IREE backend.
    return tf.strings.length(s)


class CounterModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.count = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add(self, x):
    self.count.assign_add(x)
    return self.count


def run_test_case(test_class) -> unittest.TestResult:
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def make_test_case(module_class, body):
  @tf_test_utils.compile_module(module_class)
  class ExamplesTest(tf_test_utils.TracedModuleTestCase):

    def test_it(self):
      body(self)

  return ExamplesTest


def integer_valued_casts(module):  # a hand-written trace every backend passes.
  module.float_int_casts(np.array([-3., -1., 0., 1., 2., 100.], np.float32))


def compiled(module_class, target):
  modules = engine.ExampleModules(
      tf_utils.BackendInfo("tf").compile(module_class),
      (engine.ExampleTarget(target, tf_utils.BackendInfo(target).compile(module_class)),),
      stateful=False)
  return modules, modules.reference.signatures


class ExamplesTestBase(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.artifacts_dir = tempfile.mkdtemp()
    hypothesis.configuration.set_hypothesis_home_dir(os.path.join(self.artifacts_dir, "hyp"))
    self.addCleanup(hypothesis.configuration.set_hypothesis_home_dir, None)

  def module_dir(self, name):
    return os.path.join(self.artifacts_dir, name)


class FlagTest(ExamplesTestBase):

  def test_examples_flag_finds_the_listed_vmvx_cast_mismatch_and_replay_runs_the_shrunk(self):
    with flagsaver.flagsaver(target_backends="iree_vmla", artifacts_dir=self.artifacts_dir,
                             examples=100):
      result = run_test_case(make_test_case(CastModule,
                                       lambda t: t.compare_backends(integer_valued_casts)))
    self.assertEmpty(result.errors)
    self.assertLen(result.failures, 1)
    message = result.failures[0][1]
    self.assertIn("Examples of CastModule.float_int_casts(): 100 requested (seed 0)", message)
    self.assertIn("iree_vmla MISMATCH (outputs[0]: ExactMismatch) first on:", message)
    self.assertIn("Trace 'float_int_casts.shrunk' failed on 1 of 1 target backend(s)", message)
    trace_dir = os.path.join(self.module_dir("CastModule"), "traces",
                             "float_int_casts.shrunk__tf_ref")
    shrunk = trace_io.load_trace(trace_dir).calls[0].inputs[0]
    # The wrong rounding needs a fraction of at least .5 somewhere; nothing else is left.
    self.assertEqual(np.count_nonzero(shrunk), 1, shrunk)
    self.assertGreaterEqual(abs(shrunk[np.nonzero(shrunk)][0]) % 1, 0.5)
    outcomes = replay.replay(trace_dir, ["iree_vmla"])
    self.assertEqual([o.status for o in outcomes], [Status.MISMATCH])
    summary = os.path.join(self.module_dir("CastModule"), "examples",
                           "float_int_casts.examples", "summary.txt")
    with open(summary) as f:
      self.assertIn("drawn again by: --examples=100 --examples_seed=0", f.read())
    with open(os.path.join(self.module_dir("CastModule"), "report.txt")) as f:
      self.assertIn("Examples of CastModule.float_int_casts(): 100 requested", f.read())

  def test_the_library_imports_no_hypothesis_and_examples_write_only_artifacts(self):
    imported = subprocess.run(
        [sys.executable, "-c", "import sys; from pyiree_tf_support import tf_test_utils; "
         "print(sorted(m for m in sys.modules if m.startswith('hypothesis')))"],
        capture_output=True, text=True, check=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    self.assertEqual(imported.stdout.strip().splitlines()[-1], "[]")
    working_dir = tempfile.mkdtemp()  # a user's: it holds the test file, and gets no more.
    with open(os.path.join(working_dir, "cast_test.py"), "w") as f:
      f.write(test_files.one_method_test("Cast", "tf.cast(a, tf.int32) * 2"))
    run = subprocess.run(
        [sys.executable, "cast_test.py", "--target_backends=iree_vmla", "--examples=20",
         f"--artifacts_dir={self.artifacts_dir}"], cwd=working_dir, capture_output=True,
        text=True, env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2",
                            PYTHONPATH=os.pathsep.join(sys.path)), check=False)
    self.assertIn("Examples of CastModule.f(): 20 requested", run.stderr)
    self.assertEqual(os.listdir(working_dir), ["cast_test.py"])  # no .hypothesis/ there.

  def test_a_failure_on_a_listed_backend_is_an_xfail(self):
    with flagsaver.flagsaver(target_backends="iree_vmla", artifacts_dir=self.artifacts_dir,
                             examples=50, xfail_backends=["iree_vmla:mismatch"]):
      result = run_test_case(make_test_case(CastModule,
                                            lambda t: t.compare_backends(integer_valued_casts)))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertTrue(os.path.isdir(os.path.join(self.module_dir("CastModule"), "traces",
                                               "float_int_casts.shrunk__tf_ref")))

  def test_without_the_flag_no_example_is_drawn(self):
    with flagsaver.flagsaver(target_backends="iree_vmla", artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case(CastModule,
                                       lambda t: t.compare_backends(integer_valued_casts)))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertFalse(os.path.exists(os.path.join(self.module_dir("CastModule"), "examples")))


class ShrinkTest(ExamplesTestBase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.modules, signatures = compiled(CastModule, "iree_vmla")
    cls.signature = signatures["float_int_casts"]

  def run_examples(self, seed):
    return engine.run_examples(self.modules, "float_int_casts", self.signature,
                               engine.ExampleSettings(100, seed))

  def test_the_shrunk_input_is_smaller_and_fails_the_same_way(self):
    result = self.run_examples(seed=0)
    failure = result.failure
    self.assertEqual(failure.kind, engine.FailureKind("iree_vmla", Status.MISMATCH,
                                                      "outputs[0]: ExactMismatch"))
    first, shrunk = (engine.input_size(failure.first_inputs),
                     engine.input_size(failure.shrunk_inputs))
    self.assertLess(shrunk[1:], first[1:])  # (nonzero elements, sum of magnitudes)
    self.assertEqual(engine.failure_kind(failure.outcome), failure.kind)  # run again on it.
    self.assertEqual([(e.input_index, e.matters) for e in failure.elements], [(0, True)])

  def test_the_same_seed_finds_the_same_inputs_another_seed_others(self):
    first, again, other = (self.run_examples(seed) for seed in (3, 3, 4))
    for a, b in zip(first.failure.first_inputs + first.failure.shrunk_inputs,
                    again.failure.first_inputs + again.failure.shrunk_inputs):
      np.testing.assert_array_equal(a, b)
    self.assertFalse(np.array_equal(first.failure.first_inputs[0],
                                    other.failure.first_inputs[0], equal_nan=True))

  def test_the_time_box_stops_the_examples(self):
    result = engine.run_examples(self.modules, "float_int_casts", self.signature,
                                 engine.ExampleSettings(100, seconds=1e-9))
    self.assertTrue(result.timed_out)
    self.assertEqual((result.compared, result.failure), (0, None))


class HonestVerdictsTest(ExamplesTestBase):

  def test_inputs_the_reference_rejects_are_counted_not_compared(self):
    modules, signatures = compiled(RejectingModule, "iree_llvmjit")
    result = engine.run_examples(modules, "pairs", signatures["pairs"],
                                 engine.ExampleSettings(60))
    rejected = sum(count for _, count in result.rejected)
    self.assertGreater(rejected, 0)
    self.assertGreater(result.compared, 0)
    self.assertEqual(result.compared + rejected, result.run)
    self.assertRegex(result.rejected[0][0], r"^InvalidArgumentError: Input to reshape is a "
                     r"tensor with \d+ values, but the requested shape requires a multiple of 2")

  def test_a_run_that_compared_nothing_fails(self):
    with flagsaver.flagsaver(target_backends="iree_llvmjit", artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case(
          RejectingModule, lambda t: t.check_examples("gather_far", examples=20)))
    self.assertEmpty(result.errors)
    self.assertLen(result.failures, 1)
    message = result.failures[0][1]
    self.assertIn("Examples of RejectingModule.gather_far() compared nothing", message)
    self.assertRegex(message, r"rejected \d+x \(not compared\): .*not in \[0, 3\)")

  def test_an_own_fault_errors_the_test_with_no_verdict(self):
    def plant_then_check(test):
      with open(os.path.join(self.module_dir("CastModule"), "examples"), "w") as f:
        f.write("in the way")
      test.check_examples("float_int_casts", examples=5)

    with flagsaver.flagsaver(target_backends="iree_vmla", artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case(CastModule, plant_then_check))
    self.assertEmpty(result.failures)
    self.assertLen(result.errors, 1)
    self.assertIn("ArtifactsDirError: '" + os.path.join(self.module_dir("CastModule"), "examples")
                  + "' is a file where the artifacts need a directory", result.errors[0][1])
    report = os.path.join(self.module_dir("CastModule"), "report.json")
    self.assertFalse(os.path.exists(report) and json.load(open(report)).get("tests"))


class BackendsTest(ExamplesTestBase):

  def test_the_listed_vulkan_select_miscompile_is_found_in_its_worker_and_shrunk(self):
    three = [tf.TensorSpec([3], tf.bool)] + [tf.TensorSpec([3], tf.float32)] * 2
    with flagsaver.flagsaver(target_backends="iree_vulkan", artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case(
          WhereModule, lambda t: t.check_examples("where", examples=30, input_signature=three)))
    self.assertEmpty(result.errors)
    self.assertLen(result.failures, 1)
    self.assertIn("iree_vulkan MISMATCH (outputs: NumericMismatch) first on:",
                  result.failures[0][1])
    call = trace_io.load_trace(os.path.join(self.module_dir("WhereModule"), "traces",
                                            "where.shrunk__tf_ref")).calls[0]
    cond, a, b = call.inputs
    self.assertTrue(cond.any())  # a True condition picks `a`, which lavapipe does not.
    self.assertLessEqual(engine.input_size(call.inputs)[1], 3)
    self.assertFalse(np.array_equal(a[cond], b[cond]))

  def test_under_pytest_each_backend_item_is_judged_on_the_shrunk_trace(self):
    working_dir = tempfile.mkdtemp()
    with open(os.path.join(working_dir, "cast_test.py"), "w") as f:
      f.write(test_files.one_method_test("Cast", "tf.cast(a, tf.int32) * 2"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", "-rA", "cast_test.py", "--examples=30",
         "--target_backends=iree_vmla,iree_llvmjit", f"--artifacts_dir={self.artifacts_dir}"],
        cwd=working_dir, capture_output=True, text=True, check=False,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=os.pathsep.join(sys.path)))
    self.assertIn("FAILED cast_test.py::CastTest::test_f[iree_vmla] - Trace 'f.shrunk' failed",
                  run.stdout)
    self.assertIn("PASSED cast_test.py::CastTest::test_f[iree_llvmjit]", run.stdout)
    self.assertIn("iree_vmla MISMATCH (outputs: ExactMismatch) first on:", run.stdout)


class EntryPointTest(ExamplesTestBase):

  def test_state_does_not_leak_between_examples(self):
    with flagsaver.flagsaver(target_backends="iree_llvmjit", artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case(CounterModule,
                                       lambda t: t.check_examples("add", examples=15)))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    call = trace_io.load_trace(os.path.join(self.module_dir("CounterModule"), "traces",
                                            "add.example__tf_ref")).calls[0]
    np.testing.assert_array_equal(call.result, call.inputs[0])  # counted from 0, not on.

  def test_under_the_flag_a_method_no_values_are_drawn_for_is_skipped_with_a_warning(self):
    with flagsaver.flagsaver(target_backends="iree_llvmjit", artifacts_dir=self.artifacts_dir,
                             examples=5, xfail_backends=["iree_llvmjit:import"]):
      with self.assertLogs(level="WARNING") as logs:
        result = run_test_case(make_test_case(StringModule, lambda t: t.compare_backends(
            lambda module: module.length(np.array([b"ab", b"c"], dtype=object)))))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    self.assertIn("No examples of StringModule.length(): StringModule.length() input 0 "
                  "(object[2]): ", "\n".join(logs.output))

  def test_an_input_signature_replaces_the_functions_own(self):
    with flagsaver.flagsaver(target_backends="iree_llvmjit", artifacts_dir=self.artifacts_dir):
      result = run_test_case(make_test_case(RejectingModule, lambda t: t.check_examples(
          "pairs", examples=10, input_signature=[tf.TensorSpec([4], tf.float32)])))
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    call = trace_io.load_trace(os.path.join(self.module_dir("RejectingModule"), "traces",
                                            "pairs.example__tf_ref")).calls[0]
    self.assertEqual(call.inputs[0].shape, (4,))

  def test_a_wrong_method_or_signature_is_named_in_one_line(self):
    for call, pattern in [
        (lambda t: t.check_examples("nope"),
         r"check_examples\('nope'\): module 'RejectingModule' exports no such function; it "
         r"exports: gather_far, pairs\."),
        (lambda t: t.check_examples("pairs", input_signature=[tf.TensorSpec([4], tf.float32)] * 2),
         r"check_examples\('pairs'\): input_signature must be 1 tf.TensorSpec\(s\)")]:
      with flagsaver.flagsaver(target_backends="iree_llvmjit", artifacts_dir=self.artifacts_dir):
        result = run_test_case(make_test_case(RejectingModule, call))
      self.assertLen(result.errors, 1)
      self.assertRegex(result.errors[0][1].splitlines()[-1], "ValueError: " + pattern)


if __name__ == "__main__":
  absltest.main()
