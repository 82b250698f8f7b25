"""A module with one function TensorFlow cannot lower for IREE (tf.strings) still imports,
compiles, runs and compares its other functions; a call of the bad one is an IMPORT ERROR
naming its op, and the whole module's import error stays in the report (real TF and IREE)."""

import io
import json
import os
import re
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing import method_imports


class DoubleAndLength(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def double(self, x):
    return 2 * x

  @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
  def lengths(self, words):
    return tf.strings.length(words)


class CounterWithText(tf.Module):
  """A variable shared by two functions that import and one that does not."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(0.0)

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def add(self, x):
    self.total.assign_add(x)
    return self.total.read_value()

  @tf.function(input_signature=[])
  def read(self):
    return self.total.read_value()

  @tf.function(input_signature=[])
  def text_length(self):
    return tf.strings.length(tf.strings.as_string(self.total))


class OnlyStrings(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None], tf.string)])
  def lengths(self, words):
    return tf.strings.length(words)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def as_text_length(self, x):
    return tf.strings.length(tf.strings.as_string(x))


class GrowingLoopAndLength(DoubleAndLength):
  """`grow` imports alone without an error, but TF prints its loop (a carry grown from a non-empty
  start, which the growing-carries step leaves alone) as text that does not parse back; compiled
  with `double` it would sink `double` too."""

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def grow(self, n):
    _, values = tf.while_loop(
        lambda i, values: i < n, lambda i, values: (i + 1, tf.concat([values, [i]], 0)),
        [tf.constant(0), tf.zeros([1], tf.int32)],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    return values


class GrowingFromEmptyAndLength(DoubleAndLength):
  """`grow` starts its growing carry from an empty tensor, which the import rewrites with ops of
  IREE's dialects (tensor.empty, tensor.concat): the parse-back check must know them."""

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def grow(self, n):
    _, values = tf.while_loop(
        lambda i, values: i < n, lambda i, values: (i + 1, tf.concat([values, [i]], 0)),
        [tf.constant(0), tf.zeros([0], tf.int32)],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    return values


X = np.array([1., 2., 3.], np.float32)
WORDS = np.array([b"a", b"four"], dtype=object)


def run_case(test_class) -> unittest.TestResult:
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def failed_tests(result: unittest.TestResult):
  return sorted(t.id().rsplit(".", 1)[1] for t, _ in result.failures + result.errors)


class ImportEachFunctionTest(absltest.TestCase):
  """importer.import_module with each_function_on_failure: the record and the texts."""

  def test_the_text_holds_the_functions_that_import_and_the_record_names_the_other(self):
    imported = importer.import_module(DoubleAndLength(), "DoubleAndLength",
                                      each_function_on_failure=True)
    imported.check(partial=True)
    self.assertEqual(imported.imported_names, ("double",))
    self.assertEqual(imported.exported_names, ("double", "lengths"))
    self.assertIn("func.func @double(", imported.iree_input)
    self.assertNotIn("@lengths", imported.iree_input)
    self.assertStartsWith(imported.iree_input,  # readers of iree_input.mlir learn what is missing.
                          "// pyiree_tf_support import: function 'lengths' not imported: "
                          "ModuleImportError: Function 'lengths' of module 'DoubleAndLength' uses "
                          "TensorFlow ops IREE cannot compile: tf.StringLength")
    self.assertEqual(set(imported.signatures), {"double", "lengths"})
    (failure,) = imported.method_imports.failed
    self.assertEqual(failure.function, "lengths")
    self.assertIn("Function 'lengths' of module 'DoubleAndLength' uses TensorFlow ops IREE "
                  "cannot compile: tf.StringLength", failure.reason)
    self.assertIn("Module 'DoubleAndLength' uses TensorFlow ops IREE cannot compile: "
                  "tf.StringLength", imported.method_imports.module_error)

  def test_a_function_whose_lowered_text_does_not_parse_back_is_not_imported(self):
    imported = importer.import_module(GrowingLoopAndLength(), "GrowingLoopAndLength",
                                      each_function_on_failure=True)
    self.assertEqual(imported.imported_names, ("double",))
    reasons = {f.function: f.reason for f in imported.method_imports.failed}
    self.assertEqual(sorted(reasons), ["grow", "lengths"])
    self.assertIn("Function 'grow' of module 'GrowingLoopAndLength' was lowered by TF to text "
                  "that does not parse back: ", reasons["grow"])
    self.assertIn("use of value", reasons["grow"])
    self.assertIn("expects different type than prior uses", reasons["grow"])

  def test_a_function_rewritten_into_iree_dialect_ops_imports(self):
    imported = importer.import_module(GrowingFromEmptyAndLength(), "GrowingFromEmptyAndLength",
                                      each_function_on_failure=True)
    self.assertEqual(imported.imported_names, ("double", "grow"))
    self.assertIn("tensor.empty", imported.iree_input)

  def test_without_it_the_whole_module_error_stands(self):
    imported = importer.import_module(DoubleAndLength(), "DoubleAndLength")
    self.assertIsNone(imported.method_imports)
    with self.assertRaisesRegex(importer.ModuleImportError, "tf.StringLength"):
      imported.check()

  def test_a_partial_import_is_an_error_for_callers_that_want_the_whole_module(self):
    with self.assertRaisesRegex(importer.ModuleImportError,
                                r"(?s)Module 'DoubleAndLength' uses TensorFlow ops.*"
                                r"Imported alone, 1 of 2 function\(s\) import:\n  double: imports"
                                r"\n  lengths: does not import: "):
      tf_utils.BackendInfo("iree_llvmjit").compile(DoubleAndLength)

  def test_when_no_function_imports_the_module_error_lists_each(self):
    imported = importer.import_module(OnlyStrings(), "OnlyStrings", each_function_on_failure=True)
    # The record rides along, so that each test names its own function's ops (issue 30).
    self.assertEqual(imported.method_imports.imported, ())
    self.assertLen(imported.method_imports.failed, 2)
    self.assertStartsWith(imported.problem, "Module 'OnlyStrings' uses TensorFlow ops IREE cannot "
                          "compile: tf.AsString, tf.StringLength")
    self.assertIn("Imported alone, 0 of 2 function(s) import:\n  as_text_length: does not "
                  "import: ModuleImportError: Function 'as_text_length'", imported.problem)
    self.assertNotIn("did not import as a whole", imported.problem)  # said once, first.

  def test_functions_that_import_alone_but_not_together_are_each_reported(self):
    def import_fn(names):
      if len(names) > 1:
        raise ValueError("clash")
      return names

    result, record = method_imports.import_each_function("M", ["a", "b"], "whole", import_fn)
    self.assertIsNone(result)
    self.assertEqual(record.imported, ())
    self.assertEqual([(f.function, f.reason) for f in record.failed],
                     [("a", "imports alone, but not with a, b: ValueError: clash"),
                      ("b", "imports alone, but not with a, b: ValueError: clash")])


class ModuleWithAStringFunctionTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.artifacts_dir = tempfile.mkdtemp()

    @tf_test_utils.compile_module(DoubleAndLength)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_double(self):
        self.compare_backends(lambda module: module.double(X))

      def test_lengths(self):
        def double_then_lengths(module):
          module.double(X)
          module.lengths(WORDS)
        self.compare_backends(double_then_lengths)

    with flagsaver.flagsaver(artifacts_dir=cls.artifacts_dir, compile_cache=False,
                             target_backends="iree_llvmjit"):
      cls.result = run_case(Case)
    cls.case = Case

  def test_the_function_that_imports_compares_and_passes(self):
    self.assertEqual(failed_tests(self.result), ["test_lengths"])

  def test_a_call_of_the_function_that_did_not_import_is_an_import_error_naming_the_op(self):
    message = self.result.failures[0][1]
    self.assertIn("iree_llvmjit: IMPORT ERROR\n  call 1 (lengths): method 'lengths' did not "
                  "import: ModuleImportError: Function 'lengths' of module 'DoubleAndLength' "
                  "uses TensorFlow ops IREE cannot compile: tf.StringLength", message)

  def test_the_report_keeps_the_whole_module_error_and_lists_each_function(self):
    message = self.result.failures[0][1]
    self.assertIn("Module 'DoubleAndLength' did not import as a whole: Module 'DoubleAndLength' "
                  "uses TensorFlow ops IREE cannot compile: tf.StringLength", message)
    self.assertIn("Imported alone, 1 of 2 function(s) import:\n  double: imports\n  lengths: does "
                  "not import: ModuleImportError: Function 'lengths'", message)

  def test_report_json_records_the_import_phase_and_the_functions_own_error(self):
    with open(os.path.join(self.artifacts_dir, "DoubleAndLength", "report.json")) as f:
      tests = json.load(f)["tests"]
    (record,) = [entry["traces"][0]["backends"][0] for test_id, entry in tests.items()
                 if test_id.endswith("test_lengths")]
    self.assertEqual((record["outcome"], record["phase"]), ("IMPORT ERROR", "import"))
    self.assertStartsWith(record["first_error"], "call 1 (lengths): method 'lengths' did not "
                          "import: ModuleImportError: Function 'lengths' of module")
    self.assertIn("tf.StringLength", record["first_error"])

  def test_the_module_raises_naming_the_function_when_it_is_called(self):
    module = self.case._setup.targets[0].module
    self.assertEqual(module.method_imports.imported, ("double",))
    self.assertIsNone(module.method_import_error("double"))
    self.assertIsNone(module.method_compile_error("lengths"))
    with self.assertRaisesRegex(tf_utils.MethodNotImportedError,
                                "method 'lengths' did not import: .*tf.StringLength"):
      module.lengths(WORDS)


class StatefulModuleWithAStringFunctionTest(absltest.TestCase):

  def test_the_functions_that_import_share_the_variable(self):
    cli_flags.ensure_parsed()

    @tf_test_utils.compile_module(CounterWithText)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_add_and_read(self):
        def add_twice_then_read(module):
          module.add(np.float32(2.))
          module.add(np.float32(3.))
          module.read()
        self.compare_backends(add_twice_then_read)

      def test_text_length(self):
        def add_then_text_length(module):
          module.add(np.float32(2.))
          module.text_length()
        self.compare_backends(add_then_text_length)

    with flagsaver.flagsaver(artifacts_dir=tempfile.mkdtemp(), compile_cache=False,
                             target_backends="iree_llvmjit"):
      result = run_case(Case)
    self.assertEqual(failed_tests(result), ["test_text_length"])
    self.assertIn("iree_llvmjit: IMPORT ERROR\n  call 1 (text_length): method 'text_length' did "
                  "not import: ModuleImportError: Function 'text_length' of module "
                  "'CounterWithText' uses TensorFlow ops IREE cannot compile: tf.AsString",
                  result.failures[0][1])
    # add, add, read compared equal to TF: `read` saw what `add` stored, in the one variable.
    self.assertEqual(Case._setup.method_imports.imported, ("add", "read"))
    self.assertLen(re.findall(r"ml_program\.global public mutable @", Case._setup.iree_input), 1)


if __name__ == "__main__":
  absltest.main()
