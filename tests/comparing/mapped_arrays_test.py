"""Arrays written a block at a time by mapped_arrays.write_raw hold the bytes `tobytes` gives,
for every kind of view the reducer writes (mapped, windowed, broadcast, 0-d, empty), and read
back through `raw`, mapped when they are big."""

import os
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.comparing import mapped_arrays


class MappedArraysTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.directory = tempfile.mkdtemp()

  def _round_trip(self, array: np.ndarray) -> np.ndarray:
    self.written = getattr(self, "written", 0) + 1  # a new file each time: never one mapped
    path = os.path.join(self.directory, f"value_{self.written}.bin")
    with open(path, "wb") as f:
      mapped_arrays.write_raw(f, array)
    with open(path, "rb") as f:
      self.assertEqual(f.read(), np.ascontiguousarray(array).tobytes())
    return mapped_arrays.raw(path, array.dtype, array.shape)

  def test_views_write_their_bytes_in_c_order(self):
    rows = mapped_arrays.CHUNK_ELEMENTS // 100 + 3  # several blocks of whole rows
    big = np.arange(rows * 300, dtype=np.float32).reshape(rows, 300)
    saved = os.path.join(self.directory, "big.npy")
    np.save(saved, big)
    mapped = mapped_arrays.load(saved)
    self.assertIsInstance(mapped, np.memmap)
    for array in (mapped, mapped[1:, 7:250], mapped.T, np.broadcast_to(np.float32(2.5), big.shape),
                  np.array(3, np.int32), np.zeros((0, 4), np.int8), np.arange(5, dtype=np.int64)):
      read = self._round_trip(array)
      np.testing.assert_array_equal(read, array)
      self.assertEqual(read.dtype, array.dtype)

  def test_a_big_file_is_mapped_a_small_one_read(self):
    big = self._round_trip(np.ones(mapped_arrays.MAP_BYTES // 4, np.float32))
    self.assertIsInstance(big, np.memmap)
    self.assertNotIsInstance(self._round_trip(np.ones(4, np.float32)), np.memmap)
    mapped_arrays.release_pages(big, np.ones(3))  # mapped or not: no error.
    self.assertEqual(float(big.sum()), mapped_arrays.MAP_BYTES // 4)


if __name__ == "__main__":
  absltest.main()
