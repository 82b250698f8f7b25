"""TensorFlow -> MLIR: a tf.Module becomes TF-dialect text (tf_input), StableHLO text (iree_input)
and the metadata of its exported functions.

The checks of what TF's tools accept (exported names, signatures, Python defaults, namedtuples,
ops left unconverted, text that does not parse back) live here, beside the import they guard,
whole-module or per function (`method_imports` decides which functions to keep).
"""

import dataclasses
import hashlib
import inspect
import re
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import tensorflow as tf

from pyiree_tf_support.core import mlir_symbols
from pyiree_tf_support.core import phases
from pyiree_tf_support.core import structure
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.core.signatures import InputSpec
from pyiree_tf_support.importing import method_imports
from pyiree_tf_support.importing import pass_pipelines
from pyiree_tf_support.importing import saved_models
from pyiree_tf_support.importing.method_imports import MethodImports


class ModuleImportError(ValueError):
  """The module cannot be turned into IREE input; the message says which module and why."""


# A line of TF's error quoted in a report is cut here: the whole text is in a file it names.
_QUOTED_LINE_CHARS = 240


def _quoted(line: str) -> str:
  return line if len(line) <= _QUOTED_LINE_CHARS else line[:_QUOTED_LINE_CHARS] + " [...]"


class ModuleImportFailure(ModuleImportError):
  """TensorFlow's converter or lowering raised on the whole module: the first cause first, and
  what the import produced before it failed (`tf_input`, None when the conversion itself failed;
  `diagnostics`, TF's whole message with the IR it quotes) for the caller to save as files,
  which `files` then names ((what, path) pairs): the message stays a few lines."""

  def __init__(self, module_name: str, cause: str, notes: Sequence[str], diagnostics: str,
               tf_input: Optional[str], files: Sequence[Tuple[str, str]] = (),
               subject: Optional[str] = None):
    self.module_name = module_name
    self.subject = subject or f"Module '{module_name}'"
    self.cause = cause
    self.notes = tuple(notes)
    self.diagnostics = diagnostics
    self.tf_input = tf_input
    self.files = tuple(files)
    lines = [f"{self.subject} did not import: {_quoted(cause)}"]
    lines += [f"  {_quoted(note)}" for note in self.notes]
    lines += [f"  {what}: {path}" for what, path in self.files]
    super().__init__("\n".join(lines))

  def with_files(self, files: Sequence[Tuple[str, str]]) -> "ModuleImportFailure":
    """The same failure naming `files` too."""
    return ModuleImportFailure(self.module_name, self.cause, self.notes, self.diagnostics,
                               self.tf_input, self.files + tuple(files), self.subject)


def _message(line: str) -> str:
  """A diagnostic line without its location and "error: " (the report's first line must carry
  the first cause, so no later line may look like an earlier diagnostic)."""
  line = phases.first_error_line(line, diagnostics=True)
  return line[len("error: "):] if line.startswith("error: ") else line


def import_failure(module_name: str, error: Exception, tf_input: Optional[str],
                   subject: Optional[str] = None) -> ModuleImportFailure:
  """`error` of TF's converter or lowering as a failure whose first line is the first cause:
  the error of a pipeline that was abandoned for the plain lowering comes before the plain
  lowering's own error (which is then only a consequence of the fallback)."""
  reasons = getattr(error, "fallback_reason", None)
  plain = getattr(error, "plain_message", None) or str(error)
  failed = [r for r in (reasons or "").split("; ") if " failed: " in r]
  if failed:
    pipeline, message = failed[0].split(" failed: ", 1)
    cause = f"{_message(message)} (in TF's pipeline {pipeline})"
    notes = [f"the fallback to the plain lowering then failed too: {_message(plain)}"]
  else:
    cause = _message(plain)
    notes = [f"the plain lowering ran because {reasons}"] if reasons else []
  return ModuleImportFailure(module_name, f"{type(error).__name__}: {cause}", notes,
                             str(error), tf_input, subject=subject)


@dataclasses.dataclass(frozen=True)
class ImportedModule:
  """A module imported once per process and shared by every IREE backend.

  With `method_imports` the whole module did not import, and the texts hold only the functions
  that imported alone (`imported_names`); the others are still in `exported_names` and
  `signatures`, so a call of one can say why it cannot run.
  """
  module_name: str
  exported_names: Tuple[str, ...]
  tf_input: str
  iree_input: str
  signatures: Dict[str, FunctionSignature]
  problem: Optional[str] = None  # why the texts cannot be compiled, if they cannot
  method_imports: Optional[MethodImports] = None

  @property
  def identity(self) -> Optional[str]:
    """What names this module for a kept SavedModel: the SHA-256 of iree_input when the whole
    module imported (None otherwise: a function that did not import leaves no trace in it)."""
    if self.problem or self.method_imports is not None:
      return None
    return hashlib.sha256(self.iree_input.encode("utf-8")).hexdigest()

  @property
  def imported_names(self) -> Tuple[str, ...]:
    """The exported functions the texts hold."""
    if self.method_imports is None:
      return self.exported_names
    return self.method_imports.imported

  def check(self, partial: bool = False) -> None:
    """Raises the import problem, if any: call it after saving the texts for inspection.
    `partial`: a module whose functions imported one by one is fine (else it raises the whole
    module's error)."""
    if self.problem:
      error = ModuleImportError(self.problem)
      error.method_imports = self.method_imports  # type: ignore[attr-defined]
      raise error
    if self.method_imports is not None and not partial:
      raise ModuleImportError(f"{self.method_imports.module_error}\n"
                              f"{self.method_imports.describe()}")


def normalize_exported_names(exported_names: Union[str, Sequence[str], None]) -> Tuple[str, ...]:
  """A tuple of names: a str is one name (2020 took a list; `"mul"` must not become m, u, l)."""
  if exported_names is None:
    return ()
  if isinstance(exported_names, str):
    return (exported_names,)
  names = tuple(exported_names)
  bad = [name for name in names if not isinstance(name, str)]
  if bad:
    raise TypeError(f"exported_names must be method names (str), got {bad[0]!r} in "
                    f"{exported_names!r}; e.g. exported_names=['mul'].")
  return names


def not_exported_reason(module: tf.Module, name: str, exported_names: Sequence[str] = ()
                        ) -> Optional[str]:
  """Why `name`, an attribute of `module`, is not an exported function (None: no such
  tf.function)."""
  if not _is_tf_function(getattr(module, name, None)):
    return None
  if getattr(module, name).input_signature is None:
    return (f"'{name}' is a tf.function without an input_signature, so it cannot be exported "
            "(use @tf.function(input_signature=[...]))")
  if exported_names and name not in exported_names:
    return f"'{name}' is not among the exported_names given to compile_module"
  return None


def _namedtuple_output(function) -> Optional[str]:
  """The type name of a namedtuple in the function's results, which TF's importer cannot export."""
  outputs = function.get_concrete_function().structured_outputs
  pending = [outputs]
  while pending:
    value = pending.pop()
    if isinstance(value, tuple) and hasattr(value, "_fields"):
      return type(value).__name__
    if isinstance(value, (list, tuple)):
      pending.extend(value)
    elif isinstance(value, dict):
      pending.extend(value.values())
  return None


def _non_string_key(value, path: Tuple = ()) -> Optional[Tuple[Tuple, object]]:
  """(path, key) of the first dict key in `value` (a function's results) that is not a str."""
  items = structure.children(value)
  for key, child in items or ():
    if isinstance(value, dict) and not isinstance(key, str):
      return path, key
    found = _non_string_key(child, path + (key,))
    if found:
      return found
  return None


def _is_tf_function(value) -> bool:
  return isinstance(value, tf.types.experimental.PolymorphicFunction)


def exported_function_names(module: tf.Module, module_name: str,
                            exported_names: Sequence[str] = ()) -> Tuple[str, ...]:
  """The names to export: as given (validated) or every tf.function with an input_signature."""
  exported_names = normalize_exported_names(exported_names)
  candidates = sorted(name for name in dir(module)
                      if not name.startswith("__") and _is_tf_function(getattr(module, name, None)))
  with_signature = [name for name in candidates
                    if getattr(module, name).input_signature is not None]
  if not exported_names:
    if not with_signature:
      raise ModuleImportError(
          f"Module '{module_name}' has no tf.function with an input_signature to export"
          + (f" (tf.functions without one: {', '.join(candidates)})." if candidates else "."))
    return tuple(with_signature)
  for name in exported_names:
    if name not in candidates:
      raise ModuleImportError(
          f"Module '{module_name}' has no tf.function named '{name}'; "
          f"exportable functions are: {', '.join(with_signature) or 'none'}.")
    if getattr(module, name).input_signature is None:
      raise ModuleImportError(
          f"Function '{name}' of module '{module_name}' has no input_signature; "
          "exported functions need one (tf.function(input_signature=[...])).")
  return tuple(exported_names)


def _arg_names(function) -> Tuple[str, ...]:
  """Names of the arguments the input_signature covers: Python defaults after them (a Keras
  `call(inputs, training=None, mask=None)`) are traced in as constants, not exported."""
  parameters = list(inspect.signature(function.python_function).parameters.values())
  if (parameters and parameters[0].name == "self"
      and len(parameters) > len(function.input_signature)):
    parameters = parameters[1:]
  count = len(function.input_signature)
  names = []
  for p in parameters:
    if p.kind is inspect.Parameter.VAR_POSITIONAL:  # `*args` takes the rest: args_0, args_1...
      names += [f"{p.name}_{i}" for i in range(count - len(names))]
    elif p.kind is not inspect.Parameter.VAR_KEYWORD:
      names.append(p.name)
  return tuple(names[:count])


def _output_is_value(value) -> bool:
  return value is not None


def input_specs(specs: Sequence[tf.TensorSpec]) -> Tuple[InputSpec, ...]:
  """The plain-data spec of each flattened tf.TensorSpec (None dims and unknown rank kept)."""
  return tuple(InputSpec(None if spec.shape.rank is None else tuple(spec.shape.as_list()),
                         _numpy_name(spec.dtype)) for spec in specs)


def function_signatures(module: tf.Module,
                        names: Sequence[str]) -> Dict[str, FunctionSignature]:
  """Plain-data metadata for each exported function, from its concrete function."""
  signatures = {}
  for name in names:
    function = getattr(module, name)
    concrete = function.get_concrete_function()
    # Arguments past the input_signature are Python defaults (None, False, ...), not tensors.
    args_spec = tuple(concrete.structured_input_signature[0])[:len(function.input_signature)]
    flat_specs = tf.nest.flatten(args_spec)
    inputs = input_specs(flat_specs)
    signatures[name] = FunctionSignature(
        name=name,
        arg_names=_arg_names(function),
        inputs=inputs,
        input_structure=structure.spec_of(args_spec),
        output_structure=structure.spec_of(concrete.structured_outputs, _output_is_value))
  return signatures


def _unimportable_defaults(module: tf.Module, name: str) -> List[str]:
  """`arg=value` for each Python default past the input_signature that the SavedModel importer
  rejects ("Unhandled structured value kind"): it takes None only."""
  function = getattr(module, name)
  count = len(function.input_signature)
  parameters = [p for p in inspect.signature(function.python_function).parameters.values()
                if p.name != "self"]
  return [f"{p.name}={p.default!r}" for p in parameters[count:]
          if p.default is not inspect.Parameter.empty and p.default is not None]


def _numpy_name(dtype: tf.dtypes.DType) -> str:
  if dtype == tf.string:
    return "object"
  return np.dtype(dtype.as_numpy_dtype).name


_FUNC_RE = re.compile(r'func\.func @(\S+?)\(.*tf_saved_model\.exported_names = \["([^"]+)"\]')
_TF_OP_RE = re.compile(r'"(tf(?:_executor|_device)?\.\w+)"\(')


def rename_exported_functions(tf_input: str) -> str:
  """Gives each exported function the name users call it by (`__inference_f_12` -> `f`)."""
  renames = dict(_FUNC_RE.findall(tf_input))
  for old, new in renames.items():  # `new` is the content of an MLIR string: escaped as symbols.
    symbol = "@" + mlir_symbols.spelling(mlir_symbols.name_of(f'"{new}"'))
    tf_input = re.sub(re.escape("@" + old) + r"(?=[(\s,\]}>])", lambda _: symbol, tf_input)
  return tf_input


# Constants over this many bytes are elided from texts saved for people (MLIR's printer flag
# --mlir-elide-elementsattrs-if-larger has no equivalent in TF's Python API, so this rewrites the
# printed form; the printer writes every large dense constant as one hex string).
ELIDE_CONSTANT_BYTES = 1024
_LARGE_HEX_CONSTANT = re.compile(r'dense<"0x[0-9A-Fa-f]{%d,}">' % (2 * ELIDE_CONSTANT_BYTES + 1))
ELIDED_CONSTANT = "dense_resource<__elided__>"


def elide_large_constants(mlir_text: str) -> str:
  """The text with every dense constant over ELIDE_CONSTANT_BYTES printed as MLIR's elided form:
  readable, no longer loadable."""
  return _LARGE_HEX_CONSTANT.sub(ELIDED_CONSTANT, mlir_text)


def unconverted_tf_ops(iree_input: str) -> List[str]:
  """TF ops the lowering left behind, which would make iree-compile crash."""
  return sorted(set(_TF_OP_RE.findall(iree_input)))


LOWERING_PIPELINE = pass_pipelines.LOWERING_PIPELINE


def _convert(saved_model_dir: str, names: Sequence[str]) -> str:
  raw = tf.mlir.experimental.convert_saved_model(
      saved_model_dir, exported_names=",".join(names), show_debug_info=False)
  return rename_exported_functions(raw)


def import_tf_dialect(module: tf.Module, names: Sequence[str],
                      keep_saved_model_at: Optional[Sequence[str]] = None) -> str:
  """SavedModel -> TF-dialect text (tf_input.mlir), exported functions named as users call them."""
  with saved_models.temporary(module) as saved_model_dir:
    for destination in keep_saved_model_at or ():
      saved_models.keep(destination, None, saved_models.copy_of(saved_model_dir))
    return _convert(saved_model_dir, names)


# A tf.Variable the module never assigns becomes an immutable *public* global, and IREE keeps its
# value for the exported `global$<name>$get` accessor besides the compile-time folded copy the
# computation uses (BatchNorm folded into conv kernels): a Keras ResNet50's vmfb was 1.8x its
# weights, 1.0x with them private (and compiled in 9 s instead of 37 s). Nothing calls an
# immutable global's accessor (idle release carries mutable ones, which have get and set).
_PUBLIC_IMMUTABLE_GLOBAL = re.compile(r"\bml_program\.global public @")


def privatize_immutable_globals(iree_input: str) -> str:
  """The text with every immutable public ml_program.global private (mutable ones untouched)."""
  return _PUBLIC_IMMUTABLE_GLOBAL.sub("ml_program.global private @", iree_input)


def lower_to_iree_input(tf_input: str) -> str:
  """TF-dialect text -> StableHLO + ml_program text by the plain lowering alone (the 2020
  driver's lowering step; import_module picks a pipeline per module)."""
  return tf.mlir.experimental.run_pass_pipeline(tf_input, LOWERING_PIPELINE)


def import_module(module: tf.Module, module_name: str,
                  exported_names: Sequence[str] = (),
                  keep_saved_model_at: Optional[Sequence[str]] = None,
                  each_function_on_failure: bool = False,
                  keep_saved_model_on_failure_at: Sequence[str] = ()) -> ImportedModule:
  """SavedModel -> tf_input -> iree_input, with the errors the tools themselves don't give.

  `keep_saved_model_on_failure_at`: where to keep the SavedModel only when the import raises
  (no backend compiles then, so none keeps it: --keep_saved_model must still leave one).

  `each_function_on_failure`: when the whole module does not import (TF's importer or lowering
  raises, or leaves TF ops or functions out), import each function alone and keep those that
  import (`ImportedModule.method_imports` says which). When none does, the whole module's error
  stands (raised, or as `problem` with each function's error after it).
  """
  names = exported_function_names(module, module_name, exported_names)
  outputs = {name: _output_problem(module, module_name, name) for name in names}
  signatures = function_signatures(module, [n for n in names if not outputs[n]])
  problems = {name: outputs[name] or _defaults_problem(module, module_name, name)
              for name in names}
  problems = {name: problem for name, problem in problems.items() if problem}
  if problems and (not each_function_on_failure or len(names) < 2):
    raise ModuleImportError(next(iter(problems.values())))
  good = [name for name in names if name not in problems]
  with saved_models.temporary(module) as saved_model_dir:
    imported = None
    try:
      if not good:
        raise ModuleImportError(next(iter(problems.values())))
      imported = _import_saved_model(saved_model_dir, module_name, good, signatures,
                                     each_function_on_failure)
    except Exception as e:
      if problems:  # each test of a function names that function's own cause.
        e.method_imports = _with_own_problems(  # type: ignore[attr-defined]
            getattr(e, "method_imports", None), module_name, names, problems, (), str(e))
      raise
    finally:  # kept also when the import failed: that is when it is looked at.
      on_failure = tuple(keep_saved_model_at or ()) + (
          tuple(keep_saved_model_on_failure_at) if imported is None else ())
      for destination in on_failure:
        saved_models.keep(destination, imported and imported.identity,
                          saved_models.copy_of(saved_model_dir))
  assert imported is not None  # the import raised otherwise.
  if not problems:
    return imported
  record = _with_own_problems(imported.method_imports, module_name, names, problems,
                              () if imported.problem else imported.imported_names,
                              imported.problem or next(iter(problems.values())))
  return dataclasses.replace(imported, exported_names=tuple(names), method_imports=record)


def _output_problem(module: tf.Module, module_name: str, name: str) -> Optional[str]:
  """Why the SavedModel importer cannot export the outputs of function `name`, or None."""
  namedtuple = _namedtuple_output(getattr(module, name))
  if namedtuple:
    return (f"Function '{name}' of module '{module_name}' returns a namedtuple ({namedtuple}), "
            "which TensorFlow's SavedModel importer cannot export to MLIR; return a tuple or a "
            f"dict instead (e.g. tuple(...) around the {namedtuple}).")
  key = _non_string_key(getattr(module, name).get_concrete_function().structured_outputs)
  if key:
    path, bad = key
    return (f"Function '{name}' of module '{module_name}' returns a dict with the key {bad!r} "
            f"({type(bad).__name__}) at {structure.format_path('outputs', path)}; a SavedModel, "
            f"which the import to MLIR reads, holds only dicts with str keys: use str keys "
            f"(e.g. {str(bad)!r}).")
  return None


def _defaults_problem(module: tf.Module, module_name: str, name: str) -> Optional[str]:
  """Why the Python defaults of function `name` cannot be imported, or None."""
  defaults = _unimportable_defaults(module, name)
  if not defaults:
    return None
  return (f"Function '{name}' of module '{module_name}' has Python defaults past its "
          f"input_signature that IREE's SavedModel import cannot take: {', '.join(defaults)} "
          "(only None is accepted); wrap it without them, e.g. "
          "tf.function(input_signature=[...])(lambda x: f(x, training=False)).")


def _with_own_problems(record: Optional[MethodImports], module_name: str, names: Sequence[str],
                       problems: Dict[str, str], imported: Sequence[str],
                       module_error: str) -> MethodImports:
  """The per-function record with the functions our own checks rejected (their own causes,
  found before TF saw them) among the failures: a function made in a loop with a Python default
  must not give every sibling its error. `imported`: what imported when `record` is None; a
  function neither imported nor in `record` failed with `module_error`."""
  failed = {f.function: f for f in (record.failed if record else ())}
  failed.update({name: method_imports.FunctionImportFailure(name, f"ModuleImportError: {text}")
                 for name, text in problems.items()})
  done = set(record.imported if record else imported)
  failed.update({name: method_imports.FunctionImportFailure(name, module_error)
                 for name in names if name not in failed and name not in done})
  return MethodImports(module_name, record.module_error if record else module_error,
                       tuple(n for n in names if n in done),
                       tuple(failed[n] for n in names if n in failed))


def _import_saved_model(saved_model_dir: str, module_name: str, names: Sequence[str],
                        signatures: Dict[str, FunctionSignature],
                        each_function_on_failure: bool) -> ImportedModule:
  """import_module's steps after the SavedModel is written."""
  subject = f"Module '{module_name}'"
  try:
    tf_input, iree_input = _import_names(saved_model_dir, names)
  except Exception as e:
    if not each_function_on_failure or len(names) < 2:
      raise _failure(module_name, e, saved_model_dir, names) from e
    whole, error = None, e
    module_error = str(import_failure(module_name, e, None)
                       if isinstance(e, tf.errors.OpError) else f"{type(e).__name__}: {e}")
  else:
    # The hints name the files where this text is saved, which it is unless functions import.
    whole = ImportedModule(module_name, tuple(names), tf_input, iree_input, signatures,
                           _problem(subject, names, iree_input, with_file_hints=True))
    module_error = _problem(subject, names, iree_input)
    if module_error is None or not each_function_on_failure or len(names) < 2:
      return whole
    error = None
  partial, record = method_imports.import_each_function(
      module_name, names, module_error,
      lambda some: _import_or_raise(saved_model_dir, some, module_name))
  if partial is not None:
    not_imported = "".join(
        f"{pass_pipelines.HEADER_PREFIX}function '{failure.function}' not imported: "
        f"{phases.first_error_line(failure.reason, diagnostics=True)}\n"
        for failure in record.failed)
    return ImportedModule(module_name, tuple(names), partial[0], not_imported + partial[1],
                          signatures, method_imports=record)
  if error is not None:
    failure = _failure(module_name, error, saved_model_dir, names)
    failure.method_imports = record  # type: ignore[attr-defined]  # each function's own cause.
    raise failure from error
  # No function lowers alone either: the whole module's problem stands, with the record so that
  # each test of a function names that function's own ops.
  assert whole is not None and record is not None  # no error: the whole module imported.
  return dataclasses.replace(
      whole, problem=f"{whole.problem}\n{record.describe(with_module_error=False)}",
      method_imports=record)


def _failure(module_name: str, error: Exception, saved_model_dir: str, names: Sequence[str]
             ) -> Exception:
  """What a failed whole-module import raises: TF's errors as a ModuleImportFailure carrying the
  TF-dialect text when the conversion succeeded (it is converted again: ~0.05 s, on failure
  only); the library's own errors unchanged."""
  if not isinstance(error, tf.errors.OpError):
    return error
  try:
    tf_input = _convert(saved_model_dir, names)
  except Exception:
    tf_input = None  # the conversion is what failed.
  return import_failure(module_name, error, tf_input)


def _import_names(saved_model_dir: str, names: Sequence[str]) -> Tuple[str, str]:
  """tf_input and iree_input of `names`; the errors of TF's importer and lowering propagate."""
  tf_input = _convert(saved_model_dir, names)
  lowered = pass_pipelines.lower(tf_input, names)
  return tf_input, lowered.header() + privatize_immutable_globals(lowered.text)


def _problem(subject: str, names: Sequence[str], iree_input: str,
             with_file_hints: bool = False) -> Optional[str]:
  """Why `iree_input` cannot be compiled (None: it can)."""
  missing = [name for name in names
             if f"func.func @{mlir_symbols.spelling(name)}(" not in iree_input]
  if missing:
    return (f"{subject} imported without the functions {', '.join(missing)}: "
            "the SavedModel importer produced no code for them"
            + (" (see tf_input.mlir)." if with_file_hints else "."))
  leftover = unconverted_tf_ops(iree_input)
  if leftover:
    return (f"{subject} uses TensorFlow ops IREE cannot compile: {', '.join(leftover)} "
            "(left unconverted by the TF->StableHLO lowering"
            + ("; see iree_input.mlir)." if with_file_hints else ")."))
  return None


def _import_or_raise(saved_model_dir: str, names: Sequence[str], module_name: str
                     ) -> Tuple[str, str]:
  """tf_input and iree_input of `names`, which the per-function fallback imports; raises why not
  (a single function's error names it)."""
  subject = (f"Function '{names[0]}' of module '{module_name}'" if len(names) == 1
             else f"Module '{module_name}' (functions {', '.join(names)})")
  try:
    tf_input, iree_input = _import_names(saved_model_dir, names)
  except tf.errors.OpError as e:  # its first cause first, TF's IR left out (as for the module).
    raise import_failure(module_name, e, None, subject) from e
  problem = _problem(subject, names, iree_input) or _reparse_problem(subject, iree_input)
  if problem:
    raise ModuleImportError(problem)
  return tf_input, iree_input


def _reparse_problem(subject: str, iree_input: str) -> Optional[str]:
  """Why MLIR's parser (IREE's, which knows every dialect the import steps emit) rejects the
  text the import printed (None: it does not).

  The fallback checks this because one function whose text does not parse back (a while loop
  whose carried tensor grows from a non-empty start is printed with its initial static type) would
  make iree-compile reject the text of every function imported with it. It is one parse (a few ms
  for a small module); whole-module imports skip it and leave the error to iree-compile, as before.
  """
  from iree.compiler import ir  # (~0.2 s: only here)
  with ir.Context():
    try:
      ir.Module.parse(pass_pipelines.strip_header(iree_input))
    except ir.MLIRError as e:
      message = " ".join(str(e).split())
      return f"{subject} was lowered by TF to text that does not parse back: {message}"
  return None
