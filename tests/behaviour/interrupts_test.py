"""Ctrl-C is not a compiler failure: SIGINT or SIGTERM while iree-compile runs
stops the run at once, kills the compile, writes no reproducer and records no COMPILE ERROR.

A real test file runs as a subprocess in a session of its own. Once its iree-compile runs, the
test SIGSTOPs it (so it cannot finish first), signals as a user would: Ctrl-C is SIGINT to the
terminal's whole process group, `kill` is SIGTERM to the test process; then it lets the compile
go on (SIGCONT), as a compile that got the terminal's SIGINT would die of it.
"""

import glob
import io
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.compiling import compiler
from tests.support import child_processes
from tests.support.repo import ROOT

_PROMPT_SECONDS = 10.0

# Two methods, so a whole-module failure would start per-method compiles; `chain` makes
# iree-compile take seconds.
_TEST_FILE = textwrap.dedent('''
    import numpy as np
    from pyiree_tf_support import tf_test_utils
    import tensorflow.compat.v2 as tf


    class Interrupted(tf.Module):

      @tf.function(input_signature=[tf.TensorSpec([8, 8], tf.float32)])
      def chain(self, x):
        for i in range(40):
          x = tf.tanh(tf.matmul(x, x) * 0.01 + float(i))
        return x

      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def double(self, x):
        return 2.0 * x


    @tf_test_utils.compile_module(Interrupted)
    class InterruptedTest(tf_test_utils.TracedModuleTestCase):

      def test_double(self):
        self.compare_backends(lambda module: module.double(np.ones([4], np.float32)))


    if __name__ == "__main__":
      tf.test.main()
    ''')


class InterruptTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("ctrl_c", ["{file}"], "group", signal.SIGINT),
      ("ctrl_c_under_pytest", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "{file}"],
       "group", signal.SIGINT),
      ("sigterm", ["{file}"], "process", signal.SIGTERM))
  def test_signal_during_compile_stops_at_once(self, args, whom, signum):
    work = tempfile.mkdtemp()
    path = os.path.join(work, "interrupted_test.py")
    with open(path, "w") as f:
      f.write(_TEST_FILE)
    artifacts_dir = os.path.join(work, "artifacts")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    env.pop("PYIREE_TF_SUPPORT_FLAGS", None)
    process = subprocess.Popen(
        [sys.executable, *[a.format(file=path) for a in args],
         "--target_backends=iree_vmla,iree_llvmjit", f"--artifacts_dir={artifacts_dir}",
         "--nocompile_cache"],
        cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal gives a command,
        preexec_fn=child_processes.interruptible)
    compiles = []
    try:
      compile_pid = child_processes.wait_for(process.pid, child_processes.is_module_compile,
                                             done=lambda: process.poll() is not None)
      self.assertIsNotNone(compile_pid, "no iree-compile was seen")
      os.kill(compile_pid, signal.SIGSTOP)
      compiles = [pid for pid in child_processes.descendants(process.pid)
                  if child_processes.is_module_compile(pid)]
      signalled = time.monotonic()
      if whom == "group":
        os.killpg(process.pid, signum)
      else:
        os.kill(process.pid, signum)
      time.sleep(0.2)
      if child_processes.alive(compile_pid):
        os.kill(compile_pid, signal.SIGCONT)
      try:
        output, _ = process.communicate(timeout=60)
      except subprocess.TimeoutExpired:
        output = b""
      elapsed = time.monotonic() - signalled
      left = [pid for pid in compiles if not child_processes.gone(pid, 2.0)]
    finally:
      if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
      for pid in compiles:
        if child_processes.alive(pid):
          os.kill(pid, signal.SIGKILL)
    log = output.decode("utf-8", "replace")[-3000:]
    print(f"{self._testMethodName}: exit status {process.returncode}, {elapsed:.2f} s after "
          "the signal", file=sys.stderr)
    self.assertLess(elapsed, _PROMPT_SECONDS, log)
    self.assertNotEqual(process.returncode, 0, log)
    self.assertEqual(left, [], "iree-compile still running after the test process ended")
    self.assertEqual(glob.glob(os.path.join(artifacts_dir, "**", "*reproducer*"),
                               recursive=True, include_hidden=True), [], log)
    for report in glob.glob(os.path.join(artifacts_dir, "**", "report.json"), recursive=True):
      with open(report) as f:
        self.assertNotIn("COMPILE ERROR", f.read())
    self.assertNotIn("COMPILE ERROR", log)


_MLIR = """
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


class HalveModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def halve(self, x):
    return 0.5 * x


def _interrupt_once_stopped(stopper: child_processes.Stopper) -> threading.Thread:
  """Sends this process SIGINT (Ctrl-C) once `stopper` has stopped the compile it waits for."""
  def interrupt():
    while stopper.pid is None:
      time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)

  thread = threading.Thread(target=interrupt, daemon=True)
  thread.start()
  return thread


class InProcessInterruptTest(absltest.TestCase):
  """KeyboardInterrupt in this process while iree-compile runs, on this thread or on the
  compile threads of a test class's set-up (the first guards iree_compile's own kill: main's
  `subprocess.run` killed the compile too)."""

  def setUp(self):
    super().setUp()
    child_processes.catch_ctrl_c_here(self)

  def test_ctrl_c_during_a_compile_on_this_thread_kills_it_and_writes_nothing(self):
    reproducer = os.path.join(tempfile.mkdtemp(), "reproducer__iree_vmla.mlir")
    stopper = child_processes.Stopper(child_processes.is_module_compile)
    try:
      _interrupt_once_stopped(stopper)
      with self.assertRaises(KeyboardInterrupt):
        compiler.compile_request(compiler.CompileRequest(_MLIR, ("vmvx",)), "module 'M'",
                                 reproducer)
      self.assertTrue(child_processes.gone(stopper.pid), "iree-compile is still running")
    finally:
      stopper.finish()
    self.assertEqual(os.listdir(os.path.dirname(reproducer)), [])
    self.assertTrue(compiler.compile_request(compiler.CompileRequest(_MLIR, ("vmvx",)), "again"))

  def test_ctrl_c_during_set_up_kills_the_compiles_and_a_later_set_up_compiles_again(self):
    cli_flags.ensure_parsed()
    root = tempfile.mkdtemp()

    @tf_test_utils.compile_module(HalveModule)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_halve(self):
        self.compare_backends(lambda module: module.halve(np.ones([4], np.float32)))

    def run():
      suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
      return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)

    stopper = child_processes.Stopper(lambda pid: child_processes.is_module_compile(pid, "vmvx"))
    with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_llvmjit"], artifacts_dir=root,
                             compile_cache=False):
      try:
        _interrupt_once_stopped(stopper)
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
          run()
        elapsed = time.monotonic() - started
        self.assertTrue(child_processes.gone(stopper.pid), "iree-compile is still running")
      finally:
        stopper.finish()
      self.assertLess(elapsed, 60)
      self.assertEqual(glob.glob(os.path.join(root, "**", "*reproducer*"), recursive=True,
                                 include_hidden=True), [])
      result = run()  # the interrupted compile is not remembered as this module's result.
    self.assertTrue(result.wasSuccessful(), result.failures + result.errors)


if __name__ == "__main__":
  absltest.main()
