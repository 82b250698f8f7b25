"""Examples that never end, and Ctrl-C during examples.

A method whose loop runs as many times as its input says (`tf.while_loop` up to `n`) runs for
hours on a drawn int32: `--call_timeout` must stop such a call of the TF reference (its input is
then not compared, and counted), and Ctrl-C must end the run within seconds, not when the loop
ends. A test whose hand-written trace passed and whose examples were then interrupted must not
stand as passed in report.json (the run never finished it).

Each case runs a real test file as a subprocess in its own session, as a terminal runs a command,
on the TF reference and llvm-cpu; Ctrl-C is SIGINT to its process group.
"""

import gc
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time

from absl.testing import absltest
from absl.testing import parameterized
import hypothesis
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.examples import engine
from pyiree_tf_support.reporting import run_results
from tests.support import child_processes
from tests.support.repo import ROOT

# Generous bounds on how long something takes to stop, never on how fast it runs.
_STOP_SECONDS = 20.0
_RESCUE_SECONDS = 120.0

_TEST_FILE = textwrap.dedent('''
    import numpy as np
    from pyiree_tf_support import tf_test_utils
    import tensorflow.compat.v2 as tf


    class Looping(tf.Module):

      @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
      def count(self, n):  # ~2.4 us a turn in TF, ~24 us on llvm-cpu: 2**31 - 1 takes hours.
        return tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])[0]

      @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
      def spin(self, n):  # up to 1000 turns, or n when n > 10**7: over 20 s in TF.
        n = tf.where(n > 10**7, n, tf.minimum(n, 1000))
        return tf.while_loop(lambda i: i < n, lambda i: i + 1, [tf.constant(0)])[0]

      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def f(self, x):
        return x * 2.0 + 1.0


    @tf_test_utils.compile_module(Looping)
    class LoopingTest(tf_test_utils.TracedModuleTestCase):

      def test_spin_examples(self):
        self.check_examples("spin", examples=30)

      def test_count_long_on_iree(self):  # TF: ~0.5 s; llvm-cpu: ~5 s.
        self.compare_backends(lambda module: module.count(np.int32(200000)))

      def test_count_longer_on_iree(self):  # TF: ~2.5 s; llvm-cpu: ~25 s.
        self.compare_backends(lambda module: module.count(np.int32(1000000)))

      def test_f_then_examples(self):
        self.compare_backends(lambda module: module.f(np.arange(4, dtype=np.float32)))


    if __name__ == "__main__":
      tf.test.main()
    ''')


class _Run:
  """The test file running as a subprocess in a session of its own."""

  def __init__(self, test, args, flags=()):
    work = tempfile.mkdtemp()
    test.addCleanup(lambda: subprocess.run(["rm", "-rf", work], check=False))
    self.path = os.path.join(work, "looping_test.py")
    with open(self.path, "w") as f:
      f.write(_TEST_FILE)
    self.artifacts = os.path.join(work, "artifacts")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    env.pop("PYIREE_TF_SUPPORT_FLAGS", None)
    flags = ["--target_backends=iree_llvmjit", f"--artifacts_dir={self.artifacts}",
             "--nocompile_cache", *flags]
    if args[0] == "-m":  # pytest: the library's flags through the environment.
      env["PYIREE_TF_SUPPORT_FLAGS"] = " ".join(flags)
      flags = []
    self.process = subprocess.Popen(
        [sys.executable, *[a.format(file=self.path) for a in args], *flags], cwd=work, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=child_processes.interruptible)
    test.addCleanup(self.kill)

  def module_dir(self):
    return os.path.join(self.artifacts, "Looping")

  def wait_for_examples(self, method, timeout=300.0):
    """Waits until the examples of `method` have started (their directory exists)."""
    directory = os.path.join(self.module_dir(), "examples")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and self.process.poll() is None:
      if os.path.isdir(directory) and any(n.startswith(f"{method}.")
                                          for n in os.listdir(directory)):
        return True
      time.sleep(0.02)
    return False

  def finish(self, timeout):
    """(exit status, output, seconds it took); the process is killed after `timeout` s."""
    started = time.monotonic()
    try:
      output, _ = self.process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
      self.kill()
      output, _ = self.process.communicate()
    return (self.process.returncode, output.decode("utf-8", "replace"),
            time.monotonic() - started)

  def kill(self):
    if self.process.poll() is None:
      os.killpg(self.process.pid, signal.SIGKILL)
      self.process.wait()

  def report(self):
    path = os.path.join(self.module_dir(), "report.json")
    if not os.path.exists(path):
      return None
    with open(path) as f:
      return json.load(f)


class NeverEndingExamplesTest(parameterized.TestCase):

  def test_call_timeout_stops_a_reference_call_that_loops_for_hours(self):
    run = _Run(self, ["{file}", "LoopingTest.test_spin_examples"], ["--call_timeout=2"])
    status, output, _ = run.finish(_RESCUE_SECONDS * 3)
    self.assertEqual(status, 0, output[-3000:])
    with open(os.path.join(run.module_dir(), "examples", "spin.examples",
                           "summary.txt")) as f:
      summary = f.read()
    self.assertIn("--call_timeout", summary)  # the inputs it stopped are counted, by reason.

  def test_an_in_process_iree_call_past_call_timeout_ends_the_process_saying_why(self):
    run = _Run(self, ["{file}", "LoopingTest.test_count_long_on_iree"], ["--call_timeout=2.5"])
    status, output, seconds = run.finish(_RESCUE_SECONDS)
    self.assertLess(seconds, 60.0, output[-3000:])
    self.assertNotEqual(status, 0, output[-3000:])
    self.assertIn("call 'count' of IREE driver 'local-task' did not end within", output)
    self.assertIn("--call_timeout=2.5 s", output)
    report = run.report()  # nothing recorded for the unfinished trace, certainly no pass.
    self.assertTrue(report is None or not any(e["passed"] for e in report["tests"].values()))

  def test_ctrl_c_during_an_in_process_iree_call_it_cannot_stop_ends_the_process(self):
    run = _Run(self, ["{file}", "LoopingTest.test_count_longer_on_iree"])
    traces = os.path.join(run.module_dir(), "traces")
    deadline = time.monotonic() + 300
    while not (os.path.isdir(traces) and any("tf_ref" in n for n in os.listdir(traces))):
      if time.monotonic() > deadline or run.process.poll() is not None:
        self.fail(run.finish(1)[1][-3000:])
      time.sleep(0.02)
    time.sleep(0.5)  # the reference's trace is saved: llvm-cpu's ~25 s call runs.
    os.killpg(run.process.pid, signal.SIGINT)
    status, output, seconds = run.finish(_RESCUE_SECONDS)
    self.assertLess(seconds, 12.0, output[-3000:])  # the grace is 3 s; the call ~25 s.
    self.assertEqual(status, 128 + signal.SIGINT, output[-3000:])
    self.assertIn("Ctrl-C: call 'count' of IREE driver 'local-task' could not be stopped",
                  output)

  @parameterized.named_parameters(
      ("absltest", ["{file}", "LoopingTest.test_spin_examples"]),
      ("pytest", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "{file}", "-k",
                  "test_spin_examples"]))
  def test_ctrl_c_ends_a_reference_call_that_loops_for_hours(self, args):
    run = _Run(self, args)
    if not run.wait_for_examples("spin"):
      self.fail(run.finish(1)[1][-3000:])
    time.sleep(3.0)  # hypothesis soon draws an int32 far from 0: the loop is running.
    os.killpg(run.process.pid, signal.SIGINT)
    status, output, seconds = run.finish(_RESCUE_SECONDS)
    print(f"{self._testMethodName}: exit status {status}, {seconds:.2f} s after Ctrl-C",
          file=sys.stderr)
    self.assertLess(seconds, _STOP_SECONDS, output[-3000:])
    self.assertNotEqual(status, 0, output[-3000:])


class InterruptedExamplesReportTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("absltest", ["{file}", "LoopingTest.test_f_then_examples"]),
      ("pytest", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "{file}", "-k",
                  "test_f_then_examples"]))
  def test_ctrl_c_during_the_examples_of_a_passing_trace_is_not_a_pass(self, args):
    run = _Run(self, args, ["--examples=100000"])
    if not run.wait_for_examples("f"):
      self.fail(run.finish(1)[1][-3000:])
    time.sleep(1.0)
    os.killpg(run.process.pid, signal.SIGINT)
    status, output, _ = run.finish(_RESCUE_SECONDS)
    self.assertNotEqual(status, 0, output[-3000:])
    report = run.report()
    self.assertIsNotNone(report, output[-3000:])
    entry = next(e for test_id, e in report["tests"].items()
                 if test_id.endswith("test_f_then_examples"))
    self.assertFalse(entry["passed"], json.dumps(entry)[:3000])
    self.assertIn("interrupted", entry)
    with open(os.path.join(run.module_dir(), "report.txt")) as f:
      self.assertIn("INTERRUPTED", f.read())
    # The list tools read no verdict from it: no cell of the file, not a pass.
    cells = run_results.from_artifacts_dir(run.artifacts, [os.path.dirname(run.path)]).cells
    self.assertEqual(cells, {})


class Double(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def f(self, x):
    return x * 2.0 + 1.0


class LostKeyboardInterruptTest(absltest.TestCase):
  """The way a Ctrl-C was lost for real: its KeyboardInterrupt raised inside a garbage collector
  callback (hypothesis times collections with one), where CPython drops it as unraisable."""

  def test_a_ctrl_c_raised_inside_a_gc_callback_still_ends_the_examples(self):
    child_processes.catch_ctrl_c_here(self)
    work = tempfile.mkdtemp()
    hypothesis.configuration.set_hypothesis_home_dir(os.path.join(work, "hypothesis"))
    self.addCleanup(hypothesis.configuration.set_hypothesis_home_dir, None)
    reference = tf_utils.BackendInfo("tf").compile(Double)
    calls = []

    class Counted:  # the reference, counting its calls: the Ctrl-C comes once examples run.
      signatures = reference.signatures

      def f(self, x):
        calls.append(x)
        return reference.f(x)

    modules = engine.ExampleModules(Counted(), (), stateful=False)
    collections = []

    def ctrl_c_in_the_fifth_collection(phase, info):
      del info
      if phase == "start" and len(calls) > 3:
        collections.append(phase)
        if len(collections) == 5:
          signal.raise_signal(signal.SIGINT)  # the handler raises here, in the callback.

    gc.callbacks.append(ctrl_c_in_the_fifth_collection)
    self.addCleanup(gc.callbacks.remove, ctrl_c_in_the_fifth_collection)
    with self.assertRaises(KeyboardInterrupt):
      engine.run_examples(modules, "f", reference.signatures["f"],
                          engine.ExampleSettings(2000, seconds=30.0))
    self.assertGreaterEqual(len(collections), 5)  # the Ctrl-C came, during the examples.


if __name__ == "__main__":
  absltest.main()
