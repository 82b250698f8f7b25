"""Loadable traces keep each value once: a target's arrays shared with the reference's record
(its inputs, its outputs where they agree bit for bit) are named in the reference's arrays.npz
beside it, not written again; loading gives back every value, and a target whose
reference was rewritten since is refused with its name instead of loaded with other data."""

import json
import os
import tempfile
from unittest import mock

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import structure

BIG = np.arange(100_000, dtype=np.float32)  # 400 kB: what a copy would cost.


def _trace(backend, calls):
  trace = Trace(module_name="M", backend=backend, function_name="f", backend_names=(backend,))
  trace.calls.extend(calls)
  return trace


def _pair(target_output):
  """A reference trace and a target's, recorded as a run records them (sharing equal arrays)."""
  strings = np.array([b"a", b"bc"], dtype=object)
  ref_call = ModuleCall("f", (BIG, strings), BIG * 2, kwargs={"k": np.ones(3, np.int32)})
  target_call = ModuleCall("f", (BIG.copy(), strings.copy()), target_output,
                           kwargs={"k": np.ones(3, np.int32)}, reference=ref_call)
  return _trace("tf_ref", [ref_call]), _trace("iree_vmvx", [target_call])


class SharedArraysTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.traces = tempfile.mkdtemp()
    self.ref_dir = os.path.join(self.traces, "f__tf_ref")
    self.target_dir = os.path.join(self.traces, "f__iree_vmvx")

  def _save(self, ref, target):
    saved = trace_io.save_trace(ref, self.ref_dir, reference=True)
    trace_io.save_trace(target, self.target_dir, shared=saved)

  def test_an_agreeing_target_writes_no_array_of_its_own_and_loads_whole(self):
    ref, target = _pair(BIG * 2)
    self._save(ref, target)
    self.assertLess(os.path.getsize(os.path.join(self.target_dir, "arrays.npz")), 1024)
    loaded = trace_io.load_trace(self.target_dir).calls[0]
    np.testing.assert_array_equal(loaded.inputs[0], BIG)
    self.assertEqual(list(loaded.inputs[1]), [b"a", b"bc"])
    self.assertEqual(loaded.inputs[1].dtype, object)
    np.testing.assert_array_equal(loaded.result, BIG * 2)
    np.testing.assert_array_equal(loaded.kwargs["k"], np.ones(3, np.int32))

  def test_a_differing_output_is_written_with_the_target(self):
    output = BIG * 2 + 1
    ref, target = _pair(output)
    self._save(ref, target)
    size = os.path.getsize(os.path.join(self.target_dir, "arrays.npz"))
    self.assertGreater(size, output.nbytes)
    self.assertLess(size, 2 * output.nbytes)  # the inputs are not in it.
    np.testing.assert_array_equal(trace_io.load_trace(self.target_dir).calls[0].result, output)

  def test_a_target_whose_reference_was_rewritten_is_refused_by_name(self):
    ref, target = _pair(BIG * 2)
    self._save(ref, target)
    other, _ = _pair(BIG)
    other.calls[0] = ModuleCall("f", (BIG + 1,), BIG)
    trace_io.save_trace(other, self.ref_dir, reference=True)
    with self.assertRaisesRegex(ValueError, "f__iree_vmvx shares arrays with .*f__tf_ref/"
                                "arrays.npz, rewritten since"):
      trace_io.load_trace(self.target_dir)

  def test_a_target_without_shared_arrays_stands_alone(self):
    ref = _trace("tf_ref", [ModuleCall("f", (BIG,), BIG)])
    target = _trace("iree_vmvx", [ModuleCall("f", (BIG + 1,), BIG)])  # recorded unshared
    self._save(ref, target)
    os.remove(os.path.join(self.ref_dir, "arrays.npz"))
    np.testing.assert_array_equal(trace_io.load_trace(self.target_dir).calls[0].inputs[0],
                                  BIG + 1)


class ManySmallArraysTest(absltest.TestCase):
  """Small arrays of one dtype and shape are rows of one npz entry (an entry per array
  cost seconds for a 3000-call trace); every value loads back as it was."""

  def test_a_long_trace_of_small_arrays_is_a_few_entries_and_loads_back(self):
    trace = _trace("tf_ref", [
        ModuleCall("f", (np.full([16], i, np.float32), np.int32(i), float(i)),
                   {"sum": np.array(i * 2.5, np.float64), "big": BIG if i == 7 else None})
        for i in range(300)])
    directory = os.path.join(tempfile.mkdtemp(), "f__tf_ref")
    trace_io.save_trace(trace, directory, reference=True)
    with np.load(os.path.join(directory, "arrays.npz")) as npz:
      self.assertLessEqual(len(npz.files), 5)
    for i, call in enumerate(trace_io.load_trace(directory).calls):
      np.testing.assert_array_equal(call.inputs[0], np.full([16], i, np.float32))
      self.assertEqual((call.inputs[1], type(call.inputs[1])), (i, np.ndarray))
      self.assertEqual((call.inputs[2], type(call.inputs[2])), (float(i), float))
      self.assertEqual(call.result["sum"].dtype, np.float64)
      self.assertEqual(float(call.result["sum"]), i * 2.5)
      self.assertIs(call.result["big"] is None, i != 7)


# What the documents of a reference and of a target sharing its arrays held in the format's
# first version (arrays_sha256 aside): saving faster must not change a byte of them.
_REFERENCE_DOCUMENT = (
    '{"backend": "tf_ref", "backend_names": ["tf_ref"], "calls": [{"atol": null, "inputs": '
    '{"list": [{"array": "s0", "row": 0}, {"array": "s1", "row": 0}, {"array": "s2", "py": '
    '"float", "row": 0}]}, "kwargs": {"dict": [["k", {"array": "s0", "row": 1}]]}, "method": '
    '"f", "outputs": {"dict": [["n", {"list": [{"array": "s3", "row": 0}, null]}], ["y", '
    '{"array": "s0", "row": 2}]]}, "rtol": 0.001}, {"atol": null, "inputs": {"list": [{"array":'
    ' "a0"}]}, "kwargs": {"dict": []}, "method": "g", "outputs": null, "rtol": null}], '
    '"format": 1, "function_name": "f", "iree_input_sha256": null, "module_name": "M", '
    '"reference": true}')
_TARGET_DOCUMENT = (
    '{"backend": "iree_vmvx", "backend_names": ["iree_vmvx"], "calls": [{"atol": null, '
    '"inputs": {"list": [{"array": "s0", "row": 0, "shared": true}, {"array": "s0", "row": 0}, '
    '{"array": "s1", "py": "float", "row": 0}]}, "kwargs": {"dict": [["k", {"array": "s0", '
    '"row": 1, "shared": true}]]}, "method": "f", "outputs": {"dict": [["n", {"list": '
    '[{"array": "s2", "row": 0}, null]}], ["y", {"array": "s3", "row": 0}]]}, "rtol": 0.001}, '
    '{"atol": null, "inputs": {"list": [{"array": "a0", "shared": true}]}, "kwargs": {"dict": '
    '[]}, "method": "g", "outputs": null, "rtol": null}], "format": 1, "function_name": "f", '
    '"iree_input_sha256": null, "module_name": "M", "reference": false, "shared_arrays": '
    '{"trace": "f__tf_ref"}}')


class DocumentTest(absltest.TestCase):

  def test_the_documents_are_those_of_the_formats_first_version(self):
    x = np.arange(3, dtype=np.float32)
    ref = _trace("tf_ref", [
        ModuleCall("f", (x, np.int32(2), 1.5), {"y": x * 2, "n": [np.int64(1), None]},
                   kwargs={"k": x}, rtol=1e-3),
        ModuleCall("g", (np.zeros(2000),), None)])
    target = _trace("iree_vmvx", [
        ModuleCall("f", (x.copy(), np.int32(2), 1.5), {"y": x * 2 + 1, "n": [np.int64(1), None]},
                   kwargs={"k": x.copy()}, rtol=1e-3, reference=ref.calls[0]),
        ModuleCall("g", (np.zeros(2000),), None, reference=ref.calls[1])])
    traces = tempfile.mkdtemp()
    with mock.patch.object(trace_io, "_leaf_specs", create=True) as walk, \
        mock.patch.object(structure, "children", wraps=structure.children) as lists:
      saved = trace_io.save_trace(ref, os.path.join(traces, "f__tf_ref"), reference=True)
      trace_io.save_trace(target, os.path.join(traces, "f__iree_vmvx"), shared=saved)
    self.assertFalse(walk.called)  # the document is not walked again to find what it shares,
    self.assertFalse(lists.called)  # and values are encoded without copying their children.
    for name, expected in (("f__tf_ref", _REFERENCE_DOCUMENT),
                           ("f__iree_vmvx", _TARGET_DOCUMENT)):
      with open(os.path.join(traces, name, "trace.json"), encoding="utf-8") as f:
        document = json.load(f)
      self.assertLen(document.pop("arrays_sha256"), 64)
      document.get("shared_arrays", {}).pop("arrays_sha256", None)
      self.assertEqual(document, json.loads(expected), name)


if __name__ == "__main__":
  absltest.main()
