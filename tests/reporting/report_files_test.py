"""<Module>/report.json and report.txt: written for passing and failing tests,
schema pinned, merged per test id across processes; the failing report is shown once."""

import io
import json
import logging as std_logging
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from absl import logging
from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.reporting import report_files
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status
from tests.support.repo import ROOT

BACKEND_KEYS = {"backend", "outcome", "phase", "first_error", "hint", "detail", "call", "worst",
                "paths", "commands", "worst_fraction_of_tolerance"}
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
    self.assertEqual(set(backend), BACKEND_KEYS | {"float64"})  # a float mismatch is judged.
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
    self.assertIn("Trace 'passing' compared with the reference 'tf_ref': 1 pass (iree_llvmjit).",
                  text)
    self.assertIn("Trace 'failing' failed on 1 of 1 target backend(s)", text)

  def test_failing_report_is_shown_once(self):
    (failure,) = [text for _, text in self.result.failures]
    self.assertIn("Trace 'failing' failed", failure)
    self.assertNotIn("Trace 'failing' failed", self.logged.getvalue())

  def test_failing_trace_is_logged_and_saved_summarized_its_values_whole_beside(self):
    logged = self.logged.getvalue()
    self.assertIn("...", logged)
    with open(os.path.join(self.module_dir, "traces", "failing__iree_llvmjit.txt")) as f:
      saved = f.read()
    self.assertIn("float32[256]: [  0.,   1.,   2., ..., 253., 254., 255.]", saved)
    self.assertIn("their complete values are in failing__iree_llvmjit/arrays.npz", saved)
    trace = trace_io.load_trace(os.path.join(self.module_dir, "traces", "failing__iree_llvmjit"))
    expected = np.arange(256, dtype=np.float32)
    expected[3] += 0.5
    np.testing.assert_array_equal(trace.calls[0].inputs[0], expected)
    np.testing.assert_array_equal(trace.calls[0].outputs[0], 2 * expected)


class ConcurrentWritersTest(absltest.TestCase):

  def test_processes_writing_different_tests_keep_every_entry(self):
    module_dir = tempfile.mkdtemp()
    code = ("import sys\n"
            "from pyiree_tf_support.reporting import report_files\n"
            "for i in range(10):\n"
            "  report_files.record(sys.argv[1], f'{sys.argv[2]}.test_{i}', "
            "report_files.trace_record('t', 'tf_ref', 'report', []), first_of_test=True)\n")
    processes = [subprocess.Popen([sys.executable, "-c", code, module_dir, f"P{p}"],
                                  env=dict(os.environ, PYTHONPATH=ROOT)) for p in range(6)]
    self.assertEqual([p.wait(timeout=120) for p in processes], [0] * 6)
    with open(report_files.json_path(module_dir)) as f:
      self.assertLen(json.load(f)["tests"], 60)

  def test_a_rerun_replaces_the_test_and_a_second_trace_is_added(self):
    module_dir = tempfile.mkdtemp()
    def record(name, first):
      report_files.record(
          module_dir, "T.test", report_files.trace_record(name, "tf_ref", name, []), first)
    record("old", True)
    record("a", True)
    record("b", False)
    self.assertEqual(
        [t["trace"] for t in report_files.load(module_dir)["tests"]["T.test"]["traces"]],
        ["a", "b"])

  def test_a_test_s_backends_from_another_process_are_kept(self):
    module_dir = tempfile.mkdtemp()

    def record(backends, first=True, trace="t", outcome="PASS"):
      records = [report_files.backend_record(Outcome(b, Status(outcome)), {}, {})
                 for b in backends]
      report_files.record(module_dir, "T.test", report_files.trace_record(
          trace, "tf_ref", f"{trace} on {', '.join(backends)}: {outcome}", records), first)
      return report_files.load(module_dir)["tests"]["T.test"]

    record(["iree_vmvx"])
    record(["iree_vmvx"], first=False, trace="u")
    entry = record(["iree_llvmcpu"], outcome="MISMATCH")  # another process, another backend.
    self.assertEqual([(t["trace"], [b["backend"] for b in t["backends"]]) for t in entry["traces"]],
                     [("t", ["iree_vmvx"]), ("u", ["iree_vmvx"]), ("t", ["iree_llvmcpu"])])
    self.assertFalse(entry["passed"])
    entry = record(["iree_llvmcpu"])  # its rerun replaces only its own records.
    self.assertTrue(entry["passed"])
    self.assertLen(entry["traces"], 3)
    entry = record(["iree_vmvx", "iree_llvmcpu"])  # a run of both replaces all of them...
    self.assertEqual([t["report"] for t in entry["traces"]], ["t on iree_vmvx, iree_llvmcpu: PASS"])
    entry = record(["iree_vmvx"], outcome="MISMATCH")  # ...and a record it shares is split.
    self.assertEqual([(t["trace"], [b["backend"] for b in t["backends"]], t["passed"])
                      for t in entry["traces"]],
                     [("t", ["iree_llvmcpu"], True), ("t", ["iree_vmvx"], False)])
    self.assertIn("iree_vmvx: replaced by a later report", entry["traces"][0]["report"])


# One small file, run by two processes on one backend each (per-backend CI jobs).
_TEST_FILE = textwrap.dedent("""
    import numpy as np
    from pyiree_tf_support import tf_test_utils
    import tensorflow as tf

    class Double(tf.Module):

      @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
      def double(self, x):
        return 2.0 * x

    def double(module):
      module.double(np.ones([2], np.float32))

    @tf_test_utils.compile_module(Double)
    class DoubleTest(tf_test_utils.TracedModuleTestCase):

      def test_double(self):
        self.compare_backends(double)

    if __name__ == "__main__":
      tf.test.main()
    """)


class PerBackendProcessesTest(absltest.TestCase):

  def test_two_processes_on_different_backends_keep_both_in_report_json(self):
    root = tempfile.mkdtemp()
    test_file = os.path.join(tempfile.mkdtemp(), "double_test.py")
    with open(test_file, "w") as f:
      f.write(_TEST_FILE)
    environment = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    environment.pop("PYIREE_TF_SUPPORT_FLAGS", None)
    processes = [subprocess.Popen([sys.executable, test_file, f"--target_backends={backend}",
                                   f"--artifacts_dir={root}"], env=environment,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for backend in ("iree_vmvx", "iree_llvmcpu")]
    for process in processes:
      output = process.communicate(timeout=300)[0]
      self.assertEqual(process.returncode, 0, output[-3000:])
    module_dir = os.path.join(root, "Double")
    entry = report_files.load(module_dir)["tests"]["__main__.DoubleTest.test_double"]
    self.assertTrue(entry["passed"])
    self.assertEqual(sorted(b["backend"] for t in entry["traces"] for b in t["backends"]),
                     ["iree_llvmcpu", "iree_vmvx"])
    with open(report_files.text_path(module_dir)) as f:
      text = f.read()
    for backend in ("iree_vmvx", "iree_llvmcpu"):
      self.assertIn(f"compared with the reference 'tf_ref': 1 pass ({backend}).", text)


if __name__ == "__main__":
  absltest.main()
