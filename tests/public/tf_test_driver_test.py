"""tf_test_driver: lit-style test files run as a user runs them, checked by a real FileCheck.

The files are written to a temporary directory and run with this interpreter; every run imports
TensorFlow (a few seconds), so each (file, flags) pair runs once and the tests share the result.
"""

import functools
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support import tf_test_driver
from pyiree_tf_support.importing import importer
from tests.support import test_files
from tests.support.repo import ROOT

EXAMPLE = os.path.join(ROOT, "docs", "examples", "saved_model_import_lit.py")

_MODULES = '''
import tensorflow.compat.v2 as tf
from pyiree_tf_support import tf_test_driver

SAVED_MODEL_IMPORT_PASSES = ["tf-executor-graph-pruning", "tf-standard-pipeline",
                             "iree-tf-saved-model-adopt-exports", "canonicalize"]

class Mul(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32)])
  def simple_mul(self, a, b):
    return a * b

class TensorArrayLoop(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    doubled = tf.TensorArray(tf.float32, size=4)
    for i in tf.range(4):
      doubled = doubled.write(i, x[i] * 2.0)
    return doubled.stack()
'''

_MAIN = '''
if __name__ == "__main__":
  tf_test_driver.run_tests(__file__, with_filecheck=True)
'''

# Every CHECK line matches what the driver prints; one test expects its pass to fail.
PASSING = _MODULES + '''
# CHECK-LABEL: RUN_TEST: TfDialect
# CHECK: func.func @simple_mul(
# CHECK: "tf.Mul"
# CHECK: FINISH_TEST: TfDialect
tf_test_driver.add_test(test_name="TfDialect", tf_module_builder=Mul, print_input_module=True)

# CHECK-LABEL: RUN_TEST: Lowered
# CHECK: func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32>
# CHECK-NEXT: stablehlo.multiply %arg0, %arg1
# CHECK: FINISH_TEST: Lowered
tf_test_driver.add_test(test_name="Lowered", tf_module_builder=Mul,
                        passes=SAVED_MODEL_IMPORT_PASSES, print_input_module=True)

# CHECK-LABEL: RUN_TEST: ExpectedFailure
# CHECK: error: failed to legalize unresolved materialization
# CHECK: FINISH_TEST_WITH_EXCEPTION: ExpectedFailure
tf_test_driver.add_test(test_name="ExpectedFailure", tf_module_builder=TensorArrayLoop,
                        passes=["iree-tf-import-pipeline"], expect_pass_failure=True)
''' + _MAIN

# One CHECK line is wrong (the module multiplies); one pass failure is not expected.
FAILING = _MODULES + '''
# CHECK-LABEL: RUN_TEST: WrongOp
# CHECK: stablehlo.add
tf_test_driver.add_test(test_name="WrongOp", tf_module_builder=Mul,
                        passes=["iree-tf-import-pipeline"], print_input_module=True)

tf_test_driver.add_test(test_name="Quiet", tf_module_builder=Mul, passes=["canonicalize"])

# CHECK: FINISH_TEST_WITH_EXCEPTION: Unexpected
tf_test_driver.add_test(test_name="Unexpected", tf_module_builder=TensorArrayLoop,
                        passes=["iree-tf-import-pipeline"])
''' + _MAIN


def _llvm_filecheck() -> str:
  found = shutil.which("FileCheck") or sorted(glob.glob("/usr/lib/llvm-*/bin/FileCheck"))
  return found if isinstance(found, str) else (found[-1] if found else "")


@functools.lru_cache(maxsize=None)
def _file(name: str, text: str) -> str:
  path = os.path.join(tempfile.mkdtemp(), name)
  with open(path, "w") as f:
    f.write(textwrap.dedent(text))
  return path


@functools.lru_cache(maxsize=None)
def run(kind: str, *args: str) -> subprocess.CompletedProcess:
  """Runs the lit file `kind` (passing, failing or example) like a user: python <file> <flags>."""
  path = {"passing": lambda: _file("passing_lit.py", PASSING),
          "failing": lambda: _file("failing_lit.py", FAILING),
          "example": lambda: EXAMPLE}[kind]()
  return test_files.run_test_file(path, *args)


FILECHECKS = (("python_filecheck", ()),
              ("llvm_filecheck", ("--filecheck_binary=" + _llvm_filecheck(),)))


class FileCheckRunTest(parameterized.TestCase):

  def _skip_without(self, args):
    if args and not _llvm_filecheck():
      self.skipTest("no LLVM FileCheck on this machine")

  @parameterized.named_parameters(*FILECHECKS)
  def test_matching_check_lines_exit_zero(self, args):
    self._skip_without(args)
    process = run("passing", *args)
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertIn("LAUNCHING FILECHECK:", process.stderr)
    self.assertIn("FINISHED: RAN 3 TESTS", process.stderr)

  @parameterized.named_parameters(
      ("python_filecheck", (), 'Couldn\'t match "stablehlo.add"'),
      ("llvm_filecheck", FILECHECKS[1][1], "error: CHECK: expected string not found in input"))
  def test_a_wrong_check_line_fails_with_filechecks_message(self, args, message):
    self._skip_without(args)
    process = run("failing", *args)
    self.assertEqual(process.returncode, 1, process.stderr[-3000:])
    self.assertIn(message, process.stderr)
    self.assertIn("failing_lit.py", process.stderr)

  def test_python_filecheck_is_the_default(self):
    launch = next(line for line in run("passing").stderr.splitlines()
                  if line.startswith("LAUNCHING FILECHECK:"))
    self.assertIn(f"'{sys.executable}', '-m', 'filecheck'", launch)
    self.assertIn("passing_lit.py', '--dump-input=fail']", launch)

  def test_the_example_in_docs_passes(self):
    if not os.path.exists(EXAMPLE):
      self.skipTest("docs/examples is not in this test's runfiles")
    process = run("example")
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])

  def test_a_filecheck_binary_that_does_not_exist_is_one_flag_error(self):
    process = run("passing", "--filecheck_binary=/nonexistent/FileCheck")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1)
    self.assertIn("no executable FileCheck at '/nonexistent/FileCheck'", errors[0])


class DisabledFileCheckTest(absltest.TestCase):
  """--disable_filecheck shows what FileCheck would read; the wrong CHECK line does not matter."""

  def setUp(self):
    super().setUp()
    self.process = run("failing", "--disable_filecheck")

  def test_exits_zero_without_filecheck(self):
    self.assertEqual(self.process.returncode, 0, self.process.stderr[-3000:])
    self.assertNotIn("LAUNCHING FILECHECK", self.process.stderr)

  def test_print_input_module_prints_the_module_after_its_passes(self):
    wrong_op = self.process.stdout.split("RUN_TEST: WrongOp\n")[1].split("FINISH_TEST: WrongOp")[0]
    self.assertIn("stablehlo.multiply %arg0, %arg1", wrong_op)
    self.assertNotIn("tf_executor", wrong_op)

  def test_without_print_input_module_only_the_markers_are_printed(self):
    self.assertIn("RUN_TEST: Quiet\nFINISH_TEST: Quiet\n", self.process.stdout)

  def test_a_failing_pass_prints_its_traceback_and_the_exception_marker(self):
    unexpected = self.process.stdout.split("RUN_TEST: Unexpected\n")[1]
    self.assertIn("PassFailedError: pass 'iree-tf-import-pipeline' (run as "
                  "'tf-lower-to-mlprogram-and-hlo') failed:", unexpected)
    self.assertIn("error: failed to legalize unresolved materialization", unexpected)
    self.assertTrue(unexpected.rstrip().endswith("FINISH_TEST_WITH_EXCEPTION: Unexpected"))

  def test_an_unexpected_pass_failure_dumps_the_input_of_the_pass_on_stderr(self):
    dump = self.process.stderr.split(
        "UNEXPECTED PASS FAILURE (INTERMEDIATE ASM FOLLOWS ON STDERR):\n")
    self.assertLen(dump, 2)
    self.assertIn("tf_saved_model.semantics", dump[1])
    self.assertIn("FINISHED: RAN 3 TESTS", self.process.stderr)

  def test_an_expected_pass_failure_dumps_nothing(self):
    process = run("passing", "--disable_filecheck")
    self.assertIn("FINISH_TEST_WITH_EXCEPTION: ExpectedFailure", process.stdout)
    self.assertNotIn("UNEXPECTED PASS FAILURE", process.stderr)


class AddTestTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    self.enter_context(mock.patch.object(tf_test_driver, "ALL_TESTS", []))

  @parameterized.parameters(
      ("canonicalize", "canonicalize"),
      ("tf-standard-pipeline", "tf-standard-pipeline"),
      ("tf-executor-graph-pruning", "func.func(tf-executor-graph-pruning)"),
      ("func.func(canonicalize)", "func.func(canonicalize)"),
      ("iree-tf-saved-model-adopt-exports", importer.LOWERING_PIPELINE),
      ("iree-tf-import-pipeline", importer.LOWERING_PIPELINE),
      ("tf-lower-to-mlprogram-and-hlo", importer.LOWERING_PIPELINE),
  )
  def test_pass_names_run_where_they_apply(self, name, pipeline):
    self.assertEqual(tf_test_driver.resolve_pass(name).pipeline, pipeline)

  @parameterized.parameters(
      ("iree-flow-bogus", "Test 'T': unknown pass 'iree-flow-bogus': neither a pass of TensorFlow"),
      ("canonicalize{bogus=1}", "Test 'T': invalid pass 'canonicalize{bogus=1}': "),
      ("", "Test 'T': each pass must be a non-empty pass name, got ''."),
  )
  def test_a_bad_pass_is_one_line_naming_it(self, name, message):
    with self.assertRaises(ValueError) as raised:
      tf_test_driver.add_test(test_name="T", tf_module_builder=object, passes=[name])
    self.assertStartsWith(str(raised.exception), message)
    self.assertNotIn("\n", str(raised.exception))

  def test_the_importers_lowering_runs_once(self):
    tf_test_driver.add_test(test_name="T", tf_module_builder=object, passes=[
        "iree-tf-saved-model-lower-global-tensors", "canonicalize",
        "iree-tf-saved-model-lower-exported-functions"])
    self.assertEqual([step.pipeline for step in tf_test_driver.ALL_TESTS[0].passes],
                     [importer.LOWERING_PIPELINE, "canonicalize"])

  def test_a_test_name_used_twice_is_rejected(self):
    tf_test_driver.add_test(test_name="T", tf_module_builder=object)
    with self.assertRaisesRegex(ValueError,
                                "^Test 'T' is added twice; test names must be unique.$"):
      tf_test_driver.add_test(test_name="T", tf_module_builder=object)

  def test_arguments_are_the_2020_keywords(self):
    with self.assertRaisesRegex(TypeError, "missing 1 required keyword-only argument: 'test_name'"):
      tf_test_driver.add_test(tf_module_builder=object)
    with self.assertRaisesRegex(TypeError, "unexpected keyword argument 'pass_pipeline'"):
      tf_test_driver.add_test(
          test_name="T", tf_module_builder=object, pass_pipeline=[])
    with self.assertRaisesRegex(TypeError, "tf_module_builder must be a tf.Module class"):
      tf_test_driver.add_test(test_name="T", tf_module_builder=None)


if __name__ == "__main__":
  absltest.main()
