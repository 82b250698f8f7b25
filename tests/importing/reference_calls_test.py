"""The TF reference calls each method's concrete function directly after its first call, with the
same results, state effects and errors as TensorFlow's ordinary (polymorphic) call."""

import contextlib
from typing import Iterator, List

from absl.testing import absltest
import numpy as np
import tensorflow as tf
from tensorflow.python.eager.polymorphic_function import polymorphic_function

from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.importing import reference_calls


class Stateful(tf.Module):
  """Variables set, added to and read by several methods, inputs of every kind of dtype."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(tf.zeros([4]))
    self.count = tf.Variable(0, dtype=tf.int64)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def add(self, x):
    self.total.assign_add(x)
    self.count.assign_add(1)
    return self.total.read_value(), self.count.read_value()

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def set(self, x):
    self.total.assign(x)

  @tf.function(input_signature=[])
  def get(self):
    return self.total.read_value()

  @tf.function(input_signature=[{"b": tf.TensorSpec([2], tf.float32),
                                 "a": (tf.TensorSpec([], tf.int32), tf.TensorSpec([2], tf.bool))}])
  def nested(self, d):
    a, mask = d["a"]
    scaled = d["b"] * tf.cast(a, tf.float32) + self.total[:2]
    return {"z": tf.where(mask, scaled, -scaled), "a": (a, [mask, tf.logical_not(mask)])}

  @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.int32),
                                tf.TensorSpec(None, tf.uint8)])
  def dynamic(self, x, y):
    return tf.reduce_sum(x, axis=0), tf.size(y), y

  @tf.function(input_signature=[tf.TensorSpec([2], tf.complex64), tf.TensorSpec([2], tf.float64),
                                tf.TensorSpec([2], tf.bfloat16), tf.TensorSpec([], tf.bool)])
  def kinds(self, c, d, h, flag):
    return c * c, tf.cond(flag, lambda: d * 2.0, lambda: d - 1.0), h + h

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def checked(self, x):
    tf.debugging.assert_non_negative(x, message="x must not be negative")
    return tf.sqrt(x) + self.total

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)], jit_compile=True)
  def jitted(self, x):
    return tf.reduce_sum(x * self.total)


class Lazy(tf.Module):
  """A variable made by the method's first call, as Keras layers build theirs."""

  def __init__(self):
    super().__init__()
    self.v = None

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def step(self, x):
    if self.v is None:
      self.v = tf.Variable(tf.ones([3]) * 2.0)
    self.v.assign(self.v * x + 1.0)
    return self.v.read_value()


def _numpy(value):
  return tf.nest.map_structure(
      lambda v: np.asarray(v.numpy()) if isinstance(v, (tf.Tensor, tf.Variable)) else v, value)


def _assert_identical(test: absltest.TestCase, expected, got, where: str) -> None:
  """Same structure, dtypes, shapes and bits."""
  tf.nest.assert_same_structure(expected, got)
  for e, g in zip(tf.nest.flatten(expected), tf.nest.flatten(got)):
    if e is None:
      test.assertIsNone(g, where)
      continue
    test.assertEqual((type(e), e.dtype, e.shape), (type(g), g.dtype, g.shape), where)
    test.assertEqual(e.tobytes(), g.tobytes(), where)


@contextlib.contextmanager
def _polymorphic_calls() -> Iterator[List[str]]:
  """Names each call reaching tf.function's polymorphic dispatch (Function.__call__)."""
  names: List[str] = []
  original = polymorphic_function.Function.__call__

  def counting(self, *args, **kwargs):
    names.append(self.name)
    return original(self, *args, **kwargs)

  polymorphic_function.Function.__call__ = counting
  try:
    yield names
  finally:
    polymorphic_function.Function.__call__ = original


def _calls(i: int):
  """The i-th call of a trace using every method: (name, positional arguments)."""
  x = np.arange(4, dtype=np.float32) * (i % 5) - 1.5
  rows = np.arange(3 * (1 + i % 4), dtype=np.int32).reshape([-1, 3]) * (i - 3)
  return [
      ("add", (x,)),
      ("nested", ({"b": x[:2], "a": (np.int32(i - 2), np.array([i % 2 == 0, i % 3 == 0]))},)),
      ("dynamic", (rows, np.arange(i % 6, dtype=np.uint8).reshape([-1, 1] if i % 2 else [-1]))),
      ("kinds", (np.array([1 + 2j, i - 1j], np.complex64), np.array([0.1, i / 3]),
                 np.array([1.5, i], np.float32), i % 2 == 1)),
      ("checked", (np.abs(x),)),
      ("jitted", (x,)),
      ("set" if i % 7 == 3 else "get", (x * 2,) if i % 7 == 3 else ()),
  ]


class DirectCallsTest(absltest.TestCase):

  def test_a_long_trace_reaches_the_polymorphic_call_once_per_method(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    with _polymorphic_calls() as names:
      for i in range(100):
        for name, args in _calls(i):
          getattr(module, name)(*args)
    self.assertLessEqual(max(names.count(name) for name in set(names)), 1, names)

  def test_results_and_state_are_those_of_the_polymorphic_call(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    plain = Stateful()
    for i in range(30):
      for name, args in _calls(i):
        flat = module.signatures[name].flatten_inputs("Stateful", args, {})
        expected = _numpy(getattr(plain, name)(*module.signatures[name].pack_inputs(flat)))
        _assert_identical(self, expected, getattr(module, name)(*args), f"call {i} {name}")
    _assert_identical(self, _numpy(plain.total), module.get(), "final state")

  def test_variables_made_by_a_first_call_are_those_the_later_calls_use(self):
    module = tf_utils.TfCompiledModule(Lazy, tf_utils.BackendInfo("tf"))
    plain = Lazy()
    for i in range(5):
      x = np.full([3], i / 2, np.float32)
      _assert_identical(self, _numpy(plain.step(x)), module.step(x), f"call {i}")
    module.reinitialize()
    plain = Lazy()
    for i in range(3):
      x = np.full([3], i + 1, np.float32)
      _assert_identical(self, _numpy(plain.step(x)), module.step(x), f"after reinitialize {i}")

  def test_reinitialize_and_create_reinitialized_start_from_initial_state(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    ones = np.ones([4], np.float32)
    for _ in range(3):
      module.add(ones)
    copy = module.create_reinitialized()
    module.reinitialize()
    for fresh in (module, copy):
      np.testing.assert_array_equal(fresh.add(ones)[0], ones)
      np.testing.assert_array_equal(fresh.add(ones)[0], ones * 2)
    self.assertEqual(int(module.add(ones)[1]), 3)

  def test_an_error_raised_while_running_is_the_polymorphic_calls(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    bad = np.array([1, -1, 2, 3], np.float32)
    errors = []
    for _ in range(3):  # the first failing call is the ordinary one, the later ones direct.
      with self.assertRaises(tf.errors.InvalidArgumentError) as raised:
        module.checked(bad)
      errors.append(raised.exception)
      module.checked(np.ones([4], np.float32))
    self.assertIn("x must not be negative", str(errors[0]))
    for error in errors[1:]:
      self.assertEqual((type(errors[0]), str(errors[0])), (type(error), str(error)))
    np.testing.assert_array_equal(module.checked(np.full([4], 4, np.float32)), [2, 2, 2, 2])

  def test_inputs_of_another_dtype_or_shape_give_the_same_errors_as_before(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    module.add(np.ones([4], np.float32))
    module.add(np.ones([4], np.float32))
    with self.assertRaisesRegex(TypeError, r"Stateful\.add\(\) input 0 \('x'\).*complex"):
      module.add(np.ones([4], np.complex64))
    with self.assertRaisesRegex(ValueError, r"Stateful\.add\(\) input 0 has shape \[5\]"):
      module.add(np.ones([5], np.float32))
    np.testing.assert_array_equal(module.add(np.ones([4], np.float64))[0], [3, 3, 3, 3])

  def test_functions_run_as_python_stay_python(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    module.add(np.ones([4], np.float32))
    module.add(np.ones([4], np.float32))
    with _polymorphic_calls() as names:
      tf.config.run_functions_eagerly(True)
      try:
        module.add(np.ones([4], np.float32))
      finally:
        tf.config.run_functions_eagerly(False)
    self.assertEqual(names, ["add"])

  def test_a_traced_module_records_what_the_polymorphic_call_returns(self):
    module = tf_utils.TfCompiledModule(Stateful, tf_utils.BackendInfo("tf"))
    trace = traces.Trace(module, None, function_name="t")
    traced = traces.TracedModule(module, trace)
    plain = Stateful()
    for i in range(5):
      x = np.full([4], i, np.float32)
      traced.add(x)
      _assert_identical(self, _numpy(plain.add(x)), trace.calls[-1].result, f"call {i}")


class PublicFlatCallTest(absltest.TestCase):

  def test_without_the_private_flat_call_the_public_flat_signature_gives_the_same(self):
    instance = Stateful()  # the concrete function holds it weakly.
    concrete = instance.nested.get_concrete_function()

    class PublicOnly:  # a ConcreteFunction of a TensorFlow without `_call_flat`.
      def __call__(self, *args):
        return concrete(*args)

    flat = [tf.constant(np.int32(3)), tf.constant(np.array([True, False])),  # keys sorted.
            tf.constant(np.array([1.5, 2], np.float32))]
    self.assertFalse(hasattr(PublicOnly(), "_call_flat"))
    _assert_identical(self, _numpy(reference_calls._flat_caller(concrete)(flat)),
                      _numpy(reference_calls._flat_caller(PublicOnly())(flat)), "nested")


if __name__ == "__main__":
  absltest.main()
