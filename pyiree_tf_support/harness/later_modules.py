"""IREE's later (2020-11) modules record: a test sets `self._modules = compile_tf_module(M)` in
its `__init__` or `setUp` instead of decorating its class with `compile_module(M)`.

A `Modules` is a handle, not the compiled modules: the test class using it compiles M once per
process (its set-up is registered here while the class runs), and a record used outside such a
class sets M up itself on first use (closed at exit). A class of that API names its module only
by calling compile_tf_module, so its setUpClass builds one test and runs its `setUp` under
`requested_module`: the call then raises `ModulesRequested` instead of returning, and no test
code runs. Nothing here reads a flag: a record that sets itself up asks the settings source
the public module names (`settings_from`: tf_test_utils gives its flags' `run_settings`).
"""

import atexit
import dataclasses
from typing import Any, Callable, Dict, List, Tuple

from pyiree_tf_support import tf_utils
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup

Key = Tuple[Any, Tuple[str, ...]]  # (module class, normalized exported names)


class ModulesRequested(Exception):
  """Raised by compile_tf_module while a class is probed: which module it compiles."""

  def __init__(self, key: Key):
    super().__init__(key)
    self.key = key


class _Registry:
  """The set-ups of module classes by key: those of running test classes, and those records
  made outside one set up on first use; and whether a class is being probed."""

  def __init__(self):
    self.of_classes: Dict[Key, class_setup.ClassSetup] = {}
    self.standalone: Dict[Key, class_setup.ClassSetup] = {}
    self.probing = False
    self.run_settings: Callable[[], RunSettings] = RunSettings

  def close_standalone(self) -> None:
    for setup in self.standalone.values():
      for module in [setup.reference] + [t.module for t in setup.targets if t.module is not None]:
        module.close()
    self.standalone.clear()


_REGISTRY = _Registry()
atexit.register(_REGISTRY.close_standalone)


def settings_from(source: Callable[[], RunSettings]) -> None:
  """Where a record outside a test class gets the run's settings when it sets its module up."""
  _REGISTRY.run_settings = source


def probing() -> bool:
  """Whether setUpClass is building a test only to find the module its class compiles."""
  return _REGISTRY.probing


def request(key: Key) -> None:
  """compile_tf_module's first step: while a class is probed, says which module it compiles."""
  if _REGISTRY.probing:
    raise ModulesRequested(key)


def requested_module(case_class: type) -> Key:
  """The module a class of the later API compiles: one test is built and set up until its
  compile_tf_module call says which (a name unittest accepts without such a method)."""
  _REGISTRY.probing = True
  try:
    case_class("runTest").setUp()
  except ModulesRequested as requested:
    return requested.key
  finally:
    _REGISTRY.probing = False
  raise AttributeError(
      f"{case_class.__name__} has no module to compile: decorate it with "
      "@tf_test_utils.compile_module(YourModule), or set self._modules = "
      "tf_test_utils.compile_tf_module(YourModule) in its __init__ or setUp.")


def class_opened(key: Key, setup: class_setup.ClassSetup) -> None:
  """A test class set `key` up: records of it use the class's modules while it runs."""
  _REGISTRY.of_classes[key] = setup


def class_closed(key: Key, setup: class_setup.ClassSetup) -> None:
  if _REGISTRY.of_classes.get(key) is setup:
    del _REGISTRY.of_classes[key]


@dataclasses.dataclass(frozen=True)
class Modules:
  """IREE's later modules record (`compile_tf_module`): `ref_module`, `tar_modules` (the targets
  that compiled here) and `artifacts_dir`. It is a handle: the module is compiled by the test
  class that uses it (once per process), or on first use outside one."""
  module_class: Any
  exported_names: Tuple[str, ...] = ()

  def _setup(self) -> class_setup.ClassSetup:
    key = (self.module_class, self.exported_names)
    setup = _REGISTRY.of_classes.get(key) or _REGISTRY.standalone.get(key)
    if setup is None:
      setup = class_setup.set_up_class(self.module_class, self.exported_names,
                                      _REGISTRY.run_settings())
      _REGISTRY.standalone[key] = setup
    return setup

  @property
  def ref_module(self) -> tf_utils.CompiledModule:
    return self._setup().reference

  @property
  def tar_modules(self) -> List[tf_utils.CompiledModule]:
    return [t.module for t in self._setup().targets if t.module is not None]

  @property
  def artifacts_dir(self) -> str:
    return self._setup().artifacts_dir

  def __iter__(self):  # `ref, tars, artifacts_dir = modules`, as the later namedtuple allowed.
    return iter((self.ref_module, self.tar_modules, self.artifacts_dir))
