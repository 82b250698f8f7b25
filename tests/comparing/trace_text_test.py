"""The readable trace file (traces/<trace>__<backend>.txt) is complete and cheap to write, also for
large arrays: e2e/simple_arithmetic_test.py's 128x3072 and 3072x256 matmul inputs took ~30 s of
numpy's aligned printing per trace file on a loaded machine (most of the test's time)."""

import re
import time

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.comparing.traces import ModuleCall


def _numbers(text: str) -> np.ndarray:
  return np.array([float(n) for n in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text)])


class TraceTextTest(parameterized.TestCase):

  @parameterized.parameters(np.float32, np.float64, np.int32)
  def test_a_large_array_is_written_whole_and_reads_back_exactly(self, dtype):
    value = (np.random.default_rng(0).standard_normal((96, 300)) * 1e3).astype(dtype)
    text = ModuleCall("f", (value,), value).format(summarize=False)
    body = text.split("Inputs:")[1].split("Outputs:")[0]
    self.assertIn(f"{np.dtype(dtype).name}[96, 300]", body)
    numbers = _numbers(body.split(":", 1)[1])
    self.assertLen(numbers, value.size)
    np.testing.assert_array_equal(numbers.astype(dtype).reshape(value.shape), value)

  def test_formatting_a_million_floats_takes_under_two_cpu_seconds(self):
    a = np.random.default_rng(0).random((128, 3072), np.float32) * 1e-3
    b = np.random.default_rng(1).random((3072, 256), np.float32) * 1e-3
    started = time.process_time()
    ModuleCall("simple_matmul", (a, b), a[:, :256] @ b[:256]).format(summarize=False)
    self.assertLess(time.process_time() - started, 2.0)

  def test_small_arrays_keep_numpys_aligned_shortest_form(self):
    text = ModuleCall("f", (np.array([1.5, 2.25], np.float32),), None).format(summarize=False)
    self.assertIn("float32[2]: [1.5 , 2.25]", text)


if __name__ == "__main__":
  absltest.main()
