"""Finding a test process's real children in /proc (iree-compile, runtime workers) to stop,
signal and check them, for the timeout and interrupt tests."""

import os
import signal
import threading
import time
from typing import Callable, Dict, List, Optional, Tuple

from pyiree_tf_support.runtime import worker_client


def _parents() -> Dict[int, int]:
  parents = {}
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      with open(f"/proc/{entry}/stat") as f:
        stat = f.read()
    except OSError:
      continue
    parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])  # the comm may hold spaces.
  return parents


def cmdline(pid: int) -> List[str]:
  try:
    with open(f"/proc/{pid}/cmdline", "rb") as f:
      return [arg.decode("utf-8", "replace") for arg in f.read().split(b"\0") if arg]
  except OSError:
    return []


def descendants(root: int) -> List[int]:
  """Pids of every living descendant of `root`."""
  children: Dict[int, List[int]] = {}
  for pid, parent in _parents().items():
    children.setdefault(parent, []).append(pid)
  found, todo = [], [root]
  while todo:
    for child in children.get(todo.pop(), []):
      found.append(child)
      todo.append(child)
  return found


def is_module_compile(pid: int, target: Optional[str] = None) -> bool:
  """An iree-compile compiling a module (not the probe of what `host` means), for `target`."""
  args = cmdline(pid)
  return (bool(args) and os.path.basename(args[0]) == "iree-compile"
          and "--compile-to=executable-sources" not in args
          and (target is None or f"--iree-hal-target-backends={target}" in args))


def is_worker(pid: int) -> bool:
  return worker_client.WORKER_MODULE in cmdline(pid)


def alive(pid: int) -> bool:
  """Whether `pid` exists and is not a zombie."""
  try:
    with open(f"/proc/{pid}/stat") as f:
      return f.read().rsplit(")", 1)[1].split()[0] != "Z"
  except OSError:
    return False


def gone(pid: int, timeout: float = 5.0) -> bool:
  """Whether `pid` is dead (or a zombie) within `timeout` s (a SIGKILL lands asynchronously)."""
  deadline = time.monotonic() + timeout
  while alive(pid):
    if time.monotonic() > deadline:
      return False
    time.sleep(0.01)
  return True


def in_session(session: int) -> List[int]:
  """Pids of the living processes of `session` (orphans too, which no parent links to)."""
  found = []
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      with open(f"/proc/{entry}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
      continue
    if fields[0] != "Z" and int(fields[3]) == session:
      found.append(int(entry))
  return found


def left_in_session(session: int, timeout: float = 30.0) -> List[Tuple[int, List[str]]]:
  """(pid, command line) of the processes of `session` still there after `timeout` s (none,
  when all ended: a child killed on the way out dies a moment later)."""
  deadline = time.monotonic() + timeout
  while in_session(session) and time.monotonic() < deadline:
    time.sleep(0.05)
  return [(pid, cmdline(pid)[:4]) for pid in in_session(session)]


def wait_for(root: int, matches: Callable[[int], bool], timeout: float = 300.0,
             done: Callable[[], bool] = lambda: False) -> Optional[int]:
  """The first descendant of `root` that `matches`, polled every 5 ms; None after `timeout` s or
  once `done()`."""
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline and not done():
    for pid in descendants(root):
      if matches(pid):
        return pid
    time.sleep(0.005)
  return None


class Stopper:
  """A thread that SIGSTOPs the first descendant of this process that `matches` (a hung child,
  for real), and SIGKILLs it after `rescue_after` s if it is still there, so that a missing
  timeout fails the test instead of hanging it."""

  def __init__(self, matches: Callable[[int], bool], rescue_after: float = 90.0):
    self.pid: Optional[int] = None
    self._matches = matches
    self._finished = threading.Event()
    self._rescue_after = rescue_after
    self._thread = threading.Thread(target=self._run, daemon=True)
    self._thread.start()

  def _run(self) -> None:
    pid = wait_for(os.getpid(), self._matches, done=self._finished.is_set)
    if pid is None:
      return
    os.kill(pid, signal.SIGSTOP)
    self.pid = pid
    if not self._finished.wait(self._rescue_after) and alive(pid):
      os.kill(pid, signal.SIGKILL)

  def finish(self) -> None:
    self._finished.set()
    self._thread.join()
    if self.pid is not None and alive(self.pid):
      os.kill(self.pid, signal.SIGKILL)


def interruptible() -> None:
  """A `preexec_fn` giving the child SIGINT's and SIGTERM's default dispositions, as a terminal
  gives a command.

  A test run started with SIGINT ignored (a background job of a non-interactive shell, `nohup`
  under some shells) passes the ignored disposition to every child, and Python leaves an ignored
  SIGINT ignored: a Ctrl-C the test sends would then do nothing. The fuzzer leaves an ignored
  SIGTERM ignored alike.
  """
  signal.signal(signal.SIGINT, signal.SIG_DFL)
  signal.signal(signal.SIGTERM, signal.SIG_DFL)


def catch_ctrl_c_here(test) -> None:
  """Makes SIGINT raise KeyboardInterrupt in this process for the rest of `test` (a TestCase),
  whatever disposition the test run started with (see `interruptible`)."""
  previous = signal.signal(signal.SIGINT, signal.default_int_handler)
  test.addCleanup(signal.signal, signal.SIGINT, previous)
