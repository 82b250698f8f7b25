"""Runs a compiled module in a worker process that never imports TensorFlow (the parent's side).

Why a fresh interpreter (`sys.executable -P -m pyiree_tf_support.runtime.worker_main`) and not
`multiprocessing`: TensorFlow and Mesa's lavapipe cannot share a process, a `fork`ed child inherits
TensorFlow's libraries, and a "spawn" child re-imports the parent's `__main__` (which usually
imports TensorFlow). Requests and replies travel over two pipes passed to the child by fd number
(see worker_protocol); the child's stdout and stderr go to a temporary file whose tail is quoted
when the worker crashes.

Failure policy: a call that raises in the runtime becomes `BackendRuntimeError` and the worker stays
usable. If the worker dies (signal, exit; during the call, or while idle before it) or does not
answer within `call_timeout`, the call raises `WorkerCrashedError` naming the driver, the function
and the signal; the module is then dead and
every later call raises `WorkerCrashedError` again, until `reset()` starts a fresh worker (a fresh
worker is exactly what `reset()` promises: initial variable values). Workers are stopped by
`close()`, by garbage collection of the module and at interpreter exit (the request pipe is closed,
the worker exits at once; after a grace period it is killed), so no worker outlives or blocks the
test process. A worker also exits by itself when its parent dies (its request pipe reaches EOF).
"""

import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union
import weakref

import numpy as np

from pyiree_tf_support.core import exit_status
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.runtime import worker_protocol
from pyiree_tf_support.runtime.call_errors import BackendRuntimeError
from pyiree_tf_support.runtime.call_errors import WorkerCrashedError

WORKER_MODULE = "pyiree_tf_support.runtime.worker_main"
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Seconds a worker gets to exit after its request pipe is closed before it is killed.
_EXIT_GRACE_SECONDS = 5.0
# Default seconds to start a worker and load a module (a cold disk cache can take ~20 s).
DEFAULT_START_TIMEOUT = timeouts.LOAD_SECONDS
_STDERR_TAIL_CHARS = 3000


# Overrides how long an idle worker keeps a device that spins (worker_main.idle_seconds):
# seconds, or "never"; unset or "auto" is the measured rule. For A/B measurements (bench/).
IDLE_RELEASE_ENV = "PYIREE_TF_SUPPORT_IDLE_RELEASE_SECONDS"


InvalidSettingError = faults.InvalidSettingError  # a malformed IDLE_RELEASE_ENV.


def idle_release_setting(value: Optional[str] = None) -> Optional[float]:
  """Fixed seconds an idle worker keeps its device (math.inf: never), or None for the measured
  rule; from `value` or else the IDLE_RELEASE_ENV environment variable."""
  text = (os.environ.get(IDLE_RELEASE_ENV, "") if value is None else value).strip()
  if text in ("", "auto"):
    return None
  if text == "never":
    return math.inf
  try:
    seconds = float(text)
  except ValueError:
    seconds = math.nan
  if not 0 <= seconds < math.inf:
    raise InvalidSettingError(f"{IDLE_RELEASE_ENV}={text!r} is not valid: give 'auto', a number "
                              "of seconds >= 0 or 'never'")
  return seconds


def worker_env(extra_env: Optional[Dict[str, str]] = None) -> Dict[str, str]:
  """The environment of a worker: ours plus `extra_env`, with this package first on PYTHONPATH."""
  env = dict(os.environ)
  if extra_env:
    env.update(extra_env)
  # The worker must import this very package, wherever it lives (checkout, Bazel runfiles, wheel).
  path = env.get("PYTHONPATH")
  env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + path if path else "")
  return env


def worker_command(*args: str) -> List[str]:
  """The command line of a worker interpreter with `args` for worker_main's main."""
  # -P: do not put the current directory first on sys.path (a local `numpy/` or `tensorflow/`
  # directory must not shadow anything); the package is found through PYTHONPATH instead.
  safe_path = ["-P"] if sys.version_info >= (3, 11) else []
  return [sys.executable, *safe_path, "-m", WORKER_MODULE, *args]


def _as_limit(timeout: Union[None, float, timeouts.Limit]) -> timeouts.Limit:
  return timeout if isinstance(timeout, timeouts.Limit) else timeouts.fixed(timeout)


def _close_quietly(*closeables: Any) -> None:
  for closeable in closeables:
    try:
      closeable.close()
    except OSError:
      pass


def _shutdown_process(popen: subprocess.Popen, requests: Any, replies: Any, stderr_file: Any,
                      grace: float) -> None:
  """Closes the request pipe (the worker then exits), waits `grace` s, kills it if needed, reaps
  it."""
  _close_quietly(requests)
  try:
    popen.wait(timeout=grace)
  except subprocess.TimeoutExpired:
    popen.kill()
    try:
      popen.wait(timeout=10)
    except subprocess.TimeoutExpired:
      pass
  _close_quietly(replies, stderr_file)


class _WorkerProcess:
  """One running worker interpreter and its pipes; reaped on shutdown, GC or interpreter exit."""

  def __init__(self, extra_env: Optional[Dict[str, str]] = None):
    self.stderr_file = tempfile.TemporaryFile(prefix="pyiree-worker-", suffix=".stderr")
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    try:
      self.popen = subprocess.Popen(
          worker_command("--serve", str(request_read), str(reply_write)),
          stdin=subprocess.DEVNULL,
          stdout=self.stderr_file,
          stderr=self.stderr_file,
          pass_fds=(request_read, reply_write),
          env=worker_env(extra_env))
    except BaseException:
      for fd in (request_write, reply_read):
        os.close(fd)
      self.stderr_file.close()
      raise
    finally:
      # The child's ends: once closed here, the parent sees EOF exactly when the worker goes away.
      os.close(request_read)
      os.close(reply_write)
    self.pid = self.popen.pid
    self.requests = worker_protocol.writer(request_write)
    self.replies = worker_protocol.reader(reply_read)
    self._finalizer = weakref.finalize(self, _shutdown_process, self.popen, self.requests,
                                       self.replies, self.stderr_file, _EXIT_GRACE_SECONDS)

  def send(self, message: Any) -> None:
    worker_protocol.send(self.requests, message)

  def receive(self, timeout: Optional[float]) -> Any:
    return worker_protocol.receive(self.replies, timeout)

  def wait_for_exit(self, timeout: float) -> Optional[int]:
    """The exit status once the worker is gone; None if it lingered and had to be killed."""
    try:
      return self.popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
      self.popen.kill()
      try:
        self.popen.wait(timeout=10)
      except subprocess.TimeoutExpired:
        pass
      return None

  def exit_status(self) -> Optional[int]:
    """How the worker ended (Popen.returncode), or None while it runs."""
    return self.popen.poll()

  def kill(self) -> None:
    if self.popen.poll() is None:
      self.popen.kill()

  def stderr_tail(self, limit: int = _STDERR_TAIL_CHARS) -> str:
    try:
      self.stderr_file.flush()
      size = self.stderr_file.seek(0, os.SEEK_END)
      self.stderr_file.seek(max(0, size - limit))
      return self.stderr_file.read().decode("utf-8", errors="replace").strip()
    except (OSError, ValueError):
      return ""

  def shutdown(self) -> None:
    self._finalizer()


# Workers started ahead of the module they will run (`start_spare`), by their environment
# without the variables that change while nothing about the worker does (pytest names the
# current test in one).
_spares: Dict[frozenset, _WorkerProcess] = {}
_spares_lock = threading.Lock()
_VOLATILE_ENV = ("PYTEST_CURRENT_TEST",)


def _spare_key(extra_env: Optional[Dict[str, str]]) -> frozenset:
  return frozenset((k, v) for k, v in worker_env(extra_env).items() if k not in _VOLATILE_ENV)


def start_spare(extra_env: Optional[Dict[str, str]] = None) -> None:
  """Starts a worker now, for the next WorkerModule with the same environment to take instead of
  starting its own: the interpreter's start and its import of IREE's runtime (~0.17 s) then
  overlap what the caller does meanwhile (the import from TF, compiles). One spare per
  environment; `discard_spares` stops the ones not taken."""
  key = _spare_key(extra_env)
  with _spares_lock:
    spare = _spares.get(key)
    if spare is None or spare.exit_status() is not None:
      _spares[key] = _WorkerProcess(extra_env)


def discard_spares() -> None:
  """Stops the spare workers no module took (e.g. its backend failed to compile)."""
  with _spares_lock:
    spares = list(_spares.values())
    _spares.clear()
  for spare in spares:
    spare.shutdown()


def _take_spare(extra_env: Optional[Dict[str, str]]) -> Optional[_WorkerProcess]:
  """The spare started for this environment, if it is still running (else None)."""
  with _spares_lock:
    spare = _spares.pop(_spare_key(extra_env), None)
  if spare is not None and spare.exit_status() is not None:
    spare.shutdown()
    return None
  return spare


class WorkerModule:
  """A compiled module run in its own TensorFlow-free worker process (required for Vulkan)."""

  def __init__(self,
               vmfb: bytes,
               driver: str,
               *,
               call_timeout: Union[None, float, timeouts.Limit] = None,
               start_timeout: Union[float, timeouts.Limit] = DEFAULT_START_TIMEOUT,
               extra_env: Optional[Dict[str, str]] = None,
               release_when_idle: bool = False):
    """Starts a worker and loads `vmfb` on `driver` there; raises BackendRuntimeError on failure.

    `call_timeout` (seconds, None = wait forever) bounds each call/reset; a worker that exceeds it
    is killed and reported as WorkerCrashedError, and the next `reset()` starts a fresh one.
    `start_timeout` bounds starting the worker and loading the module. Either may be a
    `timeouts.Limit` (scaled by the module's and inputs' size, its flag named in the error).
    `extra_env` adds environment variables for the
    worker (e.g. Vulkan loader settings). `release_when_idle`: on a driver that spins while idle
    (Vulkan), the worker gives the device up when idle (a fraction of a second) and carries the
    variables over through their get/set accessors; pass it only for modules whose whole mutable
    state has accessors (true of modules imported from TensorFlow; see in_process). How long
    "idle" is: worker_main.idle_seconds, or IDLE_RELEASE_ENV when set.
    """
    self.driver = driver
    self.function_names: Tuple[str, ...] = ()
    self._vmfb = bytes(vmfb)
    self._call_timeout = _as_limit(call_timeout)
    self._start_timeout = _as_limit(start_timeout)
    self._extra_env = dict(extra_env) if extra_env else None
    self._release_when_idle = release_when_idle
    self._fixed_idle_seconds = idle_release_setting() if release_when_idle else None
    self._lock = threading.RLock()
    self._process: Optional[_WorkerProcess] = None
    self._dead_reason: Optional[str] = None
    self._closed = False
    self._start()

  @property
  def pid(self) -> Optional[int]:
    """Process id of the current worker (None once closed or dead)."""
    process = self._process
    return process.pid if process is not None else None

  def call(self, function_name: str, flat_inputs: Sequence[Any]) -> List[np.ndarray]:
    """Runs `function_name` in the worker; returns its flat results ([] when it has none)."""
    inputs = [worker_protocol.plain_input(value) for value in flat_inputs]
    with self._lock:
      self._check_usable(f"call '{function_name}'")
      size = len(self._vmfb) + sum(getattr(value, "nbytes", 0) for value in inputs)
      return list(self._request(("call", function_name, inputs), f"call to '{function_name}'",
                                self._call_timeout, size))

  def reset(self) -> None:
    """Fresh state (initial variable values) without recompiling; restarts a dead worker."""
    with self._lock:
      if self._closed:
        raise BackendRuntimeError(f"{self._label()}: module is closed; cannot reset it")
      if self._process is None:
        self._dead_reason = None
        self._start()
      else:
        self._request(("reset",), "reset", self._call_timeout, len(self._vmfb))

  def close(self) -> None:
    """Stops the worker process (idempotent)."""
    with self._lock:
      self._closed = True
      self._stop_process()

  def __enter__(self) -> "WorkerModule":
    return self

  def __exit__(self, *exc_info: Any) -> None:
    self.close()

  def __repr__(self) -> str:
    state = "closed" if self._closed else ("dead" if self._process is None else f"pid {self.pid}")
    return f"<WorkerModule driver={self.driver!r} {state} functions={list(self.function_names)}>"

  def _label(self) -> str:
    return f"IREE driver '{self.driver}' (isolated worker)"

  def _start(self) -> None:
    self._process = _take_spare(self._extra_env) or _WorkerProcess(self._extra_env)
    try:
      reply = self._request(("load", self._vmfb, self.driver, self._release_when_idle,
                             self._fixed_idle_seconds),
                            "loading the module", self._start_timeout, len(self._vmfb))
    except BackendRuntimeError:
      self._stop_process()
      raise
    self.function_names = tuple(reply["function_names"])

  def _stop_process(self) -> None:
    process, self._process = self._process, None
    if process is not None:
      process.shutdown()

  def _check_usable(self, action: str) -> None:
    if self._closed:
      raise BackendRuntimeError(f"{self._label()}: module is closed; cannot {action}")
    if self._process is None:
      raise WorkerCrashedError(
          f"{self._dead_reason or 'the worker is gone'}. Cannot {action}: the module's worker is "
          "dead; call reset() to start a fresh worker (state restarts from initial values)")

  def _request(self, message: Any, what: str, limit: timeouts.Limit, size: int) -> Any:
    """Sends `message`, returns the answer's value; `limit` for work on `size` bytes."""
    process = self._process
    assert process is not None
    timeout = limit.seconds(size)
    deadline = None if timeout is None else time.monotonic() + timeout
    if process.exit_status() is not None:  # it died between requests.
      raise self._die(process, f"{self._label()}: worker process (pid {process.pid}) "
                      f"{exit_status.describe_exit(process.exit_status())} while idle (found "
                      f"before {what})")
    try:
      process.send(message)
      reply = process.receive(None if deadline is None else deadline - time.monotonic())
    except worker_protocol.ChannelClosed:
      returncode = process.wait_for_exit(_EXIT_GRACE_SECONDS)
      raise self._die(process, f"{self._label()}: worker process (pid {process.pid}) "
                      f"{exit_status.describe_exit(returncode)} during {what}") from None
    except worker_protocol.RefusedMessage as e:  # a whole reply was read: the worker is fine.
      raise worker_protocol.RefusedMessage(f"{self._label()}: the reply to {what} was refused: "
                                           f"{e}") from None
    except TimeoutError:
      process.kill()
      process.wait_for_exit(_EXIT_GRACE_SECONDS)
      raise self._die(process, f"{self._label()}: worker process (pid {process.pid}) did not "
                      f"answer {limit.explain(timeout)} during {what}; it was killed") from None
    except BaseException:
      # Interrupted mid-message (e.g. KeyboardInterrupt): the stream is out of sync; drop it.
      self._dead_reason = f"{self._label()}: worker was stopped after an interrupted {what}"
      self._stop_process()
      raise
    if reply[0] == "ok":
      return reply[1]
    _, error_type, error_message, _ = reply
    if error_type == worker_protocol.RefusedMessage.__name__:  # ours, not the runtime's.
      raise worker_protocol.RefusedMessage(
          f"{self._label()}: the worker refused the request for {what}: {error_message}")
    raise BackendRuntimeError(f"{self._label()}: {what} failed: {error_type}: {error_message}")

  def _die(self, process: _WorkerProcess, reason: str) -> WorkerCrashedError:
    """Marks the module dead, stops the worker; returns the error to raise."""
    tail = process.stderr_tail()
    self._dead_reason = reason
    self._stop_process()
    details = f"\n--- last worker stderr ---\n{tail}" if tail else ""
    return WorkerCrashedError(reason + details)
