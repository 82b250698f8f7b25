"""The fuzzer run as a user runs it (`python -m pyiree_tf_support.fuzz`), on real TensorFlow and
IREE: a seeded campaign over ops holding vmvx's f32 -> i32 rounding bug finds it as one finding,
reduced to that op, confirmed by its own test file in a fresh process; a campaign over ops the
backends agree on finds nothing; --resume goes on; bad input is one line."""

import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.fuzzing import programs
from tests.fuzzing.campaigns import findings
from tests.fuzzing.campaigns import fuzz

BUGGY_OPS = "cast_f32_to_i32,tanh,add,floor,cast_i32_to_f32"
AGREEING_OPS = "add,subtract,maximum,minimum,abs,negative,floor,where,greater,cast_bool_to_f32"
# The first table's inputs: static 3x4, no special values, no state (the seeds below were
# chosen with them).
OLD_STREAM = ("--special_values=0", "--shapes=3x4", "--stateful=0")


class CampaignTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.out = os.path.join(tempfile.mkdtemp(), "campaign")
    cls.done = fuzz("--target_backends=iree_vmla,iree_llvmjit", f"--out={cls.out}", "--seed=3",
                    f"--ops={BUGGY_OPS}", "--max_modules=1", "--functions_per_module=4",
                    "--nocompile_cache", *OLD_STREAM)
    cls.data = findings(cls.out) if cls.done.returncode == 0 else {}  # before --resume adds.

  def test_the_rounding_bug_is_one_reduced_confirmed_finding(self):
    self.assertEqual(self.done.returncode, 0, self.done.stderr[-3000:])
    data = self.data
    self.assertEqual((data["modules"], data["functions"]), (1, 4))
    (finding,) = data["findings"]
    self.assertEqual((finding["status"], finding["backend"], finding["ops"]),
                     ("MISMATCH", "iree_vmla", ["cast_f32_to_i32"]))
    self.assertTrue(finding["confirmed"])
    self.assertEqual(finding["agrees"], ["iree_llvmjit"])
    self.assertGreaterEqual(finding["hits"], 1)
    self.assertEqual(data["hits"], finding["hits"])  # every hit is this one bug
    self.assertIn("values", finding["key"])
    # The localizer pinned it to a dispatch converting f32 to i32: that is the signature.
    self.assertIn("f32xi32", finding["dispatch"])
    self.assertIn(finding["dispatch"], finding["signature"])

  def test_the_finding_s_test_file_fails_by_hand_and_passes_where_tf_agrees(self):
    test_file = self.data["findings"][0]["test_file"]
    for backend, status in (("iree_vmla", 1), ("iree_llvmjit", 0)):
      done = subprocess.run([sys.executable, test_file, f"--target_backends={backend}",
                             f"--artifacts_dir={tempfile.mkdtemp()}"], capture_output=True,
                            text=True, check=False, timeout=600,
                            env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
      self.assertEqual(done.returncode, status, done.stderr[-2000:])

  def test_resume_goes_on_and_keeps_the_findings(self):
    again = fuzz("--target_backends=iree_vmla,iree_llvmjit", f"--out={self.out}", "--resume",
                 "--max_modules=1", "--functions_per_module=4")
    self.assertEqual(again.returncode, 0, again.stderr[-3000:])
    data = findings(self.out)
    self.assertEqual(data["modules"], 2)
    with open(os.path.join(self.out, "findings.md")) as f:
      self.assertIn("| MISMATCH | iree_vmla | values | cast_f32_to_i32 |", f.read())
    self.assertEqual(len({f["signature"] for f in data["findings"]}), len(data["findings"]))
    self.assertIn("cast_f32_to_i32", [op for f in data["findings"] for op in f["ops"]])


class NoFalsePositivesTest(absltest.TestCase):

  def test_ops_the_backends_agree_on_give_no_finding(self):
    out = os.path.join(tempfile.mkdtemp(), "quiet")
    done = fuzz("--target_backends=iree_llvmjit", f"--out={out}", "--seed=5",
                f"--ops={AGREEING_OPS}", "--max_modules=2", "--functions_per_module=6",
                *OLD_STREAM)
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    data = findings(out)
    self.assertEqual((data["functions"], data["hits"], data["findings"]), (12, 0, []))


class PrecisionPolicyTest(absltest.TestCase):

  def test_transcendental_chains_give_no_finding(self):
    # exp(x^2) of |x| near 3 is e^10 ~ 22026; sin and cos clip their argument to 1e3, where
    # llvm-cpu's sin is within tolerance (at 1e5 it was 2.8e-3 off). What differs is float32
    # precision, judged against float64 (breadth_test.FloatPolicyTest), never a finding.
    out = os.path.join(tempfile.mkdtemp(), "precision")
    done = fuzz("--target_backends=iree_llvmjit", f"--out={out}", "--seed=1",
                "--ops=square,exp,sin,cos,multiply,tanh", "--max_modules=3", *OLD_STREAM)
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    data = findings(out)
    self.assertEqual((data["hits"], data["findings"]), (0, []))
    with open(os.path.join(out, "findings.md")) as f:
      self.assertIn(f"({data['precision']} more set aside as float32 precision", f.read())


class BadInputTest(absltest.TestCase):

  def assert_one_line(self, done: subprocess.CompletedProcess, expected: str) -> None:
    self.assertEqual(done.returncode, 2, done.stdout)
    lines = done.stderr.strip().splitlines()
    self.assertLen(lines, 1, done.stderr)
    self.assertIn(expected, lines[0])

  def test_bad_requests(self):
    out = os.path.join(tempfile.mkdtemp(), "c")
    self.assert_one_line(fuzz("--target_backends=iree_vmla"), "--out names")
    self.assert_one_line(fuzz("--target_backends=iree_vmla", f"--out={out}", "--ops=cosh"),
                         "--ops names cosh, which is not an op of the table; valid: abs,")
    self.assert_one_line(fuzz("--target_backends=tf", f"--out={out}"), "IREE backends")
    self.assert_one_line(fuzz("--target_backends=iree_vmla", f"--out={out}", "--resume"),
                         "--resume:")


class ProgramsTest(absltest.TestCase):

  def test_the_same_seed_generates_the_same_module(self):
    def source(seed):
      rng = np.random.default_rng([seed, 0])
      functions = [programs.generate(rng, f"f{i}", programs.op_names(None)) for i in range(3)]
      return programs.module_source("M", functions,
                                    [(f.name, programs.inputs(rng)) for f in functions], 1e-4,
                                    1e-4)
    self.assertEqual(source(7), source(7))
    self.assertNotEqual(source(7), source(8))

  def test_every_op_fits_the_dtype_it_gets(self):
    rng = np.random.default_rng(0)
    for index in range(200):
      program = programs.generate(rng, "f", programs.op_names(None))
      dtype = programs.F32
      for op in program.typed_steps():
        self.assertEqual(op.takes, dtype, (index, program))
        dtype = op.gives


if __name__ == "__main__":
  absltest.main()
