"""A test file run as `python file.py` ends without the interpreter's teardown (1-2 s of
TensorFlow's), and nothing observable of a normal exit is lost: the exit status, atexit handlers,
non-daemon threads, buffered output. Under a profiler or another program's runner the normal exit
stays.

Each case is a real child process (no TensorFlow: the mechanism is the library's, not TF's); one
case runs a real absltest file through tf_test_utils, failing, to check its status and report.
"""

import os
import subprocess
import sys
import tempfile
import textwrap

from absl.testing import absltest

from tests.support import test_files
from tests.support.repo import ROOT

# A script ending through run_then_exit: `main` exits with argv[1] (an int, "none" or a string).
# Its teardown witness prints at finalization: only a normal exit prints it.
SCRIPT = textwrap.dedent('''
    import atexit, sys, threading, time
    from pyiree_tf_support.core import quick_exit

    class Witness:
      def __del__(self):
        print("finalized", flush=True)

    WITNESS = Witness()
    atexit.register(lambda: open(sys.argv[2], "w").write("atexit ran"))

    def late_writer():
      time.sleep(0.3)
      print("thread done")  # buffered: flushed by the exit, not by the thread.

    def main():
      threading.Thread(target=late_writer).start()
      print("buffered line")
      code = sys.argv[1]
      sys.exit(None if code == "none" else int(code) if code.isdigit() else code)

    quick_exit.run_then_exit(main)
    ''')


def _run(args):
  """Runs `python args... <atexit marker>`, SCRIPT in args naming the script's path."""
  directory = tempfile.mkdtemp()
  path = os.path.join(directory, "script.py")
  with open(path, "w") as f:
    f.write(SCRIPT)
  env = dict(os.environ, PYTHONPATH=ROOT)
  marker = os.path.join(directory, "atexit.txt")
  done = subprocess.run([sys.executable] + [a.replace("SCRIPT", path) for a in args] + [marker],
                        capture_output=True, text=True, cwd=directory, env=env, timeout=120,
                        check=False)
  return done, marker


class QuickExitTest(absltest.TestCase):

  def _script(self, code, prefix=()):
    return _run(list(prefix) + ["SCRIPT", code])

  def test_a_script_run_directly_skips_the_teardown_and_keeps_everything_else(self):
    done, marker = self._script("0")
    self.assertEqual(done.returncode, 0, done.stderr)
    self.assertIn("buffered line", done.stdout)
    self.assertIn("thread done", done.stdout)  # non-daemon threads are joined first.
    with open(marker) as f:
      self.assertEqual(f.read(), "atexit ran")
    self.assertNotIn("finalized", done.stdout)  # the teardown did not run.

  def test_the_exit_status_is_the_one_sys_exit_gives(self):
    for code, status in (("none", 0), ("3", 3), ("1", 1)):
      done, _ = self._script(code)
      self.assertEqual(done.returncode, status, (code, done.stderr))
    done, _ = self._script("boom")
    self.assertEqual(done.returncode, 1)
    self.assertIn("boom", done.stderr)

  def test_under_a_profiler_the_normal_exit_writes_its_results(self):
    directory = tempfile.mkdtemp()
    profile = os.path.join(directory, "out.prof")
    done, _ = self._script("2", prefix=["-m", "cProfile", "-o", profile])
    self.assertNotIn("Traceback", done.stderr)  # (cProfile's runner takes the SystemExit)
    self.assertTrue(os.path.isfile(profile))  # written after the script: no quick exit.
    self.assertIn("finalized", done.stdout)

  def test_a_failing_test_file_exits_1_with_its_report_and_no_teardown(self):
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "quick_exit_failing_test.py")
    with open(path, "w") as f:
      f.write(test_files.one_method_test("QuickExit", "a + 1.0")
              .replace("self.compare_backends(",
                       "self.assertEqual(1, 2)\n    self.compare_backends(")
              .replace("import numpy as np",
                       "import numpy as np\nclass _W:\n  def __del__(self):\n"
                       "    print('finalized', flush=True)\n_WITNESS = _W()"))
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    done = subprocess.run([sys.executable, path, "--target_backends=iree_llvmjit",
                           f"--artifacts_dir={directory}/artifacts"], capture_output=True,
                          text=True, cwd=directory, env=env, timeout=300, check=False)
    self.assertEqual(done.returncode, 1, done.stderr[-2000:])
    self.assertIn("FAILED (failures=1)", done.stderr)
    self.assertNotIn("finalized", done.stdout)


# A real test file whose tearDownClass leaves a file written and never closed, and a
# NamedTemporaryFile open: a normal exit's finalizers flush the one and remove the other.
_UNCLOSED_TEST = textwrap.dedent('''
    import os, tempfile
    from absl.testing import absltest
    from pyiree_tf_support import tf_test_utils

    class UnclosedTest(absltest.TestCase):

      @classmethod
      def tearDownClass(cls):
        super().tearDownClass()
        cls.log = open(os.environ["UNCLOSED_LOG"], "w")
        cls.log.write("written in tearDownClass")
        cls.temporary = tempfile.NamedTemporaryFile(dir=os.environ["UNCLOSED_DIR"])
        cls.temporary.write(b"x")

      def test_nothing(self):
        pass

    if __name__ == "__main__":
      absltest.main()
    ''')


class FinalizersTest(absltest.TestCase):

  def test_files_left_open_at_exit_are_flushed_and_temporary_files_removed(self):
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "unclosed_test.py")
    with open(path, "w") as f:
      f.write(_UNCLOSED_TEST)
    temporaries = os.path.join(directory, "tmp")
    os.mkdir(temporaries)
    log = os.path.join(directory, "log.txt")
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2", UNCLOSED_LOG=log,
               UNCLOSED_DIR=temporaries)
    done = subprocess.run([sys.executable, path], capture_output=True,
                          text=True, cwd=directory, env=env, timeout=300, check=False)
    self.assertEqual(done.returncode, 0, done.stderr[-2000:])
    with open(log) as f:
      self.assertEqual(f.read(), "written in tearDownClass")
    self.assertEqual(os.listdir(temporaries), [])  # the NamedTemporaryFile's finalizer ran.


if __name__ == "__main__":
  absltest.main()
