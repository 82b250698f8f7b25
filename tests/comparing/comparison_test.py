"""Comparing nested values and traces: what counts as equal, and what each mismatch kind says."""

import tracemalloc
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace

nan, inf = float("nan"), float("inf")


def f32(*values: float) -> np.ndarray:
  return np.array(values, np.float32)


def mismatches(ref, tar, **kwargs):
  return comparison.compare(ref, tar, "outputs", **kwargs)


def message(ref, tar, **kwargs):
  return comparison.describe_all(mismatches(ref, tar, **kwargs))


class EqualityTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("float32_within_default_tolerance", f32(1, 2), f32(1, 2) + np.float32(5e-7)),
      ("nan_in_the_same_place", f32(nan, 1), f32(nan, 1)),
      ("same_infinities", f32(inf, -inf), f32(inf, -inf)),
      ("complex_nan_whatever_part_is_nan", np.array([complex(nan, 1)]),
       np.array([complex(2, nan)])),
      ("strings", np.array(["x"]), np.array(["x"])),
      ("python_scalars", 3, 3),
      ("nested", {"a": (np.array(1), [np.array([1.0])]), "b": None},
       {"a": (np.array(1), [np.array([1.0])]), "b": None}),
      ("list_matches_tuple", (1, 2), [1, 2]),
      ("negative_zero", f32(0.0), f32(-0.0)),
  )
  def test_equal(self, ref, tar):
    self.assertEqual(mismatches(ref, tar), [])

  @parameterized.named_parameters(
      ("float32_beyond_default_tolerance", f32(1, 2), f32(1, 2) + np.float32(1e-3),
       [comparison.NumericMismatch]),
      ("integers_exact", np.array([1, 2], np.int32), np.array([1, 3], np.int32),
       [comparison.ExactMismatch]),
      ("bools_exact", np.array([True]), np.array([False]), [comparison.ExactMismatch]),
      ("bytes_exact", np.array([b"a", b"b"], object), np.array([b"a", b"c"], object),
       [comparison.ExactMismatch]),
      ("nan_against_number", f32(nan, 1), f32(1, 1), [comparison.NonFiniteMismatch]),
      ("number_against_nan", f32(1, 1), f32(nan, 1), [comparison.NonFiniteMismatch]),
      ("inf_against_minus_inf", f32(inf), f32(-inf), [comparison.NonFiniteMismatch]),
      ("inf_against_largest_float", f32(inf), f32(3e38), [comparison.NonFiniteMismatch]),
      ("nan_and_a_finite_difference", f32(1, nan, 3), f32(1, 2, 3.5),
       [comparison.NonFiniteMismatch, comparison.NumericMismatch]),
      ("complex_inf_parts_differ", np.array([complex(inf, 1)]), np.array([complex(inf, 2)]),
       [comparison.NonFiniteMismatch]),
      ("shape_without_broadcasting", np.ones([1], np.float32), np.ones([4], np.float32),
       [comparison.ShapeMismatch]),
      ("dtype", np.ones([2], np.float32), np.ones([2], np.float64), [comparison.DtypeMismatch]),
      ("keys", {"a": 1}, {"b": 1}, [comparison.StructureMismatch]),
      ("length", (1, 2), (1,), [comparison.StructureMismatch]),
      ("none_against_array", None, np.ones(2), [comparison.StructureMismatch]),
  )
  def test_mismatch_kinds(self, ref, tar, kinds):
    self.assertEqual([type(m) for m in mismatches(ref, tar)], kinds)

  def test_atol_alone_admits_a_difference_from_zero(self):
    # rtol admits nothing next to 0 (relative difference inf): only atol=1e-6 lets 5e-7 pass.
    self.assertEqual(mismatches(f32(0.0, 1.0), f32(5e-7, 1.0)), [])
    self.assertEqual(mismatches(np.float32(0.0), np.float32(5e-7),
                                tolerance_fn=lambda dtype: tolerances.Tolerance(0.0, 1e-6)), [])
    [found] = mismatches(f32(0.0, 1.0), f32(2e-6, 1.0))  # beyond atol: the bound holds.
    self.assertEqual((type(found), found.count), (comparison.NumericMismatch, 1))

  def test_identical_floats_are_equal_under_zero_tolerance(self):
    def exact(dtype):
      return tolerances.EXACT
    for values in (f32(0.0, -1.5, 3e38, 1e-45), np.array([1 + 2j, 0j], np.complex64),
                   np.array([0.1, -7.0], np.float64)):
      with self.subTest(dtype=values.dtype):
        self.assertEqual(mismatches(values, values.copy(), tolerance_fn=exact), [])
    self.assertLen(mismatches(f32(1.0), np.nextafter(f32(1.0), f32(2.0)), tolerance_fn=exact), 1)

  def test_per_call_tolerances_override_the_table_for_floats_only(self):
    def loose(dtype):
      return tolerances.for_dtype(dtype, (), rtol=0.1, atol=0.1)
    self.assertEqual(mismatches(np.float32(1.0), np.float32(1.05), tolerance_fn=loose), [])
    self.assertLen(mismatches(np.int32(1), np.int32(2), tolerance_fn=loose), 1)

  def test_paths_stay_tuples_until_the_message(self):
    [found] = mismatches(({"logits": f32(1)},), ({"logits": f32(2)},))
    self.assertEqual(found.path, ("outputs", 0, "logits"))

  def test_first_means_first_in_c_order(self):
    ref = np.zeros([2, 3], np.float32)
    tar = ref.copy()
    tar[1, 0] = tar[0, 2] = nan
    [found] = mismatches(ref, tar)
    self.assertEqual(found.first.index, (0, 2))
    self.assertEqual(found.count, 2)


class MessageTest(parameterized.TestCase):
  """The whole text of every mismatch kind: the one message builder's specification."""

  @parameterized.named_parameters(
      ("numeric_array", ({"logits": f32(1, 2, 3, 4).reshape(2, 2)},),
       ({"logits": f32(1, 2.5, 3, 4.1).reshape(2, 2)},),
       "outputs[0]['logits']: float32[2, 2] arrays are not close: 2 of 4 elements (50.0%) differ; "
       "greatest absolute difference 0.5 at index [0, 1] (expected 2.0, got 2.5), 2097152 ulps "
       "apart; greatest relative difference 0.25 at index [0, 1] (expected 2.0, got 2.5); "
       "rtol=1e-06, atol=1e-06."),
      ("numeric_scalar", np.float32(2.0), np.float32(3.0),
       "outputs: scalars are not close (float32): expected 2.0, got 3.0 (absolute difference 1, "
       "relative difference 0.5; 4194304 ulps apart; rtol=1e-06, atol=1e-06)."),
      ("one_ulp", np.float32(1.0), np.nextafter(np.float32(1.0), np.float32(2.0)),
       "outputs: scalars are not close (float32): expected 1.0, got 1.0000001 (absolute difference "
       "1.19209e-07, relative difference 1.19209e-07; 1 ulp apart; rtol=0, atol=0).",
       lambda dtype: tolerances.EXACT),
      ("ulps_across_zero", f32(-1e-45), f32(1e-45),
       "outputs: float32[1] arrays are not close: 1 of 1 elements (100.0%) differ; greatest "
       "absolute difference 2.8026e-45 at index [0] (expected -1e-45, got 1e-45), 2 ulps apart; "
       "greatest relative difference 2 at index [0] (expected -1e-45, got 1e-45); rtol=0, atol=0.",
       lambda dtype: tolerances.EXACT),
      ("relative_worst_elsewhere", f32(100, 1), f32(101, 1.5),
       "outputs: float32[2] arrays are not close: 2 of 2 elements (100.0%) differ; greatest "
       "absolute difference 1 at index [0] (expected 100.0, got 101.0), 131072 ulps apart; "
       "greatest relative difference 0.5 at index [1] (expected 1.0, got 1.5); rtol=1e-06, "
       "atol=1e-06."),
      ("complex_has_no_ulps", np.array([1 + 1j], np.complex64), np.array([1 + 2j], np.complex64),
       "outputs: complex64[1] arrays are not close: 1 of 1 elements (100.0%) differ; greatest "
       "absolute difference 1 at index [0] (expected (1+1j), got (1+2j)); greatest relative "
       "difference 0.707107 at index [0] (expected (1+1j), got (1+2j)); rtol=1e-06, atol=1e-06."),
      ("nan_does_not_hide_the_finite_difference", f32(1, nan, 3), f32(1, 2, 3.5),
       "outputs: float32[3] arrays differ in NaN/Inf placement: 1 of 3 elements (33.3%); first at "
       "index [1] (expected nan, got 2.0).\n"
       "outputs: float32[3] arrays are not close: 1 of 3 elements (33.3%) differ; greatest "
       "absolute difference 0.5 at index [2] (expected 3.0, got 3.5), 2097152 ulps apart; "
       "greatest relative difference 0.166667 at index [2] (expected 3.0, got 3.5); rtol=1e-06, "
       "atol=1e-06."),
      ("non_finite_scalar", np.float32(inf), np.float32(nan),
       "outputs: float32 scalars differ in NaN/Inf: expected inf, got nan."),
      ("integers", np.array([1, 2, 7]), np.array([1, 5, 3]),
       "outputs: int64[3] arrays are not equal: 2 of 3 elements (66.7%) differ; first at index [1] "
       "(expected 2, got 5); greatest absolute difference 4 at index [2] (expected 7, got 3); "
       "exact comparison."),
      ("large_integers_exactly", np.array([2**62 + 1], np.int64), np.array([-2**62], np.int64),
       "outputs: int64[1] arrays are not equal: 1 of 1 elements (100.0%) differ; first at index "
       "[0] (expected 4611686018427387905, got -4611686018427387904); greatest absolute difference "
       "9223372036854775809 at index [0] (expected 4611686018427387905, got "
       "-4611686018427387904); exact comparison."),
      ("integer_scalar", np.int32(1), np.int32(2),
       "outputs: scalars are not equal (int32): expected 1, got 2 (exact comparison)."),
      ("bools", np.array([True, True]), np.array([True, False]),
       "outputs: bool[2] arrays are not equal: 1 of 2 elements (50.0%) differ; first at index [1] "
       "(expected True, got False); exact comparison."),
      ("strings", np.array([b"a", b"b"], object), np.array([b"a", b"c"], object),
       "outputs: object[2] arrays are not equal: 1 of 2 elements (50.0%) differ; first at index "
       "[1] (expected b'b', got b'c'); exact comparison."),
      ("shape", np.ones([1], np.float32), np.ones([4], np.float32),
       "outputs: shape mismatch: expected [1], got [4]."),
      ("dtype", np.ones([2], np.float32), np.ones([2], np.float64),
       "outputs: dtype mismatch: expected float32, got float64."),
      ("keys", {"a": 1, "b": 2}, {"a": 1}, "outputs: expected keys ['a', 'b'], got ['a']."),
      ("length", (1, 2), (1,), "outputs: expected 2 items, got 1."),
      ("kind", {"a": 1}, [1], "outputs: expected a dict with keys ['a'], got a list of 1 items."),
      ("none", (None,), (np.ones([2], np.float32),),
       "outputs[0]: expected None, got float32[2] array."),
  )
  def test_message(self, ref, tar, expected, tolerance_fn=None):
    self.assertEqual(message(ref, tar, tolerance_fn=tolerance_fn), expected)

  def test_large_arrays_give_a_short_message(self):
    ref = np.zeros([1000, 1000], np.float32)
    text = message(ref, ref + 1)
    self.assertLess(len(text), 500)
    self.assertIn("1000000 of 1000000 elements (100.0%)", text)

  def test_many_mismatches_are_capped(self):
    text = comparison.describe_all(mismatches([1] * 12, [2] * 12), limit=10)
    self.assertLen(text.splitlines(), 11)
    self.assertEqual(text.splitlines()[-1], "... and 2 more mismatching values.")


class BigArraysTest(parameterized.TestCase):
  """Big arrays are compared a chunk at a time (the float64 copies, masks and
  differences of whole arrays took ~10x the data); first and greatest stay those of C order."""

  N = 4_000_000  # 16 MB of float32 per side: many chunks.

  def test_comparing_takes_a_fraction_of_the_data_in_temporaries(self):
    ref = np.random.default_rng(0).random(self.N, np.float32)
    tar = ref.copy()
    tar[[10, self.N // 2, self.N - 1]] += 1.0
    tar[self.N // 3] = nan
    tracemalloc.start()
    try:
      found = mismatches(ref, tar)
      _, peak = tracemalloc.get_traced_memory()
    finally:
      tracemalloc.stop()
    self.assertEqual([type(m).__name__ for m in found], ["NonFiniteMismatch", "NumericMismatch"])
    self.assertLess(peak, ref.nbytes // 4)

  @parameterized.parameters(np.float32, np.int32)
  def test_the_first_and_the_first_greatest_difference_across_chunks(self, dtype):
    ref = np.zeros(3 * self.N // 2, dtype)
    tar = ref.copy()
    late = len(ref) - 3
    tar[[7, self.N // 3, self.N, late]] = [1, 5, 4, 5]  # two greatest: the first is named.
    (found,) = mismatches(ref, tar)
    self.assertEqual(found.count, 4)
    if dtype == np.int32:
      self.assertEqual((found.first.index, found.greatest.index, found.greatest_diff),
                       ((7,), (self.N // 3,), 5))
    else:
      self.assertEqual((found.greatest_abs.index, found.abs_diff), ((self.N // 3,), 5.0))
      self.assertEqual(found.greatest_rel.index, (7,))  # every relative difference is inf.


class ClosenessTest(parameterized.TestCase):
  """How close a comparison came: the worst difference as a fraction of its tolerance."""

  def fraction(self, ref, tar, **kwargs):
    return comparison.compare_closely(ref, tar, "outputs", **kwargs).worst_fraction

  @parameterized.named_parameters(
      # float64 0 vs 9.5e-7: atol 1e-6 + rtol 1e-6 * 0 admits it at 0.95.
      ("at_0_95_of_atol", np.zeros([3]), np.array([0.0, 9.5e-7, 1e-7]), 0.95),
      # 1000 vs 1000 + 4e-4: atol + rtol * 1000 = 1.001e-3; 4e-4 / 1.001e-3.
      ("rtol_counts", np.array([1000.0]), np.array([1000.0004]), 4e-4 / 1.001e-3),
      ("exact_floats", f32(1, 2), f32(1, 2), 0.0),
      ("exact_under_zero_tolerance", f32(3), f32(3), 0.0),
      ("equal_integers", np.array([1, 2]), np.array([1, 2]), 0.0),
      ("nan_in_the_same_place", f32(nan, 1), f32(nan, 1), 0.0),
      ("nested_takes_the_worst", {"a": np.zeros([1]), "b": [np.array([5e-7])]},
       {"a": np.array([2e-7]), "b": [np.array([5e-7 + 8e-7])]}, 8e-7 / (1e-6 + 1e-6 * 5e-7)),
  )
  def test_a_pass_says_how_close_it_came(self, ref, tar, expected):
    self.assertAlmostEqual(self.fraction(ref, tar), expected, places=9)

  def test_zero_tolerance_makes_any_difference_infinitely_far(self):
    def exact(dtype):
      return tolerances.Tolerance(0.0, 0.0)
    self.assertEqual(self.fraction(f32(3), f32(3), tolerance_fn=exact), 0.0)
    self.assertEqual(self.fraction(f32(3), f32(3.5), tolerance_fn=exact), inf)

  @parameterized.named_parameters(
      ("numeric", f32(1), f32(1.1)),
      ("integers", np.array([1]), np.array([2])),
      ("nan_placement", f32(nan, 1), f32(1, 1)),
      ("shape", f32(1), f32(1, 1)),
      ("structure", [f32(1)], {"a": f32(1)}),
  )
  def test_a_mismatch_is_beyond_the_tolerance(self, ref, tar):
    compared = comparison.compare_closely(ref, tar, "outputs")
    self.assertTrue(compared.mismatches)
    self.assertGreater(compared.worst_fraction, 1.0)

  def test_a_trace_takes_the_worst_of_its_calls(self):
    ref, tar = Trace(module_name="M", backend="tf_ref"), Trace(module_name="M", backend="x")
    ref.calls.extend([ModuleCall("f", [], np.zeros([2])), ModuleCall("f", [], np.zeros([2]))])
    tar.calls.extend([ModuleCall("f", [], np.array([3e-7, 0])),
                      ModuleCall("f", [], np.array([0, 9e-7]))])
    compared = traces.compare_trace_calls(ref, tar)
    self.assertEqual(compared.calls, ())
    self.assertAlmostEqual(compared.worst_fraction, 0.9, places=9)


class SharedArraysTest(parameterized.TestCase):
  """A target's record sharing the reference's arrays (the same bits) passes without the
  tolerance arithmetic, under any tolerance of plain numbers."""

  def test_a_long_trace_of_shared_arrays_skips_the_element_comparison(self):
    ref, tar = Trace(module_name="M", backend="tf_ref"), Trace(module_name="M", backend="x")
    for i in range(100):
      x = np.full([16], i, np.float32)
      ref.calls.append(ModuleCall("f", [x], x * 2))
      tar.calls.append(ModuleCall("f", [x], x * 2, reference=ref.calls[-1]))
    with mock.patch.object(np, "isfinite", wraps=np.isfinite) as isfinite:
      compared = traces.compare_trace_calls(ref, tar)
    self.assertEqual((compared.calls, compared.worst_fraction), ((), 0.0))
    self.assertEqual(isfinite.call_count, 0)

  @parameterized.named_parameters(
      ("table", 1e-6, 1e-6, True),
      ("zero", 0.0, 0.0, True),
      ("numpy_and_int", np.float32(1e-3), 0, True),
      ("negative", -1.0, 1e-6, False),
      ("nan", float("nan"), 1e-6, False),
      ("infinite", 1e-6, float("inf"), False),
      ("bool", True, 1e-6, False),
      ("text", "1e-6", 1e-6, False),
  )
  def test_plain_numbers_are_finite_and_not_negative(self, rtol, atol, plain):
    self.assertEqual(comparison._plain_numbers(
        tolerances.Tolerance(rtol, atol)), plain)


class UlpDistanceTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("same", np.float32(1.5), np.float32(1.5), 0),
      ("next_float32", np.float32(1), np.nextafter(np.float32(1), np.float32(2)), 1),
      ("next_float64", np.float64(1), np.nextafter(np.float64(1), np.float64(0)), 1),
      ("float16", np.float16(1), np.float16(1.001953125), 2),
      ("zero_signs", np.float32(0.0), np.float32(-0.0), 0),
      ("across_zero", np.float32(-1e-45), np.float32(2e-45), 2),
      ("integers_have_none", np.int32(1), np.int32(2), None),
      ("complex_has_none", np.complex64(1), np.complex64(2), None),
  )
  def test_ulp_distance(self, a, b, expected):
    self.assertEqual(comparison.ulp_distance(a, b), expected)


class TraceTest(absltest.TestCase):

  def _trace(self, backend, calls):
    trace = Trace(module_name="M", backend=backend, function_name="f")
    trace.calls.extend(calls)
    return trace

  def test_module_call_deep_copies_inputs_and_outputs(self):
    value = np.array([1.0])
    call = ModuleCall("f", [value], value)
    value[0] = 5
    self.assertEqual(call.inputs[0][0], 1.0)
    self.assertEqual(call.outputs[0][0], 1.0)
    self.assertEqual(call.get_tolerances(), (1e-6, 1e-6))

  def test_compare_traces_is_true_for_matching_calls(self):
    ref = self._trace("tf_ref", [ModuleCall("f", [1.0], np.array([1.0], np.float32))])
    tar = self._trace("x", [ModuleCall("f", [1.0], np.array([1.0], np.float32))])
    self.assertTrue(Trace.compare_traces(ref, tar))

  def test_compare_traces_is_false_on_a_numeric_difference(self):
    ref = self._trace("tf_ref", [ModuleCall("f", [1.0], np.array([1.0], np.float32))])
    tar = self._trace("x", [ModuleCall("f", [1.0], np.array([1.5], np.float32))])
    self.assertFalse(Trace.compare_traces(ref, tar))

  def test_per_call_tolerance_is_used(self):
    ref = self._trace("tf_ref", [ModuleCall("f", [], np.array([1.0], np.float32), rtol=0.1)])
    tar = self._trace("x", [ModuleCall("f", [], np.array([1.01], np.float32), rtol=0.1)])
    self.assertTrue(Trace.compare_traces(ref, tar))

  def test_different_call_structure_is_a_value_error(self):
    ref = self._trace("tf_ref", [ModuleCall("f", [], 1), ModuleCall("g", [], 1)])
    with self.assertRaisesRegex(ValueError, "different calls"):
      Trace.compare_traces(ref, self._trace("x", [ModuleCall("f", [], 1)]))
    with self.assertRaisesRegex(ValueError, "different calls"):
      Trace.compare_traces(ref, self._trace("x", [ModuleCall("g", [], 1), ModuleCall("f", [], 1)]))

  def test_check_same_takes_explicit_tolerances(self):
    self.assertTrue(Trace._check_same(np.float32(1.0), np.float32(1.05), rtol=0.1, atol=0.0))
    self.assertFalse(Trace._check_same(np.float32(1.0), np.float32(1.05), rtol=1e-6, atol=1e-6))
    self.assertTrue(Trace._check_same({"a": [1, "s"]}, {"a": [1, "s"]}, 1e-6, 1e-6))


if __name__ == "__main__":
  absltest.main()
