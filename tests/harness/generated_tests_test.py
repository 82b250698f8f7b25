"""IREE's later (2020-11) generated-test API in process: spec names and products, the decorator,
TestModule, and the tf_utils input helpers those files use (TensorFlow only, no backend)."""

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
from pyiree_tf_support.harness import generated_tests


class SpecNamesTest(absltest.TestCase):

  def test_signature_products_are_named_as_the_later_api_named_them(self):
    specs = tf_test_utils.unit_test_specs_from_signatures(
        signature_shapes=[[[2, 3], [4]], [[5]]], signature_dtypes=[tf.float32, tf.complex64],
        kwargs_to_values={"axis": [None, 1], "keepdims": [True]})
    self.assertEqual([s.unit_test_name for s in specs][:4], [
        "2x3_4__f32__uniform__axis_None__keepdims_True",
        "2x3_4__f32__uniform__axis_1__keepdims_True",
        "2x3_4__c64__uniform__axis_None__keepdims_True",
        "2x3_4__c64__uniform__axis_1__keepdims_True"])
    self.assertLen(specs, 8)
    self.assertEqual(specs[1].kwargs, {"axis": 1, "keepdims": True})
    self.assertEqual(specs[0].input_signature,
                     [tf.TensorSpec([2, 3], tf.float32), tf.TensorSpec([4], tf.float32)])

  def test_names_lose_special_characters_but_keep_double_underscores(self):
    spec = tf_test_utils.UnitTestSpec("a-b  c__d.e_", [tf.TensorSpec([1], tf.float32)])
    self.assertEqual(spec.unit_test_name, "a_b_c__d_e")
    self.assertEqual(str(spec.with_name("x__y")), "x__y")

  def test_a_lambda_generator_needs_a_name(self):
    with self.assertRaisesRegex(TypeError, r"input_generators\[0\] is a lambda"):
      tf_test_utils.unit_test_specs_from_signatures(
          [[[2]]], input_generators=[lambda shape, dtype: np.zeros(shape, dtype)])
    specs = tf_test_utils.unit_test_specs_from_signatures(
        [[[2]]],
        input_generators={"zeros": lambda shape, dtype: np.zeros(shape, dtype.as_numpy_dtype)})
    self.assertEqual(specs[0].unit_test_name, "2__f32__zeros")
    np.testing.assert_array_equal(specs[0].generate_args()[0], np.zeros([2], np.float32))

  def test_bad_arguments_are_one_line_type_errors(self):
    with self.assertRaisesRegex(TypeError, r"signature_shapes\[0\]\[0\] must be a sequence of"):
      tf_test_utils.unit_test_specs_from_signatures([[3]])
    with self.assertRaisesRegex(TypeError, r"signature_dtypes\[0\] must be a tf.DType"):
      tf_test_utils.unit_test_specs_from_signatures([[[3]]], signature_dtypes=[np.float32])
    with self.assertRaisesRegex(TypeError, r"kwargs_to_values\['axis'\] must be a sequence"):
      tf_test_utils.unit_test_specs_from_signatures([[[3]]], kwargs_to_values={"axis": 1})

  def test_specs_whose_names_collide_are_an_error_naming_both(self):
    # axis=-1 and axis=1 both become '..axis_1': one test would silently replace the other.
    with self.assertRaises(ValueError) as raised:
      tf_test_utils.unit_test_specs_from_signatures([[[4]]], kwargs_to_values={"axis": [-1, 1]})
    message = str(raised.exception)
    self.assertLen(message.splitlines(), 1, message)
    self.assertIn("'4__f32__uniform__axis_1'", message)
    self.assertIn("{'axis': -1}", message)
    self.assertIn("{'axis': 1}", message)
    with self.assertRaisesRegex(ValueError, r"args 'a-b'.*args 'a\.b'.* name 'a_b'"):
      tf_test_utils.unit_test_specs_from_args({"a-b": [np.zeros(2)], "a.b": [np.ones(2)]})

  def test_two_generators_of_one_name_are_an_error_naming_both(self):
    def zeros(shape, dtype):
      return np.zeros(shape, dtype.as_numpy_dtype)
    def other(shape, dtype):
      return np.ones(shape, dtype.as_numpy_dtype)
    other.__name__ = "zeros"
    with self.assertRaisesRegex(ValueError, r"input_generators\[0\] and \[1\] are both named "
                                r"'zeros'"):
      tf_test_utils.unit_test_specs_from_signatures([[[2]]], input_generators=[zeros, other])

  def test_specs_from_args_read_the_signature_from_the_arguments(self):
    specs = tf_test_utils.unit_test_specs_from_args(
        {"doc": [tf.constant([[1., 2.]]), np.array([0, 1], np.int32)]},
        kwargs_to_values={"n": [2]})
    self.assertEqual(specs[0].unit_test_name, "doc__n_2")
    self.assertEqual(specs[0].input_signature,
                     [tf.TensorSpec([1, 2], tf.float32), tf.TensorSpec([2], tf.int32)])
    args = specs[0].generate_args()  # tensors come back as numpy arrays, copies every time.
    self.assertIsInstance(args[0], np.ndarray)
    args[1][0] = 7
    self.assertEqual(specs[0].generate_args()[1][0], 0)

  def test_generated_inputs_are_seeded_and_dynamic_dims_get_a_size(self):
    spec = tf_test_utils.UnitTestSpec("x", [tf.TensorSpec([None, 3], tf.float32)])
    tf_utils.set_random_seed()
    first = spec.generate_args()
    tf_utils.set_random_seed()
    np.testing.assert_array_equal(first[0], spec.generate_args()[0])
    self.assertEqual(first[0].shape, (2, 3))
    self.assertTrue(((first[0] >= -1) & (first[0] < 1)).all() and (first[0] < 0).any())


class DecoratorTest(absltest.TestCase):

  def test_the_function_carries_its_spec_and_tolerances(self):
    function = tf_test_utils.tf_function_unit_test(
        input_signature=[tf.TensorSpec([None], tf.float32)],
        static_signature=[tf.TensorSpec([5], tf.float32)], atol=1e-3, name="neg")(
            lambda x: -x)
    spec = getattr(function, generated_tests.SPEC_ATTRIBUTE)
    self.assertEqual(function.__name__, "neg")
    self.assertEqual(spec.unit_test_name, "neg")
    self.assertEqual(spec.tolerances(), {"atol": 1e-3})
    self.assertEqual(spec.generate_args()[0].shape, (5,))  # drawn from the static signature.
    self.assertEqual(function(np.ones([3], np.float32)).shape, (3,))

  def test_misuse_is_a_one_line_value_error(self):
    with self.assertRaisesRegex(ValueError, "input_generator or input_args, not both"):
      tf_test_utils.tf_function_unit_test(input_generator=tf_utils.uniform, input_args=[1])
    with self.assertRaisesRegex(ValueError, "a lambda needs name="):
      tf_test_utils.tf_function_unit_test(input_signature=[tf.TensorSpec([1])])(lambda x: x)
    with self.assertRaisesRegex(ValueError, "give input_signature"):
      tf_test_utils.tf_function_unit_test(name="f")(lambda x: x)

  def test_a_test_module_finds_its_tests_on_the_class_and_from_init(self):

    class Functions(tf_test_utils.TestModule):

      def __init__(self):
        super().__init__()
        self.twice = tf_test_utils.tf_function_unit_test(
            input_signature=[tf.TensorSpec([2], tf.float32)], name="twice")(lambda x: 2 * x)
        self.plain = tf.function(lambda x: x)

      @tf_test_utils.tf_function_unit_test(input_args=[np.float32([1, 2])], rtol=0.5)
      def square(self, x):
        return x * x

    self.assertEqual(Functions.get_tf_function_unit_tests(), ["square", "twice"])
    self.assertEqual(Functions.get_unit_test_specs()["square"].tolerances(), {"rtol": 0.5})

    class Empty(tf_test_utils.TestModule):
      pass

    with self.assertRaisesRegex(ValueError, "Empty has no tf_function_unit_test"):
      Empty.get_tf_function_unit_tests()

  def test_generated_methods_are_named_test_and_carry_their_spec(self):

    class Functions(tf_test_utils.TestModule):

      @tf_test_utils.tf_function_unit_test(input_signature=[tf.TensorSpec([2], tf.float32)])
      def negate(self, x):
        return -x

    class Case(tf_test_utils.TracedModuleTestCase):
      pass

    Case.generate_unit_tests(Functions)
    self.assertEqual(Case.test_negate.unit_test_spec.unit_test_name, "negate")
    with self.assertRaisesRegex(ValueError, "test_negate exists already"):
      Case.generate_unit_tests(Functions)


class InputHelpersTest(absltest.TestCase):

  def test_uniform_keeps_2020s_range_and_takes_low_high_and_tf_dtypes(self):
    np.random.seed(0)
    values = tf_utils.uniform([1000])
    self.assertTrue(((values >= 0) & (values < 1)).all())
    values = tf_utils.uniform([1000], tf.int32, low=-5, high=5)
    self.assertEqual(values.dtype, np.int32)
    self.assertEqual((values.min(), values.max()), (-5, 5))
    self.assertEqual(tf_utils.uniform([3], tf.bool).dtype, np.bool_)
    complex_values = tf_utils.uniform([50], tf.complex64, low=-1.0)
    self.assertEqual(complex_values.dtype, np.complex64)
    self.assertTrue((complex_values.imag < 0).any())
    with self.assertRaisesRegex(TypeError, "is not a dtype"):
      tf_utils.uniform([2], object())

  def test_ndarange_and_random_permutation(self):
    np.testing.assert_array_equal(tf_utils.ndarange([2, 2], tf.int32), [[0, 1], [2, 3]])
    np.random.seed(1)
    values = tf_utils.random_permutation([3, 4])
    self.assertEqual(values.shape, (3, 4))
    self.assertEqual(sorted(values.ravel().tolist()), list(range(12)))
    self.assertNotEqual(values.ravel().tolist(), list(range(12)))

  def test_apply_function_keeps_the_structure(self):
    self.assertEqual(tf_utils.apply_function([1, (2, {"a": 3})], lambda x: x * 10),
                     [10, (20, {"a": 30})])

  def test_complex_signatures_become_pairs_of_real_parts(self):
    signature = [tf.TensorSpec([2], tf.complex64), tf.TensorSpec([2], tf.complex128)]
    self.assertTrue(tf_utils.is_complex(signature))
    self.assertFalse(tf_utils.is_complex([tf.TensorSpec([2], tf.float32)]))
    function, pairs = tf_utils.rewrite_complex_signature(tf.math.multiply, signature[:1] * 2)
    self.assertEqual([s.dtype for s in pairs], [tf.float32] * 4)
    result = function(*[tf.constant([1., 2.])] * 4)  # (1+1j)*(1+1j) = 2j: real + imag = 2.
    np.testing.assert_allclose(result.numpy(), [2., 8.])
    _, pairs = tf_utils.rewrite_complex_signature(tf.math.abs, signature[1:])
    self.assertEqual([s.dtype for s in pairs], [tf.float64] * 2)
    with self.assertRaisesRegex(NotImplementedError, "must be complex"):
      tf_utils.rewrite_complex_signature(tf.math.abs, [tf.TensorSpec([2], tf.float32)])

  def test_make_dims_dynamic(self):
    self.assertEqual(tf_utils.make_dims_dynamic(tf.TensorSpec([2, 3], tf.int8)),
                     tf.TensorSpec([None, None], tf.int8))


if __name__ == "__main__":
  absltest.main()
