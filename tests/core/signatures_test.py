"""Inputs meet a signature: bound like Python binds arguments, cast only without loss of meaning.

Pure metadata (no TensorFlow): the same casting runs on the reference and on every IREE backend.
"""

from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.core import casting
from pyiree_tf_support.core import signatures
from pyiree_tf_support.core import structure
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.core.signatures import InputSpec


def signature(dtype: str, shape=()) -> FunctionSignature:
  return FunctionSignature(name="double", arg_names=("x",), inputs=(InputSpec(shape, dtype),),
                           input_structure={"tuple": ["T"]}, output_structure="T")


class RefusedCastsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("none_scalar", "float32", (), None, "input 0 ('x') contains None"),
      ("none_in_list", "float32", (2,), [1.0, None], "contains None"),
      ("none_in_object_array", "float32", (2,), np.array([1.0, None], dtype=object),
       "contains None"),
      ("none_to_int", "int32", (), None, "contains None"),
      ("none_to_string", "object", (), None, "contains None"),
      ("string_to_float", "float32", (), "1.5", "is <U3 data, which cannot become float32"),
      ("number_to_string", "object", (), 1.0, "string input, but was given non-string"),
      ("complex_to_float", "float32", (), 1 + 2j, "would drop its imaginary part"),
      ("nan_to_int", "int32", (), float("nan"), "NaN or infinity"),
      ("inf_to_bool", "bool", (), float("inf"), "NaN or infinity"),
      ("two_to_bool", "bool", (), 2, "other than 0 and 1"),
      ("wraparound_int8", "int8", (2,), [1, 300], "outside int8's range [-128, 127]"),
      ("negative_to_unsigned", "uint8", (), -1, "outside uint8's range"),
      ("float_beyond_int32", "int32", (), 3e9, "outside int32's range"),
      ("ragged", "float32", (2,), [[1.0], [1.0, 2.0]], "not a rectangular array"),
  )
  def test_is_an_error_naming_the_call_and_argument(self, dtype, shape, value, message):
    with self.assertRaises(casting.InputCastError) as raised:
      signature(dtype, shape).flatten_inputs("Module", [value], {})
    self.assertIn("Module.double() input 0 ('x')", str(raised.exception))
    self.assertIn(message, str(raised.exception))


class AllowedCastsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      # Documented in docs/guarantees.md: these lose precision silently, as TensorFlow's
      # conversions do.
      ("float_truncates_to_int", "int32", 1.5, np.int32(1)),
      ("negative_float_truncates_toward_zero", "int32", -1.5, np.int32(-1)),
      ("int64_rounds_to_float32", "float32", np.int64(2**24 + 1), np.float32(2**24)),
      ("float64_rounds_to_float32", "float32", 0.1, np.float32(0.1)),
      ("nan_stays_nan_in_floats", "float32", float("nan"), np.float32("nan")),
      ("zero_one_to_bool", "bool", 1, np.bool_(True)),
      ("python_int_to_float", "float32", 3, np.float32(3.0)),
      ("bytes_to_string", "object", b"abc", b"abc"),
  )
  def test_is_cast_to_the_signature_dtype(self, dtype, value, expected):
    (array,) = signature(dtype).flatten_inputs("Module", [value], {})
    self.assertEqual(array.dtype, np.dtype(dtype))
    np.testing.assert_array_equal(array, np.asarray(expected, dtype=dtype))


class BindTest(parameterized.TestCase):

  def sig(self):
    return FunctionSignature(name="f", arg_names=("a", "b"),
                             inputs=(InputSpec((), "float32"), InputSpec((), "float32")),
                             input_structure={"tuple": ["T", "T"]}, output_structure="T")

  @parameterized.named_parameters(
      ("positional", (1.0, 2.0), {}),
      ("keywords", (), {"b": 2.0, "a": 1.0}),
      ("mixed", (1.0,), {"b": 2.0}),
  )
  def test_binds_like_python(self, args, kwargs):
    self.assertEqual([float(x) for x in self.sig().flatten_inputs("M", args, kwargs)], [1.0, 2.0])

  @parameterized.named_parameters(
      ("missing", (1.0,), {}, "missing a required argument: 'b'"),
      ("too_many", (1.0, 2.0, 3.0), {}, "too many positional arguments"),
      ("unknown_keyword", (1.0, 2.0), {"c": 3.0}, "unexpected keyword argument 'c'"),
      ("twice", (1.0, 2.0), {"a": 1.0}, "multiple values for argument 'a'"),
  )
  def test_misuse_is_python_s_message_naming_the_function(self, args, kwargs, message):
    with self.assertRaises(TypeError) as raised:
      self.sig().flatten_inputs("M", args, kwargs)
    self.assertIn("M.f() takes 2 argument(s) (a, b): ", str(raised.exception))
    self.assertIn(message, str(raised.exception))


class PerCallCostTest(absltest.TestCase):
  """A long trace flattens every call's inputs: the common call does no avoidable work."""

  def sig(self):
    return FunctionSignature(name="f", arg_names=("a", "b"),
                             inputs=(InputSpec((2,), "float32"), InputSpec(None, "int32")),
                             input_structure={"tuple": ["T", "T"]}, output_structure="T")

  def test_positional_arrays_of_the_signatures_dtypes_are_taken_as_they_are(self):
    sig, a, b = self.sig(), np.ones([2], np.float32), np.arange(3, dtype=np.int32)
    with mock.patch.object(FunctionSignature, "python_signature", autospec=True,
                           side_effect=FunctionSignature.python_signature) as bind, \
        mock.patch.object(casting, "cast", wraps=casting.cast) as cast, \
        mock.patch.object(structure, "format_path", wraps=structure.format_path) as where:
      for _ in range(100):
        flat = sig.flatten_inputs("M", (a, b), {})
        self.assertIs(flat[0], a)
        self.assertIs(flat[1], b)
      self.assertEqual((bind.call_count, cast.call_count, where.call_count), (0, 0, 0))
      # Keywords, other dtypes and lists still go through binding and casting.
      flat = sig.flatten_inputs("M", (a.astype(np.float64),), {"b": [1, 2]})
      self.assertEqual((bind.call_count, cast.call_count), (1, 2))
    self.assertEqual([f.dtype for f in flat], [np.float32, np.int32])
    np.testing.assert_array_equal(flat[1], [1, 2])

  def test_an_array_of_another_shape_or_kind_is_still_refused_by_name(self):
    sig = self.sig()
    with self.assertRaisesRegex(ValueError, r"M\.f\(\) input 0 has shape \[3\].*float32\[2\]"):
      sig.flatten_inputs("M", (np.ones([3], np.float32), np.int32(1)), {})
    with self.assertRaisesRegex(TypeError, r"M\.f\(\) inputs do not match.*at args\[0\]"):
      FunctionSignature("f", ("a",), (InputSpec((), "float32"),), {"tuple": [{"list": ["T"]}]},
                        "T").flatten_inputs("M", (np.float32(1),), {})
    with self.assertRaisesRegex(TypeError, r"input 0 \('a'\) is not a rectangular|which no "):
      sig.flatten_inputs("M", (np.array([None, 1.0], object), np.int32(1)), {})

  def test_dtype_names_are_looked_up_once(self):
    signatures.numpy_dtype.cache_clear()
    for _ in range(10):
      self.sig().flatten_inputs("M", (np.ones([2], np.float32), np.int32(1)), {})
    self.assertEqual(signatures.numpy_dtype.cache_info().misses, 2)


if __name__ == "__main__":
  absltest.main()
