"""<Module>/report.json and report.txt (issue 10 item 5): written for passing and failing tests,
schema pinned, merged per test id across processes; the failing report is shown once."""

import io
import json
import logging as std_logging
import os
import subprocess
import sys
import tempfile
import unittest

from absl import logging
from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support.reporting import report_files
from pyiree_tf_support import tf_test_utils

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

BACKEND_KEYS = {"backend", "outcome", "phase", "first_error", "detail", "call", "worst", "paths",
                "commands"}
WORST_KEYS = {"kind", "path", "index", "expected", "got", "difference", "ulps"}


class ScaleModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([256], tf.float32)])
  def double(self, x):
    return 2.0 * x


def passing(module):
  module.double(np.arange(256, dtype=np.float32))


def failing(module):
  # The target is given another input than the reference: a real mismatch at index 3.
  x = np.arange(256, dtype=np.float32)
  if module.backend != "tf_ref":
    x[3] += 0.5
  module.double(x)


def make_case():

  @tf_test_utils.compile_module(ScaleModule)
  class ReportTest(tf_test_utils.TracedModuleTestCase):

    def test_passing(self):
      self.compare_backends(passing)

    def test_failing(self):
      self.compare_backends(failing)

  return ReportTest


class ReportFilesTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.root = tempfile.mkdtemp()
    cls.logged = io.StringIO()
    capture = std_logging.StreamHandler(cls.logged)
    std_logging.getLogger().addHandler(capture)  # what absl's handler would print.
    verbosity = logging.get_verbosity()
    logging.set_verbosity(logging.INFO)  # as a test file's main sets it.
    try:
      with flagsaver.flagsaver(target_backends="iree_llvmjit", artifacts_dir=cls.root):
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(make_case())
        cls.result = unittest.TextTestRunner(stream=io.StringIO()).run(suite)
    finally:
      logging.set_verbosity(verbosity)
      std_logging.getLogger().removeHandler(capture)
    cls.module_dir = os.path.join(cls.root, "ScaleModule")
    with open(report_files.json_path(cls.module_dir)) as f:
      cls.report = json.load(f)

  def entry(self, test):
    (key,) = [k for k in self.report["tests"] if k.endswith("." + test)]
    return self.report["tests"][key]

  def test_schema_for_a_pass(self):
    entry = self.entry("test_passing")
    self.assertTrue(entry["passed"])
    (trace,) = entry["traces"]
    self.assertEqual(set(trace), {"trace", "reference", "passed", "report", "backends"})
    self.assertEqual((trace["trace"], trace["reference"]), ("passing", "tf_ref"))
    (backend,) = trace["backends"]
    self.assertEqual(set(backend), BACKEND_KEYS)
    self.assertEqual((backend["outcome"], backend["call"], backend["worst"]), ("PASS", None, None))
    self.assertEqual((backend["phase"], backend["first_error"]), (None, None))
    self.assertEqual(entry["file"], "report_files_test.py")
    self.assertTrue(os.path.isfile(backend["paths"]["trace"]))

  def test_schema_for_a_mismatch(self):
    self.assertEqual(self.report["format"], report_files.FORMAT)
    entry = self.entry("test_failing")
    self.assertFalse(entry["passed"])
    (backend,) = entry["traces"][0]["backends"]
    self.assertEqual(set(backend), BACKEND_KEYS)
    self.assertEqual(backend["outcome"], "MISMATCH")
    self.assertEqual(backend["phase"], "mismatch")
    self.assertStartsWith(backend["first_error"], "call 0 (double): inputs[0]: float32[256] arrays "
                          "are not close")
    self.assertEqual(backend["call"], {"index": 0, "method": "double"})
    self.assertEqual(set(backend["worst"]), WORST_KEYS)
    self.assertEqual(backend["worst"]["kind"], "numeric")
    self.assertEqual(backend["worst"]["index"], [3])
    self.assertEqual(set(backend["paths"]),
                     {"trace", "trace_dir", "compiled", "repro_dir"})
    for path in backend["paths"].values():
      self.assertTrue(os.path.exists(path), path)
    self.assertIn("pyiree_tf_support.replay", backend["commands"]["replay"])
    self.assertIn("iree-run-module", backend["commands"]["iree_run_module"])

  def test_report_txt_holds_every_test(self):
    with open(report_files.text_path(self.module_dir)) as f:
      text = f.read()
    self.assertIn("Trace 'passing' compared with the reference 'tf_ref': 1 pass (iree_llvmjit).", text)
    self.assertIn("Trace 'failing' failed on 1 of 1 target backend(s)", text)

  def test_failing_report_is_shown_once(self):
    (failure,) = [text for _, text in self.result.failures]
    self.assertIn("Trace 'failing' failed", failure)
    self.assertNotIn("Trace 'failing' failed", self.logged.getvalue())

  def test_failing_trace_is_logged_summarized_and_saved_in_full(self):
    logged = self.logged.getvalue()
    self.assertIn("...", logged)
    with open(os.path.join(self.module_dir, "traces", "failing__iree_llvmjit.txt")) as f:
      saved = f.read()
    self.assertNotIn("...", saved)
    self.assertIn("255.", saved)


class ConcurrentWritersTest(absltest.TestCase):

  def test_processes_writing_different_tests_keep_every_entry(self):
    module_dir = tempfile.mkdtemp()
    code = ("import sys\n"
            "from pyiree_tf_support.reporting import report_files\n"
            "for i in range(10):\n"
            "  report_files.record(sys.argv[1], f'{sys.argv[2]}.test_{i}', report_files.trace_record("
            "'t', 'tf_ref', 'report', []), first_of_test=True)\n")
    processes = [subprocess.Popen([sys.executable, "-c", code, module_dir, f"P{p}"],
                                  env=dict(os.environ, PYTHONPATH=REPO)) for p in range(6)]
    self.assertEqual([p.wait(timeout=120) for p in processes], [0] * 6)
    with open(report_files.json_path(module_dir)) as f:
      self.assertLen(json.load(f)["tests"], 60)

  def test_a_rerun_replaces_the_test_and_a_second_trace_is_added(self):
    module_dir = tempfile.mkdtemp()
    record = lambda name, first: report_files.record(
        module_dir, "T.test", report_files.trace_record(name, "tf_ref", name, []), first)
    record("old", True)
    record("a", True)
    record("b", False)
    self.assertEqual([t["trace"] for t in report_files.load(module_dir)["tests"]["T.test"]["traces"]],
                     ["a", "b"])


if __name__ == "__main__":
  absltest.main()
