"""Public API (2020's `tf_utils`): compiling and running tf.Modules on TensorFlow, TensorFlow
Lite and IREE.

What 2020's files use: `BackendInfo` (a backend of the table, `compile` builds a compiled module),
`CompiledModule` / `TfCompiledModule` / `TfLiteCompiledModule` / `IreeCompiledModule` (exported
functions as attributes returning numpy), `compile_tf_module`, `backends_to_str`, the input
helpers (`uniform`, `ndarange`, `set_random_seed`, `save_input_values`, `to_mlir_type`,
`get_shape_and_dtype`) and `FLAGS`. The work is done by the phase folders (docs/architecture.md):
`importing` (once per process; also the TFLite conversion), `compiling` (once per request),
`runtime` (load and call; also the TFLite interpreters).
"""

import dataclasses
import os
import re
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from absl import logging
import numpy as np

from pyiree_tf_support.core import verbosity

verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling import method_compiles
from pyiree_tf_support.compiling import module_compiles
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import interrupts
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing import keras_compat
from pyiree_tf_support.importing import method_imports
from pyiree_tf_support.importing import module_imports
from pyiree_tf_support.importing import reference_calls
from pyiree_tf_support.importing import tflite_models

# 2020's tf_utils names, defined where the module classes are imported:
from pyiree_tf_support.importing.module_imports import import_module_class
from pyiree_tf_support.importing.module_imports import module_identity
from pyiree_tf_support.importing.module_imports import module_name_of
from pyiree_tf_support.importing.module_imports import ModuleClass
from pyiree_tf_support.importing.module_imports import ModuleConstructionError
from pyiree_tf_support.importing.module_imports import set_random_seed
from pyiree_tf_support.importing.reference_calls import ReferenceMethods
from pyiree_tf_support.runtime import loading
from pyiree_tf_support.runtime import tflite_modules

__all__ = [
    "FLAGS", "BackendInfo", "CompiledModule", "TfCompiledModule", "IreeCompiledModule",
    "TfLiteCompiledModule",
    "MethodNotCompiledError", "MethodNotImportedError", "ModuleClass", "ModuleConstructionError",
    "backends_to_str", "compile_tf_module", "get_shape_and_dtype", "import_module_class",
    "module_identity", "module_name_of", "ndarange", "save_input_values", "set_random_seed",
    "to_mlir_type", "uniform",
    # IREE's later (2020-11) helpers for generated tests.
    "InputGenerator", "apply_function", "generate_inputs", "is_complex", "make_dims_dynamic",
    "random_permutation", "remove_special_characters", "rewrite_complex_signature",
]

FLAGS = cli_flags.FLAGS  # 2020 code reads tf_utils.FLAGS.
keras_compat.install()  # 2020 files set Keras 2's learning phase: see keras_compat.


InputGenerator = Callable[[Sequence[int], Any], np.ndarray]  # (shape, dtype) -> an array.


def _numpy_dtype(dtype: Any) -> np.dtype:
  """A numpy dtype from a numpy dtype, a tf.DType or a name (`tf.float32` -> float32)."""
  if isinstance(dtype, tf.DType):
    return np.dtype(dtype.as_numpy_dtype)
  try:
    return np.dtype(dtype)
  except TypeError:
    raise TypeError(f"{dtype!r} is not a dtype: pass a numpy dtype, a tf.DType or a dtype "
                    "name such as 'float32'.") from None


def uniform(shape: Sequence[int], dtype: Any = np.float32, low: float = 0.0,
            high: float = 1.0) -> np.ndarray:
  """Random values in [low, high) of `shape` and `dtype` (numpy or tf). [0, 1) by default, as
  in 2020 (IREE's later version drew from [-1, 1)). Integers are rounded, bools are drawn
  from {False, True}, complex numbers have both parts in [low, high)."""
  dtype = _numpy_dtype(dtype)
  if dtype == np.bool_:
    return np.random.choice(2, shape).astype(np.bool_)
  if dtype.kind == "c":
    real = np.random.uniform(size=shape, low=low, high=high)
    return (real + 1j * np.random.uniform(size=shape, low=low, high=high)).astype(dtype)
  values = np.random.uniform(size=shape, low=low, high=high)
  return (np.round(values) if dtype.kind in "iu" else values).astype(dtype)


def ndarange(shape: Sequence[int], dtype: Any = np.float32) -> np.ndarray:
  """0, 1, 2, ... reshaped to `shape` (`dtype`: numpy or tf)."""
  return np.arange(int(np.prod(shape)), dtype=_numpy_dtype(dtype)).reshape(shape)


def random_permutation(shape: Sequence[int], dtype: Any = np.float32) -> np.ndarray:
  """0 ... prod(shape) - 1 in a random order (from numpy's seeded generator), of `shape`."""
  values = ndarange(shape, dtype)
  np.random.shuffle(values.reshape(-1))
  return values


def apply_function(values: Any, function: Callable[[Any], Any]) -> Any:
  """`function` applied to every leaf of nested lists, tuples and dicts (same structure)."""
  if isinstance(values, list):
    return [apply_function(v, function) for v in values]
  if isinstance(values, tuple):
    return tuple(apply_function(v, function) for v in values)
  if isinstance(values, dict):
    return {k: apply_function(v, function) for k, v in values.items()}
  return function(values)


# A `None` dim of a signature gets this size when inputs are generated from it.
DYNAMIC_DIM_SIZE = 2


def generate_inputs(signature: Any, input_generator: InputGenerator) -> Any:
  """Inputs for a (nested) signature of tf.TensorSpecs, each from `input_generator(shape,
  dtype)`; a `None` dim gets size DYNAMIC_DIM_SIZE."""
  def generate(spec):
    shape = [DYNAMIC_DIM_SIZE if dim is None else dim for dim in spec.shape.as_list()]
    return input_generator(shape, spec.dtype)
  return apply_function(signature, generate)


def remove_special_characters(value: str) -> str:
  """`value` with runs of characters other than [a-zA-Z0-9_] made one '_', each part between
  '__' separators stripped of '_' (the later API's test names: 'f32__axis_None')."""
  parts = [re.sub(r"_+", "_", re.sub(r"[^a-zA-Z0-9_]", "_", part)).strip("_")
           for part in value.split("__")]
  return "__".join(parts)


def is_complex(signature: Any) -> bool:
  """Whether any tf.TensorSpec of a (nested) signature is complex."""
  if isinstance(signature, (list, tuple)):
    return any(is_complex(spec) for spec in signature)
  if isinstance(signature, dict):
    return any(is_complex(spec) for spec in signature.values())
  return bool(signature.dtype.is_complex)


def rewrite_complex_signature(function: Callable[..., Any], signature: Sequence[tf.TensorSpec]
                              ) -> Tuple[Callable[..., Any], list]:
  """`function` of complex tensors as a function of (real, imaginary) pairs, and the signature
  of those pairs (complex64 -> two float32, complex128 -> two float64). The result is returned
  as real + imaginary parts summed, as IREE's later API did, since its backends took no complex
  results. Every spec of `signature` must be complex."""
  if not all(spec.dtype.is_complex for spec in signature):
    raise NotImplementedError("rewrite_complex_signature: every tf.TensorSpec of the signature "
                              f"must be complex, got {[spec.dtype.name for spec in signature]}.")
  pairs = []
  for spec in signature:
    part = tf.float32 if spec.dtype == tf.complex64 else tf.float64
    pairs += [tf.TensorSpec(spec.shape, part), tf.TensorSpec(spec.shape, part)]

  def of_parts(*parts, **kwargs):
    values = [tf.complex(real, imag) for real, imag in zip(parts[::2], parts[1::2])]
    result = function(*values, **kwargs)
    return tf.math.real(result) + tf.math.imag(result)

  return of_parts, pairs


def make_dims_dynamic(spec: tf.TensorSpec) -> tf.TensorSpec:
  """`spec` with every dim `None` (same rank and dtype)."""
  return tf.TensorSpec([None] * len(spec.shape), spec.dtype)


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
    safe_files.write_text(path, text + "\n")
  return text


class BackendInfo:
  """A backend from the table, with the name its artifacts and traces use (`name`).

  `run_in_worker` asks for a TF-free worker process for an IREE backend (Vulkan always uses
  one); it is passed in by whoever reads the flags, so that building one reads no flag.
  """

  def __init__(self, backend_name: str, artifact_name: Optional[str] = None,
               run_in_worker: bool = False, extra_compiler_flags: Sequence[str] = ()):
    """`extra_compiler_flags`: iree-compile flags after the table's (--iree_compile_flags,
    --dump_compiler_ir); they are part of the compile request, so of its cache key."""
    spec = backends.lookup(backend_name)
    if extra_compiler_flags:
      spec = dataclasses.replace(spec, compiler_flags=spec.compiler_flags
                                 + tuple(extra_compiler_flags))
    self._spec = spec
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
    return loading.driver_available(self.driver)

  def compile(self, module: ModuleClass, exported_names: Sequence[str] = (),
              artifacts_dir: Optional[str] = None,
              compile_cache: Optional[CompileCache] = None,
              each_method_on_failure: bool = False,
              limits: timeouts.Timeouts = timeouts.DEFAULT) -> "CompiledModule":
    """Compiles `module` (a tf.Module class or factory) for this backend.

    `vmfb_cache` is the on-disk cache to read and fill (None: compile without one).
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
    if self._spec.is_tflite:
      return TfLiteCompiledModule(module, self, exported_names, artifacts_dir)
    return TfCompiledModule(module, self, exported_names, artifacts_dir, call_limit=limits.call)

  @classmethod
  def get_all_backends(cls, run_in_worker: bool = False) -> list:
    """One BackendInfo per backend in the table, named as in 2020 (tf, iree_vmla, iree_llvmjit,
    iree_vulkan, tflite) so that a default run and a run naming those backends share artifact
    names. (A run without --target_backends takes only the `default_target` rows: not tflite.)"""
    return [cls(spec.e2e_name, run_in_worker=run_in_worker) for spec in backends.BACKENDS]

  def __repr__(self) -> str:
    return f"BackendInfo({self.backend_name!r}, artifact_name={self.artifact_name!r})"


def backends_to_str(backend_infos: Sequence[BackendInfo]) -> str:
  """Names normalized to [0-9a-zA-Z_], stripped of '_', joined by '__'."""
  return artifacts.backends_to_str(info.name for info in backend_infos)


def _keep_saved_model_at(artifacts_dir: Optional[str], backends_str: str) -> Tuple[str, ...]:
  if artifacts_dir is None or not cli_flags.value("keep_saved_model"):
    return ()
  return (artifacts.saved_model_path(artifacts_dir, backends_str),)


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
    raise ValueError(
        f"compile_tf_module compiles for IREE backends only, got {', '.join(not_iree)}.")
  module_name = artifacts.safe_name(type(tf_module).__name__)
  exported_names = importer.normalize_exported_names(exported_names)
  imported = module_imports.import_instance(
      tf_module, module_name, exported_names, artifacts_dir,
      _keep_saved_model_at(artifacts_dir, backends_to_str(backend_infos)))
  return module_compiles.compile_module(imported.iree_input, imported.module_name,
                                        [info.spec for info in backend_infos],
                                        backends_to_str(backend_infos), artifacts_dir,
                                        compile_cache, compile_timeout)


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
  def runs_in_process(self) -> bool:
    """Whether calls run on this process's threads (not a worker process's): then a trace pins
    the threads of its short calls to one CPU (core/colocation)."""
    return False

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

  def holds_variables(self) -> Optional[bool]:
    """Whether the module has state (tf.Variables) a call may change; None when unknown."""
    return None

  def method_import_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` cannot be called on this backend because it did not import, or None."""
    return None

  def _not_exported_reason(self, name: str) -> Optional[str]:
    """Why the module's attribute `name` is not exported (None: it is no tf.function)."""
    return module_imports.not_exported_reason(self._module_class, name, self._exported_names)

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


def _signatures_of(module_class: ModuleClass, instance: tf.Module, module_name: str,
                   exported_names: Sequence[str]) -> Dict[str, FunctionSignature]:
  """The exported methods' signatures: the ones this process's import traced, else traced now."""
  signatures = module_imports.known_signatures(module_class, exported_names)
  if signatures is None:
    names = importer.exported_function_names(instance, module_name, exported_names)
    signatures = importer.function_signatures(instance, names)
  return signatures


class _InTensorFlowProcess(CompiledModule):
  """A module whose calls run on this process's threads, its signatures in `_signatures`."""

  _signatures: Dict[str, FunctionSignature]

  @property
  def signatures(self) -> Dict[str, FunctionSignature]:
    return self._signatures

  @property
  def runs_in_process(self) -> bool:
    return True


class TfCompiledModule(_InTensorFlowProcess):
  """The tf.Module itself, executed by TensorFlow."""

  def __init__(self, module_class: ModuleClass, backend_info: BackendInfo,
               exported_names: Sequence[str] = (), artifacts_dir: Optional[str] = None,
               _signatures: Optional[Dict[str, FunctionSignature]] = None,
               call_limit: timeouts.Limit = timeouts.DEFAULT.call):
    super().__init__(module_class, backend_info, exported_names, artifacts_dir)
    self._call_limit = call_limit  # a call past it is cancelled (--call_timeout).
    self._instance = (module_imports.take_pristine_instance(module_class)
                      or module_imports.instantiate(module_class))
    module_imports.register_reference_instance(module_class, self._instance)
    self._methods = ReferenceMethods(self._instance)
    self._signatures = (_signatures if _signatures is not None else _signatures_of(
        module_class, self._instance, self.module_name, exported_names))

  def holds_variables(self) -> Optional[bool]:
    variables = getattr(self._instance, "variables", None)
    return None if variables is None else bool(variables)

  def create_reinitialized(self) -> "TfCompiledModule":
    return TfCompiledModule(self._module_class, self._backend_info, self._exported_names,
                            self._artifacts_dir, _signatures=self._signatures,
                            call_limit=self._call_limit)

  def reinitialize(self) -> None:
    self._instance = module_imports.instantiate(self._module_class)
    self._methods = ReferenceMethods(self._instance)

  def _call(self, name: str, signature: FunctionSignature, args, kwargs) -> Any:
    flat = signature.flatten_inputs(self.module_name, args, kwargs)
    seconds = self._call_limit.seconds(sum(getattr(value, "nbytes", 0) for value in flat))
    # A call looping for hours on its input is cancelled past --call_timeout, and on Ctrl-C.
    with reference_calls.cancellable() as cancel, interrupts.watched_call(
        f"call '{name}' of {self.backend}", seconds,
        self._call_limit.explain(seconds or 0.0), cancel):
      result = self._methods.call(name, flat, signature.pack_inputs)
    return structure.map_structure(_to_numpy, result)


class TfLiteCompiledModule(_InTensorFlowProcess):
  """Each exported method converted to TensorFlow Lite and run by its own interpreter (2020's
  class): `<Module>/tflite/<method>.tflite`. A method the converter cannot do is left out, its
  call a `MethodNotCompiledError` naming the converter's first cause (`method_compile_error`),
  so the report gives tflite's COMPILE ERROR for that method, as for an IREE backend.
  A method that assigns variables keeps them as the interpreter's resource variables: state
  persists across its calls, is not shared between methods (one interpreter each, as in 2020),
  and `reinitialize` starts new interpreters from the same models (2020's was a no-op); a method
  that only reads them is frozen first. See `importing/tflite_models`, docs/backends.md."""

  def __init__(self, module_class: ModuleClass, backend_info: BackendInfo,
               exported_names: Sequence[str] = (), artifacts_dir: Optional[str] = None,
               _converted: Optional[Tuple[Dict[str, FunctionSignature],
                                          Dict[str, tflite_models.ConvertedMethod]]] = None):
    super().__init__(module_class, backend_info, exported_names, artifacts_dir)
    if _converted is None:
      instance = module_imports.instantiate(module_class)
      signatures = _signatures_of(module_class, instance, self.module_name, exported_names)
      _converted = (signatures, tflite_models.convert_methods(instance, signatures,
                                                              artifacts_dir))
    self._signatures, self._converted = _converted
    self._loaded = tflite_modules.TfLiteModule(
        {name: method.model for name, method in self._converted.items() if method.model},
        tflite_models.interpreter_class(tflite_modules.litert_interpreter_class()))

  @property
  def compiled_paths(self) -> Optional[Dict[str, str]]:
    """2020's attribute: each converted method's .tflite path (None without an artifacts dir)."""
    if self._artifacts_dir is None:
      return None
    return {name: m.path for name, m in self._converted.items() if m.path is not None}

  def tflite_serializable(self) -> bool:
    """2020's name: whether the models were written (an artifacts dir was given)."""
    return self.compiled_paths is not None

  def method_compile_error(self, method: Optional[str]) -> Optional[str]:
    converted = self._converted.get(method) if method is not None else None
    if converted is None or converted.error is None:
      return None
    return f"method '{method}' did not convert to TFLite: {converted.error}"

  def create_reinitialized(self) -> "TfLiteCompiledModule":
    return TfLiteCompiledModule(self._module_class, self._backend_info, self._exported_names,
                                self._artifacts_dir,
                                _converted=(self._signatures, self._converted))

  def reinitialize(self) -> None:
    self._loaded.reset()

  def close(self) -> None:
    self._loaded.close()

  def _call(self, name: str, signature: FunctionSignature, args, kwargs) -> Any:
    not_converted = self.method_compile_error(name)
    if not_converted:
      raise MethodNotCompiledError(not_converted)
    return loading.call_function(self._loaded, signature, self.module_name, args, kwargs)


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
      names = backends_to_str([backend_info])
      try:
        _compiled = (module_compiles.compile_module(imported.iree_input, imported.module_name,
                                                    [backend_info.spec], names, artifacts_dir,
                                                    compile_cache, limits.compile),
                     imported.signatures, None, imported.method_imports)
      except compiler.CompileError as e:
        # A timeout says nothing about any method; compiling each alone would only wait longer.
        if (not each_method_on_failure or len(imported.imported_names) < 2
            or isinstance(e, compiler.CompileTimeoutError)):
          raise
        vmfb, record = module_compiles.compile_each_method(
            imported.iree_input, imported.module_name, backend_info.spec, backend_info.name,
            names, artifacts_dir, compile_cache, e, limits.compile)
        _compiled = (vmfb, imported.signatures, record, imported.method_imports)
    self._vmfb, self._signatures, self.method_compiles, self.method_imports = _compiled
    self._vmfb_kept = False  # a big vmfb written after a failure: keep_vmfb.
    try:
      self._loaded = loading.load_module(self._vmfb, backend_info.driver,
                                         isolated=backend_info.isolated, limits=limits)
    except Exception:
      self.keep_vmfb()  # what failed to load, for whoever reproduces it.
      raise

  def keep_vmfb(self) -> Optional[str]:
    """Writes compiled__<backend>.vmfb if compiling did not (a big module's is written only when
    a failure needs it), once per module; its path, or None without an artifacts dir."""
    if self._artifacts_dir is None:
      return None
    names = backends_to_str([self._backend_info])
    if len(self._vmfb) > artifacts.VMFB_WRITTEN_UP_TO and not self._vmfb_kept:
      module_compiles.save_vmfb(self._artifacts_dir, names, self._vmfb, needed=True)
      self._vmfb_kept = True
    return artifacts.compiled_path(self._artifacts_dir, names)

  @property
  def signatures(self) -> Dict[str, FunctionSignature]:
    return self._signatures

  @property
  def vmfb(self) -> bytes:
    return self._vmfb

  @property
  def runs_in_process(self) -> bool:
    return not self._backend_info.isolated

  def method_compile_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` is not in this module because it did not compile, or None."""
    if (self.method_compiles is None or method in self.method_compiles.compiled
        or self.method_import_error(method)):
      return None
    return self.method_compiles.call_error(method) if method in self._signatures else None

  def method_import_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` is not in this module because it did not import, or None."""
    if (method is None or self.method_imports is None
        or self.method_imports.failure_of(method) is None):
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
    return loading.call_function(self._loaded, signature, self.module_name, args, kwargs)
