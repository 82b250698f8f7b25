"""Entry point of the runtime worker: a fresh interpreter that runs one compiled module, no
TensorFlow.

Why a separate process: TensorFlow and Mesa's lavapipe (the CPU Vulkan driver) cannot share one
(their bundled LLVM symbols clash: segfault or hang). worker_client starts
`python -P -m pyiree_tf_support.runtime.worker_main --serve REQUEST_FD REPLY_FD` and talks to it
with worker_protocol; `--serve` alone serves on stdin and stdout; `--probe DRIVER` prints whether a
driver can create a device (drivers.probe_driver). This module and everything it imports
(in_process, readback, drivers, worker_client, worker_protocol, exit_status, call_errors,
timeouts) must never import TensorFlow; the worker refuses to load a module if something did.
"""

import faulthandler
import math
from multiprocessing.connection import Connection
import os
import signal
import sys
import traceback
from typing import Any, Optional, Sequence

from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_protocol
from pyiree_tf_support.runtime.in_process import InProcessHost

# How long a releasable host keeps an idle device. A live lavapipe device burns ~2 cores while
# idle (docs/vulkan_idle.md); giving it up and re-creating it on the next request costs what the
# host measured last time (round_trip_seconds: ~0.1 s for a small module). Releasing once idle
# for the time whose spinning costs as much CPU as a round trip wastes at most twice what the
# best choice in hindsight would (rent or buy), and keeps a burst of calls (one trace) on the
# live device. Bounded below, so that a gap between two calls of a trace does not release, and
# above by the one second the worker used to wait whatever the module.
MIN_IDLE_SECONDS = 0.1
MAX_IDLE_SECONDS = 1.0
_SPINNING_CORES = 2.0  # IREE's two queue completion threads poll, one core each.
_USAGE = ("usage: python -m pyiree_tf_support.runtime.worker_main "
          "[--serve [REQUEST_FD REPLY_FD] | --probe DRIVER]")


def idle_seconds(round_trip_seconds: float, fixed: Optional[float] = None) -> float:
  """Seconds without a request before an idle device is released; `fixed` overrides the rule
  (worker_client.idle_release_setting; math.inf: never)."""
  if fixed is not None:
    return fixed
  return min(MAX_IDLE_SECONDS, max(MIN_IDLE_SECONDS, round_trip_seconds / _SPINNING_CORES))


def _tensorflow_leak() -> Optional[str]:
  if "tensorflow" in sys.modules:
    return ("tensorflow was imported in the runtime worker process; the worker must stay "
            "TensorFlow-free (lavapipe and TensorFlow cannot share a process)")
  return None


class _Session:
  """The worker's one module and the answers to requests about it."""

  def __init__(self) -> None:
    self.host: Optional[InProcessHost] = None
    self.fixed_idle_seconds: Optional[float] = None

  def idle_seconds(self) -> Optional[float]:
    """Seconds to wait for a request before releasing the device; None: nothing to release."""
    host = self.host
    if host is None or not host.holds_device:
      return None
    seconds = idle_seconds(host.round_trip_seconds, self.fixed_idle_seconds)
    return None if seconds == math.inf else seconds

  def answer(self, message: Any) -> Any:
    op = message[0]
    if op == "load":
      leak = _tensorflow_leak()
      if leak:
        raise RuntimeError(leak)
      vmfb, driver, release_when_idle, self.fixed_idle_seconds = message[1:5]
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
  # Every module load needs IREE's runtime: imported before the first request, so that a worker
  # started ahead of its module (worker_client.start_spare) has it ready when the module comes.
  import iree.runtime  # noqa: F401
  session = _Session()
  while True:
    idle = session.idle_seconds()
    if idle is not None and session.host is not None and not requests.poll(idle):
      session.host.release()  # Idle: stop the driver's polling threads until the next request.
    try:
      message = worker_protocol.receive(requests)
    except worker_protocol.ChannelClosed:
      return  # The parent closed the request pipe (close(), GC, exit) or died.
    except Exception as e:
      message = None
      reply = ("error", type(e).__name__, str(e), traceback.format_exc())
    else:
      if message[0] == "close":
        reply = ("ok", None)
      else:
        try:
          reply = ("ok", session.answer(message))
        except Exception as e:
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
  os._exit(_exit_code)
