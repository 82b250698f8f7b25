"""The 2020 `pyiree.tf.support` contracts that users' test files read: ModuleCall, Trace,
TracedModule, save_input_values, the string --target_backends flag and the 2020 backend names."""

import inspect
import os
import tempfile

from absl import flags
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing.traces import compare_calls
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.comparing.traces import TracedModule

_ARRAY = np.array([1.0, 2.0], np.float32)


def _trace(backend, calls):
  trace = Trace(module_name="M", backend=backend, function_name="f")
  trace.calls.extend(calls)
  return trace


class ModuleCallTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("no_result", None, ()),
      ("single_array", _ARRAY, (_ARRAY,)),
      ("tuple_result", (_ARRAY, _ARRAY), (_ARRAY, _ARRAY)),
      ("dict_is_one_element", {"a": _ARRAY}, ({"a": _ARRAY},)),
      ("list_is_one_element", [_ARRAY], ([_ARRAY],)),
      ("python_scalar", 3, (3,)),
  )
  def test_outputs_are_always_a_tuple(self, result, expected):
    call = ModuleCall("f", (_ARRAY,), result)
    self.assertIsInstance(call.outputs, tuple)
    self.assertEqual(len(call.outputs), len(expected))
    for got, want in zip(call.outputs, expected):
      tf.nest.map_structure(np.testing.assert_array_equal, got, want)

  def test_inputs_are_the_tuple_of_positionals(self):
    call = ModuleCall("f", [_ARRAY, 2], None)
    self.assertIsInstance(call.inputs, tuple)
    self.assertLen(call.inputs, 2)
    self.assertEqual(call.method, "f")

  def test_default_tolerances_are_1e_6(self):
    call = ModuleCall("f", (), None)
    self.assertEqual(call.get_tolerances(), (1e-6, 1e-6))
    self.assertEqual((call.rtol, call.atol), (1e-6, 1e-6))

  def test_given_tolerances_are_reported(self):
    self.assertEqual(ModuleCall("f", (), None, rtol=1e-3).get_tolerances(), (1e-3, 1e-6))
    self.assertEqual(ModuleCall("f", (), None, 1e-2, 1e-4).get_tolerances(), (1e-2, 1e-4))

  def test_str_shows_method_inputs_outputs_and_tolerances(self):
    text = str(ModuleCall("simple_mul", (np.array([7, 8], np.int32),), np.array([49], np.int32)))
    self.assertIn("simple_mul", text)
    self.assertIn("7, 8", text)
    self.assertIn("49", text)
    self.assertIn("rtol=1e-06, atol=1e-06", text)

  def test_float16_without_given_tolerances_still_uses_the_dtype_table(self):
    ref = _trace("tf_ref", [ModuleCall("f", (), np.array([1.0], np.float16))])
    close = _trace("x", [ModuleCall("f", (), np.array([1.0 + 2**-10], np.float16))])
    self.assertEqual(compare_calls(ref, close), [])
    strict = [ModuleCall("f", (), np.array([1.0], np.float16), rtol=1e-6, atol=1e-6)]
    strict_tar = [ModuleCall("f", (), np.array([1.0 + 2**-10], np.float16), rtol=1e-6, atol=1e-6)]
    self.assertLen(compare_calls(_trace("tf_ref", strict), _trace("x", strict_tar)), 1)


def traced_function(module):
  module.f(_ARRAY)


class TraceTest(parameterized.TestCase):

  def test_iterating_a_trace_yields_its_calls(self):
    calls = [ModuleCall("f", (), None), ModuleCall("g", (), None)]
    self.assertEqual(list(_trace("tf", calls)), calls)

  def test_records_the_trace_function_source(self):
    trace = Trace(module_name="M", backend="tf", function=traced_function)
    lines, first = inspect.getsourcelines(traced_function)
    self.assertEqual(trace.function_name, "traced_function")
    self.assertEqual(trace.function_sourcefile, os.path.abspath(__file__))
    self.assertEqual(trace.function_line_numbers, (first, first + len(lines)))
    self.assertEqual(trace.function_source, "".join(lines))

  def test_compare_traces_returns_a_bool(self):
    ref = _trace("tf_ref", [ModuleCall("f", (), np.array([1.0], np.float32))])
    self.assertIs(Trace.compare_traces(ref, ref), True)
    tar = _trace("x", [ModuleCall("f", (), np.array([2.0], np.float32))])
    self.assertIs(Trace.compare_traces(ref, tar), False)

  def test_compare_traces_raises_when_tolerances_differ(self):
    ref = _trace("tf_ref", [ModuleCall("f", (), 1.0)])
    with self.assertRaisesRegex(ValueError, "rtol"):
      Trace.compare_traces(ref, _trace("x", [ModuleCall("f", (), 1.0, rtol=1e-3)]))

  @parameterized.named_parameters(
      ("equal_floats", _ARRAY, _ARRAY + 1e-7, True),
      ("floats_beyond_tolerance", _ARRAY, _ARRAY + 1e-3, False),
      ("nan_is_not_nan", np.array([np.nan]), np.array([np.nan]), False),
      ("ints_exact", np.array([1, 2]), np.array([1, 3]), False),
      ("bools_exact", np.array([True]), np.array([True]), True),
      ("strings_exact", np.array(["a"]), np.array(["b"]), False),
      ("python_floats_exact", 1.0, 1.0 + 1e-9, False),
      ("python_ints", 3, 3, True),
      ("dtype_differs", np.array([1], np.int32), np.array([1], np.int64), False),
      ("tar_of_another_type", (1,), [1], False),
      ("dicts_recurse", {"a": [_ARRAY]}, {"a": [_ARRAY]}, True),
      ("dict_keys_differ", {"a": 1}, {"b": 1}, False),
      ("lengths_differ", (1, 2), (1,), False),
      ("none_is_none", None, None, True),
  )
  def test_check_same_keeps_the_2020_rules(self, ref, tar, expected):
    self.assertIs(Trace._check_same(ref, tar, 1e-6, 1e-6), expected)

  def test_check_same_rejects_other_types(self):
    with self.assertRaises(TypeError):
      Trace._check_same(object(), object(), 1e-6, 1e-6)

  def test_save_plaintext_writes_under_traces_of_the_artifacts_dir(self):
    artifacts_dir = tempfile.mkdtemp()
    _trace("iree_vmla", [ModuleCall("f", (_ARRAY,), _ARRAY)]).save_plaintext(artifacts_dir)
    path = os.path.join(artifacts_dir, "traces", "f__iree_vmla.txt")
    with open(path) as f:
      self.assertIn("Method: f", f.read())


class Doubler(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x


class TracedModuleTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.module = tf_utils.BackendInfo("tf").compile(Doubler)

  def test_attributes_that_are_not_callable_are_values(self):
    traced = TracedModule(self.module, Trace(self.module, traced_function))
    self.assertEqual(traced.backend, "tf")
    self.assertEqual(traced.module_name, "Doubler")

  def test_a_missing_attribute_names_it(self):
    traced = TracedModule(self.module, Trace(self.module, traced_function))
    with self.assertRaisesRegex(AttributeError, "'missing'"):
      traced.missing

  def test_tolerances_are_taken_out_of_the_call_and_recorded(self):
    trace = Trace(self.module, traced_function)
    result = TracedModule(self.module, trace).double(_ARRAY, rtol=1e-3, atol=1e-4)
    self.assertIsInstance(result, np.ndarray)  # what the trace function sees is unchanged.
    np.testing.assert_array_equal(result, [2.0, 4.0])
    self.assertEqual(trace.calls[0].get_tolerances(), (1e-3, 1e-4))
    self.assertLen(trace.calls[0].outputs, 1)


class SaveInputValuesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("int32", [np.array([1, 2], np.int32)], "2xi32=1 2"),
      ("float32", [np.array([1.0, 2.0], np.float32)], "2xf32=1.0 2.0"),
      ("two_dims", [np.zeros([2, 1], np.int8)], "2x1xi8=0 0"),
      ("scalar", [np.array(1.5, np.float32)], "f32=1.5"),
      ("several", [np.array([1], np.int64), np.array([0.5], np.float64)], "1xi64=1\n1xf64=0.5"),
  )
  def test_format(self, inputs, expected):
    self.assertEqual(tf_utils.save_input_values(inputs), expected)

  def test_writes_inputs_txt_with_a_final_newline(self):
    artifacts_dir = tempfile.mkdtemp()
    with self.assertLogs(logger="absl", level="INFO") as logs:
      text = tf_utils.save_input_values([np.array([1, 2], np.int32)], artifacts_dir)
    path = os.path.join(artifacts_dir, "inputs.txt")
    with open(path) as f:
      self.assertEqual(f.read(), text + "\n")
    self.assertTrue(any(path in line for line in logs.output))


class FlagsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()

  def test_target_backends_is_a_comma_separated_string(self):
    with flagsaver.flagsaver():
      cli_flags.FLAGS["target_backends"].parse("tf,iree_vmla")
      self.assertEqual(tf_utils.FLAGS.target_backends, "tf,iree_vmla")
      self.assertEqual([info.name for info in tf_test_utils.get_target_backends()],
                       ["tf", "iree_vmla"])

  def test_target_backends_is_also_the_later_api_list(self):
    # IREE made it a DEFINE_list on 2020-11-18; files of both eras use one flag.
    with flagsaver.flagsaver():
      cli_flags.FLAGS["target_backends"].parse("tf,iree_vmla")
      value = tf_utils.FLAGS.target_backends
      self.assertEqual(value.split(","), ["tf", "iree_vmla"])  # seed era
      self.assertEqual((len(value), value[0], list(value)), (2, "tf", ["tf", "iree_vmla"]))
      self.assertEqual(value, ["tf", "iree_vmla"])
      self.assertEqual(f"{value}", "tf,iree_vmla")
      self.assertIn("iree_vmla", value)
      cli_flags.FLAGS["target_backends"].parse("iree_llvmjit")
      self.assertEqual(len(tf_utils.FLAGS.target_backends), 1)
      self.assertEqual(tf_utils.FLAGS["target_backends"].serialize(),
                       "--target_backends=iree_llvmjit")

  def test_an_empty_target_backends_is_rejected(self):
    with flagsaver.flagsaver(), self.assertRaisesRegex(flags.IllegalFlagValueError,
                                                       "names an empty backend"):
      cli_flags.FLAGS["target_backends"].parse("")
      cli_flags.FLAGS.validate_all_flags()

  def test_2020_module_level_names_exist(self):
    self.assertIs(tf_utils.FLAGS, flags.FLAGS)
    self.assertEqual(tf_test_utils.NUMPY_LINEWIDTH, 120)


class BackendNamesTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()

  @flagsaver.flagsaver(target_backends=None)
  def test_a_default_run_uses_the_names_the_readme_types(self):
    default = [info.name for info in tf_test_utils.get_target_backends()]
    typed = ["tf", "iree_vmla", "iree_llvmjit", "iree_vulkan"]
    self.assertEqual(default, [name for name in typed if name in default])
    self.assertEqual(default[:3], typed[:3])

  @flagsaver.flagsaver(run_in_worker=True)
  def test_backend_info_reads_no_flag(self):
    self.assertFalse(tf_utils.BackendInfo("iree_vmla").isolated)
    self.assertTrue(tf_utils.BackendInfo("iree_vmla", run_in_worker=True).isolated)
    # tf stays in-process.
    self.assertTrue(tf_test_utils.get_reference_backend_info().isolated is False)

  @flagsaver.flagsaver(run_in_worker=True, target_backends="iree_vmla")
  def test_run_in_worker_is_decided_where_flags_are_read(self):
    self.assertTrue(tf_test_utils.get_target_backends()[0].isolated)


if __name__ == "__main__":
  absltest.main()
