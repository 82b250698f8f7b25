"""A compiled module loaded on an IREE driver in *this* process.

Used directly for CPU drivers (runtime.InProcessModule) and inside the runtime worker process.
A host created `releasable` owns its device and can `release()` it while idle and re-create it on
the next call, carrying the module's variables across through IREE's `global$<name>$get/$set`
accessors. That is only complete when a module's mutable state is exactly its accessor-exposed
globals, as in every module imported from TensorFlow (each tf.Variable gets a get/set pair); the
caller vouches for it with `all_state_in_accessors`, which also lets a module without accessors (a
TF module without variables, most of them) be released after calls: it has no state to carry.
Without the vouch such a module keeps its device once called, as its globals may be private.
The host times what a release and the re-creation after it cost (`round_trip_seconds`), so that
the worker can weigh it against the cost of a live idle device.
TensorFlow-free.
"""

import gc
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.runtime import readback

# Functions IREE adds to every module that are not the user's: module initialisation/teardown and
# the accessors of each variable (`global$...$get` / `global$...$set`).
_HIDDEN_FUNCTIONS = frozenset(("__init", "__deinit"))
_HIDDEN_PREFIXES = ("global$",)


def visible_function_names(names: Iterable[str]) -> Tuple[str, ...]:
  """The user-visible exports among a VM module's function names (hides `__init`, `global$...`)."""
  return tuple(
      name for name in names
      if name not in _HIDDEN_FUNCTIONS and not name.startswith(_HIDDEN_PREFIXES))


def global_accessors(names: Iterable[str]) -> Tuple[Tuple[str, str], ...]:
  """(getter, setter) export pairs, one per global that has both."""
  names = set(names)
  return tuple(sorted(
      (name, name[:-len("$get")] + "$set") for name in names
      if name.startswith("global$") and name.endswith("$get")
      and name[:-len("$get")] + "$set" in names))


class InProcessHost:
  """A vmfb loaded on an IREE driver in this process; errors are the runtime's own exceptions."""

  def __init__(self, vmfb: bytes, driver: str, *, releasable: bool = False,
               all_state_in_accessors: bool = False):
    """Creates the device, loads the module and a context.

    The device is iree.runtime's per-driver cached one, unless `releasable`: then the host owns a
    device of its own so that `release()` can destroy it. `all_state_in_accessors`: the caller
    vouches that every mutable global has get/set accessors (true of TF imports).
    """
    self.driver = driver
    self._releasable = releasable
    self._all_state_in_accessors = all_state_in_accessors
    self._vmfb = bytes(vmfb) if releasable else b""
    self._config: Any = None
    self._vm_module: Any = None
    self._context: Any = None
    self._functions: Dict[str, Any] = {}
    self._closed = False
    self._pristine = True  # No call since the context was made: a new context has the same state.
    self._saved_globals: Optional[List[Tuple[str, np.ndarray]]] = None
    started = time.monotonic()
    self._acquire(vmfb)
    # Until a release happens, creating the device and context is the estimate of a round trip.
    self._acquire_seconds = time.monotonic() - started
    self._release_seconds = 0.0
    self._all_names = tuple(self._vm_module.function_names)
    self.function_names = visible_function_names(self._all_names)
    self._accessors = global_accessors(self._all_names)

  @property
  def holds_device(self) -> bool:
    """Whether the device and context are live (False once released or closed)."""
    return self._context is not None

  @property
  def round_trip_seconds(self) -> float:
    """Wall seconds the last release and re-creation took (saving and restoring state included)."""
    return self._release_seconds + self._acquire_seconds

  def reset(self) -> None:
    """Starts a new SystemContext from the same VM module: variables get their initial values."""
    self._check_open()
    self._saved_globals = None
    if self._context is None:
      return  # Released: the next call re-creates a fresh context, which is the reset state.
    self._new_context()

  def call(self, function_name: str, flat_inputs: Sequence[Any]) -> List[np.ndarray]:
    """Invokes an exported function; returns its results as a flat list of owned numpy arrays."""
    self._check_open()
    if self._context is None:
      self._reacquire()
    if function_name not in self._all_names:
      raise KeyError(f"no function '{function_name}' in the module; it exports "
                     f"{', '.join(self.function_names) or 'nothing'}")
    self._pristine = False
    return self._invoke(function_name, flat_inputs)

  def release(self) -> bool:
    """Destroys the device while idle, keeping the module's state; False if it cannot (kept)."""
    if not self._releasable or self._closed or self._context is None:
      return False
    started = time.monotonic()
    if not self._pristine:
      if not self._accessors and not self._all_state_in_accessors:
        return False
      try:
        saved = [(setter, self._invoke(getter, [])[0]) for getter, setter in self._accessors]
      except Exception:
        return False  # A global that cannot be read back: keep the device, and with it the state.
      self._saved_globals = saved
    self._drop()
    self._release_seconds = time.monotonic() - started
    return True

  def close(self) -> None:
    """Drops the context, module and (if owned) device references."""
    self._closed = True
    self._drop()

  def _check_open(self) -> None:
    if self._closed:
      raise RuntimeError("the module is closed")

  def _invoke(self, function_name: str, flat_inputs: Sequence[Any]) -> List[np.ndarray]:
    function = self._functions.get(function_name)
    if function is None:
      function = self._context.modules[self._vm_module.name][function_name]
      self._functions[function_name] = function
    result = function(*flat_inputs)
    return readback.results_to_numpy(result, self._config.device, self.driver)

  def _acquire(self, vmfb: bytes) -> None:
    import iree.runtime as ireert
    if self._releasable:
      self._config = ireert.Config(device=ireert.get_device(self.driver, cache=False))
    else:
      self._config = ireert.Config(self.driver)
    self._vm_module = ireert.VmModule.copy_buffer(self._config.vm_instance, vmfb)
    self._new_context()

  def _new_context(self) -> None:
    import iree.runtime as ireert
    self._functions = {}
    self._context = None
    self._context = ireert.SystemContext(vm_modules=[self._vm_module], config=self._config)
    self._pristine = True

  def _reacquire(self) -> None:
    started = time.monotonic()
    self._acquire(self._vmfb)
    saved, self._saved_globals = self._saved_globals, None
    for setter, value in saved or ():
      self._invoke(setter, [value])
    self._pristine = not saved
    self._acquire_seconds = time.monotonic() - started

  def _drop(self) -> None:
    self._functions = {}
    self._context = None
    self._vm_module = None
    self._config = None
    if self._releasable:
      gc.collect()  # The runtime's objects hold the device in reference cycles too.
