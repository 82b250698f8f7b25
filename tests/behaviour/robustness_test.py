"""Robustness: no silent pass, no lost artifact, no clobbered directory.

Every test here runs the real TensorFlow and IREE; each names the guarantee of docs/guarantees.md
"Guarantees" it backs.
"""

import contextlib
import importlib.util
import io
import os
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import ml_dtypes
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup
from pyiree_tf_support.importing import importer
from tests.support import test_files
from tests.support.repo import ROOT

E2E_FILE = os.path.join(ROOT, "e2e", "simple_stateful_test.py")


class AccumulatorModule(tf.Module):

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add(self, x):
    self.total.assign_add(x)
    return self.total

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x


class IntegerModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.int32)])
  def plus_one(self, x):
    return x + 1

  @tf.function(input_signature=[tf.TensorSpec([1], tf.int64)])
  def twice(self, x):
    return x * 2


class Bfloat16Module(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.bfloat16)])
  def double(self, x):
    return x + x


class NonAsciiNamesModule(tf.Module):
  """Method names are data: MLIR spells `größe` as the quoted symbol @"gr\\C3\\B6\\C3\\9Fe"."""

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def größe(self, x):
    return x * 2.0

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def plain(self, x):
    return self.größe(x) + 1.0


class IntKeysModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def halves(self, x):
    return {"whole": x, "parts": {1: x / 2, 2: x / 2}}


def run_case(test_class) -> unittest.TestResult:
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def make_case(tests, module_class=AccumulatorModule):
  """A decorated test class with one test per (test name -> trace function)."""

  @tf_test_utils.compile_module(module_class)
  class GeneratedTest(tf_test_utils.TracedModuleTestCase):
    pass

  for name, fn in tests.items():
    setattr(GeneratedTest, name, lambda self, fn=fn: self.compare_backends(fn))
  return GeneratedTest


def messages(result: unittest.TestResult) -> str:
  return "\n".join(text for _, text in result.failures + result.errors)


def run_python(args, env=None, cwd=ROOT):
  return test_files.run_test_file(*args, env=env, cwd=cwd)


class CaseTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.root = tempfile.mkdtemp()
    self.module_dir = os.path.join(self.root, "AccumulatorModule")

  def run_on(self, tests, backends=("iree_vmla", "iree_llvmjit"), module_class=AccumulatorModule,
             **flag_values):
    with flagsaver.flagsaver(target_backends=list(backends), artifacts_dir=self.root,
                             **flag_values):
      return run_case(make_case(tests, module_class))


class NoneAndLossyInputsTest(CaseTest):
  """Guarantee: None or a value that cannot become the signature's dtype is an error."""

  def test_none_in_a_call_fails_naming_the_call_and_argument(self):

    def none_input(module):
      module.double([1.0, None])

    result = self.run_on({"test_none": none_input})
    self.assertFalse(result.wasSuccessful())
    self.assertIn("call 0 (double) raised InputCastError: AccumulatorModule.double() input 0 "
                  "('x') contains None", messages(result))

  def test_bfloat16_nan_into_an_int32_input_fails_instead_of_passing_as_int_min(self):

    def bfloat16_nan(module):
      module.plus_one(np.array([np.nan, 1e10], ml_dtypes.bfloat16))

    result = self.run_on({"test_bfloat16": bfloat16_nan}, module_class=IntegerModule)
    self.assertFalse(result.wasSuccessful())
    self.assertIn("call 0 (plus_one) raised InputCastError: IntegerModule.plus_one() input 0 "
                  "('x') contains NaN or infinity, which int32 cannot hold.", messages(result))

  def test_a_datetime64_into_an_int64_input_fails_instead_of_passing_days_since_1970(self):

    def date(module):
      module.twice(np.array(["2020-01-02"], "datetime64[D]"))

    result = self.run_on({"test_date": date}, module_class=IntegerModule)
    self.assertFalse(result.wasSuccessful())
    self.assertIn("call 0 (twice) raised InputCastError: IntegerModule.twice() input 0 ('x') is "
                  "datetime64[D] data (dates or durations), which cannot become int64",
                  messages(result))


class ClearErrorsTest(CaseTest):
  """Guarantee: a module IREE's import cannot take gets a one-line error naming the function."""

  def test_a_dict_result_with_int_keys(self):
    result = self.run_on({"test_halves": lambda m: m.halves(np.ones([2], np.float32))},
                         backends=["iree_vmla"], module_class=IntKeysModule)
    message = messages(result)
    self.assertIn("iree_vmla: IMPORT ERROR\n  ModuleImportError: Function 'halves' of module "
                  "'IntKeysModule' returns a dict with the key 1 (int) at outputs['parts']; a "
                  "SavedModel, which the import to MLIR reads, holds only dicts with str keys: use "
                  "str keys (e.g. '1').\n", message)
    self.assertNotIn("bad argument type", message)


class Bfloat16InWorkerTest(CaseTest):
  """Guarantee: a bfloat16 call reaches a worker process (it was refused, a RUNTIME ERROR)."""

  def test_a_bfloat16_trace_passes_with_run_in_worker(self):

    def double(module):
      module.double(np.array([1, 2.5, -3, 4], ml_dtypes.bfloat16))

    result = self.run_on({"test_double": double}, backends=["iree_llvmjit"],
                         module_class=Bfloat16Module, run_in_worker=True)
    self.assertTrue(result.wasSuccessful(), messages(result))


class NondeterministicTraceTest(CaseTest):
  """Guarantee: a trace whose inputs change from run to run is said to be, not a mismatch."""

  def test_unseeded_inputs_are_an_error_naming_the_trace_not_a_mismatch_everywhere(self):

    def unseeded(module):
      module.double(np.random.default_rng().random(2).astype(np.float32))

    result = self.run_on({"test_unseeded": unseeded})
    self.assertEqual(result.failures, [])
    self.assertLen(result.errors, 1)
    message = messages(result)
    self.assertIn("NondeterministicTraceError: Trace 'unseeded' is not deterministic: run twice on "
                  "the reference 'tf_ref', call 0 (double) got other inputs: inputs[0]: float32[2] "
                  "arrays are not close: 2 of 2 elements (100.0%) differ", message)
    self.assertIn("no verdict was recorded", message)
    self.assertNotIn("MISMATCH", message)
    self.assertFalse(os.path.exists(os.path.join(self.module_dir, "report.json")))

  def test_inputs_that_differ_only_on_the_targets_stay_their_mismatch(self):

    def per_backend(module):  # the same inputs every time it runs on a backend.
      module.double(np.ones([2], np.float32) * (1 if module.backend == "tf_ref" else 2))

    result = self.run_on({"test_per_backend": per_backend})
    self.assertLen(result.failures, 1)
    self.assertIn("iree_vmla (mismatch), iree_llvmjit (mismatch)", messages(result))


class TraceArtifactsTest(CaseTest):
  """Guarantee: different tests never share trace or repro artifacts."""

  def test_same_named_trace_functions_of_two_tests_keep_their_own_traces(self):

    def passing(module):
      module.add(1.0)

    def diverging(module):  # deterministic: every run on the reference sees 1.0.
      module.add(1.0 if module.backend == "tf_ref" else 2.0)

    passing.__name__ = diverging.__name__ = "trace"
    result = self.run_on({"test_a": passing, "test_b": diverging}, backends=["iree_vmla"])
    self.assertLen(result.failures, 1)
    traces = sorted(f for f in os.listdir(os.path.join(self.module_dir, "traces"))
                    if f.endswith(".txt"))
    self.assertEqual(traces, ["trace.test_b__iree_vmla.txt", "trace.test_b__tf_ref.txt",
                              "trace__iree_vmla.txt", "trace__tf_ref.txt"])
    message = messages(result)
    self.assertIn("traces/trace.test_b__iree_vmla.txt", message)
    self.assertIn("repro/trace.test_b__iree_vmla/call_0_add", message)
    with open(os.path.join(self.module_dir, "traces", "trace.test_b__iree_vmla.txt")) as f:
      self.assertIn("2.0", f.read())

  def test_a_repro_dir_holds_only_the_current_run_s_failing_calls(self):
    stale = os.path.join(self.module_dir, "repro", "one_call__iree_vmla", "call_7_add")
    os.makedirs(stale)

    def one_call(module):
      module.add(1.0)

    result = self.run_on({"test_one": one_call}, backends=["iree_vmla"])
    self.assertTrue(result.wasSuccessful(), messages(result))
    # The call passed: it gets no repro files, and the stale ones are gone with their directory.
    self.assertFalse(os.path.lexists(os.path.join(self.module_dir, "repro", "one_call__iree_vmla")))


class OneTargetErrorTest(CaseTest):
  """Guarantee: an error on one target is that target's outcome; the others still run."""

  def test_a_different_call_sequence_on_one_target_fails_only_that_target(self):
    runs = []

    def extra_call_on_first_target(module):
      runs.append(None)
      module.add(1.0)
      if len(runs) == 2:
        module.double(np.ones([2], np.float32))
      else:
        module.add(1.0)

    result = self.run_on({"test_calls": extra_call_on_first_target})
    message = messages(result)
    self.assertIn("iree_vmla (runtime error)", message)
    self.assertIn("iree_vmla: RUNTIME ERROR\n  call 1: comparing with the reference raised "
                  "ValueError", message)
    self.assertIn("iree_llvmjit: PASS", message)
    for backend in ("iree_vmla", "iree_llvmjit"):
      self.assertTrue(os.path.exists(os.path.join(
          self.module_dir, "traces", f"extra_call_on_first_target__{backend}.txt")))

  def test_a_bad_per_call_tolerance_is_reported_for_every_target(self):

    def bad_rtol(module):
      module.add(1.0)
      module.add(1.0, rtol="abc")

    result = self.run_on({"test_rtol": bad_rtol})
    message = messages(result)
    self.assertIn("failed on 2 of 2 target backend(s)", message)
    for backend in ("iree_vmla", "iree_llvmjit"):
      # Call 1 of this stateful module gets no iree-run-module files, so the comparison meets it.
      self.assertIn(f"{backend}: RUNTIME ERROR\n  comparing with the reference raised ValueError: "
                    "call 1 (add):", message)
      self.assertTrue(os.path.exists(os.path.join(self.module_dir, "traces",
                                                  f"bad_rtol__{backend}.txt")))


class NothingComparedTest(CaseTest):
  """Guarantee: never green with nothing compared."""

  def test_a_trace_that_makes_no_calls_fails(self):

    def no_calls(module):
      del module

    result = self.run_on({"test_nothing": no_calls})
    self.assertLen(result.failures, 1)
    self.assertIn("Trace 'no_calls' made no calls on the reference backend 'tf_ref': nothing was "
                  "compared", messages(result))

  def test_no_target_backends_is_an_error(self):
    process = run_python([E2E_FILE, "--target_backends="])
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1, process.stderr[-2000:])
    self.assertIn("names an empty backend", errors[0])

  def test_a_flag_typo_in_the_environment_is_an_error(self):
    process = run_python(
        ["-c", "from pyiree_tf_support import cli_flags; cli_flags.ensure_parsed()"],
        env={"PYIREE_TF_SUPPORT_FLAGS": "--target_backend=iree_vmla"})
    self.assertNotEqual(process.returncode, 0)
    self.assertIn("FlagsError: $PYIREE_TF_SUPPORT_FLAGS: Unknown command line flag "
                  "'target_backend'. Did you mean: target_backends ?", process.stderr)

  def test_an_unknown_xfail_backend_is_a_one_line_flag_error(self):
    process = run_python([E2E_FILE, "--target_backends=iree_vmla", "--xfail_backends=iree_bogus"])
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1, process.stderr[-2000:])
    self.assertIn("Unknown backend 'iree_bogus'", errors[0])


class RequestedBackendSkippedTest(absltest.TestCase):
  """Guarantee: a requested backend that cannot run is a reported skip, a failure when required."""

  NO_VULKAN = {"VK_ICD_FILENAMES": "/nonexistent/icd.json"}

  def test_the_report_says_a_requested_backend_was_skipped(self):
    process = run_python([E2E_FILE, "--target_backends=iree_vmla,iree_vulkan",
                          f"--artifacts_dir={tempfile.mkdtemp()}"], env=self.NO_VULKAN)
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertIn("Requested backend(s) skipped: iree_vulkan (no Vulkan device", process.stderr)

  def test_require_backends_makes_it_a_failure(self):
    process = run_python([E2E_FILE, "--target_backends=iree_vmla,iree_vulkan", "--require_backends",
                          f"--artifacts_dir={tempfile.mkdtemp()}"], env=self.NO_VULKAN)
    self.assertNotEqual(process.returncode, 0)
    self.assertIn("--require_backends: Requested backend(s) skipped: iree_vulkan", process.stderr)


def load_module_class(directory: str, class_name: str):
  """A module class defined in <directory>/base_test.py, loaded from that file."""
  path = os.path.join(directory, "base_test.py")
  with open(path, "w") as f:
    f.write(textwrap.dedent(f"""
        import tensorflow as tf
        class {class_name}(tf.Module):
          pass
        """))
  spec = importlib.util.spec_from_file_location(f"base_test_{abs(hash(directory))}", path)
  module = importlib.util.module_from_spec(spec)
  sys.modules[spec.name] = module  # as an import would: inspect finds the file through it.
  spec.loader.exec_module(module)
  return getattr(module, class_name)


class ModuleDirTest(absltest.TestCase):
  """Guarantee: module directories never collide and are never symlinks out of the artifacts dir."""

  def claim(self, module_class, root):
    return class_setup.claim_artifacts_dir(module_class, RunSettings(artifacts_dir=root))

  def test_same_file_name_and_class_in_two_directories_get_two_dirs(self):
    root = tempfile.mkdtemp()
    first = load_module_class(tempfile.mkdtemp(), "BaseModule")
    second = load_module_class(tempfile.mkdtemp(), "BaseModule")
    self.assertEqual(self.claim(first, root), os.path.join(root, "BaseModule"))
    self.assertRegex(self.claim(second, root), r"/BaseModule__[0-9a-f]{8}$")
    self.assertEqual(self.claim(first, root), os.path.join(root, "BaseModule"))

  def test_a_symlink_at_the_module_dir_is_refused(self):
    root, elsewhere = tempfile.mkdtemp(), tempfile.mkdtemp()
    os.symlink(elsewhere, os.path.join(root, "AccumulatorModule"))
    with self.assertRaisesRegex(safe_files.ArtifactsDirError, "is a symlink; refusing to follow"):
      self.claim(AccumulatorModule, root)
    self.assertEqual(os.listdir(elsewhere), [])

  def test_a_file_as_artifacts_dir_is_a_one_line_error_naming_it(self):
    path = tempfile.mkstemp()[1]
    with self.assertRaisesRegex(safe_files.ArtifactsDirError,
                                f"The artifacts dir '{path}' is a file, not a directory"):
      self.claim(AccumulatorModule, path)


class LongNamesTest(CaseTest):
  """Guarantee: any trace function or module name gives a usable, stable file name."""

  def test_a_245_character_trace_function_name_is_shortened_with_a_hash(self):

    def long(module):
      module.add(1.0)

    long.__name__ = "t" * 245
    result = self.run_on({"test_long": long}, backends=["iree_vmla"])
    self.assertTrue(result.wasSuccessful(), messages(result))
    names = os.listdir(os.path.join(self.module_dir, "traces"))
    self.assertIn(artifacts.safe_name("t" * 245) + "__iree_vmla.txt", names)
    self.assertTrue(all(len(name) < 150 for name in names), names)

  def test_a_300_character_module_name_gets_a_directory(self):
    module_class = type("M" * 300, (tf.Module,), {})
    path = ModuleDirTest.claim(self, module_class, self.root)
    self.assertEqual(os.path.basename(path), artifacts.safe_name("M" * 300))
    self.assertLessEqual(len(os.path.basename(path)), artifacts.MAX_NAME)

  def test_shortened_names_are_stable_and_distinct(self):
    a, b = "x" * 200 + "a", "x" * 200 + "b"
    self.assertEqual(artifacts.safe_name(a), artifacts.safe_name(a))
    self.assertNotEqual(artifacts.safe_name(a), artifacts.safe_name(b))


class NonAsciiNamesTest(CaseTest):
  """Guarantee: a method's name is data, never regex syntax: a non-ASCII name imports, compiles,
  runs and replays on an IREE backend."""

  def test_a_method_named_groesse_compares_and_replays_on_llvm_cpu(self):

    def trace(module):
      module.größe(np.array([1.5, -2.0], np.float32))
      module.plain(np.array([3.0, 4.0], np.float32))

    result = self.run_on({"test_names": trace}, backends=["iree_llvmjit"],
                         module_class=NonAsciiNamesModule)
    self.assertTrue(result.wasSuccessful(), messages(result))
    trace_dir = os.path.join(self.root, "NonAsciiNamesModule", "traces", "trace__tf_ref")
    stdout = io.StringIO()
    with flagsaver.flagsaver(target_backends=["iree_llvmjit"]), \
        contextlib.redirect_stdout(stdout):
      self.assertEqual(replay.main(["replay", trace_dir]), 0)
    self.assertIn("iree_llvmjit: PASS", stdout.getvalue())


class StaleSavedModelTest(absltest.TestCase):
  """Guarantee: a process killed during the SavedModel step leaks nothing for long."""

  def test_a_dead_process_s_saved_model_is_removed_by_the_next_import(self):
    # Left by an earlier version (named with a pid, never locked) more than an hour ago; the
    # locked directories of killed processes: tests/importing/saved_models_test.py.
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = os.path.join(tempfile.gettempdir(), f"pyiree_tf_support_saved_model_{dead.pid}_x1")
    os.makedirs(os.path.join(stale, "variables"))
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    importer.import_module(AccumulatorModule(), "AccumulatorModule")
    self.assertFalse(os.path.exists(stale))


class PytestSurfaceTest(absltest.TestCase):
  """Guarantee: under pytest a bad flag value is one usage error, not a traceback per test."""

  def test_a_bad_flag_value_is_one_line(self):
    process = run_python(["-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/core/signatures_test.py", "--xfail_backends=iree_bogus"])
    self.assertNotEqual(process.returncode, 0)
    output = (process.stdout + process.stderr).strip().splitlines()
    self.assertEqual(output, ["ERROR: $PYIREE_TF_SUPPORT_FLAGS: "
                              "flag --xfail_backends=['iree_bogus']: "
                              "Unknown backend 'iree_bogus'; valid backends are: tf, iree_vmvx, "
                              "iree_llvmcpu, iree_vulkan, tflite, iree_vmla, iree_llvmjit."])


if __name__ == "__main__":
  absltest.main()
