"""Running compiled modules: a small host interface with an in-process and an isolated host.

TensorFlow-free. The in-process host suits CPU drivers; the isolated host (a worker process that
never imports TensorFlow, see runtime_worker) is required for Vulkan and contains runtime crashes.
"""

from typing import Any, List, Mapping, Protocol, Sequence, Tuple

import numpy as np

from pyiree_tf_support import readback
from pyiree_tf_support.signatures import FunctionSignature
from pyiree_tf_support.runtime_errors import BackendRuntimeError, WorkerCrashedError  # pylint: disable=unused-import


def is_user_function(name: str) -> bool:
  """False for IREE's internal exports (`__init`, `global$...$get/$set`)."""
  return not (name.startswith("__") or name.startswith("global$"))


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
  """A module in a SystemContext of this process; reset() makes a new context from the same vmfb."""

  def __init__(self, vmfb: bytes, driver: str):
    import iree.runtime  # pylint: disable=import-outside-toplevel
    self._runtime = iree.runtime
    self.driver = driver
    self._vmfb = vmfb
    self._config = iree.runtime.Config(driver)
    self._context = None
    self._functions = None
    self.reset()
    self.function_names = tuple(
        name for name in self._vm_module.function_names if is_user_function(name))

  def reset(self) -> None:
    context = self._runtime.SystemContext(config=self._config)
    self._vm_module = self._runtime.VmModule.copy_buffer(context.instance, self._vmfb)
    context.add_vm_module(self._vm_module)
    self._context = context
    self._functions = context.modules[self._vm_module.name]

  def call(self, function_name: str, flat_inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    try:
      result = self._functions[function_name](*flat_inputs)
      return readback.results_to_numpy(result, self._config.device, self.driver)
    except Exception as e:  # the runtime raises ValueError/RuntimeError with its own message.
      raise BackendRuntimeError(
          f"Calling '{function_name}' on the IREE driver '{self.driver}' failed: "
          f"{type(e).__name__}: {e}") from e

  def close(self) -> None:
    self._functions = None
    self._context = None


def call_function(loaded: LoadedModule, signature: FunctionSignature, module_name: str,
                  args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
  """Calls one function: inputs cast and flattened by its signature, results re-packed."""
  flat = signature.flatten_inputs(module_name, args, kwargs)
  return signature.pack_outputs(loaded.call(signature.name, flat))


def load_module(vmfb: bytes, driver: str, *, isolated: bool = False) -> LoadedModule:
  """Loads `vmfb` for `driver`, in this process or in a TensorFlow-free worker process."""
  if isolated:
    from pyiree_tf_support.runtime_worker import WorkerModule  # pylint: disable=import-outside-toplevel
    return WorkerModule(vmfb, driver)
  return InProcessModule(vmfb, driver)


def driver_available(driver: str) -> Tuple[bool, str]:
  """(True, "") when this machine can run `driver`, else (False, the reason)."""
  if not readback.needs_staging(driver):
    return True, ""
  from pyiree_tf_support import runtime_worker  # pylint: disable=import-outside-toplevel
  return runtime_worker.driver_available(driver)
