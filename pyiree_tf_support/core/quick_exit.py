"""Ends a finished test process without the interpreter's teardown.

After the last test, a normal exit still finalizes every module and runs TensorFlow's and LLVM's
C++ static destructors: 1-2 s of a 4 s single-file run, for nothing anyone can observe. Where the
process is ours to end (the test file run as `python file.py`: absltest's main, the test driver's
main), `run_then_exit` does what an exit does that can be observed, in the same order: joins
non-daemon threads (and the thread pools' exit hooks), runs every atexit handler (logging's flush,
weakref finalizers: the workers are stopped, temporary dirs removed), collects the garbage (its
finalizers run), closes every file object still open (what the teardown's finalizers would do
that is seen outside: a buffer written to its file, a `NamedTemporaryFile` removed), flushes
stdout and stderr, then `os._exit` with the status the SystemExit would have given. Skipped are
the `__del__` methods of other objects still reachable at exit, and files opened before the
library was imported (frozen with TensorFlow's objects, see `collector`). Anything else keeps
the normal exit: an exception other than SystemExit, a profiler or tracer (cProfile, coverage, pdb
write their results after the script returns), or a script run by another program (`python -m
cProfile`, runpy); pytest never calls these mains.
"""

import atexit
import gc
import io
import os
import sys
import tempfile
import threading
from typing import Any, Callable

__all__ = ["exit_status", "run_then_exit", "may_exit_quickly"]


def exit_status(code: Any) -> int:
  """The status `sys.exit(code)` gives: None is 0, an int itself, anything else is printed to
  stderr and gives 1."""
  if code is None:
    return 0
  if isinstance(code, int):  # bool too: absltest exits with `not result.wasSuccessful()`.
    return int(code) & 0xFF
  try:
    print(code, file=sys.stderr)
  except Exception:
    pass
  return 1


def may_exit_quickly() -> bool:
  """True when this process runs the `__main__` script directly, untraced and unprofiled: no
  caller of the script is left to run code after it."""
  if sys.gettrace() is not None or sys.getprofile() is not None:
    return False
  main = sys.modules.get("__main__")
  frame = sys._getframe()
  while frame.f_back is not None:
    frame = frame.f_back
  return main is not None and frame.f_globals is vars(main) and frame.f_code.co_name == "<module>"


def _flush_standard_streams() -> None:
  for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
    try:
      if stream is not None:
        stream.flush()
    except Exception:
      pass


def _close_open_files() -> None:
  """Closes what a teardown would finalize with an effect outside the process: temporary files
  (removed by their close), then text, buffered and raw files, outermost first so that no
  wrapper's buffer is lost under a closed file. The standard streams are only flushed."""
  standard = {id(s) for s in (sys.stdin, sys.stdout, sys.stderr, sys.__stdin__, sys.__stdout__,
                              sys.__stderr__) if s is not None}
  standard |= {id(getattr(s, "buffer", None)) for s in (sys.stdout, sys.stderr, sys.__stdout__,
                                                       sys.__stderr__)}
  kinds = (tempfile._TemporaryFileWrapper, io.TextIOBase,
           io.BufferedIOBase, io.RawIOBase)
  found = [[] for _ in kinds]
  for obj in gc.get_objects():
    for i, kind in enumerate(kinds):
      if isinstance(obj, kind):
        found[i].append(obj)
        break
  for files in found:
    for file in files:
      try:
        if id(file) not in standard and not file.closed:
          file.close()
      except Exception:  # as a teardown, which ignores them.
        pass


def _exit(status: int) -> None:
  shutdown = getattr(threading, "_shutdown", None)  # what the interpreter calls first at exit
  if shutdown is not None and threading.current_thread() is threading.main_thread():
    shutdown()
  atexit._run_exitfuncs()
  _flush_standard_streams()
  gc.collect()
  _close_open_files()
  _flush_standard_streams()
  os._exit(status)


def run_then_exit(main: Callable[..., Any], *args: Any) -> Any:
  """Runs `main(*args)`; when it ends with SystemExit and `may_exit_quickly()`, ends the process
  with that status without teardown. Otherwise returns or raises as `main` did."""
  try:
    return main(*args)
  except SystemExit as e:
    if not may_exit_quickly():
      raise
    _exit(exit_status(e.code))
    raise  # not reached: os._exit does not return.
