"""Entry point of the runtime worker: a fresh interpreter that runs one compiled module, no
TensorFlow.

Why a separate process: TensorFlow and Mesa's lavapipe (the CPU Vulkan driver) cannot share one
(their bundled LLVM symbols clash: segfault or hang). worker_client starts
`python -P -m pyiree_tf_support.runtime.runtime_worker --serve REQUEST_FD REPLY_FD` and talks to it
with worker_protocol; `--serve` alone serves on stdin and stdout; `--probe DRIVER` prints whether a
driver can create a device (drivers.probe_driver). This module and everything it imports
(runtime_host, readback, drivers, worker_client, worker_protocol, exit_status, runtime_errors,
timeouts) must never import TensorFlow; the worker refuses to load a module if something did.
"""

import faulthandler
import os
import signal
import sys
import traceback
from multiprocessing.connection import Connection
from typing import Any, Optional, Sequence

from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_protocol
from pyiree_tf_support.runtime.runtime_host import InProcessHost

# Seconds without a request after which a releasable host gives its device up (re-creating it
# costs ~0.35 s on lavapipe; calls of one trace come much closer together).
IDLE_RELEASE_SECONDS = 1.0
_USAGE = ("usage: python -m pyiree_tf_support.runtime.runtime_worker "
          "[--serve [REQUEST_FD REPLY_FD] | --probe DRIVER]")


def _tensorflow_leak() -> Optional[str]:
  if "tensorflow" in sys.modules:
    return ("tensorflow was imported in the runtime worker process; the worker must stay "
            "TensorFlow-free (lavapipe and TensorFlow cannot share a process)")
  return None


class _Session:
  """The worker's one module and the answers to requests about it."""

  def __init__(self) -> None:
    self.host: Optional[InProcessHost] = None

  def answer(self, message: Any) -> Any:
    op = message[0]
    if op == "load":
      leak = _tensorflow_leak()
      if leak:
        raise RuntimeError(leak)
      vmfb, driver, release_when_idle = message[1:4]
      releasable = release_when_idle and drivers.facts(driver).spins_when_idle
      # release_when_idle is the client's promise that all state has accessors (worker_client).
      self.host = InProcessHost(vmfb, driver, releasable=releasable,
                                all_state_in_accessors=releasable)
      return {"function_names": self.host.function_names, "pid": os.getpid()}
    if self.host is None:
      raise RuntimeError(f"no module loaded (got {op!r} before 'load')")
    if op == "call":
      return self.host.call(message[1], message[2])
    if op == "reset":
      self.host.reset()
      return None
    raise ValueError(f"unknown request {op!r}; valid: load, call, reset, close")


def _serve(requests: Connection, replies: Connection) -> None:
  session = _Session()
  while True:
    host = session.host
    if host is not None and host.holds_device and not requests.poll(IDLE_RELEASE_SECONDS):
      host.release()  # Idle: stop the driver's polling threads until the next request.
    try:
      message = worker_protocol.receive(requests)
    except worker_protocol.ChannelClosed:
      return  # The parent closed the request pipe (close(), GC, exit) or died.
    except Exception as e:  # pylint: disable=broad-except
      message = None
      reply = ("error", type(e).__name__, str(e), traceback.format_exc())
    else:
      if message[0] == "close":
        reply = ("ok", None)
      else:
        try:
          reply = ("ok", session.answer(message))
        except Exception as e:  # pylint: disable=broad-except
          reply = ("error", type(e).__name__, str(e), traceback.format_exc())
    try:
      worker_protocol.send(replies, reply)
    except worker_protocol.ChannelClosed:
      return
    if message is not None and message[0] == "close":
      return


def main(argv: Optional[Sequence[str]] = None) -> int:
  """Serves requests (`--serve`, the default) or probes a driver (`--probe DRIVER`)."""
  args = list(sys.argv[1:] if argv is None else argv)
  faulthandler.enable()  # A crash prints the Python stack to stderr (the parent quotes its tail).
  signal.signal(signal.SIGINT, signal.SIG_IGN)  # The parent decides when we stop.
  # Keep the real stdout for answers; anything printed (Python or C) goes to stderr instead.
  out_fd = os.dup(1)
  os.dup2(2, 1)
  sys.stdout = sys.stderr
  if args[:1] == ["--probe"] and len(args) == 2:
    leak = _tensorflow_leak()
    available, reason = (False, leak) if leak else drivers.probe_here(args[1])
    os.write(out_fd, drivers.probe_line(available, reason).encode("utf-8"))
    return 0
  if args in ([], ["--serve"]):
    request_fd, reply_fd = 0, out_fd
  elif args[:1] == ["--serve"] and len(args) == 3 and all(a.isdigit() for a in args[1:]):
    request_fd, reply_fd = int(args[1]), int(args[2])
    os.close(out_fd)
  else:
    sys.stderr.write(_USAGE + "\n")
    return 2
  _serve(worker_protocol.reader(request_fd), worker_protocol.writer(reply_fd))
  return 0


if __name__ == "__main__":
  _exit_code = main()
  sys.stderr.flush()
  # Skip interpreter teardown: driver/device destructors have nothing left to flush, and a fast,
  # hang-free exit is what the parent's shutdown relies on.
  os._exit(_exit_code)  # pylint: disable=protected-access
