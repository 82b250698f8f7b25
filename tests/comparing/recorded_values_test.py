"""A trace records copies of a call's values, except arrays equal bit for bit to the reference
backend's record of the same call, which it shares (a 200 MB input was once held
twice per target besides the reference's copies)."""

import copy
import tracemalloc
from unittest import mock

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.comparing import recorded_values
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import run_trace


class Doubler:
  """A module as traces see one: methods taking and returning numpy arrays."""
  backend = "plain"

  def double(self, x, scale=1.0):
    return {"twice": np.asarray(x) * 2 * scale, "shape": list(np.shape(x))}


def reused_buffer(module):
  buffer = np.zeros(4, np.float32)
  for i in range(3):
    buffer[:] = i
    module.double(buffer)


class RecordedValuesTest(absltest.TestCase):

  def test_a_target_call_shares_the_references_equal_arrays_and_copies_the_rest(self):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ref = ModuleCall("double", (x, [x]), {"y": x * 2, "n": 3}, kwargs={"k": x})
    tar = ModuleCall("double", (x.copy(), [x + 1]), {"y": x * 2, "n": 3}, kwargs={"k": x.copy()},
                     reference=ref)
    self.assertIs(tar.inputs[0], ref.inputs[0])
    self.assertIsNot(tar.inputs[1][0], ref.inputs[1][0])
    np.testing.assert_array_equal(tar.inputs[1][0], x + 1)
    self.assertIs(tar.kwargs["k"], ref.kwargs["k"])
    self.assertIs(tar.result["y"], ref.result["y"])
    self.assertEqual(tar.result["n"], 3)

  def test_equal_is_bit_for_bit(self):
    nan = np.array([np.nan, 1.0])
    self.assertTrue(recorded_values.same_bits(nan, nan.copy()))
    self.assertFalse(recorded_values.same_bits(np.array([0.0]), np.array([-0.0])))
    self.assertFalse(recorded_values.same_bits(np.zeros(2, np.float32), np.zeros(2, np.int32)))
    self.assertFalse(recorded_values.same_bits(np.zeros(2), np.zeros((2, 1))))
    self.assertFalse(recorded_values.same_bits(np.array(["a"], object), np.array(["a"], object)))
    row = np.zeros((1, 2))
    self.assertFalse(recorded_values.same_bits(row.view(np.matrix), row))  # kept a matrix.

  def test_small_arrays_are_compared_by_their_bytes_alone(self):
    ref = ModuleCall("f", (np.arange(16, dtype=np.float32),), np.float32([np.nan, -0.0]))
    with mock.patch.object(np, "array_equal", wraps=np.array_equal) as array_equal:
      for _ in range(100):
        tar = ModuleCall("f", (np.arange(16, dtype=np.float32),), np.float32([np.nan, -0.0]),
                         reference=ref)
        self.assertIs(tar.inputs[0], ref.inputs[0])
        self.assertIs(tar.result, ref.result)
      other = ModuleCall("f", (np.arange(16, dtype=np.float32),), np.float32([np.nan, 0.0]),
                         reference=ref)
    self.assertIsNot(other.result, ref.result)  # -0.0 is not 0.0.
    self.assertEqual(array_equal.call_count, 0)
    big = np.zeros(recorded_values._CHUNK_BYTES + 4, np.uint8)
    self.assertTrue(recorded_values.same_bits(big, big.copy()))
    changed = big.copy()
    changed[-1] = 1
    self.assertFalse(recorded_values.same_bits(big, changed))

  def test_arrays_of_numbers_are_copied_as_deepcopy_copies_them_without_it(self):
    x = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    strings = np.array([b"a", [1]], dtype=object)
    with mock.patch.object(copy, "deepcopy", wraps=copy.deepcopy) as deepcopy:
      call = ModuleCall("f", (x, x), x * 2)
    self.assertEqual([type(c.args[0]) for c in deepcopy.call_args_list], [dict])  # {} kwargs.
    with_objects = ModuleCall("f", (x, strings), None)
    self.assertIs(call.inputs[0], call.inputs[1])  # one copy of one array, as deepcopy's memo.
    self.assertIsNot(call.inputs[0], x)
    self.assertTrue(call.inputs[0].flags.f_contiguous)
    np.testing.assert_array_equal(call.inputs[0], x)
    self.assertIsNot(call.result, x * 2)
    self.assertIsNot(with_objects.inputs[1][1], strings[1])  # object arrays: deep as before.
    self.assertEqual(with_objects.inputs[1][1], [1])

  def test_a_record_is_a_copy_the_trace_function_cannot_change(self):
    reference, _ = run_trace(Doubler(), reused_buffer)
    target, error = run_trace(Doubler(), reused_buffer, reference=reference)
    self.assertIsNone(error)
    for i, (ref_call, call) in enumerate(zip(reference.calls, target.calls)):
      np.testing.assert_array_equal(call.inputs[0], np.full(4, i, np.float32))
      self.assertIs(call.inputs[0], ref_call.inputs[0])
      self.assertIs(call.result["twice"], ref_call.result["twice"])

  def test_an_agreeing_target_trace_takes_no_memory_for_its_arrays(self):
    x = np.random.default_rng(0).random(4_000_000, np.float32)  # 16 MB in, 16 MB out.
    def trace_function(module):
      module.double(x)
    reference, _ = run_trace(Doubler(), trace_function)
    tracemalloc.start()
    try:
      target, _ = run_trace(Doubler(), trace_function, reference=reference)
      kept, _ = tracemalloc.get_traced_memory()
    finally:
      tracemalloc.stop()
    self.assertIs(target.calls[0].result["twice"], reference.calls[0].result["twice"])
    self.assertLess(kept, x.nbytes // 8)


if __name__ == "__main__":
  absltest.main()
