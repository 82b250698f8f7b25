"""`python -m pyiree_tf_support.reduce` never loses a reduction and never trips over another: two
of one trace at once both finish and a reader never sees a half-written result dir; Ctrl-C or
SIGTERM mid-reduction is one line (exit 130, 143) and keeps the last complete reduction; a
`--report_json` it cannot write is refused before any work; a lock it cannot take (a file
system without locks) or one another command holds is one line, for localize too. Real
TensorFlow (to record the trace), IREE compiler and runtime, real processes and signals."""

import os
import re

from absl.testing import absltest

from tests.reducing import op_level_test
from tests.support import child_processes
from tests.support import output_dirs
from tests.support import recorded_traces


def is_run_module(pid: int) -> bool:
  args = child_processes.cmdline(pid)
  return bool(args) and os.path.basename(args[0]) == "iree-run-module"


class ReduceOutputTest(output_dirs.OutputDirCase, recorded_traces.RecordedTraces,
                       absltest.TestCase):

  # vmvx rounds the f32 -> i32 convert: a reduction of a few seconds, down to the op level.
  CASES = ((op_level_test.Casting, op_level_test.cast_once, ("iree_vmvx",), False),)
  TOOL, ARGS = "reduce", ("--target_backends=iree_vmvx",)
  OUT = os.path.join("reduce", "cast_once__iree_vmvx")
  WHOLE = ("iree_input.mlir", "signatures.json", "traces", "repro.sh", "report.md",
           "reduced.mlir", "reduced.py", "input_0.npy", "expected_0.npy")
  KEPT = "{tool}: {how}; the last complete reduction is kept in {out}"

  def test_two_at_once_both_finish_and_a_reader_never_sees_half_a_result(self):
    for completed in self.check_two_at_once():
      self.assertIn(f"reproduce: {self.out}/repro.sh", completed.stdout)

  def test_ctrl_c_mid_reduction_is_one_line_and_keeps_the_last_reduction(self):
    self.check_interrupted(is_run_module, terminate=False)  # a candidate's run held stopped.

  def test_sigterm_mid_reduction_is_one_line_and_keeps_the_last_reduction(self):
    self.check_interrupted(is_run_module, terminate=True)

  def test_a_report_json_it_cannot_write_is_refused_before_any_work(self):
    published = os.stat(self.out).st_ino
    missing = os.path.join(self.module_dir, "no_such_dir", "reduction.json")
    for path, why in ((missing, "does not exist"), (self.module_dir, "is a directory")):
      completed = self.command(args=(f"--report_json={path}",)).finish()
      self.assert_one_line(completed, 2, rf"^reduce: --report_json={re.escape(path)}: .*{why}")
    self.assertEqual(os.stat(self.out).st_ino, published)  # nothing was published.
    self.assertFalse(os.path.exists(os.path.dirname(missing)))
    self.assert_kept()

  def test_a_file_system_without_locks_is_one_line(self):
    self.check_without_locks(os.path.join(self.module_dir, "reduce",
                                          ".cast_once__iree_vmvx.lock"))

  def test_waiting_for_another_command_says_so_and_ctrl_c_there_is_one_line(self):
    lock = os.path.join(self.module_dir, "reduce", ".cast_once__iree_vmvx.lock")
    self.check_waiting(lock, f"reduce: another reduce of this trace on iree_vmvx holds {lock}; "
                       "waiting for it to end", self.kept_line("interrupted"))
    lock = os.path.join(self.module_dir, "localize", ".cast_once__tf_ref__iree_vmvx.lock")
    self.check_waiting(lock, f"localize: another localize of this trace on iree_vmvx holds "
                       f"{lock}; waiting for it to end", "localize: interrupted; no verdict",
                       os.path.join("localize", "cast_once__tf_ref__iree_vmvx"), "localize",
                       self.ARGS)


if __name__ == "__main__":
  absltest.main()
