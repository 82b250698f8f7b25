"""Runs compiled IREE modules in a separate Python process that never imports TensorFlow.

Why: TensorFlow and Mesa's lavapipe (the CPU Vulkan driver) cannot share a process (their bundled
LLVM symbols clash: segfault or hang). A `fork`ed child inherits TensorFlow's libraries and crashes
too, and a `multiprocessing` "spawn" child re-imports the parent's `__main__` script (which usually
imports TensorFlow). So the worker is a fresh interpreter:
`sys.executable -P -m pyiree_tf_support.runtime_worker`, which imports only numpy, iree.runtime and
this package's TensorFlow-free modules (`readback`, `runtime_errors`).

Protocol: one worker per module. The parent writes requests to the worker's stdin and reads replies
from its stdout; every message is an 8-byte big-endian length followed by a pickle of plain Python
and numpy values (no TensorFlow objects; both sides unpickle only numpy and builtins). Requests:
("load", vmfb, driver), ("call", name, inputs), ("reset",), ("close",). Replies: ("ok", value) or
("error", exception type, message, traceback). Inside the worker, fd 1 is redirected to stderr so
stray prints cannot corrupt the protocol; the worker's stderr goes to a temporary file whose tail is
quoted when the worker crashes.

Failure policy: a call that raises in the runtime becomes `BackendRuntimeError` and the worker stays
usable. If the worker dies (signal, exit) or does not answer within `call_timeout`, the call raises
`WorkerCrashedError` naming the driver, the function and the signal; the module is then dead and
every later call raises `WorkerCrashedError` again, until `reset()` starts a fresh worker (a fresh
worker is exactly what `reset()` promises: initial variable values). Workers are stopped by
`close()`, by garbage collection of the module and at interpreter exit (stdin is closed, the worker
exits at once; after a grace period it is killed), so no worker outlives or blocks the test process.
A worker also exits by itself when its parent dies (its stdin reaches EOF).
"""

import faulthandler
import io
import json
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import weakref
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support import readback
from pyiree_tf_support.runtime_errors import BackendRuntimeError, WorkerCrashedError

__all__ = [
    "BackendRuntimeError",
    "InProcessHost",
    "WorkerCrashedError",
    "WorkerModule",
    "driver_available",
    "probe_driver",
    "visible_function_names",
]

_MODULE_NAME = "pyiree_tf_support.runtime_worker"
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Functions IREE adds to every module that are not the user's: module initialisation/teardown and
# the accessors of each variable (`global$...$get` / `global$...$set`).
_HIDDEN_FUNCTIONS = frozenset(("__init", "__deinit"))
_HIDDEN_PREFIXES = ("global$",)

# Seconds a worker gets to exit after its stdin is closed before it is killed.
_EXIT_GRACE_SECONDS = 5.0
# Default seconds to start a worker and load a module (a cold disk cache can take ~20 s).
DEFAULT_START_TIMEOUT = 120.0
# Default seconds to wait for `driver_available`'s probe process.
DEFAULT_PROBE_TIMEOUT = 60.0
_STDERR_TAIL_CHARS = 3000
_PROBE_MARKER = "PYIREE_TF_SUPPORT_PROBE "


def visible_function_names(names: Iterable[str]) -> Tuple[str, ...]:
  """The user-visible exports among a VM module's function names (hides `__init`, `global$...`)."""
  return tuple(
      name for name in names
      if name not in _HIDDEN_FUNCTIONS and not name.startswith(_HIDDEN_PREFIXES))


class InProcessHost:
  """A vmfb loaded on an IREE driver in *this* process; what the worker runs for its module."""

  def __init__(self, vmfb: bytes, driver: str):
    """Creates the device (cached per driver by iree.runtime), loads the module and a context."""
    import iree.runtime as ireert  # pylint: disable=g-import-not-at-top
    self.driver = driver
    self._config = ireert.Config(driver)
    self._vm_module = ireert.VmModule.copy_buffer(self._config.vm_instance, vmfb)
    self._all_names = tuple(self._vm_module.function_names)
    self.function_names = visible_function_names(self._all_names)
    self._context = None
    self._functions: Dict[str, Any] = {}
    self.reset()

  def reset(self) -> None:
    """Starts a new SystemContext from the same VM module: variables get their initial values."""
    import iree.runtime as ireert  # pylint: disable=g-import-not-at-top
    self._functions = {}
    self._context = None
    self._context = ireert.SystemContext(vm_modules=[self._vm_module], config=self._config)

  def call(self, function_name: str, flat_inputs: Sequence[Any]) -> List[np.ndarray]:
    """Invokes an exported function; returns its results as a flat list of owned numpy arrays."""
    if self._context is None:
      raise RuntimeError("the module is closed")
    function = self._functions.get(function_name)
    if function is None:
      if function_name not in self._all_names:
        raise KeyError(f"no function '{function_name}' in the module; it exports "
                       f"{', '.join(self.function_names) or 'nothing'}")
      function = self._context.modules[self._vm_module.name][function_name]
      self._functions[function_name] = function
    result = function(*flat_inputs)
    return readback.results_to_numpy(result, self._config.device, self.driver)

  def close(self) -> None:
    """Drops the context and module references."""
    self._functions = {}
    self._context = None


# ----------------------------------------------------------------------------------------------
# Wire protocol.

_LENGTH = struct.Struct("!Q")
_ALLOWED_BUILTINS = frozenset(("complex", "bytearray", "slice", "range", "set", "frozenset"))


class _NumpyOnlyUnpickler(pickle.Unpickler):
  """Unpickles plain data and numpy values only, so nothing (e.g. TensorFlow) gets imported."""

  def find_class(self, module: str, name: str) -> Any:
    if module == "numpy" or module.startswith("numpy."):
      return super().find_class(module, name)
    if module == "builtins" and name in _ALLOWED_BUILTINS:
      return super().find_class(module, name)
    raise pickle.UnpicklingError(
        f"refusing to unpickle {module}.{name}: only numpy values cross the worker boundary")


class _ChannelClosed(Exception):
  """The other end of the pipe went away."""


def _encode(message: Any) -> bytes:
  payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
  return _LENGTH.pack(len(payload)) + payload


def _write_all(fd: int, data: bytes) -> None:
  view = memoryview(data)
  try:
    while view:
      written = os.write(fd, view)
      view = view[written:]
  except (BrokenPipeError, ConnectionResetError) as e:
    raise _ChannelClosed(str(e)) from e


def _read_exact(fd: int, size: int, deadline: Optional[float]) -> bytes:
  chunks = []
  remaining = size
  while remaining:
    if deadline is not None:
      wait = deadline - time.monotonic()
      if wait <= 0:
        raise TimeoutError
      ready, _, _ = select.select([fd], [], [], wait)
      if not ready:
        raise TimeoutError
    try:
      chunk = os.read(fd, min(remaining, 1 << 20))
    except InterruptedError:
      continue
    except (ConnectionResetError, OSError) as e:
      raise _ChannelClosed(str(e)) from e
    if not chunk:
      raise _ChannelClosed("end of stream")
    chunks.append(chunk)
    remaining -= len(chunk)
  return b"".join(chunks)


def _read_message(fd: int, deadline: Optional[float] = None) -> Any:
  (size,) = _LENGTH.unpack(_read_exact(fd, _LENGTH.size, deadline))
  payload = _read_exact(fd, size, deadline)
  return _NumpyOnlyUnpickler(io.BytesIO(payload)).load()


def _plain_input(value: Any) -> Any:
  """An input as a plain numpy value that pickles without importing anything but numpy."""
  if type(value) is np.ndarray or isinstance(value, np.generic) or type(value) in (bool, int, float):  # pylint: disable=unidiomatic-typecheck
    array = value
  else:
    array = np.asarray(value)  # e.g. a tf.Tensor or a numpy subclass.
  if isinstance(array, np.ndarray) and array.dtype.hasobject:
    raise TypeError(f"cannot pass an object array (dtype {array.dtype}) to an IREE function")
  return array


# ----------------------------------------------------------------------------------------------
# Parent side.


def _worker_env(extra_env: Optional[Dict[str, str]] = None) -> Dict[str, str]:
  env = dict(os.environ)
  if extra_env:
    env.update(extra_env)
  # The worker must import this very package, wherever it lives (checkout, Bazel runfiles, wheel).
  path = env.get("PYTHONPATH")
  env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + path if path else "")
  return env


def _worker_command(*args: str) -> List[str]:
  # -P: do not put the current directory first on sys.path (a local `numpy/` or `tensorflow/`
  # directory must not shadow anything); the package is found through PYTHONPATH instead.
  safe_path = ["-P"] if sys.version_info >= (3, 11) else []
  return [sys.executable, *safe_path, "-m", _MODULE_NAME, *args]


def _describe_exit(returncode: Optional[int]) -> str:
  if returncode is None:
    return "stopped answering"
  if returncode < 0:
    try:
      name = signal.Signals(-returncode).name
    except ValueError:
      name = f"signal {-returncode}"
    return f"was killed by signal {name} ({-returncode})"
  return f"exited with code {returncode}"


def _shutdown_process(popen: subprocess.Popen, stderr_file: Any, grace: float) -> None:
  """Closes the worker's stdin (it then exits), waits `grace` seconds, kills it if needed, reaps it."""
  try:
    if popen.stdin is not None:
      popen.stdin.close()
  except OSError:
    pass
  try:
    popen.wait(timeout=grace)
  except subprocess.TimeoutExpired:
    popen.kill()
    try:
      popen.wait(timeout=10)
    except subprocess.TimeoutExpired:
      pass
  for stream in (popen.stdout, stderr_file):
    try:
      if stream is not None:
        stream.close()
    except OSError:
      pass


class _WorkerProcess:
  """One running worker interpreter and its pipes; reaped on shutdown, GC or interpreter exit."""

  def __init__(self, extra_env: Optional[Dict[str, str]] = None):
    self.stderr_file = tempfile.TemporaryFile(prefix="pyiree-worker-", suffix=".stderr")
    self.popen = subprocess.Popen(
        _worker_command("--serve"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=self.stderr_file,
        bufsize=0,
        env=_worker_env(extra_env),
        close_fds=True)
    self.pid = self.popen.pid
    self._finalizer = weakref.finalize(self, _shutdown_process, self.popen, self.stderr_file,
                                       _EXIT_GRACE_SECONDS)

  def send(self, message: Any) -> None:
    _write_all(self.popen.stdin.fileno(), _encode(message))

  def receive(self, deadline: Optional[float]) -> Any:
    return _read_message(self.popen.stdout.fileno(), deadline)

  def wait_for_exit(self, timeout: float) -> Optional[int]:
    """The exit status once the worker is gone (killing it if it lingers)."""
    try:
      return self.popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
      self.popen.kill()
      try:
        self.popen.wait(timeout=10)
      except subprocess.TimeoutExpired:
        return None
      return None  # We killed it: it had not died by itself.

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

  @property
  def alive(self) -> bool:
    return self._finalizer.alive and self.popen.poll() is None


class WorkerModule:
  """A compiled module run in its own TensorFlow-free worker process (required for Vulkan)."""

  def __init__(self,
               vmfb: bytes,
               driver: str,
               *,
               call_timeout: Optional[float] = None,
               start_timeout: float = DEFAULT_START_TIMEOUT,
               extra_env: Optional[Dict[str, str]] = None):
    """Starts a worker and loads `vmfb` on `driver` there; raises BackendRuntimeError on failure.

    `call_timeout` (seconds, None = wait forever) bounds each call/reset; a worker that exceeds it
    is killed and reported as WorkerCrashedError. `extra_env` adds environment variables for the
    worker (e.g. Vulkan loader settings).
    """
    self.driver = driver
    self.function_names: Tuple[str, ...] = ()
    self._vmfb = bytes(vmfb)
    self._call_timeout = call_timeout
    self._start_timeout = start_timeout
    self._extra_env = dict(extra_env) if extra_env else None
    self._lock = threading.RLock()
    self._process: Optional[_WorkerProcess] = None
    self._dead_reason: Optional[str] = None
    self._closed = False
    self._start()

  # -- public protocol --------------------------------------------------------------------------

  @property
  def pid(self) -> Optional[int]:
    """Process id of the current worker (None once closed or dead)."""
    process = self._process
    return process.pid if process is not None else None

  def call(self, function_name: str, flat_inputs: Sequence[Any]) -> List[np.ndarray]:
    """Runs `function_name` in the worker; returns its flat results ([] when it has none)."""
    inputs = [_plain_input(value) for value in flat_inputs]
    with self._lock:
      self._check_usable(f"call '{function_name}'")
      return list(self._request(("call", function_name, inputs), f"call to '{function_name}'",
                                self._call_timeout))

  def reset(self) -> None:
    """Fresh state (initial variable values) without recompiling; restarts a dead worker."""
    with self._lock:
      if self._closed:
        raise BackendRuntimeError(f"{self._label()}: module is closed; cannot reset it")
      if self._process is None:
        self._dead_reason = None
        self._start()
      else:
        self._request(("reset",), "reset", self._call_timeout)

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

  # -- internals --------------------------------------------------------------------------------

  def _label(self) -> str:
    return f"IREE driver '{self.driver}' (isolated worker)"

  def _start(self) -> None:
    self._process = _WorkerProcess(self._extra_env)
    try:
      reply = self._request(("load", self._vmfb, self.driver), "loading the module",
                            self._start_timeout)
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

  def _request(self, message: Any, what: str, timeout: Optional[float]) -> Any:
    process = self._process
    assert process is not None
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
      process.send(message)
      reply = process.receive(deadline)
    except _ChannelClosed:
      returncode = process.wait_for_exit(_EXIT_GRACE_SECONDS)
      raise self._die(process, f"{self._label()}: worker process (pid {process.pid}) "
                f"{_describe_exit(returncode)} during {what}") from None
    except TimeoutError:
      process.kill()
      process.wait_for_exit(_EXIT_GRACE_SECONDS)
      raise self._die(process, f"{self._label()}: worker process (pid {process.pid}) did not answer "
                f"within {timeout:g} s during {what}; it was killed") from None
    except BaseException:
      # Interrupted mid-message (e.g. KeyboardInterrupt): the stream is out of sync; drop it.
      self._dead_reason = f"{self._label()}: worker was stopped after an interrupted {what}"
      self._stop_process()
      raise
    if reply[0] == "ok":
      return reply[1]
    _, error_type, error_message, _ = reply
    raise BackendRuntimeError(f"{self._label()}: {what} failed: {error_type}: {error_message}")

  def _die(self, process: _WorkerProcess, reason: str) -> WorkerCrashedError:
    """Marks the module dead, stops the worker; returns the error to raise."""
    tail = process.stderr_tail()
    self._dead_reason = reason
    self._stop_process()
    details = f"\n--- last worker stderr ---\n{tail}" if tail else ""
    return WorkerCrashedError(reason + details)


# ----------------------------------------------------------------------------------------------
# Driver availability.

_DRIVER_LABELS = {"vulkan": "Vulkan", "cuda": "CUDA", "hip": "HIP", "metal": "Metal"}
_availability_cache: Dict[str, Tuple[bool, str]] = {}
_availability_lock = threading.Lock()


def probe_driver(driver: str,
                 *,
                 timeout: float = DEFAULT_PROBE_TIMEOUT,
                 extra_env: Optional[Dict[str, str]] = None) -> Tuple[bool, str]:
  """Uncached check, in a fresh TF-free subprocess, whether `driver` can create a device."""
  name = driver.split("://", 1)[0]
  if name in readback.CPU_DRIVERS:
    return True, f"{name} is a CPU driver"
  label = _DRIVER_LABELS.get(name, f"'{name}'")
  try:
    completed = subprocess.run(
        _worker_command("--probe", driver),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_worker_env(extra_env),
        timeout=timeout,
        check=False)
  except subprocess.TimeoutExpired:
    return False, f"no {label} device: probing the driver did not finish within {timeout:g} s"
  except OSError as e:
    return False, f"no {label} device: could not start the probe process: {e}"
  for line in completed.stdout.decode("utf-8", errors="replace").splitlines():
    if line.startswith(_PROBE_MARKER):
      result = json.loads(line[len(_PROBE_MARKER):])
      if result["available"]:
        return True, result["reason"]
      return False, f"no {label} device: {result['reason']}"
  stderr_tail = completed.stderr.decode("utf-8", errors="replace").strip()[-_STDERR_TAIL_CHARS:]
  return False, (f"no {label} device: the probe process {_describe_exit(completed.returncode)}"
                 + (f": {stderr_tail}" if stderr_tail else ""))


def driver_available(driver: str, *, timeout: float = DEFAULT_PROBE_TIMEOUT) -> Tuple[bool, str]:
  """(available, reason) for an IREE driver; probed once per process, never in this process."""
  with _availability_lock:
    cached = _availability_cache.get(driver)
  if cached is not None:
    return cached
  result = probe_driver(driver, timeout=timeout)
  with _availability_lock:
    return _availability_cache.setdefault(driver, result)


# ----------------------------------------------------------------------------------------------
# Worker side.


def _tensorflow_leak() -> Optional[str]:
  if "tensorflow" in sys.modules:
    return ("tensorflow was imported in the runtime worker process; the worker must stay "
            "TensorFlow-free (lavapipe and TensorFlow cannot share a process)")
  return None


def _probe(driver: str) -> Dict[str, Any]:
  try:
    import iree.runtime as ireert  # pylint: disable=g-import-not-at-top
    name = driver.split("://", 1)[0]
    registered = list(ireert.HalDriver.query())
    if name not in registered:
      return {"available": False,
              "reason": f"driver '{name}' is not in this iree runtime (it has {', '.join(registered)})"}
    devices = ireert.get_driver(driver).query_available_devices()
    if not devices:
      return {"available": False, "reason": "the driver found no device"}
    ireert.get_device(driver)
    return {"available": True, "reason": str(devices[0].get("name", devices[0]))}
  except Exception as e:  # pylint: disable=broad-except
    return {"available": False, "reason": f"{type(e).__name__}: {e}"}


def _serve(in_fd: int, out_fd: int) -> None:
  host: Optional[InProcessHost] = None
  while True:
    try:
      message = _read_message(in_fd)
    except _ChannelClosed:
      return  # The parent closed our stdin (close(), GC, exit) or died.
    op = message[0]
    try:
      if op == "load":
        leak = _tensorflow_leak()
        if leak:
          raise RuntimeError(leak)
        host = InProcessHost(message[1], message[2])
        reply = ("ok", {"function_names": host.function_names, "pid": os.getpid()})
      elif op == "call":
        if host is None:
          raise RuntimeError("no module loaded")
        reply = ("ok", host.call(message[1], message[2]))
      elif op == "reset":
        if host is None:
          raise RuntimeError("no module loaded")
        host.reset()
        reply = ("ok", None)
      elif op == "close":
        _write_all(out_fd, _encode(("ok", None)))
        return
      else:
        raise ValueError(f"unknown request {op!r}")
      data = _encode(reply)
    except Exception as e:  # pylint: disable=broad-except
      data = _encode(("error", type(e).__name__, str(e), traceback.format_exc()))
    try:
      _write_all(out_fd, data)
    except _ChannelClosed:
      return


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Worker entry point: `--serve` (default) answers requests on stdin/stdout; `--probe DRIVER`."""
  args = list(sys.argv[1:] if argv is None else argv)
  faulthandler.enable()  # A crash prints the Python stack to stderr (the parent quotes its tail).
  signal.signal(signal.SIGINT, signal.SIG_IGN)  # The parent decides when we stop.
  # Keep the real stdout for the protocol; anything printed (Python or C) goes to stderr instead.
  out_fd = os.dup(1)
  os.dup2(2, 1)
  sys.stdout = sys.stderr
  if args[:1] == ["--probe"] and len(args) == 2:
    leak = _tensorflow_leak()
    result = {"available": False, "reason": leak} if leak else _probe(args[1])
    _write_all(out_fd, (_PROBE_MARKER + json.dumps(result) + "\n").encode("utf-8"))
    return 0
  if args and args != ["--serve"]:
    sys.stderr.write(f"usage: python -m {_MODULE_NAME} [--serve | --probe DRIVER]\n")
    return 2
  _serve(0, out_fd)
  return 0


if __name__ == "__main__":
  _exit_code = main()
  sys.stderr.flush()
  # Skip interpreter teardown: driver/device destructors have nothing left to flush, and a fast,
  # hang-free exit is what the parent's shutdown relies on.
  os._exit(_exit_code)  # pylint: disable=protected-access
