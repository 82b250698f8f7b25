"""Facts about IREE runtime drivers, and whether this machine can run one: decided here only.

A driver string may carry a device (`vulkan://0`); every fact is keyed by the driver's name. CPU
drivers keep buffers in host memory: `DeviceArray.to_host()` works and they are always available.
Every other driver reads results through staging buffers (see readback) and is probed once per
process, in a fresh TensorFlow-free interpreter (a Vulkan device must never be created next to
TensorFlow; see worker_main).

TensorFlow-free: the worker process imports it.
"""

import concurrent.futures
import dataclasses
import json
import subprocess
import threading
from typing import Any, Dict, Optional, Tuple

from pyiree_tf_support.core import exit_status
from pyiree_tf_support.runtime import worker_client

# Default seconds to wait for a probe process.
DEFAULT_PROBE_TIMEOUT = 60.0
# Prefixes the probe's one result line, so stray output of the driver cannot be mistaken for it.
PROBE_MARKER = "PYIREE_TF_SUPPORT_PROBE "
_STDERR_TAIL_CHARS = 3000


@dataclasses.dataclass(frozen=True)
class DriverFacts:
  """What the library needs to know about one driver."""
  name: str
  label: str  # How messages name it ("no Vulkan device").
  is_cpu: bool  # Buffers in host memory: to_host() works, nothing to probe.
  # A live device burns CPU while idle: lavapipe polls in the wait of IREE's queue completion
  # threads (~2 cores), so a worker releases it between calls when the module allows.
  spins_when_idle: bool = False

  @property
  def needs_staging(self) -> bool:
    """Whether results must be read through a host-visible staging buffer."""
    return not self.is_cpu


DRIVERS: Tuple[DriverFacts, ...] = (
    DriverFacts("local-task", "local-task", is_cpu=True),
    DriverFacts("local-sync", "local-sync", is_cpu=True),
    DriverFacts("vulkan", "Vulkan", is_cpu=False, spins_when_idle=True),
    DriverFacts("cuda", "CUDA", is_cpu=False),
    DriverFacts("hip", "HIP", is_cpu=False),
    DriverFacts("metal", "Metal", is_cpu=False),
)
_BY_NAME = {facts.name: facts for facts in DRIVERS}


def driver_name(driver: str) -> str:
  """The driver's name without a device part: `vulkan` for `vulkan://0`."""
  return driver.split("://", 1)[0]


def facts(driver: str) -> DriverFacts:
  """The facts of `driver`; a driver not in the table is treated as a device driver to probe."""
  name = driver_name(driver)
  known = _BY_NAME.get(name)
  return known if known is not None else DriverFacts(name, f"'{name}'", is_cpu=False)


# ----------------------------------------------------------------------------------------------
# Availability.

# One probe per driver and process: its result, or the probe still running (a second caller
# waits for it instead of starting another).
_probes: Dict[str, "concurrent.futures.Future[Tuple[bool, str]]"] = {}
_probes_lock = threading.Lock()


def _claim_probe(driver: str) -> Tuple["concurrent.futures.Future[Tuple[bool, str]]", bool]:
  """The driver's probe, and whether this caller must run it (no probe was started before)."""
  with _probes_lock:
    future = _probes.get(driver)
    if future is not None:
      return future, False
    future = _probes[driver] = concurrent.futures.Future()
    return future, True


def _run_probe(driver: str, future: "concurrent.futures.Future[Tuple[bool, str]]",
               timeout: float) -> None:
  try:
    future.set_result(probe_driver(driver, timeout=timeout))
  except BaseException as e:  # the waiting caller raises it.
    future.set_exception(e)


def driver_available(driver: str, *, timeout: float = DEFAULT_PROBE_TIMEOUT) -> Tuple[bool, str]:
  """(available, reason) for `driver`; probed once per process, never in this process. A probe
  already running (`probe_soon`) is waited for."""
  future, mine = _claim_probe(driver)
  if mine:
    _run_probe(driver, future, timeout)
  return future.result()


def probe_soon(driver: str, *, timeout: float = DEFAULT_PROBE_TIMEOUT) -> None:
  """Starts probing `driver` on a background thread unless it was probed or is being probed, so
  that the probe (a fresh interpreter creating a device: ~0.15 s alone, ~0.5 s beside compiles)
  overlaps other work; `driver_available` then waits for its result. CPU drivers need no probe."""
  if facts(driver).is_cpu:
    return
  future, mine = _claim_probe(driver)
  if mine:
    threading.Thread(target=_run_probe, args=(driver, future, timeout), daemon=True,
                     name=f"probe {driver}").start()


def probe_driver(driver: str,
                 *,
                 timeout: float = DEFAULT_PROBE_TIMEOUT,
                 extra_env: Optional[Dict[str, str]] = None) -> Tuple[bool, str]:
  """Uncached check, in a fresh TF-free worker interpreter, whether `driver` can create a device."""
  driver_facts = facts(driver)
  if driver_facts.is_cpu:
    return True, f"{driver_facts.name} is a CPU driver"
  no_device = f"no {driver_facts.label} device"
  try:
    completed = subprocess.run(
        worker_client.worker_command("--probe", driver),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=worker_client.worker_env(extra_env),
        timeout=timeout,
        check=False)
  except subprocess.TimeoutExpired:
    return False, f"{no_device}: probing the driver did not finish within {timeout:g} s"
  except OSError as e:
    return False, f"{no_device}: could not start the probe process: {e}"
  for line in completed.stdout.decode("utf-8", errors="replace").splitlines():
    if line.startswith(PROBE_MARKER):
      result = json.loads(line[len(PROBE_MARKER):])
      if result["available"]:
        return True, result["reason"]
      return False, f"{no_device}: {result['reason']}"
  stderr_tail = completed.stderr.decode("utf-8", errors="replace").strip()[-_STDERR_TAIL_CHARS:]
  return False, (f"{no_device}: the probe process {exit_status.describe_exit(completed.returncode)}"
                 + (f": {stderr_tail}" if stderr_tail else ""))


def probe_line(available: bool, reason: str) -> str:
  """The line a probe process prints for `probe_driver` to find."""
  return PROBE_MARKER + json.dumps({"available": available, "reason": reason}) + "\n"


def probe_here(driver: str) -> Tuple[bool, str]:
  """Whether `driver` can create a device in *this* process (run only inside a probe process)."""
  try:
    import iree.runtime as ireert
    name = driver_name(driver)
    registered = list(ireert.HalDriver.query())
    if name not in registered:
      return False, f"driver '{name}' is not in this iree runtime (it has {', '.join(registered)})"
    devices: Any = ireert.get_driver(driver).query_available_devices()
    if not devices:
      return False, "the driver found no device"
    ireert.get_device(driver)
    return True, str(devices[0].get("name", devices[0]))
  except Exception as e:
    return False, f"{type(e).__name__}: {e}"
