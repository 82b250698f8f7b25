"""Chunk-wise measurement gives what the whole tensor gives: the same worst element, the first
NaN/Inf pattern difference, the same digest; a mapped tensor's pages can be dropped and read
again. localize_memory_test checks what it is for (the memory)."""

import hashlib
import os
import tempfile
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing import tensors
from pyiree_tf_support.localizing import traced_run


def _whole(suspect: np.ndarray, trusted: np.ndarray) -> events.TensorError:
  """tensor_error with one chunk holding the whole tensor."""
  with mock.patch.object(tensors, "CHUNK_ELEMENTS", max(1, suspect.size)):
    return events.tensor_error(suspect, trusted)


class ChunkedTest(parameterized.TestCase):

  def setUp(self):
    super().setUp()
    rng = np.random.default_rng(5)
    self.trusted = rng.standard_normal((6, 10)).astype(np.float32)
    self.enter_context(mock.patch.object(tensors, "CHUNK_ELEMENTS", 7))

  def test_the_worst_element_of_a_later_chunk(self):
    suspect = self.trusted.copy()
    suspect[0, 1] += 1e-3  # chunk 0
    suspect[4, 3] += 1.0  # chunk 6: the worst
    error = events.tensor_error(suspect, self.trusted)
    self.assertEqual(error.index, (4, 3))
    self.assertEqual(error, _whole(suspect, self.trusted))

  def test_equal_worst_elements_name_the_first(self):
    suspect = self.trusted.copy()
    self.trusted[1, 2] = self.trusted[5, 5] = 0.0
    suspect[1, 2] = suspect[5, 5] = 1.0  # the same error, in chunks 1 and 7
    error = events.tensor_error(suspect, self.trusted)
    self.assertEqual(error.index, (1, 2))
    self.assertEqual(error, _whole(suspect, self.trusted))

  def test_a_nan_pattern_difference_wins_over_a_larger_earlier_error(self):
    suspect = self.trusted.copy()
    suspect[0, 0] += 100.0
    suspect[5, 9] = np.nan
    error = events.tensor_error(suspect, self.trusted)
    self.assertEqual((error.error, error.index), (float("inf"), (5, 9)))
    self.assertEqual(error, _whole(suspect, self.trusted))

  @parameterized.parameters(np.int32, np.bool_)
  def test_exact_dtypes_count_every_chunk(self, dtype):
    trusted = (self.trusted > 0).astype(dtype)
    suspect = trusted.copy()
    suspect[2, 4] = 1 - suspect[2, 4]
    suspect[5, 8] = 1 - suspect[5, 8]
    error = events.tensor_error(suspect, trusted)
    self.assertEqual(error.index, (2, 4))
    self.assertAlmostEqual(error.error, 1.0 + 2 / 60 * 1e6)
    self.assertEqual(error, _whole(suspect, trusted))

  def test_digest_and_stats_of_chunks(self):
    values = self.trusted.copy()
    values[3, 3] = np.inf
    self.assertEqual(tensors.digest(values), hashlib.sha256(values.tobytes()).hexdigest())
    transposed = values.T
    self.assertEqual(tensors.digest(transposed),
                     hashlib.sha256(np.ascontiguousarray(transposed).tobytes()).hexdigest())
    finite = values[np.isfinite(values)]
    stats = traced_run.stats(values)
    self.assertEqual((stats["nan"], stats["inf"]), (0, 1))
    self.assertEqual((stats["min"], stats["max"]), (float(finite.min()), float(finite.max())))
    self.assertAlmostEqual(stats["mean"], float(finite.mean(dtype=np.float64)))


class LoadTest(absltest.TestCase):

  def test_a_large_tensor_is_mapped_and_its_pages_can_be_dropped(self):
    directory = tempfile.mkdtemp()
    big, small = os.path.join(directory, "big.npy"), os.path.join(directory, "small.npy")
    values = np.arange(tensors.MAP_BYTES // 4, dtype=np.float32)
    np.save(big, values)
    np.save(small, values[:4])
    mapped = tensors.load(big)
    self.assertIsInstance(mapped, np.memmap)
    self.assertNotIsInstance(tensors.load(small), np.memmap)
    self.assertEqual(float(mapped[-1]), float(values[-1]))
    tensors.release_pages(mapped.reshape(-1)[10:])
    np.testing.assert_array_equal(mapped, values)  # read again from the file
    np.save(os.path.join(directory, "empty.npy"), np.zeros((0, 3), np.float32))
    self.assertEqual(tensors.load(os.path.join(directory, "empty.npy")).shape, (0, 3))


if __name__ == "__main__":
  absltest.main()
