"""Failure phases: the phase of every outcome kind (on real modules), the one-line first error,
the --xfail_backends backend[:phase] flag, and strict expected failures: a listed backend failing
first in another phase than listed fails its class, as an unexpected pass does."""

import io
import json
import logging as std_logging
import os
import tempfile
import unittest

from absl import flags
from absl import logging
from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import phases
from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.harness import pytest_summary
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status


class ErfAndCastModule(tf.Module):
  """On vmvx: erf does not compile (no lowering of mhlo.erf), so the module compiles per method;
  the f32 -> i32 cast compiles but rounds to nearest instead of truncating (a real mismatch)."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def erf(self, x):
    return tf.math.erf(x)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def cast(self, x):
    return tf.cast(x, tf.int32)


class StringModule(tf.Module):
  """String ops are left unconverted by TF's lowering to StableHLO: an import failure."""

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def length(self, x):
    return tf.strings.length(tf.strings.as_string(x))


class DoubleModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return x * 2


def call_erf(module):
  module.erf(np.array([-1.0, 0.0, 0.5, 2.0], np.float32))


def call_cast(module):
  module.cast(np.array([-2.7, -0.5, 0.5, 3.99], np.float32))


def call_length(module):
  module.length(np.array([1.5, 2.0, 3.0], np.float32))


def wrong_shape_on_the_target(module):
  """The reference (first run) gets the signature's shape, the target a call it rejects."""
  module.double(np.ones([2 if module.backend == "tf_ref" else 3], np.float32))


def make_case(module_class, *trace_functions):

  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):
    pass

  for i, function in enumerate(trace_functions):
    setattr(Case, f"test_{i}_{function.__name__}",
            lambda self, f=function: self.compare_backends(f))
  return Case


def run_case(test_class) -> unittest.TestResult:
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


class PhaseTest(parameterized.TestCase):

  def test_phases_are_ordered_as_the_pipeline_runs(self):
    self.assertEqual(sorted([Phase.MISMATCH, Phase.IMPORT, Phase.RUNTIME, Phase.COMPILE]),
                     [Phase.IMPORT, Phase.COMPILE, Phase.RUNTIME, Phase.MISMATCH])
    self.assertEqual(phases.NAMES,
                     ("import", "compile", "runtime", "mismatch", "reference_error"))

  @parameterized.named_parameters(
      ("none", [], None),
      ("one", [Phase.RUNTIME], Phase.RUNTIME),
      ("earliest_wins", [Phase.MISMATCH, None, Phase.COMPILE, Phase.RUNTIME], Phase.COMPILE),
  )
  def test_earliest(self, given, expected):
    self.assertEqual(phases.earliest(given), expected)

  def test_an_unknown_phase_is_one_line_naming_the_valid_ones(self):
    with self.assertRaisesWithLiteralMatch(
        ValueError, "FAILING[x]: unknown phase 'link'; valid phases are import, compile, runtime, "
        "mismatch, reference_error"):
      phases.parse("link", "FAILING[x]")

  @parameterized.named_parameters(
      ("compiler_diagnostic",
       "CompileError: Compiling module 'M' for iree_vmla failed in method erf: "
       "iree_input.mlir:7:10: error: failed to legalize operation 'stablehlo.custom_call'\n"
       "iree_input.mlir:7:10: note: see current operation", True,
       "error: failed to legalize operation 'stablehlo.custom_call'"),
      ("second_line", "Compiling failed:\n<stdin>:3:4: error: bad op\nmore", True,
       "error: bad op"),
      ("diagnostic_without_location", "x\nerror: no location here", True,
       "error: no location here"),
      ("reproducer_trailer_dropped", "x: <stdin>:1:2: error: bad op Reproducer: /a/r.mlir",
       True, "error: bad op"),
      ("pass_and_rerun_command_dropped",
       "x: <stdin>:1:2: error: bad op loc(\"a\":1:2) [failing pass: P on 'builtin.module'] "
       "Reproducer: /a/r.mlir (compile it again with: cd /a && iree-compile r.mlir -o o)",
       True, "error: bad op"),
      ("quoted_op_location_dropped",
       'a.mlir:7:10: error: illegal: %0 = "x.y"(%arg0) : (i32) -> i32 loc("a.mlir":7:10)',
       True, 'error: illegal: %0 = "x.y"(%arg0) : (i32) -> i32'),
      ("a_location_only_diagnostic_is_skipped",
       "InvalidArgumentError: shapes differ.<unknown>:0: error: loc(fused[\"A:\", \"B\"]): ",
       True, "InvalidArgumentError: shapes differ.<unknown>:0: error: loc(fused[\"A:\", \"B\"]):"),
      ("no_diagnostic_falls_back_to_the_first_line", "\nModuleImportError: tf.Foo left\n  x",
       True, "ModuleImportError: tf.Foo left"),
      ("a_heading_is_joined_with_its_first_line",
       "call 1 (g):\n  outputs: int32[4] arrays differ\ncall 2 (g):\n  x", False,
       "call 1 (g): outputs: int32[4] arrays differ"),
      ("runtime_first_line_even_with_error_word", "call 0 (f) raised E: error: x\nmore", False,
       "call 0 (f) raised E: error: x"),
  )
  def test_first_error_line(self, text, diagnostics, expected):
    self.assertEqual(phases.first_error_line(text, diagnostics), expected)

  @parameterized.named_parameters(
      ("import", Status.IMPORT_ERROR, Phase.IMPORT),
      ("compile", Status.COMPILE_ERROR, Phase.COMPILE),
      ("runtime", Status.RUNTIME_ERROR, Phase.RUNTIME),
      ("mismatch", Status.MISMATCH, Phase.MISMATCH),
      ("pass", Status.PASS, None),
      ("skipped", Status.SKIPPED, None),
      ("xfail", Status.XFAIL, None),
  )
  def test_every_status_has_its_phase(self, status, phase):
    outcome = Outcome("b", status, "line 1\nline 2")
    self.assertIs(outcome.phase, phase)
    self.assertEqual(outcome.first_error, "line 1" if phase else None)


class SummaryCellTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("xfail_with_phase", {"xfail": 1}, ["compile"], "xfail (compile)"),
      ("phases_in_pipeline_order", {"xfail": 2}, ["mismatch", "import"],
       "2 xfail (import, mismatch)"),
      ("beside_passes", {"pass": 5, "xfail": 1}, ["mismatch"], "5 pass 1 xfail (mismatch)"),
      ("no_phase_known", {"xfail": 1}, [], "xfail"),
      ("no_xfail", {"pass": 2}, [], "2 pass"),
  )
  def test_an_xfail_cell_shows_its_phases(self, counts, xfail_phases, expected):
    self.assertEqual(pytest_summary.format_cell(counts, xfail_phases), expected)


class XfailFlagTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("unknown_phase", "iree_vmla:linking",
       "--xfail_backends entry 'iree_vmla:linking': unknown phase 'linking'; valid phases are "
       "import, compile, runtime, mismatch, reference_error"),
      ("empty_phase", "iree_vmla:", "unknown phase ''; valid phases are import"),
      ("unknown_backend", "iree_bogus:compile",
       "Unknown backend 'iree_bogus'; valid backends are: tf"),
  )
  def test_a_bad_entry_is_a_one_line_flag_error(self, entry, message):
    cli_flags.ensure_parsed()
    with flagsaver.flagsaver(), self.assertRaises(flags.IllegalFlagValueError) as raised:
      cli_flags.FLAGS["xfail_backends"].parse(f"iree_llvmjit,{entry}")
      cli_flags.FLAGS.validate_all_flags()
    self.assertIn(message, str(raised.exception))
    self.assertLen(str(raised.exception).splitlines(), 1)

  def test_entries_by_backend(self):
    cli_flags.ensure_parsed()
    with flagsaver.flagsaver(xfail_backends=["iree_vmla:compile", "iree_llvmjit"]):
      self.assertEqual(cli_flags.xfail_entries(),
                       (("iree_vmla", Phase.COMPILE, None), ("iree_llvmjit", None, None)))


class RealRunTest(parameterized.TestCase):
  """Classes run as absltest runs them, on the real compiler and runtime (vmvx)."""

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.artifacts_dir = tempfile.mkdtemp()

  def run_with(self, test_class, **flag_values) -> unittest.TestResult:
    with flagsaver.flagsaver(artifacts_dir=self.artifacts_dir, target_backends="iree_vmla",
                             **flag_values):
      return run_case(test_class)

  def report(self, module_name: str) -> dict:
    with open(os.path.join(self.artifacts_dir, module_name, "report.json")) as f:
      return json.load(f)

  def backend_records(self, module_name: str) -> dict:
    """{test method: its first trace's record of the one target backend}."""
    tests = self.report(module_name)["tests"]
    return {test_id.rsplit(".", 1)[1]: entry["traces"][0]["backends"][0]
            for test_id, entry in tests.items()}

  @parameterized.named_parameters(
      ("import", StringModule, call_length, "IMPORT ERROR", "import",
       "ModuleImportError: Module 'StringModule' uses TensorFlow ops IREE cannot compile: "
       "tf.AsString, tf.StringLength"),
      ("compile", ErfAndCastModule, call_erf, "COMPILE ERROR", "compile",
       "error: failed to legalize operation 'stablehlo.custom_call' that was explicitly marked "
       "illegal"),
      ("runtime", DoubleModule, wrong_shape_on_the_target, "RUNTIME ERROR", "runtime",
       "call 0 (double) raised ValueError: DoubleModule.double() input 0 has shape [3], but the "
       "signature expects float32[2]."),
      ("mismatch", ErfAndCastModule, call_cast, "MISMATCH", "mismatch",
       "call 0 (cast): outputs: int32[4] arrays are not equal: 4 of 4 elements (100.0%) differ; "
       "first at index [0] (expected -2, got -3)"),
  )
  def test_the_phase_and_first_error_of_each_outcome_kind_in_report_json(
      self, module_class, trace_function, outcome, phase, first_error):
    result = self.run_with(make_case(module_class, trace_function))
    self.assertLen(result.failures, 1)
    self.assertIn(f"iree_vmla: {outcome}", result.failures[0][1])
    (record,) = self.backend_records(module_class.__name__).values()
    self.assertEqual((record["outcome"], record["phase"]), (outcome, phase))
    self.assertStartsWith(record["first_error"], first_error)
    self.assertLen(record["first_error"].splitlines(), 1)
    (entry,) = self.report(module_class.__name__)["tests"].values()
    self.assertEqual(entry["file"], "phases_test.py")

  def test_a_listed_failure_records_its_raw_phase_and_a_pass_none(self):
    result = self.run_with(make_case(ErfAndCastModule, call_erf, call_cast),
                           xfail_backends=["iree_vmla"])
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
    records = self.backend_records("ErfAndCastModule")
    self.assertEqual({t: (r["outcome"], r["phase"]) for t, r in records.items()},
                     {"test_0_call_erf": ("XFAIL", "compile"),
                      "test_1_call_cast": ("XFAIL", "mismatch")})
    self.run_with(make_case(DoubleModule, lambda m: m.double(np.ones([2], np.float32))))
    (record,) = self.backend_records("DoubleModule").values()
    self.assertEqual((record["outcome"], record["phase"], record["first_error"]),
                     ("PASS", None, None))

  @parameterized.named_parameters(
      # (traces, --xfail_backends, wrong phase observed or None when the class passes)
      ("listed_compile_observed_mismatch", (call_cast,), "iree_vmla:compile", "mismatch"),
      ("listed_compile_observed_compile", (call_erf,), "iree_vmla:compile", None),
      ("listed_mismatch_observed_mismatch", (call_cast,), "iree_vmla:mismatch", None),
      ("untyped_accepts_compile", (call_erf,), "iree_vmla", None),
      ("untyped_accepts_mismatch", (call_cast,), "iree_vmla", None),
      ("earliest_of_the_class_counts", (call_cast, call_erf), "iree_vmla:compile", None),
      ("a_later_phase_is_not_the_earliest", (call_erf, call_cast), "iree_vmla:mismatch",
       "compile"),
  )
  def test_strict_phases(self, traces, listed, wrong_phase):
    with self.assertLogs(logging.get_absl_logger(), std_logging.INFO) as logs:
      result = self.run_with(make_case(ErfAndCastModule, *traces), xfail_backends=[listed])
    if wrong_phase is None:
      self.assertTrue(result.wasSuccessful(), result.failures + result.errors)
      observed = "compile" if call_erf in traces else "mismatch"
      xfail_lines = [r.getMessage() for r in logs.records
                     if r.getMessage().startswith("XFAIL iree_vmla")]
      self.assertLen(xfail_lines, 1)
      self.assertStartsWith(xfail_lines[0], f"XFAIL iree_vmla ({observed}): ")
      return
    self.assertLen(result.errors, 1)  # from tearDownClass, as an XPASS.
    message = result.errors[0][1].strip().splitlines()[-1]
    listed_phase = listed.split(":")[1]
    self.assertIn(f"AssertionError: WRONG PHASE: Case on iree_vmla is listed as expected to fail "
                  f"in phase '{listed_phase}' but failed first in phase '{wrong_phase}': ", message)
    self.assertIn(f"update its expected-failure phase (FAILING in BUILD.bazel, or "
                  f"--xfail_backends=iree_vmla:{wrong_phase}).", message)

  def test_a_listed_phase_that_passes_everything_is_still_an_xpass(self):
    result = self.run_with(make_case(DoubleModule, lambda m: m.double(np.ones([2], np.float32))),
                           xfail_backends=["iree_vmla:compile"])
    self.assertLen(result.errors, 1)
    self.assertIn("XPASS: Case passed every trace on iree_vmla", result.errors[0][1])


if __name__ == "__main__":
  absltest.main()
