"""Public API for compiling and running tf.Modules on TensorFlow and IREE backends.

Thin glue over `backends` (the table), `importer` (TF -> MLIR), `compiler` (iree-compile and its
cache), `runtime` (running .vmfb files) and `artifacts` (file layout). Over ~300 lines because it
is 2020's `tf_utils` surface in one place (helpers, BackendInfo, the compiled module classes), which
users' files import by that name.
"""

import concurrent.futures
import inspect
import os
import random
import threading
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from absl import logging
import numpy as np
from pyiree_tf_support import verbosity
verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf  # pylint: disable=g-import-not-at-top,wrong-import-position

from pyiree_tf_support import artifacts
from pyiree_tf_support import backends
from pyiree_tf_support import cli_flags
from pyiree_tf_support import compiler
from pyiree_tf_support import importer
from pyiree_tf_support import method_compiles
from pyiree_tf_support import method_imports
from pyiree_tf_support import runtime
from pyiree_tf_support import saved_models
from pyiree_tf_support import structure
from pyiree_tf_support import timeouts
from pyiree_tf_support.compile_cache import CompileCache
from pyiree_tf_support.signatures import FunctionSignature, signatures_to_json

ModuleClass = Union[type, Callable[[], tf.Module]]

FLAGS = cli_flags.FLAGS  # 2020 code reads tf_utils.FLAGS.


def set_random_seed(seed: int = 0) -> None:
  """Sets the seed of TensorFlow, numpy and random, so every backend sees the same inputs."""
  tf.random.set_seed(seed)
  np.random.seed(seed)
  random.seed(seed)


class ModuleConstructionError(RuntimeError):
  """The user's module class (or factory) raised; the cause keeps its traceback."""


def _instantiate(module_class: ModuleClass) -> tf.Module:
  """Builds the user's module with the seed set first, as 2020 did, so that weights drawn from
  tf.random or np.random in __init__ are the same on every backend (and in the import)."""
  set_random_seed()
  try:
    return module_class()
  except Exception as e:
    raise ModuleConstructionError(
        f"Constructing module '{module_name_of(module_class)}' raised {type(e).__name__}: {e}"
    ) from e



def uniform(shape: Sequence[int], dtype: np.dtype = np.float32) -> np.ndarray:
  """Random values in [0, 1) of `shape` and `dtype`."""
  return np.random.uniform(size=shape).astype(dtype)


def ndarange(shape: Sequence[int], dtype: np.dtype = np.float32) -> np.ndarray:
  """0, 1, 2, ... reshaped to `shape`."""
  return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


def to_mlir_type(dtype: np.dtype) -> str:
  """The MLIR element type of a numpy dtype (float32 -> f32, int8 -> i8, bool -> i1)."""
  dtype = np.dtype(dtype)
  if dtype == np.bool_:
    return "i1"
  if dtype.kind == "f":
    return f"f{dtype.itemsize * 8}"
  if dtype.kind in "iu":
    return f"i{dtype.itemsize * 8}"
  if dtype.kind == "c":
    return f"complex<f{dtype.itemsize * 4}>"
  raise TypeError(f"Expected a numeric or bool dtype, got {dtype}.")


def get_shape_and_dtype(array: np.ndarray, allow_non_mlir_dtype: bool = False) -> str:
  """A short description like '2x3xf32' (or '2x3xstr' with allow_non_mlir_dtype)."""
  array = np.asarray(array)
  shape_dtype = [str(size) for size in array.shape]
  try:
    shape_dtype.append(to_mlir_type(array.dtype))
  except TypeError:
    if not allow_non_mlir_dtype:
      raise
    shape_dtype.append(str(array.dtype))
  return "x".join(shape_dtype)


def save_input_values(inputs: Sequence[np.ndarray], artifacts_dir: Optional[str] = None) -> str:
  """The inputs in IREE's tool format, one `2x3xf32=1.0 2.0 ...` line per array.

  With `artifacts_dir`, also writes them to <artifacts_dir>/inputs.txt (newline-terminated).
  """
  lines = []
  for array in inputs:
    array = np.asarray(array)
    values = " ".join(str(value) for value in array.flatten())
    lines.append(f"{get_shape_and_dtype(array)}={values}")
  text = "\n".join(lines)
  if artifacts_dir is not None:
    path = os.path.join(artifacts_dir, "inputs.txt")
    logging.info("Saving IREE input values to: %s", path)
    artifacts.write_text(path, text + "\n")
  return text


def module_name_of(module_class: ModuleClass) -> str:
  """The name of a module class or factory function, safe as a directory name."""
  return artifacts.safe_name(getattr(module_class, "__name__", type(module_class).__name__))


def module_identity(module_class: ModuleClass) -> str:
  """Tells apart two module classes with the same name: defining file's path and qualified name."""
  try:
    source = inspect.getsourcefile(module_class) or ""
    source = os.path.abspath(source) if source else ""
  except TypeError:
    source = ""
  return f"{source}:{getattr(module_class, '__qualname__', module_name_of(module_class))}"


class BackendInfo:
  """A backend from the table, with the name its artifacts and traces use (`name`).

  `run_in_worker` asks for a TF-free worker process for an IREE backend (Vulkan always uses
  one); it is passed in by whoever reads the flags, so that building one reads no flag.
  """

  def __init__(self, backend_name: str, artifact_name: Optional[str] = None,
               run_in_worker: bool = False):
    self._spec = backends.lookup(backend_name)
    self.backend_name = backend_name
    self.name = backend_name if artifact_name is None else artifact_name
    self.driver = self._spec.driver
    self.compiler_targets = list(self._spec.compiler_targets)
    self.compiler_flags = list(self._spec.compiler_flags)
    self.isolated = self._spec.isolated or (self.is_iree and run_in_worker)

  @property
  def artifact_name(self) -> str:
    """The same as `name` (kept for callers of earlier versions of this port)."""
    return self.name

  @property
  def spec(self) -> backends.BackendSpec:
    return self._spec

  @property
  def is_iree(self) -> bool:
    return self._spec.is_iree

  def names(self) -> Tuple[str, ...]:
    """Names this backend is known by, most specific first (for tolerance overrides)."""
    return tuple(dict.fromkeys([self.name, self.backend_name, self._spec.name]))

  def available(self) -> Tuple[bool, str]:
    """Whether this machine can run the backend, and why not."""
    if not self.is_iree:
      return True, ""
    return runtime.driver_available(self.driver)

  def compile(self, module: ModuleClass, exported_names: Sequence[str] = (),
              artifacts_dir: Optional[str] = None,
              compile_cache: Optional[CompileCache] = None,
              each_method_on_failure: bool = False,
              limits: timeouts.Timeouts = timeouts.DEFAULT) -> "CompiledModule":
    """Compiles `module` (a tf.Module class or factory) for this backend.

    `compile_cache` is the on-disk cache to read and fill (None: compile without one).
    `limits`: how long iree-compile, loading the module into a worker and each call there may
    take (`timeouts`; the test case passes --compile_timeout, --load_timeout, --call_timeout).
    `each_method_on_failure`: when the whole module does not compile, compile each method alone
    and keep those that do (`IreeCompiledModule.method_compiles` says which); calling one that
    did not raises `MethodNotCompiledError`. Without it a failure raises CompileError, as in 2020.
    The same holds for the import: when the whole module does not import, the functions that
    import alone are compiled (`method_imports`; a call of another raises
    `MethodNotImportedError`); without it the import error is raised.
    """
    exported_names = importer.normalize_exported_names(exported_names)
    if self.is_iree:
      return IreeCompiledModule(module, self, exported_names, artifacts_dir,
                                compile_cache=compile_cache,
                                each_method_on_failure=each_method_on_failure, limits=limits)
    return TfCompiledModule(module, self, exported_names, artifacts_dir)

  @classmethod
  def get_all_backends(cls, run_in_worker: bool = False) -> list:
    """One BackendInfo per backend in the table, named as in 2020 (tf, iree_vmla, iree_llvmjit,
    iree_vulkan) so that a default run and a run naming those backends share artifact names."""
    return [cls(spec.e2e_name, run_in_worker=run_in_worker) for spec in backends.BACKENDS]

  def __repr__(self) -> str:
    return f"BackendInfo({self.backend_name!r}, artifact_name={self.artifact_name!r})"


def backends_to_str(backend_infos: Sequence[BackendInfo]) -> str:
  """Names normalized to [0-9a-zA-Z_], stripped of '_', joined by '__'."""
  return artifacts.backends_to_str(info.name for info in backend_infos)


# --- Import once per module per process -------------------------------------------------------

_process_cache_lock = threading.Lock()
_imports: Dict[Tuple[Any, Tuple[str, ...]], importer.ImportedModule] = {}
_saved_import_dirs: Dict[Tuple[Any, Tuple[str, ...]], set] = {}
# One instance per module class built for TF, to explain names that are not exported.
_reference_instances: Dict[Any, tf.Module] = {}
# One compilation per distinct request per process: duplicate backends share it.
_compiles: Dict[str, concurrent.futures.Future] = {}


def _import_module(module: tf.Module, module_name: str, exported_names: Sequence[str],
                   artifacts_dir: Optional[str],
                   keep_saved_model_at: Sequence[str] = ()) -> importer.ImportedModule:
  imported = importer.import_module(module, module_name, exported_names, keep_saved_model_at)
  _save_import_artifacts(imported, artifacts_dir)
  imported.check()
  return imported


def _save_import_artifacts(imported: importer.ImportedModule, artifacts_dir: Optional[str]) -> None:
  if artifacts_dir is not None:
    # tf_input.mlir is for people (weights elided); iree_input.mlir stays whole: replay, repro
    # and the compile cache load it.
    artifacts.write_text(os.path.join(artifacts_dir, "tf_input.mlir"),
                         importer.elide_large_constants(imported.tf_input))
    artifacts.write_text(os.path.join(artifacts_dir, "iree_input.mlir"), imported.iree_input)
    artifacts.write_text(artifacts.signatures_path(artifacts_dir),
                         signatures_to_json(imported.signatures))


def import_module_class(module_class: ModuleClass, exported_names: Sequence[str] = (),
                        artifacts_dir: Optional[str] = None,
                        keep_saved_model_at: Sequence[str] = (),
                        each_function_on_failure: bool = False) -> importer.ImportedModule:
  """Imports a module class once per process and exported names; later calls reuse the result.

  `each_function_on_failure`: a module whose whole import failed but some of whose functions
  import alone is returned holding those (else its import error is raised, as in 2020). The
  per-function import is done (and cached) either way, so both kinds of caller share it.
  """
  exported_names = importer.normalize_exported_names(exported_names)
  key = (module_class, exported_names)
  with _process_cache_lock:
    imported = _imports.get(key)
    if imported is None:
      imported = importer.import_module(_instantiate(module_class), module_name_of(module_class),
                                        exported_names, keep_saved_model_at,
                                        each_function_on_failure=True)
      if imported.method_imports is not None:
        logging.warning("%s", imported.method_imports.describe())
      _imports[key] = imported
      _saved_import_dirs[key] = set()
    if artifacts_dir is not None and artifacts_dir not in _saved_import_dirs[key]:
      _save_import_artifacts(imported, artifacts_dir)
      _saved_import_dirs[key].add(artifacts_dir)
    for path in keep_saved_model_at:  # the import ran earlier, for another backend.
      if not os.path.exists(path):
        saved_models.save(_instantiate(module_class), path)
  imported.check(partial=each_function_on_failure)
  return imported


def _known_signatures(module_class: ModuleClass,
                      exported_names: Sequence[str]) -> Optional[Dict[str, FunctionSignature]]:
  """The signatures this process's import already traced, so TF need not trace them twice."""
  with _process_cache_lock:
    imported = _imports.get((module_class, tuple(exported_names)))
  return None if imported is None else imported.signatures


def _keep_saved_model_at(artifacts_dir: Optional[str], backends_str: str) -> Tuple[str, ...]:
  if artifacts_dir is None or not cli_flags.value("keep_saved_model"):
    return ()
  return (artifacts.saved_model_path(artifacts_dir, backends_str),)


def _compile_once(request: compiler.CompileRequest, description: str,
                  reproducer: Optional[str], cache: Optional[CompileCache],
                  limit: timeouts.Limit) -> bytes:
  """Compiles `request` once per process: a second backend asking for it waits for the first.

  An interrupted compile is forgotten (its waiters see the interrupt), so a later one runs again.
  """
  key = request.key()  # outside the lock: it hashes the whole input.
  with _process_cache_lock:
    future = _compiles.get(key)
    owner = future is None
    if owner:
      future = _compiles[key] = concurrent.futures.Future()
  if owner:
    try:
      future.set_result(compiler.compile_request(request, description, reproducer, cache, key,
                                                 limit))
    except BaseException as e:
      if not isinstance(e, compiler.CompileError):
        with _process_cache_lock:
          _compiles.pop(key, None)
      future.set_exception(e)
  else:
    logging.debug("Reusing this process's compilation of %s.", description)
  return future.result()


def _request_for(imported: importer.ImportedModule,
                 backend_infos: Sequence[BackendInfo]) -> compiler.CompileRequest:
  targets = tuple(t for info in backend_infos for t in info.compiler_targets)
  flags = tuple(dict.fromkeys(f for info in backend_infos for f in info.compiler_flags))
  return compiler.CompileRequest(imported.iree_input, targets, flags)


def _compile_imported(imported: importer.ImportedModule, backend_infos: Sequence[BackendInfo],
                      artifacts_dir: Optional[str], cache: Optional[CompileCache],
                      limit: timeouts.Limit) -> bytes:
  names = backends_to_str(backend_infos)
  reproducer = None if artifacts_dir is None else artifacts.reproducer_path(artifacts_dir, names)
  description = f"module '{imported.module_name}' for backend(s) {names}"
  vmfb = _compile_once(_request_for(imported, backend_infos), description, reproducer, cache,
                       limit)
  if artifacts_dir is not None:
    artifacts.write_bytes(artifacts.compiled_path(artifacts_dir, names), vmfb)
  return vmfb


def _compile_each_method(imported: importer.ImportedModule, backend_info: BackendInfo,
                         artifacts_dir: Optional[str], cache: Optional[CompileCache],
                         module_error: compiler.CompileError, limit: timeouts.Limit
                         ) -> Tuple[bytes, method_compiles.MethodCompiles]:
  """After `module_error`: the binary of the methods that compile alone (saved where the whole
  module's would be), and which do not; CompileError listing them all when none compiles."""
  names = backends_to_str([backend_info])
  vmfb, record = method_compiles.compile_each_method(
      _request_for(imported, [backend_info]), module_error, backend_info.name,
      f"module '{imported.module_name}' for backend(s) {names}",
      lambda request, description, reproducer: _compile_once(request, description, reproducer,
                                                             cache, limit),
      lambda method: None if artifacts_dir is None else artifacts.reproducer_path(
          artifacts_dir, f"{names}.{method}"))
  if vmfb is None:
    raise compiler.CompileError(f"{module_error}\n{record.describe()}", module_error.reproducer_path,
                                module_error.reason, module_error.methods) from module_error
  logging.warning("%s", record.describe())
  if artifacts_dir is not None:
    artifacts.write_bytes(artifacts.compiled_path(artifacts_dir, names), vmfb)
  return vmfb, record


def compile_tf_module(tf_module: tf.Module, backend_infos: Sequence[BackendInfo] = (),
                      exported_names: Sequence[str] = (),
                      artifacts_dir: Optional[str] = None,
                      compile_cache: Optional[CompileCache] = None,
                      compile_timeout: timeouts.Limit = timeouts.DEFAULT.compile) -> bytes:
  """Compiles a tf.Module instance for the IREE backends `backend_infos`, returning the vmfb.

  Saves tf_input.mlir, iree_input.mlir and compiled__<backends>.vmfb in `artifacts_dir` (and a
  reproducer on failure, the SavedModel with --keep_saved_model). Past `compile_timeout`
  iree-compile is killed (`compiler.CompileTimeoutError`).
  """
  backend_infos = list(backend_infos) or [BackendInfo("iree_vmvx")]
  not_iree = [info.name for info in backend_infos if not info.is_iree]
  if not_iree:
    raise ValueError(f"compile_tf_module compiles for IREE backends only, got {', '.join(not_iree)}.")
  module_name = artifacts.safe_name(type(tf_module).__name__)
  exported_names = importer.normalize_exported_names(exported_names)
  imported = _import_module(tf_module, module_name, exported_names, artifacts_dir,
                            _keep_saved_model_at(artifacts_dir, backends_to_str(backend_infos)))
  return _compile_imported(imported, backend_infos, artifacts_dir, compile_cache, compile_timeout)


# --- Compiled modules -------------------------------------------------------------------------


class CompiledModule:
  """A module compiled for one backend; exported functions are attributes returning numpy.

  `module_name` and `backend` (the backend's artifact name) are 2020's public attributes.
  """

  def __init__(self, module_class: ModuleClass, backend_info: BackendInfo,
               exported_names: Sequence[str] = (), artifacts_dir: Optional[str] = None):
    self._module_class = module_class
    self._backend_info = backend_info
    self._exported_names = tuple(exported_names)
    self._artifacts_dir = artifacts_dir
    self.module_name = module_name_of(module_class)

  @property
  def backend_info(self) -> BackendInfo:
    return self._backend_info

  @property
  def backend(self) -> str:
    return self._backend_info.name

  @property
  def signatures(self) -> Dict[str, FunctionSignature]:
    raise NotImplementedError

  def create_reinitialized(self) -> "CompiledModule":
    """A copy with freshly initialized state that reuses this module's compilation."""
    raise NotImplementedError

  def reinitialize(self) -> None:
    """Resets this module's state (variables) in place, reusing its compilation and host."""
    raise NotImplementedError

  def method_compile_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` cannot be called on this backend because it did not compile, or None."""
    return None

  def method_import_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` cannot be called on this backend because it did not import, or None."""
    return None

  def _not_exported_reason(self, name: str) -> Optional[str]:
    """Why the module's attribute `name` is not exported (None: it is no tf.function)."""
    with _process_cache_lock:
      instance = _reference_instances.get(self._module_class)
    if instance is None:
      return None
    return importer.not_exported_reason(instance, name, self._exported_names)

  def close(self) -> None:
    """Releases what runs the module (a worker process, a device); later calls fail."""

  def _call(self, name: str, signature: FunctionSignature, args, kwargs) -> Any:
    raise NotImplementedError

  def __getattr__(self, attr: str) -> Callable[..., Any]:
    if attr.startswith("_"):
      raise AttributeError(attr)
    signature = self.signatures.get(attr)
    if signature is None:
      reason = self._not_exported_reason(attr)
      raise AttributeError(
          f"Module '{self.module_name}' on backend '{self.backend}' has no exported function "
          f"'{attr}'{': ' + reason if reason else ''}; the methods that can be called are: "
          f"{', '.join(self.signatures) or 'none'}.")

    def call(*args, **kwargs):
      return self._call(attr, signature, args, kwargs)

    call.__name__ = attr
    return call

  def __dir__(self):
    return list(super().__dir__()) + list(self.signatures)


def _to_numpy(value: Any) -> Any:
  if isinstance(value, (tf.Tensor, tf.Variable)):
    return np.asarray(value.numpy())
  if value is None or isinstance(value, np.ndarray):
    return value
  return np.asarray(value)


class TfCompiledModule(CompiledModule):
  """The tf.Module itself, executed by TensorFlow."""

  def __init__(self, module_class: ModuleClass, backend_info: BackendInfo,
               exported_names: Sequence[str] = (), artifacts_dir: Optional[str] = None,
               _signatures: Optional[Dict[str, FunctionSignature]] = None):
    super().__init__(module_class, backend_info, exported_names, artifacts_dir)
    self._instance = _instantiate(module_class)
    with _process_cache_lock:
      _reference_instances.setdefault(module_class, self._instance)
    if _signatures is None:
      _signatures = _known_signatures(module_class, exported_names)
    if _signatures is None:
      names = importer.exported_function_names(self._instance, self.module_name, exported_names)
      _signatures = importer.function_signatures(self._instance, names)
    self._signatures = _signatures

  @property
  def signatures(self) -> Dict[str, FunctionSignature]:
    return self._signatures

  def create_reinitialized(self) -> "TfCompiledModule":
    return TfCompiledModule(self._module_class, self._backend_info, self._exported_names,
                            self._artifacts_dir, _signatures=self._signatures)

  def reinitialize(self) -> None:
    self._instance = _instantiate(self._module_class)

  def _call(self, name: str, signature: FunctionSignature, args, kwargs) -> Any:
    flat = signature.flatten_inputs(self.module_name, args, kwargs)
    result = getattr(self._instance, name)(*signature.pack_inputs(flat))
    return structure.map_structure(_to_numpy, result)


class MethodNotCompiledError(compiler.CompileError):
  """A call of a method that did not compile for this backend (the others did)."""


class MethodNotImportedError(importer.ModuleImportError):
  """A call of a method that did not import (the others did)."""


class IreeCompiledModule(CompiledModule):
  """The module compiled by IREE for one backend and loaded into its runtime driver.

  `method_compiles` is None when the whole module compiled; else (with `each_method_on_failure`)
  it says which methods compiled alone, and the module holds only those. Likewise
  `method_imports` is None when the whole module imported; else it says which functions
  imported alone, and only those were compiled.
  """

  def __init__(self, module_class: ModuleClass, backend_info: BackendInfo,
               exported_names: Sequence[str] = (), artifacts_dir: Optional[str] = None,
               _compiled: Optional[Tuple[bytes, Dict[str, FunctionSignature],
                                         Optional[method_compiles.MethodCompiles],
                                         Optional[method_imports.MethodImports]]] = None,
               compile_cache: Optional[CompileCache] = None,
               each_method_on_failure: bool = False,
               limits: timeouts.Timeouts = timeouts.DEFAULT):
    super().__init__(module_class, backend_info, exported_names, artifacts_dir)
    self._limits = limits
    if _compiled is None:
      imported = import_module_class(
          module_class, exported_names, artifacts_dir,
          _keep_saved_model_at(artifacts_dir, backends_to_str([backend_info])),
          each_function_on_failure=each_method_on_failure)
      try:
        _compiled = (_compile_imported(imported, [backend_info], artifacts_dir, compile_cache,
                                       limits.compile),
                     imported.signatures, None, imported.method_imports)
      except compiler.CompileError as e:
        # A timeout says nothing about any method; compiling each alone would only wait longer.
        if (not each_method_on_failure or len(imported.imported_names) < 2
            or isinstance(e, compiler.CompileTimeoutError)):
          raise
        vmfb, record = _compile_each_method(imported, backend_info, artifacts_dir,
                                            compile_cache, e, limits.compile)
        _compiled = (vmfb, imported.signatures, record, imported.method_imports)
    self._vmfb, self._signatures, self.method_compiles, self.method_imports = _compiled
    self._loaded = runtime.load_module(self._vmfb, backend_info.driver,
                                       isolated=backend_info.isolated, limits=limits)

  @property
  def signatures(self) -> Dict[str, FunctionSignature]:
    return self._signatures

  @property
  def vmfb(self) -> bytes:
    return self._vmfb

  def method_compile_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` is not in this module because it did not compile, or None."""
    if (self.method_compiles is None or method in self.method_compiles.compiled
        or self.method_import_error(method)):
      return None
    return self.method_compiles.call_error(method) if method in self._signatures else None

  def method_import_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` is not in this module because it did not import, or None."""
    if self.method_imports is None or self.method_imports.failure_of(method) is None:
      return None
    return self.method_imports.call_error(method)

  def create_reinitialized(self) -> "IreeCompiledModule":
    return IreeCompiledModule(self._module_class, self._backend_info, self._exported_names,
                              self._artifacts_dir,
                              _compiled=(self._vmfb, self._signatures, self.method_compiles,
                                         self.method_imports), limits=self._limits)

  def reinitialize(self) -> None:
    self._loaded.reset()  # a new context; an isolated module keeps its worker process.

  def close(self) -> None:
    self._loaded.close()

  def _call(self, name: str, signature: FunctionSignature, args, kwargs) -> Any:
    not_imported = self.method_import_error(name)
    if not_imported:
      raise MethodNotImportedError(not_imported)
    not_compiled = self.method_compile_error(name)
    if not_compiled:
      raise MethodNotCompiledError(not_compiled)
    return runtime.call_function(self._loaded, signature, self.module_name, args, kwargs)
