"""A compiled module loaded on an IREE driver in *this* process.

Used directly for CPU drivers (runtime.InProcessModule) and inside the runtime worker process.
TensorFlow-free.
"""

from typing import Any, Dict, Iterable, List, Sequence, Tuple

import numpy as np

from pyiree_tf_support import readback

# Functions IREE adds to every module that are not the user's: module initialisation/teardown and
# the accessors of each variable (`global$...$get` / `global$...$set`).
_HIDDEN_FUNCTIONS = frozenset(("__init", "__deinit"))
_HIDDEN_PREFIXES = ("global$",)


def visible_function_names(names: Iterable[str]) -> Tuple[str, ...]:
  """The user-visible exports among a VM module's function names (hides `__init`, `global$...`)."""
  return tuple(
      name for name in names
      if name not in _HIDDEN_FUNCTIONS and not name.startswith(_HIDDEN_PREFIXES))


class InProcessHost:
  """A vmfb loaded on an IREE driver in this process; errors are the runtime's own exceptions."""

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
