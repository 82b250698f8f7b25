"""A compile killed by an interrupt is CompileInterrupted, however late its thread wakes up.

The class set-up compiles backends on threads. On Ctrl-C the main thread kills every running
compile (`iree_compile.cancel_running`) and, once its work has unwound, allows compiles again
(`resume`). A compile thread that woke only after that resume saw its child's SIGKILL as the
compiler's own failure: a COMPILE ERROR's reproducer written for an interrupted run (seen in
tests/behaviour/interrupts_test.py under load: `reproducer__iree_llvmjit.mlir` left after a
Ctrl-C). A real child process; the cancel and the resume run back to back, before its thread looks.
"""

import sys
import threading
import time

from absl.testing import absltest

from pyiree_tf_support.compiling import iree_compile

_SLEEPER = [sys.executable, "-c", "import sys, time; sys.stdin.read(); time.sleep(60)"]


class CancelTest(absltest.TestCase):

  def test_a_compile_killed_by_a_cancel_is_interrupted_even_after_the_resume(self):
    outcome = {}

    def compile_on_a_thread():
      try:
        outcome["result"] = iree_compile.run(_SLEEPER, b"", timeout=120)
      except BaseException as e:  # the outcome the test reads.
        outcome["result"] = e

    thread = threading.Thread(target=compile_on_a_thread)
    thread.start()
    deadline = time.monotonic() + 30
    while not iree_compile.running_pids() and time.monotonic() < deadline:
      time.sleep(0.01)
    time.sleep(0.2)  # the thread is waiting on its child.
    # Back to back, as the interrupted main thread does them: the killed child's thread wakes
    # after both.
    iree_compile.cancel_running()
    iree_compile.resume()
    thread.join(timeout=60)
    self.assertIsInstance(outcome.get("result"), iree_compile.CompileInterrupted,
                          outcome.get("result"))


if __name__ == "__main__":
  absltest.main()
