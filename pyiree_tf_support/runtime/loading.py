"""Running compiled modules: a small host interface with an in-process and an isolated host.

TensorFlow-free. The in-process host suits CPU drivers; the isolated host (a worker process that
never imports TensorFlow, see worker_client) is required for Vulkan and contains runtime crashes.
"""

from typing import Any, List, Mapping, Protocol, Sequence, Tuple

import numpy as np

from pyiree_tf_support.core import interrupts
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.runtime.call_errors import BackendRuntimeError

# Re-exported: replay asks loading.driver_available.
from pyiree_tf_support.runtime.drivers import driver_available as driver_available
from pyiree_tf_support.runtime.in_process import InProcessHost


class LoadedModule(Protocol):
  """A compiled module ready to call; what the rest of the library needs from a runtime host."""
  function_names: Tuple[str, ...]

  def call(self, function_name: str, flat_inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    ...

  def reset(self) -> None:
    ...

  def close(self) -> None:
    ...


class InProcessModule:
  """A module in a SystemContext of this process; runtime failures become BackendRuntimeError.

  A call cannot be stopped here (IREE's runtime has no cancellation): past `call_limit`, or
  GRACE_SECONDS after a Ctrl-C, the watchdog ends the process with a line saying why
  (`core/interrupts`), rather than let it hang; a worker module is killed instead."""

  def __init__(self, vmfb: bytes, driver: str,
               call_limit: timeouts.Limit = timeouts.DEFAULT.call):
    self.driver = driver
    self._host = InProcessHost(vmfb, driver)
    self._size = len(vmfb)
    self._call_limit = call_limit
    self.function_names: Tuple[str, ...] = self._host.function_names

  def call(self, function_name: str, flat_inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    seconds = self._call_limit.seconds(
        self._size + sum(getattr(value, "nbytes", 0) for value in flat_inputs))
    try:
      with interrupts.watched_call(f"call '{function_name}' of IREE driver '{self.driver}'",
                                   seconds, self._call_limit.explain(seconds or 0.0)):
        return self._host.call(function_name, flat_inputs)
    except Exception as e:  # the runtime raises ValueError/RuntimeError with its own message.
      raise BackendRuntimeError(
          f"IREE driver '{self.driver}': call to '{function_name}' failed: "
          f"{type(e).__name__}: {e}") from e

  def reset(self) -> None:
    self._host.reset()

  def close(self) -> None:
    self._host.close()


def call_function(loaded: LoadedModule, signature: FunctionSignature, module_name: str,
                  args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
  """Calls one function: inputs cast and flattened by its signature, results re-packed."""
  flat = signature.flatten_inputs(module_name, args, kwargs)
  return signature.pack_outputs(loaded.call(signature.name, flat))


def start_early(driver: str, *, isolated: bool = False) -> None:
  """Starts what loading a module for `driver` will need and can start before the module exists:
  the driver's availability probe and, for an isolated module, its worker process; both then
  overlap the caller's work (the import, the compiles)."""
  drivers.probe_soon(driver)
  if isolated:
    worker_client.start_spare()


def discard_early_starts() -> None:
  """Stops the workers `start_early` started that no module took."""
  worker_client.discard_spares()


def load_module(vmfb: bytes, driver: str, *, isolated: bool = False,
                limits: timeouts.Timeouts = timeouts.DEFAULT) -> LoadedModule:
  """Loads `vmfb` (a module imported from TensorFlow) for `driver`, here or in a TF-free worker.

  A worker releases an idle Vulkan device (TF modules keep all their state in variables, which
  the worker carries over; see in_process). `limits.load` and `limits.call` bound a worker's
  start and load, and each of its calls: past them it is killed. A call in this process cannot
  be stopped: past `limits.call` the process ends (see InProcessModule).
  """
  if isolated:
    return worker_client.WorkerModule(vmfb, driver, release_when_idle=True,
                                      start_timeout=limits.load, call_timeout=limits.call)
  return InProcessModule(vmfb, driver, limits.call)
