"""The readable trace file (traces/<trace>__<backend>.txt): summarized by default, a few KiB
whatever the arrays hold (a 200 MB input once wrote two 315 MB text traces), naming
the loadable trace with the complete values; whole on request, cheap to write and written as it
is formatted, also for large arrays (e2e/simple_arithmetic_test.py's 128x3072 and 3072x256 matmul
inputs took ~30 s of numpy's aligned printing per trace file on a loaded machine)."""

import os
import re
import tempfile
import time
import tracemalloc

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace

MB = 1_000_000


def _numbers(text: str) -> np.ndarray:
  return np.array([float(n) for n in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text)])


def _trace(*calls: ModuleCall) -> Trace:
  trace = Trace(module_name="M", backend="iree_vmla", function_name="f")
  trace.calls = list(calls)
  return trace


def _read(path: str) -> str:
  with open(path) as f:
    return f.read()


class LongTraceTextTest(absltest.TestCase):
  """Over 100 calls a summarized text shows the first and last 10 and the calls it is asked to
  keep (the first failing one, with a call on each side), and says how many it left out
  (formatting 3000 calls took seconds per backend); whole, it shows every call."""

  def _long(self, calls=300):
    return _trace(*[ModuleCall("add", (np.full([16], i, np.float32),), np.float32(i))
                    for i in range(calls)])

  def test_a_long_trace_shows_its_ends_and_the_kept_call(self):
    path = self._long().save_plaintext(tempfile.mkdtemp(), complete_values="f__iree_vmla/x.npz",
                                       keep_calls=(150,))
    text = _read(path)
    shown = [int(n) for n in re.findall(r"^Call (\d+):", text, re.MULTILINE)]
    self.assertEqual(shown, list(range(10)) + [149, 150, 151] + list(range(290, 300)))
    self.assertIn("277 of the 300 calls are left out here; every call is in f__iree_vmla/x.npz",
                  text)
    self.assertIn("... calls 10 to 148 left out ...", text)
    self.assertIn("... calls 152 to 289 left out ...", text)

  def test_a_trace_of_100_calls_and_a_whole_text_show_every_call(self):
    self.assertLen(re.findall(r"^Call \d+:", self._long(100).format(), re.MULTILINE), 100)
    text = _read(self._long().save_plaintext(tempfile.mkdtemp(), summarize=False))
    self.assertLen(re.findall(r"^Call \d+:", text, re.MULTILINE), 300)
    self.assertNotIn("left out", text)


class SummarizedTraceFileTest(absltest.TestCase):

  def test_a_big_array_is_summarized_and_the_file_names_the_complete_values(self):
    value = np.arange(5_000_000, dtype=np.float32)
    path = _trace(ModuleCall("f", (value,), {"y": value * 2})).save_plaintext(
        tempfile.mkdtemp(), complete_values="f__iree_vmla/arrays.npz")
    self.assertLessEqual(os.path.getsize(path), 2048)
    text = _read(path)
    self.assertIn("float32[5000000]: [0.000000e+00, 1.000000e+00, 2.000000e+00, ..., 4.999997e+06,",
                  text)
    self.assertIn("'y': float32[5000000]: [0.000000e+00, 2.000000e+00, 4.000000e+00, ...", text)
    self.assertIn("Arrays over 64 elements are summarized here; their complete values are in "
                  "f__iree_vmla/arrays.npz", text)

  def test_a_trace_with_nothing_summarized_says_nothing_about_it(self):
    value = np.arange(64, dtype=np.int32)
    path = _trace(ModuleCall("f", (value,), value)).save_plaintext(
        tempfile.mkdtemp(), complete_values="f__iree_vmla/arrays.npz")
    text = _read(path)
    self.assertNotIn("summarized", text)
    self.assertIn("63]", text)


class WholeTraceFileTest(parameterized.TestCase):

  @parameterized.parameters(np.float32, np.float64, np.int32)
  def test_a_large_array_is_written_whole_and_reads_back_exactly(self, dtype):
    value = (np.random.default_rng(0).standard_normal((96, 300)) * 1e3).astype(dtype)
    text = ModuleCall("f", (value,), value).format(summarize=False)
    body = text.split("Inputs:")[1].split("Outputs:")[0]
    self.assertIn(f"{np.dtype(dtype).name}[96, 300]", body)
    numbers = _numbers(body.split(":", 1)[1])
    self.assertLen(numbers, value.size)
    np.testing.assert_array_equal(numbers.astype(dtype).reshape(value.shape), value)

  def test_a_long_row_is_written_whole_in_pieces(self):
    value = np.arange(200_000, dtype=np.int64)
    path = _trace(ModuleCall("f", (value,), None)).save_plaintext(tempfile.mkdtemp(),
                                                                   summarize=False)
    body = _read(path).split("(whole, one row of the last axis per line)\n")[1]
    np.testing.assert_array_equal(_numbers(body.split("Outputs:")[0]), value)

  def test_formatting_a_million_floats_takes_under_two_cpu_seconds(self):
    a = np.random.default_rng(0).random((128, 3072), np.float32) * 1e-3
    b = np.random.default_rng(1).random((3072, 256), np.float32) * 1e-3
    started = time.process_time()
    ModuleCall("simple_matmul", (a, b), a[:, :256] @ b[:256]).format(summarize=False)
    self.assertLess(time.process_time() - started, 2.0)

  def test_a_whole_trace_file_is_written_as_it_is_formatted(self):
    value = np.random.default_rng(0).random(500_000, np.float32)  # 2 MB, ~12 MB of text.
    trace = _trace(ModuleCall("f", (value,), value))
    tracemalloc.start()
    try:
      path = trace.save_plaintext(tempfile.mkdtemp(), summarize=False)
      _, peak = tracemalloc.get_traced_memory()
    finally:
      tracemalloc.stop()
    self.assertGreater(os.path.getsize(path), 2 * 500_000 * 10)
    self.assertLess(peak, 6 * MB)  # ~4 MB: 64K elements as Python floats and their text.

  def test_small_arrays_keep_numpys_aligned_shortest_form(self):
    text = ModuleCall("f", (np.array([1.5, 2.25], np.float32),), None).format(summarize=False)
    self.assertIn("float32[2]: [1.5 , 2.25]", text)


if __name__ == "__main__":
  absltest.main()
