"""A module class imported once per process: the cache every backend of a test class shares.

`import_module_class` builds the user's module (seeded, as 2020 did), imports it (with the
per-function fallback of `method_imports` when the whole module does not import), saves the
import's artifacts once per artifacts dir, and hands the same `ImportedModule` to every later
caller; the TF reference reuses its traced signatures (`known_signatures`), and the first
reference instance explains names that are not exported (`not_exported_reason`).
"""

import inspect
import os
import random
import threading
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from absl import logging
import numpy as np

from pyiree_tf_support.core import verbosity

verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.core.signatures import signatures_to_json
from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing import pass_pipelines
from pyiree_tf_support.importing import saved_models

ModuleClass = Union[type, Callable[[], tf.Module]]


def set_random_seed(seed: int = 0) -> None:
  """Sets the seed of TensorFlow, numpy and random, so every backend sees the same inputs."""
  tf.random.set_seed(seed)
  np.random.seed(seed)
  random.seed(seed)


class ModuleConstructionError(RuntimeError):
  """The user's module class (or factory) raised; the cause keeps its traceback."""


def instantiate(module_class: ModuleClass) -> tf.Module:
  """Builds the user's module with the seed set first, as 2020 did, so that weights drawn from
  tf.random or np.random in __init__ are the same on every backend (and in the import)."""
  set_random_seed()
  try:
    return module_class()
  except Exception as e:
    raise ModuleConstructionError(
        f"Constructing module '{module_name_of(module_class)}' raised {type(e).__name__}: {e}"
    ) from e


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


_lock = threading.Lock()
_imports: Dict[Tuple[Any, Tuple[str, ...]], importer.ImportedModule] = {}
_saved_import_dirs: Dict[Tuple[Any, Tuple[str, ...]], set] = {}
# The --keep_saved_model paths this process made current, per import.
_kept_saved_models: Dict[Tuple[Any, Tuple[str, ...]], set] = {}
# One instance per module class built for TF, to explain names that are not exported.
_reference_instances: Dict[Any, tf.Module] = {}
# The instance the last import built and traced, never called (saving a SavedModel traces its
# functions, it runs none): the TF reference's first instance, so that TensorFlow neither builds
# nor traces the module twice (a ResNet50 took ~25 s to build again). One at a time.
_pristine_instances: Dict[Any, tf.Module] = {}


def save_import_artifacts(imported: importer.ImportedModule, artifacts_dir: Optional[str]) -> None:
  """tf_input.mlir (for people: weights elided), iree_input.mlir (whole: replay, repro and the
  compile cache load it) and signatures.json in `artifacts_dir`."""
  if artifacts_dir is not None:
    safe_files.write_text(os.path.join(artifacts_dir, "tf_input.mlir"),
                         importer.elide_large_constants(imported.tf_input))
    save_iree_input(os.path.join(artifacts_dir, "iree_input.mlir"), imported.iree_input)
    safe_files.write_text(artifacts.signatures_path(artifacts_dir),
                         signatures_to_json(imported.signatures))


def save_iree_input(path: str, iree_input: str) -> None:
  """Writes iree_input.mlir: the text, or above `artifacts.BYTECODE_ABOVE` characters its MLIR
  bytecode (half the size: a ResNet50's 188 MB of hex weights become 94 MB; iree-compile reads
  it as it is, `iree-opt iree_input.mlir` prints it), streamed to the file. The importer's `//`
  header is not in the bytecode; it is logged instead. Text MLIR's parser rejects stays text."""
  if len(iree_input) <= artifacts.BYTECODE_ABOVE:
    safe_files.write_text(path, iree_input)
    return
  from iree.compiler import ir  # (~0.2 s: only here)
  with ir.Context():
    try:
      module = ir.Module.parse(iree_input)
    except ir.MLIRError:
      module = None
    if module is None:
      safe_files.write_text(path, iree_input)
      return
    safe_files.write_with(path, module.operation.write_bytecode)
    del module
  header = iree_input[:len(iree_input) - len(pass_pipelines.strip_header(iree_input))]
  if header:
    logging.info("%s is saved as MLIR bytecode, without its header:\n%s", path, header)


IMPORT_ERROR_FILE = "import_error.txt"


def save_failure_artifacts(failure: importer.ModuleImportFailure, artifacts_dir: Optional[str],
                           keep_saved_model_at: Sequence[str] = ()
                           ) -> importer.ModuleImportFailure:
  """What a failed import produced, saved for whoever reproduces it (TF's whole message with
  the IR it quotes; tf_input.mlir, the lowering's input, when the conversion succeeded), and
  the failure naming those files and the kept SavedModel."""
  if artifacts_dir is None:
    return failure
  files = []
  if failure.tf_input is not None:
    path = os.path.join(artifacts_dir, "tf_input.mlir")
    safe_files.write_text(path, importer.elide_large_constants(failure.tf_input))
    files.append((f"the lowering's input ({importer.LOWERING_PIPELINE})", path))
  path = os.path.join(artifacts_dir, IMPORT_ERROR_FILE)
  safe_files.write_text(path, failure.diagnostics + "\n")
  lines = len(failure.diagnostics.splitlines())
  files.insert(0, (f"TensorFlow's whole message ({lines} lines, with the IR it quotes)", path))
  files += [("the SavedModel (--keep_saved_model)", path) for path in keep_saved_model_at
            if os.path.isdir(path)]
  return failure.with_files(files)


def import_instance(module: tf.Module, module_name: str, exported_names: Sequence[str],
                    artifacts_dir: Optional[str],
                    keep_saved_model_at: Sequence[str] = ()) -> importer.ImportedModule:
  """Imports a module instance (not cached: the instance is the caller's)."""
  try:
    imported = importer.import_module(module, module_name, exported_names, keep_saved_model_at)
  except importer.ModuleImportFailure as e:
    raise save_failure_artifacts(e, artifacts_dir, keep_saved_model_at) from e
  save_import_artifacts(imported, artifacts_dir)
  imported.check()
  return imported


def import_module_class(module_class: ModuleClass, exported_names: Sequence[str] = (),
                        artifacts_dir: Optional[str] = None,
                        keep_saved_model_at: Sequence[str] = (),
                        each_function_on_failure: bool = False,
                        keep_saved_model_on_failure_at: Sequence[str] = ()
                        ) -> importer.ImportedModule:
  """Imports a module class once per process and exported names; later calls reuse the result.

  `each_function_on_failure`: a module whose whole import failed but some of whose functions
  import alone is returned holding those (else its import error is raised, as in 2020). The
  per-function import is done (and cached) either way, so both kinds of caller share it.
  A failed import saves what it produced in `artifacts_dir` (`save_failure_artifacts`) and
  keeps the SavedModel at `keep_saved_model_on_failure_at`.
  """
  exported_names = importer.normalize_exported_names(exported_names)
  key = (module_class, exported_names)
  with _lock:
    imported = _imports.get(key)
    if imported is None:
      try:
        instance = instantiate(module_class)
        imported = importer.import_module(
            instance, module_name_of(module_class), exported_names,
            keep_saved_model_at, each_function_on_failure=True,
            keep_saved_model_on_failure_at=keep_saved_model_on_failure_at)
      except importer.ModuleImportFailure as e:
        raise save_failure_artifacts(e, artifacts_dir, keep_saved_model_on_failure_at) from e
      _pristine_instances.clear()
      _pristine_instances[module_class] = instance
      if imported.method_imports is not None:
        logging.warning("%s", imported.method_imports.describe())
      _imports[key] = imported
      _saved_import_dirs[key] = set()
    if artifacts_dir is not None and artifacts_dir not in _saved_import_dirs[key]:
      save_import_artifacts(imported, artifacts_dir)
      _saved_import_dirs[key].add(artifacts_dir)
      _kept_saved_models[key] = set(keep_saved_model_at)  # kept by the import itself.
    for path in keep_saved_model_at:  # the import ran earlier, for another backend.
      if path not in _kept_saved_models.setdefault(key, set()):
        saved_models.keep(path, imported.identity,
                          saved_models.save_of(lambda: instantiate(module_class)))
        _kept_saved_models[key].add(path)
  imported.check(partial=each_function_on_failure)
  return imported


def known_signatures(module_class: ModuleClass,
                     exported_names: Sequence[str]) -> Optional[Dict[str, FunctionSignature]]:
  """The signatures this process's import already traced, so TF need not trace them twice."""
  with _lock:
    imported = _imports.get((module_class, tuple(exported_names)))
  return None if imported is None else imported.signatures


def take_pristine_instance(module_class: ModuleClass) -> Optional[tf.Module]:
  """The instance this process's last import of `module_class` built, once (None after, or when
  another class was imported since): built as `instantiate` builds one, and never called."""
  with _lock:
    return _pristine_instances.pop(module_class, None)


def register_reference_instance(module_class: ModuleClass, instance: tf.Module) -> None:
  """Remembers the first instance built for TF, to explain names that are not exported."""
  with _lock:
    _reference_instances.setdefault(module_class, instance)


def not_exported_reason(module_class: ModuleClass, name: str,
                        exported_names: Sequence[str]) -> Optional[str]:
  """Why the module's attribute `name` is not exported (None: it is no tf.function, or no
  reference instance was built in this process)."""
  with _lock:
    instance = _reference_instances.get(module_class)
  if instance is None:
    return None
  return importer.not_exported_reason(instance, name, exported_names)
