"""After a failure: every command the report prints reproduces that failure, and replay refuses
what it cannot trust.

The mismatches here are real: IREE's vmvx target converts f32 to i32 by rounding to nearest where
TensorFlow truncates (e2e/BUILD.bazel lists it as integer_test.py's miscompile).
"""

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from typing import Callable
import unittest
import zipfile

from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.comparing import traces

# Scales each element's conversion error differently, so the worst element is unique.
WEIGHTS = np.array([1, 10, 100, 1000], np.int32)
# Commands must not depend on the venv being on PATH.
BARE_PATH = "/usr/bin:/bin"


class Truncating(tf.Module):
  """No state: any call can be re-run alone."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32) * WEIGHTS


class Accumulating(tf.Module):
  """A running total: call N's result depends on calls 0..N-1."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(tf.zeros([4], tf.float32))

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def accumulate(self, x):
    self.total.assign_add(x)
    return tf.cast(self.total, tf.int32) * WEIGHTS


def truncate_once(module):
  # TF: [0, 1, 2, -3] * WEIGHTS; vmvx rounds 0.7 -> 1 and 2.6 -> 3: worst at [2] (200 vs 300).
  module.truncate(np.array([0.7, 1.2, 2.6, -3.3], np.float32))


def accumulate_twice(module):
  # Call 0 passes (totals < 0.5 round and truncate alike); call 1's totals [0.6, 0.4, 0.6, 0.1]
  # round to [1, 0, 1, 0] on vmvx: worst at [2]. Alone, call 1 would start from zero and pass.
  module.accumulate(np.array([0.2, 0.1, 0.3, 0.0], np.float32))
  module.accumulate(np.array([0.4, 0.3, 0.3, 0.1], np.float32))


def accumulate_failing_first(module):
  module.accumulate(np.array([0.6, 0.1, 0.6, 0.0], np.float32))
  module.accumulate(np.array([0.1, 0.1, 0.1, 0.1], np.float32))


def passing_truncate(module):
  module.truncate(np.array([1.0, 2.0, -3.0, 4.0], np.float32))


def make_case(module_class, trace_function):

  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  return Case


def run_case(test_class) -> unittest.TestResult:
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def run_from_root(command: str) -> subprocess.CompletedProcess:
  """Runs a printed command as a user would paste it: from /, without the venv on PATH."""
  return subprocess.run(command, shell=True, cwd="/", capture_output=True, text=True, check=False,
                        env=dict(os.environ, PATH=BARE_PATH))


def failing_call(report: str):
  """(call index, method, index of the greatest absolute difference) of a report's mismatch."""
  call = re.search(r"call (\d+) \((\w+)\):", report)
  worst = re.search(r"greatest absolute difference \S+ at index \[([\d, ]*)\]", report)
  return int(call.group(1)), call.group(2), worst.group(1)


def worst_element_of_iree_run_module(output: str) -> str:
  """The index of the greatest |actual - expected| in iree-run-module's mismatch printout."""
  expected = re.search(r"expected:\n\d+x\w+=([-\d ]+)\n", output).group(1).split()
  actual = re.search(r"actual:\n\d+x\w+=([-\d ]+)\n", output).group(1).split()
  diffs = np.abs(np.array(actual, np.int64) - np.array(expected, np.int64))
  return str(int(np.argmax(diffs)))


class ReproducingCommandsTest(parameterized.TestCase):
  """Each printed command, pasted from /, shows the same call failing at the same worst element."""

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.artifacts_dir = tempfile.mkdtemp()

  def failure_report(self, module_class, trace_function) -> str:
    with flagsaver.flagsaver(artifacts_dir=self.artifacts_dir, target_backends=["iree_vmla"]):
      result = run_case(make_case(module_class, trace_function))
    self.assertLen(result.failures, 1, result.errors)
    return result.failures[0][1]

  @parameterized.named_parameters(
      ("stateless", Truncating, truncate_once, 0, True),
      ("stateful_first_call", Accumulating, accumulate_failing_first, 0, True),
      ("stateful_later_call", Accumulating, accumulate_twice, 1, False),
  )
  def test_printed_commands_reproduce_the_mismatch(self, module_class, trace_function,
                                                   failing_index, has_run_module_command):
    report = self.failure_report(module_class, trace_function)
    call, method, worst = failing_call(report)
    self.assertEqual((call, worst), (failing_index, "2"))

    replay_command = re.search(r"replay every call in order: (.*)", report).group(1)
    module_dir = os.path.join(self.artifacts_dir, module_class.__name__)
    self.assertEqual(
        replay_command,
        f"{sys.executable} -m pyiree_tf_support.replay "
        f"{os.path.join(module_dir, 'traces', trace_function.__name__ + '__tf_ref')} "
        "--target_backends=iree_vmla")
    replayed = run_from_root(replay_command)
    self.assertEqual(replayed.returncode, 1, replayed.stderr[-2000:])
    self.assertEqual(failing_call(replayed.stdout), (call, method, worst))

    run_module = re.search(rf"re-run call {call} alone: (cd \S+ && (\S+) --flagfile=flagfile)$",
                           report, re.MULTILINE)
    if not has_run_module_command:
      self.assertIsNone(run_module)
      self.assertIn(f"no iree-run-module command for call {call}: the module keeps state",
                    report)
      self.assertFalse(os.path.exists(os.path.join(
          module_dir, "repro", f"{trace_function.__name__}__iree_vmla", f"call_{call}_{method}")))
      return
    self.assertIsNotNone(run_module, report)
    self.assertTrue(os.path.isabs(run_module.group(2)), run_module.group(2))
    rerun = run_from_root(run_module.group(1))
    self.assertNotEqual(rerun.returncode, 0, rerun.stdout)
    self.assertIn(f"EXEC @{method}", rerun.stdout)
    self.assertEqual(worst_element_of_iree_run_module(rerun.stdout), worst)


def _set_json(path: str, change: Callable[[dict], None]) -> None:
  with open(path) as f:
    document = json.load(f)
  change(document)
  with open(path, "w") as f:
    json.dump(document, f)


def _write(path: str, data: bytes) -> None:
  with open(path, "wb") as f:
    f.write(data)


def _truncate(path: str) -> None:
  with open(path, "rb") as f:
    data = f.read()
  _write(path, data[:len(data) // 2])


def _other_arrays(path: str) -> None:
  """Rewrites arrays.npz as a run with other inputs would have: valid, but not trace.json's."""
  with np.load(path) as npz:
    arrays = {key: npz[key] + 1 for key in npz.files}
  buffer = io.BytesIO()
  np.savez(buffer, **arrays)
  _write(path, buffer.getvalue())


def _rehash(trace_dir: str) -> None:
  """trace.json names arrays.npz as it is now: only the archive's own checks can refuse it."""
  with open(f"{trace_dir}/arrays.npz", "rb") as f:
    digest = hashlib.sha256(f.read()).hexdigest()
  _set_json(f"{trace_dir}/trace.json", lambda d: d.update(arrays_sha256=digest))


def _flip_a_data_byte(trace_dir: str) -> None:
  """Flips the last byte of the first member's data: the archive's CRC is what tells."""
  path = f"{trace_dir}/arrays.npz"
  with open(path, "rb") as f:
    data = bytearray(f.read())
  with zipfile.ZipFile(io.BytesIO(bytes(data))) as archive:
    info = archive.infolist()[0]
  names, extra = struct.unpack("<HH", data[info.header_offset + 26:info.header_offset + 30])
  data[info.header_offset + 30 + names + extra + info.file_size - 1] ^= 1
  _write(path, bytes(data))
  _rehash(trace_dir)


def _short_member(trace_dir: str) -> None:
  """Rewrites the first member as a .npy whose header says more data than it holds (what a
  mapped read would run past into the next member)."""
  path = f"{trace_dir}/arrays.npz"
  with zipfile.ZipFile(path) as archive:
    members = {name: archive.read(name) for name in archive.namelist()}
  header = io.BytesIO()
  np.lib.format.write_array_header_1_0(
      header, {"descr": "<f4", "fortran_order": False, "shape": (1000,)})
  members[next(iter(members))] = header.getvalue() + bytes(16)
  with zipfile.ZipFile(path, "w") as archive:
    for name, member in members.items():
      archive.writestr(name, member)
  _rehash(trace_dir)


class _Unpickled:
  """Unpickling this object creates the file it names: proof that a pickle was loaded."""

  def __init__(self, marker: str):
    self.marker = marker

  def __reduce__(self):
    return (open, (self.marker, "w"))


def _object_array(path: str, marker: str) -> None:
  array = np.empty([1], object)
  array[0] = _Unpickled(marker)
  buffer = io.BytesIO()
  np.savez(buffer, a0=array)  # np.savez pickles object arrays.
  _write(path, buffer.getvalue())


# name, change to the saved files (paths: trace dir t, module dir m, marker file), expected text.
BAD_INPUTS = (
    ("corrupt_json", lambda t, m, x: _write(f"{t}/trace.json", b'{"format": 1, "calls": ['),
     "trace.json is not valid JSON"),
    ("json_not_an_object", lambda t, m, x: _write(f"{t}/trace.json", b"[1, 2]"),
     "trace.json holds a JSON list, not a saved trace object"),
    ("wrong_format_version", lambda t, m, x: _set_json(f"{t}/trace.json",
                                                       lambda d: d.update(format=99)),
     "trace.json has format 99; this pyiree_tf_support reads format 1"),
    ("missing_key", lambda t, m, x: _set_json(f"{t}/trace.json", lambda d: d.pop("calls")),
     "trace.json lacks the key(s) calls"),
    ("call_missing_key", lambda t, m, x: _set_json(f"{t}/trace.json",
                                                   lambda d: d["calls"][0].pop("outputs")),
     "trace.json: call 0 lacks the key(s) outputs"),
    ("saved_without_provenance", lambda t, m, x: _set_json(f"{t}/trace.json",
                                                           lambda d: d.pop("iree_input_sha256")),
     "trace.json does not record whether it is a reference trace nor which iree_input.mlir"),
    ("missing_npz", lambda t, m, x: os.remove(f"{t}/arrays.npz"),
     "Cannot read the saved trace's arrays {t}/arrays.npz: No such file or directory"),
    ("truncated_npz", lambda t, m, x: _truncate(f"{t}/arrays.npz"),
     "arrays.npz is not a readable .npz archive, truncated or corrupt (BadZipFile"),
    ("object_array", lambda t, m, x: _object_array(f"{t}/arrays.npz", x),
     "arrays.npz: array 'a0' is an object array, which replay never unpickles"),
    ("npz_member_crc", lambda t, m, x: _flip_a_data_byte(t),
     "arrays.npz: array 's0' is unreadable (BadZipFile: Bad CRC-32 for file 's0.npy')"),
    ("npz_member_shorter_than_its_header", lambda t, m, x: _short_member(t),
     "arrays.npz: array 's0' is unreadable ("),
    ("npz_of_another_run", lambda t, m, x: _other_arrays(f"{t}/arrays.npz"),
     "arrays.npz is not the arrays file {t}/trace.json was saved with"),
    ("target_trace_as_reference", lambda t, m, x: shutil.copy(
        f"{m}/traces/passing_truncate__iree_vmla/trace.json", f"{t}/trace.json"),
     "trace.json is the trace of target backend 'iree_vmla', not of the reference"),
    ("iree_input_rewritten", lambda t, m, x: _write(f"{m}/iree_input.mlir", b"module {}\n"),
     "iree_input.mlir is not the module {t}/trace.json was recorded with"),
    ("missing_iree_input", lambda t, m, x: os.remove(f"{m}/iree_input.mlir"),
     "Cannot read the module's {m}/iree_input.mlir: No such file or directory"),
    ("corrupt_signatures", lambda t, m, x: _write(f"{m}/signatures.json", b"{]"),
     "signatures.json is not a valid signatures file"),
    ("signatures_without_the_method", lambda t, m, x: _write(f"{m}/signatures.json", b"{}"),
     "signatures.json has no function truncate that {t}/trace.json calls"),
)


class ReplayRefusesTest(parameterized.TestCase):
  """What replay cannot trust is exit 2 with one line naming the file, before anything runs."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.recorded = tempfile.mkdtemp()
    with flagsaver.flagsaver(artifacts_dir=cls.recorded, target_backends=["iree_vmla"]):
      result = run_case(make_case(Truncating, passing_truncate))
    assert result.wasSuccessful(), result.failures + result.errors

  def setUp(self):
    super().setUp()
    self.module_dir = os.path.join(tempfile.mkdtemp(), "Truncating")
    shutil.copytree(os.path.join(self.recorded, "Truncating"), self.module_dir)
    self.trace_dir = os.path.join(self.module_dir, "traces", "passing_truncate__tf_ref")

  def replay_main(self, trace_dir: str):
    stderr, stdout = io.StringIO(), io.StringIO()
    with flagsaver.flagsaver(target_backends=["iree_vmla"]), \
        contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
      code = replay.main(["replay", trace_dir])
    return code, stdout.getvalue(), stderr.getvalue()

  def test_the_untouched_reference_trace_replays_and_passes(self):
    code, stdout, stderr = self.replay_main(self.trace_dir)
    self.assertEqual(code, 0, stderr)
    self.assertIn("iree_vmla: PASS", stdout)

  @parameterized.named_parameters(*BAD_INPUTS)
  def test_bad_input_is_exit_2_with_one_line_naming_the_file(self, change, expected):
    marker = os.path.join(tempfile.mkdtemp(), "unpickled")
    change(self.trace_dir, self.module_dir, marker)
    code, stdout, stderr = self.replay_main(self.trace_dir)
    self.assertEqual((code, stdout), (2, ""), stderr)
    self.assertEqual(len(stderr.splitlines()), 1, stderr)
    self.assertIn(expected.format(t=self.trace_dir, m=self.module_dir), stderr)
    self.assertIn(self.module_dir, stderr)
    self.assertFalse(os.path.exists(marker), "a pickle was loaded")

  @parameterized.named_parameters(
      ("target_trace_dir", "passing_truncate__iree_vmla", None,
       "passing_truncate__iree_vmla/trace.json is the trace of target backend 'iree_vmla', not of "
       "the reference: replaying it would compare that backend with itself; replay {t} instead."),
      ("stale_module_dir", "passing_truncate__tf_ref", "module {}\n",
       "iree_input.mlir is not the module {t}/trace.json was recorded with"),
  )
  def test_the_command_line_refuses_from_any_directory(self, trace_name, iree_input, expected):
    if iree_input is not None:
      _write(os.path.join(self.module_dir, "iree_input.mlir"), iree_input.encode())
    process = run_from_root(f"{sys.executable} -m pyiree_tf_support.replay "
                            f"{os.path.join(self.module_dir, 'traces', trace_name)} "
                            "--target_backends=iree_vmla")
    self.assertEqual((process.returncode, process.stdout), (2, ""), process.stderr[-2000:])
    self.assertEqual(len(process.stderr.splitlines()), 1, process.stderr)
    self.assertIn(expected.format(t=self.trace_dir), process.stderr)



class ReplayedTraceNamesTest(absltest.TestCase):

  def test_a_replayed_trace_is_known_by_every_name_of_its_backend(self):
    # So --tolerances entries for the canonical or artifact name apply in replay as in the live run.
    module = replay.ReplayModule(None, {}, "M", "iree_vmla_0",
                                 ("iree_vmla_0", "iree_vmla", "iree_vmvx"))
    self.assertEqual(traces.Trace(module).backend_names, ("iree_vmla_0", "iree_vmla", "iree_vmvx"))


if __name__ == "__main__":
  absltest.main()
