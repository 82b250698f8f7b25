"""The localize command refuses bad input with one line naming what is wrong and what is valid,
and its verdict rules judge aligned events as docs/localizing.md says."""

import dataclasses
import hashlib
import os
import subprocess
import sys
import tempfile
import warnings

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.localizing import events


def _run(*args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "pyiree_tf_support.localize", *args],
                        capture_output=True, text=True, check=False, timeout=120)


class BadInputTest(absltest.TestCase):

  def assert_one_line_error(self, completed: subprocess.CompletedProcess, *needles: str):
    self.assertEqual(completed.returncode, 2, completed.stdout)
    lines = completed.stderr.strip().splitlines()
    self.assertLen(lines, 1, completed.stderr)
    self.assertTrue(lines[0].startswith("localize: "), lines[0])
    for needle in needles:
      self.assertIn(needle, lines[0])

  def test_no_saved_trace(self):
    empty = tempfile.mkdtemp()
    self.assert_one_line_error(_run(empty, "--target_backends=iree_vulkan"), empty,
                               "neither a saved trace dir")

  def test_not_an_iree_backend(self):
    self.assert_one_line_error(_run(tempfile.mkdtemp(), "--target_backends=tf"),
                               "not an IREE backend", "iree_vulkan")

  def test_unknown_backend(self):  # refused by the library's flag itself, as in replay.
    completed = _run(tempfile.mkdtemp(), "--target_backends=iree_nope")
    self.assertNotEqual(completed.returncode, 0)
    self.assertIn("Unknown backend 'iree_nope'; valid backends are: ", completed.stderr)

  def test_one_suspect(self):
    self.assert_one_line_error(
        _run(tempfile.mkdtemp(), "--target_backends=iree_vulkan,iree_vmvx"),
        "names the one suspect")

  def test_a_report_json_it_cannot_write_is_refused_before_any_work(self):
    # Before the trace is even read: a typo in --report_json costs a line, not a localization.
    missing = os.path.join(tempfile.mkdtemp(), "no_such_dir", "verdict.json")
    for path in (missing, tempfile.mkdtemp()):
      with self.subTest(path=path):
        self.assert_one_line_error(
            _run(tempfile.mkdtemp(), "--target_backends=iree_vulkan", f"--report_json={path}"),
            f"--report_json={path}")

  def test_usage(self):
    completed = _run("--target_backends=iree_vulkan")
    self.assertEqual(completed.returncode, 2)
    self.assertIn("usage:", completed.stderr)


def _events(*specs):
  """Events from (call, key, kind, array) tuples."""
  return events.number_events([(call, f"{key} {kind}", [np.asarray(a, np.float32)])
                               for call, key, kind, a in specs])


class VerdictRulesTest(absltest.TestCase):
  """The rules on hand-made events: same inputs, different outputs blames the dispatch."""

  def stream(self, outputs_a, inputs_b, outputs_b):
    return _events((0, "e0::d0", "inputs", [1.0, 2.0]), (0, "e0::d0", "outputs", outputs_a),
                   (0, "e1::d1", "inputs", inputs_b), (0, "e1::d1", "outputs", outputs_b))

  def test_dispatch(self):
    trusted = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    found = events.compare(self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.5]), trusted)
    self.assertEqual((found.kind, found.culprit.key), (events.Kind.DISPATCH, "e1::d1"))

  def test_outside_any_dispatch(self):
    trusted = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    found = events.compare(self.stream([1.0, 1.0], [1.0, 7.0], [2.0, 8.0]), trusted)
    self.assertEqual((found.kind, found.culprit.key), (events.Kind.OUTSIDE, "e1::d1"))

  def test_drift(self):
    trusted = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    # d0 is within tolerance (0.5x), d1 over it (2x) but amplifies its inputs only 4x.
    suspect = self.stream([1.0, 1.0 + 1e-6], [1.0, 1.0 + 1e-6], [2.0, 2.0 + 6e-6])
    self.assertEqual(events.compare(suspect, trusted).kind, events.Kind.DRIFT)

  def test_structure_differs(self):
    trusted = self.stream([1.0], [1.0], [2.0])
    suspect = trusted[:2] + _events((0, "e9::d9", "inputs", [1.0]))
    self.assertEqual(events.compare(suspect, trusted).kind, events.Kind.STRUCTURE)

  def test_no_divergence(self):
    trusted = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    self.assertEqual(events.compare(trusted, trusted).kind, events.Kind.NONE)

  def test_a_tensor_kept_as_a_digest_is_never_blamed(self):
    trusted = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    suspect = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 9.0])
    # The trusted run kept d1's outputs as a digest only (over its memory budget).
    for outputs, uncompared in (([2.0, 9.0], 0), ([2.0, 2.0], 1)):
      digest = hashlib.sha256(np.asarray(outputs, np.float32).tobytes()).hexdigest()
      over_budget = trusted[:3] + [dataclasses.replace(trusted[3], arrays=(np.array(digest),))]
      found = events.compare(suspect, over_budget)
      self.assertEqual((found.kind, found.uncompared), (events.Kind.NONE, uncompared))

  def test_a_run_stopped_at_the_divergence_is_a_prefix(self):
    trusted = self.stream([1.0, 1.0], [1.0, 1.0], [2.0, 2.0])
    stopped = self.stream([1.0, 5.0], [1.0, 5.0], [2.0, 6.0])[:2]
    found = events.compare(stopped, trusted, suspect_stopped=True)
    self.assertEqual((found.kind, found.culprit.key), (events.Kind.DISPATCH, "e0::d0"))
    self.assertEqual(events.compare(stopped, trusted).kind, events.Kind.STRUCTURE)

  def test_occurrences_count_per_call(self):
    numbered = _events((0, "e::d", "outputs", [1.0]), (0, "e::d", "outputs", [1.0]),
                       (1, "e::d", "outputs", [1.0]))
    self.assertEqual([e.occurrence for e in numbered], [0, 1, 0])

  def test_nan_and_inf_are_judged_without_numpy_warnings(self):
    same = np.array([np.inf, np.nan, -np.inf, 1.0], np.float32)
    other = np.array([np.inf, np.nan, -np.inf, 2.0], np.float32)
    with warnings.catch_warnings():
      warnings.simplefilter("error")  # a RuntimeWarning from the localizer fails here.
      self.assertEqual(events.tensor_error(same, same.copy()).error, 0.0)
      error = events.tensor_error(other, same)
      self.assertEqual((error.index, error.suspect, error.trusted), ((3,), "2.0", "1.0"))
      self.assertEqual(events.tensor_error(same[1:2], other[3:]).error, float("inf"))


if __name__ == "__main__":
  absltest.main()
