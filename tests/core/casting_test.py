"""The casting table covers every dtype numpy and ml_dtypes define.

ml_dtypes' types (bfloat16, float8 variants, int4, ...) have numpy kind 'V' (float8_e5m2 even
'f'), so rules written against numpy kinds let a bfloat16 NaN become INT_MIN on every backend and
the test pass. Pure metadata (no TensorFlow): the same casting runs on the reference and on every
IREE backend.
"""

from absl.testing import absltest
from absl.testing import parameterized
import ml_dtypes
import numpy as np

from pyiree_tf_support.core import casting
from pyiree_tf_support.core.casting import Kind

# Every public scalar type of ml_dtypes and its kind; test_every_ml_dtype_is_listed keeps it whole.
ML_KINDS = {
    "bfloat16": Kind.FLOAT, "float4_e2m1fn": Kind.FLOAT, "float6_e2m3fn": Kind.FLOAT,
    "float6_e3m2fn": Kind.FLOAT, "float8_e3m4": Kind.FLOAT, "float8_e4m3": Kind.FLOAT,
    "float8_e4m3b11fnuz": Kind.FLOAT, "float8_e4m3fn": Kind.FLOAT, "float8_e4m3fnuz": Kind.FLOAT,
    "float8_e5m2": Kind.FLOAT, "float8_e5m2fnuz": Kind.FLOAT, "float8_e8m0fnu": Kind.FLOAT,
    "float8_e5m3fnu": Kind.FLOAT,  # ml_dtypes 0.7
    "int1": Kind.INTEGER, "int2": Kind.INTEGER, "int4": Kind.INTEGER, "uint1": Kind.INTEGER,
    "uint2": Kind.INTEGER, "uint4": Kind.INTEGER, "complex32": Kind.COMPLEX,
    "bcomplex32": Kind.COMPLEX,
}
# The listed types this ml_dtypes has (a newer one adds types, e.g. float8_e5m3fnu in 0.7).
ML_KINDS = {name: kind for name, kind in ML_KINDS.items() if hasattr(ml_dtypes, name)}
ML_FLOATS = sorted(name for name, kind in ML_KINDS.items() if kind is Kind.FLOAT)
ML_INTEGERS = sorted(name for name, kind in ML_KINDS.items() if kind is Kind.INTEGER)


def ml(name: str) -> np.dtype:
  return np.dtype(getattr(ml_dtypes, name))


def ml_scalar_types():
  return sorted(name for name in dir(ml_dtypes) if not name.startswith("_")
                and isinstance(getattr(ml_dtypes, name), type)
                and np.dtype(getattr(ml_dtypes, name)).type is getattr(ml_dtypes, name))


def refusal(value, dtype) -> str:
  """The error casting `value` to `dtype` gives ('' when it is cast)."""
  try:
    casting.cast(value, np.dtype(dtype), "M.f() input 0 ('x')")
  except casting.InputCastError as e:
    return str(e)
  return ""


class KindTest(parameterized.TestCase):

  def test_every_ml_dtype_is_listed(self):
    self.assertEqual(ml_scalar_types(), sorted(ML_KINDS))

  @parameterized.parameters(*sorted(ML_KINDS))
  def test_ml_dtype_kind(self, name):
    self.assertEqual(casting.kind_of(ml(name)), ML_KINDS[name])

  @parameterized.parameters(
      ("bool", Kind.BOOL), ("int8", Kind.INTEGER), ("uint64", Kind.INTEGER),
      ("float16", Kind.FLOAT), ("complex64", Kind.COMPLEX), ("<U3", Kind.STRING),
      ("S2", Kind.STRING), ("object", Kind.OBJECT), ("datetime64[D]", Kind.TIME),
      ("timedelta64[s]", Kind.TIME), ("V4", Kind.OTHER))
  def test_numpy_dtype_kind(self, dtype, kind):
    self.assertEqual(casting.kind_of(np.dtype(dtype)), kind)


class MlDtypeSourceTest(parameterized.TestCase):
  """ml_dtypes values meet the same rules as numpy's floats and integers."""

  def test_bfloat16_nan_into_int32_is_refused(self):
    self.assertIn("contains NaN or infinity, which int32 cannot hold",
                  refusal(np.array([1, np.nan], ml_dtypes.bfloat16), np.int32))

  def test_bfloat16_1e10_into_int32_is_refused(self):
    self.assertIn("outside int32's range",
                  refusal(np.array([1e10], ml_dtypes.bfloat16), np.int32))

  @parameterized.parameters(*ML_FLOATS)
  def test_float_source_is_checked_like_float16(self, name):
    dtype = ml(name)
    largest = np.array([ml_dtypes.finfo(dtype).max], dtype)
    with self.subTest("beyond int2"):  # every one's largest value is > 1.
      self.assertIn("outside int2's range [-2, 1]", refusal(largest, ml_dtypes.int2))
    with self.subTest("not 0/1 into bool"):
      self.assertIn("other than 0 and 1", refusal(largest, np.bool_))
    with self.subTest("non-finite into integers"):
      special = np.array([np.nan, np.inf]).astype(dtype)
      special = special[~np.isfinite(special.astype(np.float64))]
      if special.size:  # float4_e2m1fn, float6_* hold neither.
        self.assertIn("NaN or infinity, which int32 cannot hold", refusal(special, np.int32))
    with self.subTest("truncates into integers"):
      value = np.array([1.5, -1.5]).astype(dtype)  # float8_e8m0fnu holds 2 and NaN instead.
      value = value[np.isfinite(value.astype(np.float64))]
      np.testing.assert_array_equal(casting.cast(value, np.dtype(np.int32), "x"),
                                    np.trunc(value.astype(np.float64)))

  @parameterized.parameters(*ML_INTEGERS)
  def test_integer_source_is_range_checked(self, name):
    dtype = ml(name)
    low = np.array([ml_dtypes.iinfo(dtype).min], dtype)
    if low[0] < 0:
      self.assertIn("outside uint8's range", refusal(low, np.uint8))
    high = np.array([ml_dtypes.iinfo(dtype).max], dtype)
    np.testing.assert_array_equal(casting.cast(high, np.dtype(np.int64), "x"),
                                  [int(ml_dtypes.iinfo(dtype).max)])

  @parameterized.parameters("complex32", "bcomplex32")
  def test_complex_source_into_a_real_input_is_refused(self, name):
    self.assertIn("would drop its imaginary part",
                  refusal(np.array([1 + 2j], ml(name)), np.float32))


class MlDtypeTargetTest(parameterized.TestCase):
  """Inputs of an ml_dtypes type refuse what float16 (or int8) inputs refuse."""

  @parameterized.parameters(*ML_FLOATS)
  def test_float_input_refuses_what_float16_refuses(self, name):
    for value, message in (("1.5", "data, which cannot become"),
                           (1 + 2j, "would drop its imaginary part"),
                           ([1.0, None], "contains None"),
                           (np.datetime64("2020-01-02"), "dates or durations")):
      with self.subTest(value=value):
        self.assertIn(message, refusal(value, np.float16))
        self.assertIn(message, refusal(value, ml(name)))

  @parameterized.parameters(*ML_INTEGERS)
  def test_integer_input_refuses_values_outside_its_range(self, name):
    dtype = ml(name)
    info = ml_dtypes.iinfo(dtype)
    self.assertIn(f"outside {name}'s range [{info.min}, {info.max}]",
                  refusal([int(info.max) + 1], dtype))
    self.assertIn(f"outside {name}'s range", refusal([float(info.min) - 1], dtype))
    self.assertIn("NaN or infinity", refusal([np.nan], dtype))
    np.testing.assert_array_equal(casting.cast([int(info.min), int(info.max)], dtype, "x"),
                                  np.array([info.min, info.max], dtype))

  @parameterized.parameters(
      ("float4_e2m1fn", np.nan, "contains NaN, which float4_e2m1fn cannot hold"),
      ("float4_e2m1fn", np.inf, "contains infinity, which float4_e2m1fn cannot hold"),
      ("float8_e4m3fn", np.inf, "contains infinity, which float8_e4m3fn cannot hold"),
      ("float8_e4m3fn", np.nan, ""),
      ("float8_e5m2", -np.inf, ""),
      ("bfloat16", np.nan, ""))
  def test_non_finite_values_only_where_the_input_holds_them(self, name, value, message):
    self.assertEqual(refusal([1.0, value], ml(name)).split(" input 0 ('x') ")[-1].rstrip("."),
                     message)

  def test_bools_are_range_checked_too(self):
    self.assertIn("outside int1's range [-1, 0]", refusal([True, False], ml_dtypes.int1))
    np.testing.assert_array_equal(casting.cast([True], ml("uint1"), "x"), [1])

  def test_bfloat16_input_rounds_like_float32(self):
    np.testing.assert_array_equal(casting.cast([0.1, 3], ml("bfloat16"), "x"),
                                  np.array([0.1, 3], ml_dtypes.bfloat16))


class NotNumbersTest(parameterized.TestCase):
  """Item 14: data that numpy would quietly turn into numbers is refused."""

  @parameterized.named_parameters(
      ("datetime64", np.array(["2020-01-02"], "datetime64[D]"), "datetime64[D] data (dates or "
       "durations), which cannot become int64: numpy would pass its internal counts"),
      ("timedelta64", np.array([5], "timedelta64[s]"), "timedelta64[s] data (dates or durations)"),
      ("object", np.array([2**70, 1], dtype=object), "object data (Python objects), which "
       "cannot become int64"),
      ("str", np.array(["12"]), "<U2 data, which cannot become int64"),
      ("bytes", [b"12"], "|S2 data, which cannot become int64"),
      ("record", np.zeros(1, "V8"), "|V8 data, which cannot become int64"),
  )
  def test_is_refused_into_int64(self, value, message):
    self.assertIn(message, refusal(value, np.int64))


if __name__ == "__main__":
  absltest.main()
