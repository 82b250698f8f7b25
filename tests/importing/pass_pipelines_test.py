"""The importer's TF-side pipelines: a module using TensorLists of static size (tf.TensorArray,
a rolled Keras RNN) is decomposed by TF's own tensor-list-ops-decomposition before the lowering
and computes what TF computes; one the decomposition refuses falls back to the plain lowering,
as before; every iree_input.mlir says in its `//` header which pipeline made it."""

import os
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized
import iree.compiler
import iree.runtime
import numpy as np
import tensorflow as tf

from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing import pass_pipelines
from tests.support.repo import ROOT

STEPS = 4
FEATURES = 3


class StaticTensorArrayModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([STEPS, FEATURES], tf.float32)])
  def scaled_rows(self, x):
    rows = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES])
    for i in tf.range(STEPS):
      rows = rows.write(i, x[i] * tf.cast(i, tf.float32))
    return rows.stack()

  @tf.function(input_signature=[tf.TensorSpec([STEPS, FEATURES], tf.float32)])
  def first_plus_third(self, x):
    rows = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES]).unstack(x)
    return rows.read(0) + rows.read(2)

  @tf.function(input_signature=[tf.TensorSpec([STEPS, FEATURES], tf.float32)])
  def reversed_concat(self, x):
    """TensorArray.concat: TensorListConcatV2, which the decomposition cannot take alone."""
    rows = tf.TensorArray(tf.float32, size=STEPS, element_shape=[FEATURES])
    for i in tf.range(STEPS):
      rows = rows.write(STEPS - 1 - i, x[i])
    return rows.concat()


class RuntimeSizeTensorArrayModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None, FEATURES], tf.float32)])
  def doubled_rows(self, x):
    rows = tf.TensorArray(tf.float32, size=tf.shape(x)[0], element_shape=[FEATURES])
    for i in tf.range(tf.shape(x)[0]):
      rows = rows.write(i, x[i] * 2.0)
    return rows.stack()

  @tf.function(input_signature=[tf.TensorSpec([None, FEATURES], tf.float32)])
  def first_row(self, x):
    """Decomposed although the size is dynamic: the list is x itself."""
    return tf.TensorArray(tf.float32, size=tf.shape(x)[0]).unstack(x).read(0)


class GrowingTensorArrayModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([FEATURES], tf.float32)])
  def written_past_its_size(self, x):
    """TF grows the list; decomposed, the writes at 2 and 3 would clamp to row 1 (x * 3)."""
    rows = tf.TensorArray(tf.float32, size=2, dynamic_size=True, element_shape=[FEATURES])
    for i in tf.range(STEPS):
      rows = rows.write(i, x * tf.cast(i, tf.float32))
    return rows.read(1)

  @tf.function(input_signature=[tf.TensorSpec([FEATURES], tf.float32)])
  def two_rows(self, x):
    rows = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    return rows.write(0, x).write(1, x * 2.0).read(1)


class DynamicReshapeModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)])
  def rows_in_pairs(self, x):
    return tf.reshape(x, [-1, 2, 4])


class PlainModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([FEATURES], tf.float32)])
  def square(self, x):
    return x * x


def _run_on_llvm_cpu(iree_input: str, function: str, *args: np.ndarray) -> np.ndarray:
  vmfb = iree.compiler.compile_str(iree_input, target_backends=["llvm-cpu"],
                                   input_type="stablehlo_xla",
                                   extra_args=["--iree-llvmcpu-target-cpu=host"])
  context = iree.runtime.SystemContext(config=iree.runtime.Config("local-task"))
  module = iree.runtime.VmModule.copy_buffer(context.instance, vmfb)
  context.add_vm_module(module)
  return np.asarray(context.modules[module.name][function](*args))


def _header(iree_input: str) -> str:
  return iree_input[:len(iree_input) - len(pass_pipelines.strip_header(iree_input))]


class StaticTensorListsTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.module = StaticTensorArrayModule()
    cls.imported = importer.import_module(cls.module, "StaticTensorArrayModule")

  def test_imports_without_tensor_list_ops(self):
    self.assertIsNone(self.imported.problem)
    self.assertNotIn("tf_type.variant", self.imported.iree_input)

  def test_header_names_the_pipeline_and_its_steps(self):
    header = _header(self.imported.iree_input)
    self.assertIn("pipeline 'tensor-lists'", header)
    self.assertIn("tf-tensor-list-ops-decomposition", header)
    self.assertNotIn("fell back", header)
    self.assertTrue(all(line.startswith("// ") for line in header.splitlines()))

  @parameterized.parameters("scaled_rows", "first_plus_third", "reversed_concat")
  def test_computes_what_tensorflow_computes(self, function):
    x = np.arange(STEPS * FEATURES, dtype=np.float32).reshape(STEPS, FEATURES) - 5.0
    expected = getattr(self.module, function)(x).numpy()
    np.testing.assert_array_equal(_run_on_llvm_cpu(self.imported.iree_input, function, x),
                                  expected)


class FallbackTest(absltest.TestCase):

  def test_a_growing_list_is_not_decomposed_and_the_header_says_why(self):
    imported = importer.import_module(GrowingTensorArrayModule(), "Growing", ["two_rows"])
    header = _header(imported.iree_input)
    self.assertIn("pipeline 'plain'", header)
    self.assertIn("fell back to 'plain': 'tensor-lists' not run: a growing list", header)
    self.assertIn("tf.TensorListSetItem", imported.problem)  # as with the plain lowering alone.

  def test_a_growing_list_written_past_its_size_never_compiles_to_a_clamped_buffer(self):
    with self.assertRaisesRegex(importer.ModuleImportFailure,
                                r"mhlo\.while.*\n.*'tensor-lists' not run: a growing list"):
      importer.import_module(GrowingTensorArrayModule(), "Growing", ["written_past_its_size"])

  def test_a_list_the_decomposition_refuses_falls_back_to_the_plain_lowering(self):
    with self.assertRaisesRegex(importer.ModuleImportFailure,
                                r"did not import: UnknownError: 'tf\.TensorListReserve' op "
                                r"unknown max element count \(in TF's pipeline 'tensor-lists'\)"):
      importer.import_module(RuntimeSizeTensorArrayModule(), "RuntimeSize", ["doubled_rows"])

  def test_a_list_read_from_a_dynamic_input_is_decomposed_and_right(self):
    module = RuntimeSizeTensorArrayModule()
    imported = importer.import_module(module, "RuntimeSize", ["first_row"])
    self.assertIsNone(imported.problem)
    x = np.arange(2 * FEATURES, dtype=np.float32).reshape(2, FEATURES) + 1.0
    np.testing.assert_array_equal(_run_on_llvm_cpu(imported.iree_input, "first_row", x),
                                  module.first_row(x).numpy())

  def test_a_plain_lowering_error_after_a_fallback_comes_after_the_first_cause(self):
    with self.assertRaisesRegex(importer.ModuleImportFailure,
                                r"unknown max element count.*\n.*fallback to the plain lowering "
                                r"then failed too: 'mhlo\.while'"):
      importer.import_module(RuntimeSizeTensorArrayModule(), "RuntimeSize", ["doubled_rows"])

  def test_a_module_without_tensor_lists_gets_the_plain_lowering_unchanged(self):
    imported = importer.import_module(PlainModule(), "PlainModule")
    self.assertEqual(pass_pipelines.strip_header(imported.iree_input),
                     importer.privatize_immutable_globals(
                         importer.lower_to_iree_input(imported.tf_input)))
    self.assertIn("pipeline 'plain'", _header(imported.iree_input))


class DynamicReshapeTest(absltest.TestCase):
  """tf.Reshape with -1 on a dynamic dim, left unconverted by the lowering, compiles and asserts
  at runtime where TF raises."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.module = DynamicReshapeModule()
    cls.imported = importer.import_module(cls.module, "DynamicReshapeModule")

  def test_computes_what_tensorflow_computes(self):
    self.assertIsNone(self.imported.problem)
    x = np.arange(6 * 4, dtype=np.float32).reshape(6, 4)
    np.testing.assert_array_equal(_run_on_llvm_cpu(self.imported.iree_input, "rows_in_pairs", x),
                                  self.module.rows_in_pairs(x).numpy())

  def test_an_odd_row_count_fails_at_runtime_as_in_tensorflow(self):
    x = np.ones([5, 4], np.float32)
    with self.assertRaises(tf.errors.InvalidArgumentError):
      self.module.rows_in_pairs(x)
    with self.assertRaisesRegex(RuntimeError, "dim 0 must be a multiple of 2"):
      _run_on_llvm_cpu(self.imported.iree_input, "rows_in_pairs", x)


_VARIANT = "tensor<!tf_type.variant<tensor<2x3xf32>>>"


class VariantCastTest(parameterized.TestCase):

  def test_a_cast_of_a_list_handle_to_its_own_type_becomes_identity(self):
    line = (f'    %9 = "tf.Cast"(%6) <{{Truncate = false}}> {{device = ""}} '
            f': ({_VARIANT}) -> {_VARIANT}')
    self.assertEqual(pass_pipelines.variant_casts_to_identity(line),
                     f'    %9 = "tf.Identity"(%6) {{device = ""}} : ({_VARIANT}) -> {_VARIANT}')

  @parameterized.named_parameters(
      ("to_another_variant_type",
       f'%9 = "tf.Cast"(%6) <{{Truncate = false}}> : ({_VARIANT}) -> tensor<!tf_type.variant>'),
      ("of_numbers", '%9 = "tf.Cast"(%6) <{Truncate = false}> : (tensor<i32>) -> tensor<f32>'),
  )
  def test_other_casts_stay(self, line):
    self.assertEqual(pass_pipelines.variant_casts_to_identity(line), line)


# A child imports the library and a static module, then lists the IREE MLIR modules it loaded.
_STATIC_IMPORT = """
import sys
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.importing import importer
import tensorflow as tf

class Static(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def f(self, a):
    return a * 2.0

importer.import_module(Static(), "Static")
print(sorted(m for m in sys.modules if m.startswith("iree.compiler.dialects")))
"""


class LazyBindingsTest(absltest.TestCase):
  """IREE's MLIR dialect bindings (~0.2 s to import) load only for a module a rewrite needs."""

  def test_a_static_module_imports_without_the_dialect_bindings(self):
    done = subprocess.run([sys.executable, "-c", _STATIC_IMPORT], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2"),
                          timeout=300, check=False)
    self.assertEqual(done.returncode, 0, done.stderr[-2000:])
    self.assertEqual(done.stdout.strip().splitlines()[-1], "[]")

  def test_a_dynamic_broadcast_still_goes_through_the_rewrite(self):
    text = "func.func @f() {\n  %0 = stablehlo.dynamic_broadcast_in_dim\n}"
    self.assertTrue(pass_pipelines.dynamic_ops.may_rewrite(text))
    plain = "func.func @f() {\n  %0 = stablehlo.add\n}"
    self.assertIs(pass_pipelines.rewrite_dynamic_broadcasts(plain), plain)


if __name__ == "__main__":
  absltest.main()
