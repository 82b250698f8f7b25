"""The commands that publish an output dir of a module dir (reduce, split_dispatches, localize),
run as a user runs them, for the tests that stop, race and starve them: a fresh copy of a module
dir per test, a command started in its own session as a terminal starts it, its stderr read a
line at a time, what a directory holds, a reader polling it while commands run, a file system
without locks, and `OutputDirCase`, what those tests check of each command.

The file system without locks is the one stand-in: no test machine has an NFS mount without its
lock daemon, so the child's `fcntl.flock` fails with ENOLCK on `*.lock` files, as it does there
(a `sitecustomize` first on its PYTHONPATH), and is real everywhere else.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence

from absl.testing import absltest

from pyiree_tf_support.core import safe_files
from tests.support import child_processes
from tests.support.repo import ROOT

_NO_LOCKS = textwrap.dedent('''
    import errno, fcntl, os
    _real = fcntl.flock
    def _flock(descriptor, operation):
      if os.readlink(f"/proc/self/fd/{descriptor}").endswith(".lock"):
        raise OSError(errno.ENOLCK, os.strerror(errno.ENOLCK))
      return _real(descriptor, operation)
    fcntl.flock = _flock
    ''')


def copy_module_dir(trace_dir: str) -> str:
  """A fresh copy of the module dir holding `trace_dir` (outputs of earlier commands included);
  the copy's trace dir of the same name."""
  module_dir = os.path.dirname(os.path.dirname(trace_dir))
  copy = os.path.join(tempfile.mkdtemp(), os.path.basename(module_dir))
  shutil.copytree(module_dir, copy, symlinks=True)
  return os.path.join(copy, "traces", os.path.basename(trace_dir))


def snapshot(directory: str) -> Dict[str, bytes]:
  """Every file below `directory` (not following links) with its content; {} when missing."""
  files = {}
  for parent, _, names in os.walk(directory):
    for name in names:
      path = os.path.join(parent, name)
      with open(path, "rb") as f:
        files[os.path.relpath(path, directory)] = f.read()
  return files


def no_locks_env(test) -> Dict[str, str]:
  """The environment of a child whose `*.lock` files cannot be locked (ENOLCK)."""
  site = tempfile.mkdtemp()
  test.addCleanup(shutil.rmtree, site, True)
  with open(os.path.join(site, "sitecustomize.py"), "w") as f:
    f.write(_NO_LOCKS)
  return {"PYTHONPATH": f"{site}{os.pathsep}{ROOT}"}


class Command:
  """`python -m pyiree_tf_support.<tool> args...` in a session of its own with SIGINT's and
  SIGTERM's default dispositions, as a terminal starts it; killed with its session at the end
  of the test."""

  def __init__(self, test, tool: str, *args: str, env: Optional[Dict[str, str]] = None):
    self.process = subprocess.Popen(
        [sys.executable, "-m", f"pyiree_tf_support.{tool}", *args],
        env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2", "PYTHONPATH": ROOT, **(env or {})},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=child_processes.interruptible)
    self.stderr_lines: List[str] = []
    test.addCleanup(self._kill)

  def _kill(self) -> None:
    for pid in child_processes.in_session(self.process.pid):
      os.kill(pid, signal.SIGKILL)
    self.process.communicate()

  def wait_for_line(self, part: str, timeout: float = 120.0) -> Optional[str]:
    """The first stderr line holding `part`, read as the command writes it; None when it ends
    (or `timeout` s pass) without one."""
    found: List[str] = []

    def read() -> None:
      assert self.process.stderr is not None  # piped.
      for line in self.process.stderr:
        self.stderr_lines.append(line)
        if part in line:
          found.append(line)
          return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(timeout)
    return found[0] if found else None

  def interrupt(self, terminate: bool = False) -> None:
    """Ctrl-C as a terminal sends it (SIGINT to the process group), or SIGTERM to the command
    alone (`kill PID`)."""
    if terminate:
      os.kill(self.process.pid, signal.SIGTERM)
    else:
      os.killpg(self.process.pid, signal.SIGINT)

  def finish(self, timeout: float = 600.0) -> subprocess.CompletedProcess:
    """The command's exit status and output once it ended (stderr: every line)."""
    out, err = self.process.communicate(timeout=timeout)
    return subprocess.CompletedProcess(self.process.args, self.process.returncode, out,
                                       "".join(self.stderr_lines) + err)


class Reader:
  """A thread listing `directory` every 2 ms while commands run: each listing that is neither
  missing nor holding all of `whole` is recorded (a reader that would see a half-written
  result)."""

  def __init__(self, directory: str, whole: Sequence[str]):
    self.partial: List[List[str]] = []
    self.seen = 0
    self._directory, self._whole = directory, set(whole)
    self._done = threading.Event()
    self._thread = threading.Thread(target=self._run, daemon=True)
    self._thread.start()

  def _run(self) -> None:
    while not self._done.is_set():
      try:
        names = set(os.listdir(self._directory))
      except FileNotFoundError:
        names = None
      if names is not None:
        self.seen += 1
        if not self._whole <= names:
          self.partial.append(sorted(names))
      time.sleep(0.002)

  def stop(self) -> None:
    self._done.set()
    self._thread.join()


class OutputDirCase(absltest.TestCase):
  """A TestCase (its subclasses list RecordedTraces after it) for a command publishing `OUT`
  (relative to the module dir) of the module's one recorded trace: each test gets a fresh copy
  of the module dir, the command's earlier complete result (made once for the class) included,
  and checks that result is kept. TOOL: the command; ARGS: its arguments after the trace dir;
  WHOLE: names a complete result holds; KEPT: the one line saying what was kept, `{how}` and
  `{out}` filled in."""

  TOOL = ""
  ARGS: Sequence[str] = ()
  OUT = ""
  WHOLE: Sequence[str] = ()
  KEPT = ""
  trace_dirs: Dict[str, str]  # RecordedTraces'

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    completed = subprocess.run(
        [sys.executable, "-m", f"pyiree_tf_support.{cls.TOOL}",
         next(iter(cls.trace_dirs.values())), *cls.ARGS],
        capture_output=True, text=True, check=False, timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]  # the earlier complete result.

  def setUp(self):
    super().setUp()
    self.trace_dir = copy_module_dir(next(iter(self.trace_dirs.values())))
    self.module_dir = os.path.dirname(os.path.dirname(self.trace_dir))
    self.out = os.path.join(self.module_dir, self.OUT)
    self.before = snapshot(self.out)
    self.assertContainsSubset(self.WHOLE, {name.split(os.sep)[0] for name in self.before})

  def command(self, args: Sequence[str] = (), **kwargs) -> Command:
    return Command(self, self.TOOL, self.trace_dir, *self.ARGS, *args, **kwargs)

  def kept_line(self, how: str) -> str:
    return self.KEPT.format(tool=self.TOOL, how=how, out=self.out)

  def assert_kept(self) -> None:
    """The earlier complete result is there byte for byte, and no work dir is left."""
    self.assertEqual(snapshot(self.out), self.before)
    self.assertNotIn(f".{os.path.basename(self.out)}.new", os.listdir(os.path.dirname(self.out)))

  def assert_one_line(self, completed: subprocess.CompletedProcess, status: int,
                      pattern: str) -> None:
    lines = completed.stderr.strip().splitlines()
    self.assertEqual(completed.returncode, status, completed.stderr[-3000:])
    self.assertLen(lines, 1, completed.stderr[-3000:])
    self.assertRegex(lines[0], pattern)

  def check_two_at_once(self) -> List[subprocess.CompletedProcess]:
    """Two of the command at once both finish, and a reader of `OUT` meanwhile never sees it
    half-written; their outputs."""
    reader = Reader(self.out, self.WHOLE)
    commands = [self.command() for _ in range(2)]
    done = [command.finish() for command in commands]
    reader.stop()
    for completed in done:
      self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    self.assertGreater(reader.seen, 0)
    self.assertEqual(reader.partial[:3], [])
    self.assertEqual(snapshot(self.out).keys(), self.before.keys())
    return done

  def check_interrupted(self, stopped: Callable[[int], bool], terminate: bool) -> None:
    """Ctrl-C (or SIGTERM) while the first of the command's children that is `stopped` is held
    stopped (so the command is surely mid-way): one line, exit 130 (143), the last result kept
    and no process of the command left."""
    stopper = child_processes.Stopper(stopped)
    command = self.command()
    self.assertIsNotNone(child_processes.wait_for(command.process.pid, lambda pid: (
        pid == stopper.pid), timeout=300), "no child to stop was started")
    command.interrupt(terminate)
    completed = command.finish()
    stopper.finish()
    how = "terminated" if terminate else "interrupted"
    self.assert_one_line(completed, 143 if terminate else 130,
                         f"^{re.escape(self.kept_line(how))}$")
    self.assert_kept()
    self.assertEqual(child_processes.left_in_session(command.process.pid), [])

  def check_without_locks(self, lock: str) -> None:
    """On a file system without locks: one line naming `lock`, exit 2, the last result kept."""
    completed = self.command(env=no_locks_env(self)).finish()
    self.assert_one_line(completed, 2, rf"^{self.TOOL}: Cannot lock '{re.escape(lock)}': ENOLCK ")
    self.assert_kept()

  def check_waiting(self, lock: str, waiting: str, kept: str, out: Optional[str] = None,
                    tool: Optional[str] = None, args: Sequence[str] = ()) -> None:
    """While another command holds `lock`: the `waiting` line on stderr, then a Ctrl-C is the
    one line `kept` (exit 130) and `out` (default `OUT`) is as it was."""
    out = os.path.join(self.module_dir, out or self.OUT)
    before = snapshot(out)
    with safe_files.locked(lock):  # another command's turn.
      command = (Command(self, tool, self.trace_dir, *args) if tool else self.command())
      line = command.wait_for_line("waiting")
      self.assertEqual((line or "".join(command.stderr_lines)[-3000:]).strip(), waiting)
      command.interrupt()
      completed = command.finish()
    self.assertEqual(completed.returncode, 130, completed.stderr[-3000:])
    self.assertEqual(completed.stderr.strip().splitlines()[1:], [kept])
    self.assertEqual(snapshot(out), before)
