"""`python -m pyiree_tf_support.split_dispatches` never loses a suite and never trips over another:
two splits of one trace at once both finish and a reader never sees a half-written suite; Ctrl-C
or SIGTERM mid-split is one line (exit 130, 143) and keeps the last complete suite; a lock it
cannot take (a file system without locks) or one another split holds is one line. Real
TensorFlow (to record the trace), IREE compiler and runtime, real processes and signals."""

import os

from absl.testing import absltest

from tests.reducing import op_level_test
from tests.support import child_processes
from tests.support import output_dirs
from tests.support import recorded_traces


def is_traced_run(pid: int) -> bool:
  return "pyiree_tf_support.localizing.traced_run" in child_processes.cmdline(pid)


class SplitOutputTest(output_dirs.OutputDirCase, recorded_traces.RecordedTraces,
                      absltest.TestCase):

  CASES = ((op_level_test.Casting, op_level_test.cast_once, ("iree_vmvx",), False),)
  TOOL, ARGS = "split_dispatches", ("--target_backends=iree_vmvx",)
  OUT = os.path.join("dispatches", "cast_once__tf_ref")
  WHOLE = ("manifest.json", "test_dispatches.py")
  KEPT = "{tool}: {how}; the last complete split is kept in {out}"

  def lock(self) -> str:
    return os.path.join(self.module_dir, "dispatches", ".cast_once__tf_ref.lock")

  def test_two_at_once_both_finish_and_a_reader_never_sees_half_a_suite(self):
    for completed in self.check_two_at_once():
      self.assertIn(f"split 2 dispatches of {self.trace_dir} into {self.out}", completed.stdout)

  def test_ctrl_c_or_sigterm_mid_split_is_one_line_and_keeps_the_last_suite(self):
    for terminate in (False, True):
      with self.subTest(terminate=terminate):  # the traced run held stopped.
        self.check_interrupted(is_traced_run, terminate)

  def test_a_file_system_without_locks_is_one_line(self):
    self.check_without_locks(self.lock())

  def test_waiting_for_another_split_says_so_and_ctrl_c_there_is_one_line(self):
    self.check_waiting(self.lock(), "split_dispatches: another split_dispatches of this trace "
                       f"holds {self.lock()}; waiting for it to end",
                       self.kept_line("interrupted"))


if __name__ == "__main__":
  absltest.main()
