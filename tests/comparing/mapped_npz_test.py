"""An arrays.npz read through mapped_npz gives what np.load gives, mapped rather than read, and
refuses what np.load refuses: a truncated archive, a member whose CRC or size is wrong, an object
array (never unpickled). Loading a trace maps its big arrays instead of copying them."""

import hashlib
import io
import mmap
import os
import struct
import tempfile
import zipfile

from absl.testing import absltest
import ml_dtypes
import numpy as np

from pyiree_tf_support.comparing import mapped_npz
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace


def _mapped(array: np.ndarray) -> bool:
  base = array
  while base is not None and not isinstance(base, mmap.mmap):
    base = getattr(base, "base", None)
  return isinstance(base, mmap.mmap)


class MappedNpzTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.path = os.path.join(tempfile.mkdtemp(), "arrays.npz")

  def _save(self, **arrays: np.ndarray) -> None:
    with open(self.path, "wb") as f:
      np.savez(f, allow_pickle=False, **arrays)

  def _assert_refused(self, pattern: str) -> None:
    """Checking the file raises MemberError matching `pattern`; so does mapping it."""
    for step in ("check", "arrays"):
      with mapped_npz.Npz.open(self.path) as npz:
        with self.assertRaisesRegex(mapped_npz.MemberError, pattern):
          getattr(npz, step)()

  def _member_data(self, name: str):
    """(where member `name`'s bytes start in the file, its size)."""
    with open(self.path, "rb") as f, zipfile.ZipFile(f) as archive:
      info = archive.getinfo(name)
      f.seek(info.header_offset)
      names, extra = struct.unpack("<26xHH", f.read(30))
      return info.header_offset + 30 + names + extra, info.file_size

  def test_every_kind_of_array_comes_back_as_np_load_gives_it(self):
    arrays = {
        "a0": np.arange(100_000, dtype=np.float32).reshape(100, 1000),
        "odd_name_x": np.arange(8, dtype=np.int8),  # with its name, puts a10 off alignment.
        "a10": np.arange(1001, dtype=np.float64),  # unaligned for its dtype.
        "fortran": np.asfortranarray(np.arange(12, dtype=np.int32).reshape(3, 4)),
        "scalar": np.array(2.5, np.float16),
        "empty": np.zeros((0, 3), np.float32),
        "strings": np.array([b"a", b"bcd"]),
        "flags": np.array([True, False]),
        "bf16": np.arange(4, dtype=ml_dtypes.bfloat16).view("V2"),
    }
    self._save(**arrays)
    with mapped_npz.Npz.open(self.path) as npz:
      loaded = npz.arrays()
    with np.load(self.path, allow_pickle=False) as want:
      self.assertEqual(sorted(loaded), sorted(want.files))
      for key in want.files:
        self.assertEqual(loaded[key].dtype, want[key].dtype, key)
        self.assertEqual(loaded[key].shape, want[key].shape, key)
        self.assertEqual(loaded[key].tobytes(order="A"), want[key].tobytes(order="A"), key)
        self.assertEqual(loaded[key].flags.f_contiguous, want[key].flags.f_contiguous, key)
    self.assertFalse(loaded["a10"].flags.aligned)
    np.testing.assert_array_equal(loaded["a10"] * 2, arrays["a10"] * 2)
    for key in ("a0", "a10", "fortran", "strings"):
      self.assertTrue(_mapped(loaded[key]), key)
      self.assertFalse(loaded[key].flags.writeable, key)
    self.assertFalse(_mapped(loaded["empty"]))

  def test_a_compressed_member_is_read(self):
    with open(self.path, "wb") as f:
      np.savez_compressed(f, a0=np.arange(5000, dtype=np.int64))
    with mapped_npz.Npz.open(self.path) as npz:
      loaded = npz.arrays()
    np.testing.assert_array_equal(loaded["a0"], np.arange(5000))
    self.assertFalse(_mapped(loaded["a0"]))

  def test_the_hash_is_the_files(self):
    self._save(a0=np.arange(300_000, dtype=np.float32))
    with open(self.path, "rb") as f:
      want = hashlib.sha256(f.read()).hexdigest()
    with mapped_npz.Npz.open(self.path) as npz:
      self.assertEqual(npz.sha256(), want)

  def test_a_truncated_file_is_no_archive(self):
    self._save(a0=np.arange(1000, dtype=np.float32))
    os.truncate(self.path, os.path.getsize(self.path) // 2)
    with self.assertRaisesRegex(mapped_npz.ArchiveError, "^BadZipFile: "):
      mapped_npz.Npz.open(self.path)

  def test_a_flipped_byte_fails_the_members_crc(self):
    self._save(a0=np.zeros(3, np.float32), a1=np.arange(100_000, dtype=np.float32))
    start, size = self._member_data("a1.npy")
    with open(self.path, "r+b") as f:
      f.seek(start + size - 1)
      byte = f.read(1)
      f.seek(start + size - 1)
      f.write(bytes([byte[0] ^ 1]))
    self._assert_refused(r"^array 'a1' is unreadable \(BadZipFile: Bad CRC-32")

  def test_a_member_shorter_than_its_header_says_is_refused_not_mapped_past(self):
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (1000,)})
    with zipfile.ZipFile(self.path, "w") as archive:
      archive.writestr("a0.npy", header.getvalue() + bytes(16))
      archive.writestr("a1.npy", header.getvalue() + bytes(4000))  # what a0 would run into.
    self._assert_refused(r"^array 'a0' is unreadable \(its header says 4000 bytes of data, it "
                         r"holds 16\)")

  def test_a_member_that_is_no_npy_is_unreadable(self):
    with zipfile.ZipFile(self.path, "w") as archive:
      archive.writestr("notes.txt", b"hello")
    self._assert_refused(r"^array 'notes.txt' is unreadable \(ValueError: ")

  def test_an_object_array_is_refused_unread(self):
    buffer = io.BytesIO()
    np.savez(buffer, a0=np.array([object()] * 2, object))
    with open(self.path, "wb") as f:
      f.write(buffer.getvalue())
    with mapped_npz.Npz.open(self.path) as npz:
      with self.assertRaises(mapped_npz.MemberError) as raised:
        npz.check()
    self.assertTrue(raised.exception.object_array)
    self.assertEqual(raised.exception.key, "a0")


class LoadedTraceTest(absltest.TestCase):

  def test_a_loaded_traces_big_arrays_are_mapped_not_copied(self):
    directory = tempfile.mkdtemp()
    big = np.arange(1 << 18, dtype=np.float32)
    trace = Trace(module_name="M", backend="tf_ref", function_name="f",
                  backend_names=("tf_ref",))
    trace.calls.append(ModuleCall("f", (big,), (big + 1, np.float32(3)), kwargs={"k": big[:4]}))
    trace_io.save_trace(trace, directory, reference=True)
    loaded = trace_io.load_trace(directory)
    (x,), (y, scalar), small = (loaded.calls[0].inputs, loaded.calls[0].result,
                                loaded.calls[0].kwargs["k"])
    np.testing.assert_array_equal(x, big)
    np.testing.assert_array_equal(y, big + 1)
    self.assertEqual(scalar, 3)
    np.testing.assert_array_equal(small, big[:4])
    self.assertTrue(_mapped(x) and _mapped(y))
    self.assertTrue(small.flags.writeable)  # a row of a stack: its own copy, as before.
    self.assertIs(loaded.calls[0].outputs[0], y)


if __name__ == "__main__":
  absltest.main()
