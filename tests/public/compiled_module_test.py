"""TfCompiledModule and IreeCompiledModule: calls, dtype casting, nested results, state, names."""

import os
import tempfile
import unittest

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.compiling import vmfb_cache


class RichModule(tf.Module):
  """Covers the shapes of results and inputs users meet."""

  def __init__(self):
    super().__init__()
    self.counter = tf.Variable(0, dtype=tf.int32)
    self.alias = tf.function(self._add_one, input_signature=[tf.TensorSpec([2], tf.float32)])

  def _add_one(self, x):
    return x + 1.0

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32), tf.TensorSpec([], tf.int32)])
  def scale(self, x, k):
    return x * tf.cast(k, tf.float32)

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def several(self, x):
    return x, x > 1.0, tf.reduce_sum(x)

  @tf.function(input_signature=[{"b": tf.TensorSpec([2], tf.float32),
                                 "a": tf.TensorSpec([], tf.int32)}])
  def nested(self, d):
    return {"sum": d["b"] + tf.cast(d["a"], tf.float32), "parts": (d["a"], [d["b"], d["b"] * 2.0])}

  @tf.function(input_signature=[])
  def increment(self):
    self.counter.assign_add(1)
    return self.counter

  @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
  def dynamic_rows(self, x):
    return tf.reduce_sum(x, axis=0)


def rich_module_factory():
  return RichModule()


class CompiledModuleContract:
  """The behaviour every backend's compiled module shares; mixed into one test per backend."""

  backend_name = None
  module = None

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.artifacts_dir = tempfile.mkdtemp()
    cls.module = tf_utils.BackendInfo(cls.backend_name).compile(
        RichModule, artifacts_dir=cls.artifacts_dir)

  def test_a_single_result_is_a_bare_array(self):
    result = self.module.scale(np.array([1, 2, 3], np.float32), np.array(2, np.int32))
    self.assertIsInstance(result, np.ndarray)
    np.testing.assert_array_equal(result, [2, 4, 6])
    self.assertEqual(result.dtype, np.float32)

  def test_inputs_are_cast_to_the_signature_dtypes(self):
    result = self.module.scale(np.array([1.5, 2, 3], np.float64), 2)
    self.assertEqual(result.dtype, np.float32)
    np.testing.assert_array_equal(result, [3, 4, 6])
    np.testing.assert_array_equal(self.module.scale([1.0, 1.0, 1.0], k=3), [3, 3, 3])

  def test_several_results_are_a_tuple_with_their_dtypes(self):
    values, flags, total = self.module.several(np.array([1, 2], np.float32))
    np.testing.assert_array_equal(values, [1, 2])
    self.assertEqual(flags.dtype, np.bool_)
    np.testing.assert_array_equal(flags, [False, True])
    self.assertEqual(total.shape, ())
    self.assertEqual(float(total), 3.0)

  def test_nested_results_keep_the_structure_tf_returns(self):
    result = self.module.nested({"a": 1, "b": np.array([1, 2], np.float32)})
    self.assertEqual(sorted(result), ["parts", "sum"])
    np.testing.assert_array_equal(result["sum"], [2, 3])
    self.assertIsInstance(result["parts"], tuple)
    self.assertEqual(int(result["parts"][0]), 1)
    self.assertIsInstance(result["parts"][1], list)
    np.testing.assert_array_equal(result["parts"][1][1], [2, 4])

  def test_dynamic_dimensions_accept_any_size(self):
    np.testing.assert_array_equal(self.module.dynamic_rows(np.ones([5, 2], np.float32)), [5, 5])

  def test_functions_exported_under_an_alias_use_the_attribute_name(self):
    np.testing.assert_array_equal(self.module.alias(np.array([1, 2], np.float32)), [2, 3])

  def test_state_persists_and_create_reinitialized_starts_fresh(self):
    module = self.module.create_reinitialized()
    self.assertEqual(int(module.increment()), 1)
    self.assertEqual(int(module.increment()), 2)
    fresh = module.create_reinitialized()
    self.assertEqual(int(fresh.increment()), 1)
    self.assertEqual(int(module.increment()), 3)

  def test_reinitialize_resets_state_in_place(self):
    module = self.module.create_reinitialized()
    module.increment()
    module.increment()
    module.reinitialize()
    self.assertEqual(int(module.increment()), 1)

  def test_unknown_function_names_the_module_backend_and_valid_functions(self):
    with self.assertRaisesRegex(AttributeError, r"'RichModule'.*'%s'.*'missing'.*scale" %
                                self.module.backend):
      self.module.missing

  def test_wrong_shape_is_a_clear_error(self):
    with self.assertRaisesRegex(ValueError,
                                r"RichModule\.scale\(\) input 0 has shape \[4\].*\[3\]"):
      self.module.scale(np.ones([4], np.float32), 1)

  def test_wrong_arguments_are_a_type_error(self):
    with self.assertRaisesRegex(TypeError, r"scale\(\) takes 2 argument"):
      self.module.scale(np.ones([3], np.float32))
    with self.assertRaisesRegex(TypeError, r"unexpected keyword argument 'y'"):
      self.module.scale(np.ones([3], np.float32), y=1)

  def test_module_name_and_backend(self):
    self.assertEqual(self.module.module_name, "RichModule")
    self.assertEqual(self.module.backend, self.backend_name)


class TfCompiledModuleTest(CompiledModuleContract, absltest.TestCase):
  backend_name = "tf"


class IreeVmvxCompiledModuleTest(CompiledModuleContract, absltest.TestCase):
  backend_name = "iree_vmla"

  def test_internal_exports_are_hidden(self):
    self.assertNotIn("__init", dir(self.module))
    self.assertFalse(any(name.startswith("global$") for name in self.module.signatures))
    with self.assertRaises(AttributeError):
      getattr(self.module, "__init")

  def test_artifacts_use_the_name_typed(self):
    self.assertTrue(os.path.exists(os.path.join(self.artifacts_dir, "compiled__iree_vmla.vmfb")))
    self.assertTrue(os.path.exists(os.path.join(self.artifacts_dir, "iree_input.mlir")))


class IreeLlvmCpuCompiledModuleTest(CompiledModuleContract, absltest.TestCase):
  backend_name = "iree_llvmcpu"


class IreeVulkanCompiledModuleTest(CompiledModuleContract, absltest.TestCase):
  """Runs in a worker process without TensorFlow; skipped with the reason without a device."""
  backend_name = "iree_vulkan"

  @classmethod
  def setUpClass(cls):
    available, reason = tf_utils.BackendInfo("iree_vulkan").available()
    if not available:
      raise unittest.SkipTest(reason)
    super().setUpClass()


class FactoryAndNamesTest(absltest.TestCase):

  def test_a_factory_function_is_a_module_class(self):
    module = tf_utils.BackendInfo("iree_vmvx").compile(rich_module_factory, ["scale"])
    self.assertEqual(module.module_name, "rich_module_factory")
    np.testing.assert_array_equal(module.scale([1.0, 2.0, 3.0], 1), [1, 2, 3])
    self.assertEqual(list(module.signatures), ["scale"])

  def test_module_names_with_slashes_become_safe_directory_names(self):
    def factory():
      return RichModule()
    factory.__name__ = "keras/ResNet 50"
    self.assertEqual(tf_utils.module_name_of(factory), "keras_ResNet_50")


class RandomWeights(tf.Module):
  """Weights drawn from tf.random and np.random in __init__, as 2020 users' models do."""

  def __init__(self):
    super().__init__()
    self.w = tf.Variable(tf.random.normal([4, 3]))
    self.b = tf.Variable(np.random.uniform(size=[3]).astype(np.float32))

  @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32)])
  def predict(self, x):
    return tf.matmul(x, self.w) + self.b


class SeededConstructionTest(absltest.TestCase):
  """Every build of the user's module is seeded, so random weights agree across backends."""

  def test_tf_and_iree_see_the_same_random_weights(self):
    x = np.ones([2, 4], np.float32)
    tf_module = tf_utils.BackendInfo("tf").compile(RandomWeights)
    np.random.seed(123)  # whatever the test did before, the import is seeded.
    iree_module = tf_utils.BackendInfo("iree_vmla").compile(RandomWeights)
    expected = tf_module.predict(x)
    np.testing.assert_allclose(iree_module.predict(x), expected, rtol=1e-6, atol=1e-6)
    np.random.seed(7)
    np.testing.assert_array_equal(tf_module.create_reinitialized().predict(x), expected)
    tf_module.reinitialize()
    np.testing.assert_array_equal(tf_module.predict(x), expected)


class CountedModule(tf.Module):
  """Counts its constructions."""
  built = 0

  def __init__(self):
    super().__init__()
    CountedModule.built += 1
    self.total = tf.Variable(tf.zeros([4]))

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def add(self, x):
    self.total.assign_add(x)
    return self.total.read_value()


class PristineInstanceTest(absltest.TestCase):
  """The TF reference's first instance is the one the import built and never called (a
  ResNet50 was once built and traced twice); every later one is fresh, and state starts at zero."""

  def test_the_import_instance_is_the_references_first_and_only_once(self):
    x = np.ones([4], np.float32)
    CountedModule.built = 0
    iree_module = tf_utils.BackendInfo("iree_vmvx").compile(CountedModule)
    tf_module = tf_utils.BackendInfo("tf").compile(CountedModule)
    self.assertEqual(CountedModule.built, 1)
    np.testing.assert_array_equal(tf_module.add(x), iree_module.add(x))
    np.testing.assert_array_equal(tf_module.add(x), x * 2)
    fresh = tf_module.create_reinitialized()
    self.assertEqual(CountedModule.built, 2)
    np.testing.assert_array_equal(fresh.add(x), x)


class CompileCacheArgumentTest(absltest.TestCase):

  def test_the_cache_is_passed_to_compile(self):
    cache_dir = tempfile.mkdtemp()
    cache = vmfb_cache.CompileCache(cache_dir)
    tf_utils.BackendInfo("iree_llvmjit").compile(RichModule, ["scale"], compile_cache=cache)
    self.assertNotEqual(os.listdir(cache_dir), [])


class HelpersTest(absltest.TestCase):

  def test_set_random_seed_makes_uniform_repeatable(self):
    tf_utils.set_random_seed()
    first = tf_utils.uniform([3, 2])
    tf_utils.set_random_seed()
    np.testing.assert_array_equal(first, tf_utils.uniform([3, 2]))
    self.assertTrue(np.all((first >= 0) & (first < 1)))
    self.assertEqual(tf_utils.uniform([2], np.int32).dtype, np.int32)

  def test_ndarange(self):
    np.testing.assert_array_equal(tf_utils.ndarange([2, 2]), [[0, 1], [2, 3]])
    self.assertEqual(tf_utils.ndarange([2], np.int8).dtype, np.int8)

  def test_mlir_types(self):
    self.assertEqual(tf_utils.to_mlir_type(np.float32), "f32")
    self.assertEqual(tf_utils.to_mlir_type(np.bool_), "i1")
    self.assertEqual(tf_utils.to_mlir_type(np.int8), "i8")
    self.assertEqual(tf_utils.get_shape_and_dtype(np.zeros([2, 3], np.float32)), "2x3xf32")
    self.assertEqual(tf_utils.get_shape_and_dtype(np.array(["a"]), allow_non_mlir_dtype=True),
                     "1x<U1")


if __name__ == "__main__":
  absltest.main()
