"""The tolerance policy: the dtype table, --tolerances parsing, and that parsing changes nothing."""

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing.tolerances import Tolerance
from pyiree_tf_support.comparing.tolerances import TolerancePolicy


class TableTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("float32", np.float32, Tolerance(1e-6, 1e-6)),
      ("float16", np.float16, Tolerance(1e-3, 1e-3)),
      ("float64", np.float64, Tolerance(1e-6, 1e-6)),
      ("complex64", np.complex64, Tolerance(1e-6, 1e-6)),
      ("int8", np.int8, tolerances.EXACT),
      ("bool", np.bool_, tolerances.EXACT),
      ("bytes", np.object_, tolerances.EXACT),
  )
  def test_defaults_per_dtype(self, dtype, expected):
    self.assertEqual(tolerances.for_dtype(dtype), expected)

  def test_per_call_values_win_over_overrides_and_never_apply_to_exact_dtypes(self):
    policy = tolerances.parse_overrides("iree_vulkan:float32:1e-4:1e-4")
    self.assertEqual(policy.for_dtype(np.float32, ("iree_vulkan",), rtol=0.5),
                     Tolerance(0.5, 1e-4))
    self.assertEqual(policy.for_dtype(np.int32, ("iree_vulkan",), rtol=0.5), tolerances.EXACT)

  def test_a_dtypes_row_is_looked_up_once_per_policy_and_backends(self):
    policy = tolerances.parse_overrides("iree_vulkan:float32:1e-4:1e-5")
    table_row = tolerances._table_row
    table_row.cache_clear()
    for _ in range(100):
      self.assertEqual(policy.for_dtype(np.dtype(np.float32), ("iree_vulkan",)),
                       Tolerance(1e-4, 1e-5))
      self.assertEqual(policy.for_dtype(np.dtype(np.float32), ["iree_vmvx"]),
                       Tolerance(1e-6, 1e-6))
    self.assertEqual(table_row.cache_info().misses, 2)

  def test_an_override_holding_an_unhashable_value_is_still_applied(self):
    policy = TolerancePolicy(((("a", "float32"), Tolerance([1e-3], 0.0)),))
    self.assertEqual(policy.for_dtype(np.float32, ("a",)), Tolerance([1e-3], 0.0))
    self.assertEqual(policy.for_dtype(np.float32, ("a",), atol=1.0), Tolerance([1e-3], 1.0))


class ParseTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("empty", "", (), {}),
      ("one", "iree_vulkan:float32:1e-4:1e-5", ("iree_vulkan_0", "iree_vulkan"),
       {"float32": Tolerance(1e-4, 1e-5), "float16": Tolerance(1e-3, 1e-3)}),
      ("spaces_and_trailing_comma", " iree_vmvx:float16:0.1:0 , ", ("iree_vmvx",),
       {"float16": Tolerance(0.1, 0.0)}),
      ("later_entry_wins", "a:float32:1:1,a:float32:2:2", ("a",), {"float32": Tolerance(2, 2)}),
      ("first_named_backend_wins", "x:float32:1:1,y:float32:2:2", ("y", "x"),
       {"float32": Tolerance(2, 2)}),
      ("other_backends_keep_the_table", "iree_vulkan:float32:1e-4:1e-5", ("iree_vmvx",),
       {"float32": Tolerance(1e-6, 1e-6)}),
      ("infinity_is_a_valid_bound", "a:float64:inf:0", ("a",), {"float64": Tolerance(np.inf, 0)}),
  )
  def test_valid(self, text, backend_names, expected):
    policy = tolerances.parse_overrides(text)
    for dtype_name, tolerance in expected.items():
      self.assertEqual(policy.for_dtype(np.dtype(dtype_name), backend_names), tolerance)

  @parameterized.named_parameters(
      ("too_few_fields", "vulkan:f32",
       "Invalid tolerance override 'vulkan:f32': expected backend:dtype:rtol:atol, "
       "e.g. iree_vulkan:float32:1e-5:1e-5."),
      ("unknown_dtype", "iree_vulkan:f32:1:1",
       "Invalid tolerance override 'iree_vulkan:f32:1:1': dtype 'f32' is not one of float16, "
       "bfloat16, float32, float64, complex64, complex128."),
      ("negative", "iree_vulkan:float32:-1e-5:0",
       "Invalid tolerance override 'iree_vulkan:float32:-1e-5:0': rtol '-1e-5' is not a number "
       ">= 0; expected backend:dtype:rtol:atol, e.g. iree_vulkan:float32:1e-5:1e-5."),
      ("nan", "iree_vulkan:float32:0:nan",
       "Invalid tolerance override 'iree_vulkan:float32:0:nan': atol 'nan' is not a number >= 0; "
       "expected backend:dtype:rtol:atol, e.g. iree_vulkan:float32:1e-5:1e-5."),
      ("not_a_number", "iree_vulkan:float32:small:0",
       "Invalid tolerance override 'iree_vulkan:float32:small:0': rtol 'small' is not a number "
       ">= 0; expected backend:dtype:rtol:atol, e.g. iree_vulkan:float32:1e-5:1e-5."),
      ("empty_backend", ":float32:0:0",
       "Invalid tolerance override ':float32:0:0': the backend name is empty; expected "
       "backend:dtype:rtol:atol, e.g. iree_vulkan:float32:1e-5:1e-5."),
  )
  def test_invalid_is_one_line_naming_the_entry(self, text, expected):
    with self.assertRaises(ValueError) as raised:
      tolerances.parse_overrides(text)
    self.assertEqual(str(raised.exception), expected)

  def test_parsing_is_pure(self):
    first = tolerances.parse_overrides("iree_vulkan:float32:1e-4:1e-4")
    tolerances.parse_overrides("iree_vulkan:float32:0.5:0.5")
    self.assertEqual(first.for_dtype(np.float32, ("iree_vulkan",)), Tolerance(1e-4, 1e-4))
    self.assertEqual(tolerances.for_dtype(np.float32, ("iree_vulkan",)), Tolerance(1e-6, 1e-6))

  def test_layers_on_a_base_policy(self):
    base = TolerancePolicy().with_override("a", "float32", Tolerance(1, 1))
    policy = tolerances.parse_overrides("b:float32:2:2", base)
    self.assertEqual(policy.for_dtype(np.float32, ("a",)), Tolerance(1, 1))
    self.assertEqual(policy.for_dtype(np.float32, ("b",)), Tolerance(2, 2))
    self.assertEqual(base.for_dtype(np.float32, ("b",)), Tolerance(1e-6, 1e-6))


if __name__ == "__main__":
  absltest.main()
