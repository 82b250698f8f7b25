"""Runs iree-compile as a child this process can time out and kill, and kills it on an interrupt.

Why not `iree.compiler.compile_str`: its `subprocess.run` waits forever, and the child shares our
process group, so a Ctrl-C reaches the compiler too, which dies with SIGINT and is reported as a
compiler crash (a reproducer written, the per-method compiles started) while the interrupted
process waits for them. Here each iree-compile runs in a session of its own (a terminal's signals
do not reach it); on a timeout its whole process group is killed; on KeyboardInterrupt, or
SIGTERM while `interruptible()` is active, every running compile is killed at once and its
caller raises `CompileInterrupted`, which is no compile error: no reproducer, no fallback.
A caller running several compiles at once declares them (`batch`): when they fill every CPU,
each runs single-threaded (`single_threaded`).
"""

import contextlib
import os
import signal
import subprocess
import threading
from typing import Callable, Dict, Iterator, Optional, Sequence


class CompileTimeout(Exception):
  """iree-compile ran past its limit and was killed (with its process group)."""


class CompileInterrupted(BaseException):
  """The compile was killed because the process is being interrupted (Ctrl-C, SIGTERM).

  A BaseException, like KeyboardInterrupt: handlers that turn errors into a backend's verdict
  (`except Exception`) must let it through.
  """


_lock = threading.RLock()  # reentrant: the SIGTERM handler runs on the main thread.
_running: Dict[int, subprocess.Popen] = {}
_cancelled = threading.Event()
# How many cancels there have been: a compile whose thread wakes after the interrupted work has
# unwound and called `resume` (the event clear again) still knows a cancel killed its child.
_cancels = 0


def _kill_group(process: subprocess.Popen) -> None:
  """SIGKILL to the child's process group (it leads it): iree-compile and anything it started."""
  try:
    os.killpg(process.pid, signal.SIGKILL)
  except (ProcessLookupError, PermissionError):
    pass


def _reap(process: subprocess.Popen) -> None:
  process.wait()
  for pipe in (process.stdin, process.stdout, process.stderr):
    if pipe is not None:
      try:
        pipe.close()
      except OSError:
        pass


def run(command: Sequence[str], stdin: bytes,
        timeout: Optional[float]) -> subprocess.CompletedProcess:
  """Runs `command` with `stdin`, capturing stdout and stderr (bytes), for at most `timeout` s.

  Raises CompileTimeout (the group killed), CompileInterrupted (killed by `cancel_running`),
  and on any other exception here (KeyboardInterrupt) kills the group before re-raising.
  On the main thread, SIGTERM meanwhile kills the compile before the process dies of it.
  """
  if _cancelled.is_set():
    raise CompileInterrupted("not started: the process is being interrupted")
  with _sigterm_kills_compiles():
    return _run(command, stdin, timeout)


def _run(command: Sequence[str], stdin: bytes,
         timeout: Optional[float]) -> subprocess.CompletedProcess:
  with _lock:
    process = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, start_new_session=True)
    _running[process.pid] = process
    cancels = _cancels
  try:
    if _cancelled.is_set():  # cancelled between the check above and the start.
      _kill_group(process)
    try:
      stdout, stderr = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
      _kill_group(process)
      _reap(process)
      raise CompileTimeout(f"{os.path.basename(command[0])} did not finish") from None
    except BaseException:
      _kill_group(process)
      _reap(process)
      raise
    if _cancelled.is_set() or _cancels != cancels:
      raise CompileInterrupted(f"{os.path.basename(command[0])} was stopped by an interrupt")
    return subprocess.CompletedProcess(list(command), process.returncode, stdout, stderr)
  finally:
    with _lock:
      _running.pop(process.pid, None)


def cancel_running() -> None:
  """Kills every running compile and refuses new ones until `resume()`; their callers raise
  CompileInterrupted."""
  global _cancels
  _cancelled.set()
  with _lock:
    _cancels += 1
    processes = list(_running.values())
  for process in processes:
    _kill_group(process)


def resume() -> None:
  """Allows compiles again (after the interrupted work has unwound)."""
  _cancelled.clear()


def running_pids() -> Sequence[int]:
  """Pids of the compiles running now (for tests and diagnostics)."""
  with _lock:
    return tuple(_running)


@contextlib.contextmanager
def interruptible(unwind: Callable[[], None] = lambda: None) -> Iterator[None]:
  """Within: an exception escaping (KeyboardInterrupt) kills the running compiles, then calls
  `unwind` (e.g. waits for the threads that ran them, which now end at once) before it goes on;
  SIGTERM kills them before the process dies of it, as it would have (its default action). Used
  around code that waits for compiles on other threads, so that it never waits for them to
  finish nor leaves them running.

  SIGTERM is handled only on the main thread, and only when its handler is the default (a
  caller's own handler or SIG_IGN is left alone).
  """
  with _sigterm_kills_compiles():
    try:
      yield
    except BaseException:
      cancel_running()
      try:
        unwind()
      finally:
        resume()
      raise


@contextlib.contextmanager
def _sigterm_kills_compiles() -> Iterator[None]:
  """Within, on the main thread with SIGTERM's default action: SIGTERM kills the running
  compiles, then the process dies of it as it would have."""
  on_main = threading.current_thread() is threading.main_thread()
  previous = signal.getsignal(signal.SIGTERM) if on_main else None
  installed = previous == signal.SIG_DFL
  if installed:
    signal.signal(signal.SIGTERM, _die_of_sigterm)
  try:
    yield
  finally:
    if installed:
      signal.signal(signal.SIGTERM, previous)


def _die_of_sigterm(signum: int, frame) -> None:
  cancel_running()
  signal.signal(signal.SIGTERM, signal.SIG_DFL)
  os.kill(os.getpid(), signal.SIGTERM)


_batched = 0  # compiles the batches entered now run at once (see `batch`).

SINGLE_THREADED_FLAG = "--mlir-disable-threading"


@contextlib.contextmanager
def batch(compiles: int) -> Iterator[None]:
  """Within: the caller runs up to `compiles` compiles at once (on threads of its own).

  Each iree-compile runs its passes on a thread pool as large as the machine. When a batch runs
  at least as many compiles as there are CPUs, those threads only compete with the other
  compiles': `single_threaded()` then says to give `SINGLE_THREADED_FLAG`, which changes
  nothing in the output (vmfbs byte-identical, checked on llvm-cpu, vmvx and Vulkan). Measured
  on 2 CPUs (IREE 3.13, e2e/matmul_test.py's module on llvm-cpu, vmvx and Vulkan, 3 runs each):
  three compiles at once took 0.96-1.08 s with their threads and 0.88-0.91 s without; one after
  another, 1.35-1.70 s with them and 1.59-1.60 s without, so a lone compile keeps its threads.
  """
  global _batched
  with _lock:
    _batched += compiles
  try:
    yield
  finally:
    with _lock:
      _batched -= compiles


def single_threaded() -> bool:
  """Whether the compiles running at once (`batch`) occupy every CPU this process may use."""
  try:
    cpus = len(os.sched_getaffinity(0))
  except (AttributeError, OSError):
    cpus = os.cpu_count() or 1
  return _batched >= max(2, cpus)
