"""report.json's trace and backend records are `reporting.records`' frozen dataclasses: the keys
a real run writes are exactly their fields, the session's `ComparedTrace` holds what was written,
and docs/failures.md lists the same keys (so the documented schema cannot drift from the code).
Real TensorFlow and IREE on vmvx: a pass, a compile error (the module compiled per method) and a
mismatch, compared through one session."""

import dataclasses
import json
import os
import re
import tempfile
from typing import Dict, List, Set

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import session as session_lib
from pyiree_tf_support.reporting import records
from pyiree_tf_support.reporting import report_files
from tests.core.phases_test import ErfAndCastModule
from tests.support.repo import ROOT


def passing(module):
  module.cast(np.array([1.0, -2.0, 3.0, 0.0], np.float32))  # whole numbers: no rounding.


def compile_error(module):
  module.erf(np.zeros([4], np.float32))  # erf does not compile for vmvx.


def mismatch(module):
  module.cast(np.array([0.7, -2.0, 3.0, 0.0], np.float32))  # vmvx rounds where TF truncates.


def field_names(record_class) -> List[str]:
  return [field.name for field in dataclasses.fields(record_class)]


def documented_keys(prefix: str) -> List[str]:
  """The keys docs/failures.md lists on its line starting with `prefix`."""
  with open(os.path.join(ROOT, "docs", "failures.md")) as f:
    (line,) = [line for line in f if line.startswith(prefix)]
  return re.findall(r"`(\w+)`", line[len(prefix):])


class RecordsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    root = tempfile.mkdtemp()
    settings = RunSettings(target_backends=("iree_vmla",), artifacts_dir=root)
    session = session_lib.ModuleSession.open(ErfAndCastModule, (), settings,
                                             class_name="Records")
    cls.addClassCleanup(session.close)
    cls.compared: Dict[str, session_lib.ComparedTrace] = {}
    for trace_function in (passing, compile_error, mismatch):
      name = trace_function.__name__
      cls.compared[name] = session.start(name, f"Records.{name}").compare(trace_function)
    with open(report_files.json_path(session.artifacts_dir)) as f:
      cls.report = json.load(f)

  def trace(self, name: str) -> dict:
    (trace,) = self.report["tests"][f"Records.{name}"]["traces"]
    return trace

  def test_the_outcomes_are_a_pass_a_compile_error_and_a_mismatch(self):
    self.assertEqual({name: self.trace(name)["backends"][0]["outcome"] for name in self.compared},
                     {"passing": "PASS", "compile_error": "COMPILE ERROR",
                      "mismatch": "MISMATCH"})

  def test_a_trace_s_keys_are_the_trace_record_s_fields(self):
    self.assertEqual(self.report["format"], "pyiree_tf_support.report/1")  # unchanged.
    for name in self.compared:
      self.assertEqual(set(self.trace(name)), set(field_names(records.TraceRecord)), name)

  def test_a_backend_s_keys_are_the_backend_record_s_fields_that_apply(self):
    always = set(field_names(records.BackendRecord)) - set(records.WRITTEN_WHEN_SET)
    seen: Set[str] = set()
    for name in self.compared:
      (backend,) = self.trace(name)["backends"]
      self.assertContainsSubset(always, set(backend), name)
      self.assertContainsSubset(set(backend), set(field_names(records.BackendRecord)), name)
      seen |= set(backend)
    self.assertIn("method_compiles", seen)  # the compile error's per-method record.

  def test_the_compared_trace_holds_the_record_report_json_has(self):
    for name, compared in self.compared.items():
      record = compared.record
      self.assertIsInstance(record, records.TraceRecord)
      assert record is not None
      self.assertIsInstance(record.backends[0], records.BackendRecord)
      self.assertEqual(record.to_json(), self.trace(name), name)
      self.assertEqual(records.TraceRecord.from_json(self.trace(name)), record, name)

  def test_records_are_frozen(self):
    record = self.compared["mismatch"].record
    assert record is not None
    with self.assertRaises(dataclasses.FrozenInstanceError):
      record.backends[0].outcome = "PASS"  # type: ignore[misc]

  def test_docs_failures_md_lists_the_fields(self):
    self.assertEqual(documented_keys("- a trace record:"), field_names(records.TraceRecord))
    self.assertEqual(documented_keys("- a backend record:"), field_names(records.BackendRecord))
    line = documented_keys("- a backend record:")
    self.assertEqual(line[-len(records.WRITTEN_WHEN_SET):], list(records.WRITTEN_WHEN_SET))


if __name__ == "__main__":
  absltest.main()
