"""Hints: a failure whose first error line is a known unsupported pattern (tf.shape as data in a
stateful update, a strided slice of a None dim, tf.sort / top_k, a Keras RNN with a None batch or
time dim) gets one line saying what to rewrite, right after the first error in the report; other
errors get none. The lines are the real first errors of the e2e corpus files, and one real run
of a small sorting module checks the report a user reads."""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support import cli_flags
from pyiree_tf_support.reporting import hints
from pyiree_tf_support.reporting import verdicts
from tests.support import test_files

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))

# First error lines (report.json "first_error") of a real run of the corpus files on vmvx,
# llvm-cpu and Vulkan (pytest --artifacts_dir), each with the hint it must get.
CORPUS_FIRST_ERRORS = (
    ("running_mean_test", "shape-as-data",
     "error: 'flow.dispatch.workgroups' op I/O type 'tensor<2xindex>' is invalid: index types "
     "must not cross the dispatch boundary"),
    ("dynamic_slice_test before the dynamic-strided-slices step", "strided-slice-on-none-dim",
     "ModuleImportError: Module 'DynamicSliceModule' uses TensorFlow ops IREE cannot compile: "
     "tf.StridedSlice (left unconverted by the TF->StableHLO lowering; see iree_input.mlir)."),
    ("sort_test", "sort-top-k",
     "error: failed to legalize operation 'stablehlo.custom_call' that was explicitly marked "
     "illegal: %0:2 = \"stablehlo.custom_call\"(%arg0) <{call_target_name = \"mhlo.topk\"}> "
     "{mhlo.attributes = {k = 3 : i64, largest = true}, mhlo.version = 1 : i64} : "
     "(tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>)"),
    ("keras/gru_test", "rnn-none-batch",
     "ModuleImportFailure: Module 'GruModule' did not import: UnknownError: "
     "'tf.TensorListReserve' op unknown tensor list element shape (in TF's pipeline "
     "'tensor-lists')"),
    ("keras/bidirectional_lstm_test", "rnn-none-batch",
     "ModuleImportFailure: Module 'BidirectionalLstmModule' did not import: UnknownError: "
     "'tf.TensorListReserve' op unknown tensor list element shape (in TF's pipeline "
     "'tensor-lists')"),
    ("keras/lstm_test", "rnn-none-time",
     "ModuleImportFailure: Module 'LstmModule' did not import: UnknownError: "
     "'tf.TensorListReserve' op unknown max element count (in TF's pipeline 'tensor-lists')"),
)

# First errors of other corpus failures and of kinds no hint is about.
UNRELATED = (
    "error: failed to legalize operation 'stablehlo.custom_call' that was explicitly marked "
    "illegal: %0 = \"stablehlo.custom_call\"(%arg0) <{call_target_name = \"mhlo.erf\"}>",
    "error: failed to legalize operation 'math.copysign' that was explicitly marked illegal",
    "error: 'util.buffer.load' op result #0 must be index or integer or floating-point, but got "
    "'complex<f32>'",
    "ModuleImportError: Module 'StringsModule' uses TensorFlow ops IREE cannot compile: "
    "tf.AsString, tf.PrintV2 (left unconverted by the TF->StableHLO lowering; see "
    "iree_input.mlir).",
    "ModuleImportFailure: Module 'VariableScatterModule' did not import: InvalidArgumentError: "
    "Shapes must be equal rank, but are 0 and 1",
    "error: 'iree_linalg_ext.scatter' op mismatch in shape of indices and update value at dim#0",
    "call 0 (add_if_positive): outputs: float32[] arrays are not close: expected 3, got 0",
    "ValueError: input0 element type mismatch; expected f32 but have f64",
    "",
)


class HintTableTest(parameterized.TestCase):

  @parameterized.parameters(*CORPUS_FIRST_ERRORS)
  def test_each_corpus_failure_gets_its_hint(self, source, name, first_error):
    found = hints.hint_for(first_error)
    self.assertIsNotNone(found, source)
    self.assertEqual(found.name, name, source)

  @parameterized.parameters(*UNRELATED)
  def test_unrelated_errors_get_none(self, first_error):
    self.assertIsNone(hints.hint_for(first_error))

  def test_every_hint_is_one_line_and_its_pattern_matches_a_corpus_error(self):
    matched = {hints.hint_for(line).name for _, _, line in CORPUS_FIRST_ERRORS}
    for hint in hints.HINTS:
      self.assertNotIn("\n", hint.text)
      self.assertIn(hint.name, matched)

  def test_the_hint_follows_the_line_holding_the_first_error(self):
    _, _, first_error = CORPUS_FIRST_ERRORS[0]
    outcome = verdicts.Outcome("iree_llvmjit", verdicts.Status.COMPILE_ERROR,
                               f"CompileError: in method update: iree_input.mlir:18:10: "
                               f"{first_error} [failing pass: x]\nReproducer: r.mlir")
    lines = verdicts.format_outcome(outcome).splitlines()
    self.assertIn(first_error, lines[1])
    self.assertEqual(lines[2], f"  hint: {hints.HINTS[0].text}")
    self.assertEqual(lines[3], "  Reproducer: r.mlir")

  def test_a_pass_and_an_expected_failure_get_none(self):
    _, _, first_error = CORPUS_FIRST_ERRORS[0]
    failed = verdicts.Outcome("iree_vmla", verdicts.Status.COMPILE_ERROR, first_error)
    self.assertIsNotNone(failed.hint)
    self.assertIsNone(verdicts.Outcome("iree_vmla", verdicts.Status.PASS).hint)
    self.assertIsNone(failed.expecting_failure("sort_test.py").hint)


class RealRunTest(absltest.TestCase):
  """tf.sort in a module compiled for llvm-cpu: the report and report.json carry the hint; an
  unrelated compile error (tf.math.erf) carries none."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp(prefix="hints_")
    cls.runs = {}
    env = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(cli_flags.ENV_VAR, None)
    for name, body in (("Sorting", "tf.sort(a)"), ("Erf", "tf.math.erf(a)")):
      path = os.path.join(cls.dir, f"{name.lower()}_test.py")
      with open(path, "w") as f:
        f.write(test_files.one_method_test(name, body))
      artifacts = os.path.join(cls.dir, name)
      done = subprocess.run([sys.executable, path, "--target_backends=iree_llvmjit",
                             f"--artifacts_dir={artifacts}", "--nocompile_cache"],
                            capture_output=True, text=True, env=env, timeout=600, check=False)
      with open(os.path.join(artifacts, f"{name}Module", "report.json")) as f:
        cls.runs[name] = (done, json.load(f))

  def _backend_record(self, name: str) -> dict:
    report = self.runs[name][1]
    records = [b for test in report["tests"].values() for trace in test["traces"]
               for b in trace["backends"]]
    self.assertLen(records, 1, report)
    return records[0]

  def test_the_sort_report_has_the_hint_after_its_first_error(self):
    done, _ = self.runs["Sorting"]
    self.assertNotEqual(done.returncode, 0)
    lines = done.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if "mhlo.topk" in line)
    self.assertEqual(lines[at + 1].strip(), f"hint: {hints.HINTS[2].text}")
    self.assertEqual(self._backend_record("Sorting")["hint"], hints.HINTS[2].text)

  def test_an_unrelated_compile_error_has_no_hint(self):
    done, _ = self.runs["Erf"]
    self.assertNotEqual(done.returncode, 0)
    self.assertIn("mhlo.erf", done.stderr)
    self.assertNotIn("hint:", done.stderr)
    self.assertIsNone(self._backend_record("Erf")["hint"])


if __name__ == "__main__":
  absltest.main()
