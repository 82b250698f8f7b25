"""Comparing nested values and traces: what counts as equal, and what a mismatch says."""

from absl.testing import absltest
import numpy as np

from pyiree_tf_support import comparison
from pyiree_tf_support import tolerances
from pyiree_tf_support.tf_test_utils import ModuleCall, Trace


def mismatches(ref, tar, **kwargs):
  return comparison.compare(ref, tar, "outputs", **kwargs)


def message(ref, tar, **kwargs):
  return comparison.describe_all(mismatches(ref, tar, **kwargs))


class EqualityTest(absltest.TestCase):

  def test_floats_within_the_default_float32_tolerance_are_equal(self):
    a = np.array([1.0, 2.0], np.float32)
    self.assertEqual(mismatches(a, a + np.float32(5e-7)), [])
    self.assertLen(mismatches(a, a + np.float32(1e-3)), 1)

  def test_integers_bools_and_strings_are_exact(self):
    self.assertLen(mismatches(np.array([1, 2], np.int32), np.array([1, 3], np.int32)), 1)
    self.assertLen(mismatches(np.array([True]), np.array([False])), 1)
    self.assertLen(mismatches(np.array([b"a", b"b"], object), np.array([b"a", b"c"], object)), 1)
    self.assertEqual(mismatches(np.array(["x"]), np.array(["x"])), [])

  def test_shapes_must_match_exactly_without_broadcasting(self):
    found = mismatches(np.ones([1], np.float32), np.ones([4], np.float32))
    self.assertIn("shape mismatch: expected [1], got [4]", comparison.describe(found[0]))

  def test_dtype_mismatch_is_reported_as_such(self):
    self.assertIn("dtype mismatch: expected float32, got float64",
                  message(np.ones([2], np.float32), np.ones([2], np.float64)))

  def test_nan_equals_nan_in_the_same_position_only(self):
    nan = np.float32("nan")
    self.assertEqual(mismatches(np.array([nan, 1], np.float32), np.array([nan, 1], np.float32)), [])
    self.assertLen(mismatches(np.array([nan, 1], np.float32), np.array([1, 1], np.float32)), 1)
    self.assertLen(mismatches(np.array([1, 1], np.float32), np.array([nan, 1], np.float32)), 1)

  def test_infinities_compare_exactly(self):
    inf = np.float32("inf")
    self.assertEqual(mismatches(np.array([inf, -inf]), np.array([inf, -inf])), [])
    self.assertLen(mismatches(np.array([inf]), np.array([-inf])), 1)
    self.assertLen(mismatches(np.array([inf]), np.array([3e38])), 1)

  def test_nested_structures_compare_leaf_by_leaf(self):
    ref = {"a": (np.array(1), [np.array([1.0])]), "b": None}
    self.assertEqual(mismatches(ref, {"a": (np.array(1), [np.array([1.0])]), "b": None}), [])
    self.assertIn("expected keys", message(ref, {"a": 1}))
    self.assertIn("expected 2 items, got 1", message((1, 2), (1,)))
    self.assertIn("expected a dict", message({"a": 1}, [1]))

  def test_python_scalars_compare_as_arrays(self):
    self.assertEqual(mismatches(3, 3), [])
    self.assertLen(mismatches(3.0, 3.5), 1)

  def test_per_call_tolerances_override_the_table_for_floats_only(self):
    loose = lambda dtype: tolerances.for_dtype(dtype, (), rtol=0.1, atol=0.1)
    self.assertEqual(mismatches(np.float32(1.0), np.float32(1.05), tolerance_fn=loose), [])
    self.assertLen(mismatches(np.int32(1), np.int32(2), tolerance_fn=loose), 1)


class MessageTest(absltest.TestCase):

  def test_array_message_names_path_counts_greatest_differences_and_tolerance(self):
    ref = {"logits": np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)}
    tar = {"logits": np.array([[1.0, 2.5], [3.0, 4.1]], np.float32)}
    text = message((ref,), (tar,))
    self.assertIn("outputs[0]['logits']: float32[2, 2] arrays are not close", text)
    self.assertIn("2 of 4 elements (50.0%) differ", text)
    self.assertIn("greatest absolute difference 0.5 at index [0, 1] (expected 2.0, got 2.5)", text)
    self.assertIn("greatest relative difference 0.25 at index [0, 1]", text)
    self.assertIn("rtol=1e-06, atol=1e-06", text)

  def test_scalar_message_uses_scalar_wording(self):
    text = message(np.float32(2.0), np.float32(3.0))
    self.assertIn("outputs: scalars are not close (float32): expected 2.0, got 3.0", text)

  def test_exact_comparisons_say_so(self):
    self.assertIn("exact comparison", message(np.array([1, 2]), np.array([1, 5])))

  def test_large_arrays_give_a_short_message(self):
    ref = np.zeros([1000, 1000], np.float32)
    text = message(ref, ref + 1)
    self.assertLess(len(text), 500)
    self.assertIn("1000000 of 1000000 elements (100.0%)", text)


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


class ToleranceTableTest(absltest.TestCase):

  def tearDown(self):
    tolerances.clear_backend_overrides()
    super().tearDown()

  def test_defaults_per_dtype(self):
    self.assertEqual(tolerances.for_dtype(np.float32), tolerances.Tolerance(1e-6, 1e-6))
    self.assertEqual(tolerances.for_dtype(np.int8), tolerances.EXACT)
    self.assertEqual(tolerances.for_dtype(np.bool_), tolerances.EXACT)
    self.assertGreater(tolerances.for_dtype(np.float16).rtol, 1e-6)

  def test_backend_override_applies_to_that_backend_only(self):
    tolerances.parse_overrides("iree_vulkan:float32:1e-4:1e-5")
    self.assertEqual(tolerances.for_dtype(np.float32, ("iree_vulkan_0", "iree_vulkan")),
                     tolerances.Tolerance(1e-4, 1e-5))
    self.assertEqual(tolerances.for_dtype(np.float32, ("iree_vmvx",)),
                     tolerances.Tolerance(1e-6, 1e-6))

  def test_invalid_override_names_the_entry(self):
    with self.assertRaisesRegex(ValueError, "'vulkan:f32'"):
      tolerances.parse_overrides("vulkan:f32")
    with self.assertRaisesRegex(ValueError, "dtype 'f32'"):
      tolerances.parse_overrides("iree_vulkan:f32:1:1")


if __name__ == "__main__":
  absltest.main()
