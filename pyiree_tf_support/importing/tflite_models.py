"""TensorFlow Lite models of a tf.Module's exported methods: one flatbuffer and one interpreter per
method, as 2020's `TfLiteCompiledModule` had them (`<Module>/tflite/<method>.tflite`).

Each method is converted through a flat wrapper: inputs `input_0000, ...` (the signature's
flattened inputs) and a dict result `output_0000, ...` (its flattened non-None results), because
the converter keeps a signature only for flat results (a nested result measured on TF 2.21 left
the model with no signature and outputs named `a`, `Identity_1`, ...). The results are packed
back into TensorFlow's structure by the method's `FunctionSignature`.

Measured on TF 2.21 (docs/backends.md): `TFLiteConverter.from_concrete_functions([fn], module)`
converts builtin ops only; an op without a TFLite kernel (tf.Erf, f64 arithmetic, strings) is a
`ConverterError` whose first cause is "'tf.Erf' op is neither a custom op nor a flex op" (the
rest is MLIR dumps, kept out of reports). tf.Variables become TFLite resource variables
initialised to their values at conversion: state persists across one interpreter's calls, and a
new interpreter from the same flatbuffer starts from the initial values. Each method has its own
interpreter, so its own copy of every variable: a variable one method assigns is not seen by
another (as in 2020). `tf.lite.Interpreter` still runs in TF 2.21 but warns that it is deprecated
in favour of LiteRT's `ai_edge_litert.interpreter.Interpreter` (same API, no TensorFlow); that
one is used when it is installed (`interpreter_class`), the warning is silenced otherwise. The
interpreters themselves are `runtime/tflite_modules`'.
"""

import dataclasses
import hashlib
import os
import re
from typing import Any, Callable, Dict, Optional
import warnings

from pyiree_tf_support.core import verbosity

verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf

from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.core import tflite_layout
from pyiree_tf_support.core.signatures import FunctionSignature

__all__ = ["ConvertedMethod", "TfLiteConversionError", "convert_methods", "first_cause",
           "interpreter_class"]


class TfLiteConversionError(RuntimeError):
  """The converter could not turn a method into a TFLite model."""


@dataclasses.dataclass(frozen=True)
class ConvertedMethod:
  """One method's TFLite model, or the converter's first cause of not making one."""
  name: str
  model: Optional[bytes] = None
  error: Optional[str] = None
  path: Optional[str] = None


_ERROR = re.compile(r"\berror: (.*)")


def first_cause(message: str) -> str:
  """The converter's first `error:` text without its location, with the ops it lists as needing
  TF kernels ("TF Select ops: Erf"), as one line; else the message's first line."""
  lines = [line.strip() for line in message.splitlines()]
  found = next((m for m in map(_ERROR.search, lines) if m), None)
  cause = found.group(1) if found else next((line for line in lines if line),
                                            "the converter failed without a message")
  select = next((line for line in lines if line.startswith("TF Select ops:")), None)
  return " ".join((f"{cause} ({select})" if select else cause).split())


def _tf_dtype(name: str) -> tf.DType:
  return tf.string if name in ("object", "str", "bytes") else tf.as_dtype(name)


def _flat_function(method: Any, signature: FunctionSignature) -> Any:
  """`method` as a tf.function of flat named inputs returning a flat dict (see the docstring)."""
  def flat(*inputs):
    result = method(*signature.pack_inputs(list(inputs)))
    leaves = structure.flatten(result, drop_none=True)
    return {tflite_layout.output_name(i): leaf for i, leaf in enumerate(leaves)}

  # A shape of None (an unknown rank) is one TensorSpec takes; its stubs' ShapeLike omits it.
  specs = [
      tf.TensorSpec(
          None if spec.shape is None else list(spec.shape),  # pyright: ignore[reportArgumentType]
          _tf_dtype(spec.dtype), name=tflite_layout.input_name(i))
      for i, spec in enumerate(signature.inputs)]
  return tf.function(flat, input_signature=specs).get_concrete_function()


def _assigns_variables(concrete: Any) -> bool:
  """Whether the function (or a function it calls) writes a resource variable."""
  graph = concrete.graph.as_graph_def()
  ops = {node.op for node in graph.node} | {
      node.op for function in graph.library.function for node in function.node_def}
  return any(op.startswith(("Assign", "ResourceScatter", "ResourceApply", "ResourceSparse"))
             for op in ops)


def _frozen(concrete: Any) -> Any:
  """`concrete` with the variables it reads made constants, when it writes none.

  Measured on TF 2.21: converted with its variables, a Keras 3 model's method read them
  uninitialised (softmax outputs all 1/3; without XNNPACK "READ_VARIABLE failed to invoke"),
  frozen it gives TensorFlow's values. Methods that assign keep their variables (plain
  tf.Variables are initialised correctly). `convert_variables_to_constants_v2` is TensorFlow's
  private freezing step; without it the variables are kept."""
  if not concrete.captured_inputs or _assigns_variables(concrete):
    return concrete
  try:
    from tensorflow.python.framework import convert_to_constants
  except ImportError:
    return concrete
  return convert_to_constants.convert_variables_to_constants_v2(concrete)


def _convert(instance: tf.Module, name: str, signature: FunctionSignature) -> bytes:
  try:
    concrete = _frozen(_flat_function(getattr(instance, name), signature))
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], instance)
    with verbosity.quiet_native_stderr():
      return converter.convert()
  except Exception as e:
    # ConverterError (convert_phase), or a ValueError/TypeError of tracing or its Python side.
    cause = first_cause(str(e))
    raise TfLiteConversionError(f"{type(e).__name__}: {cause}" if not _ERROR.search(str(e))
                                else cause) from None


def convert_methods(instance: tf.Module, signatures: Dict[str, FunctionSignature],
                    artifacts_dir: Optional[str]) -> Dict[str, ConvertedMethod]:
  """Each method of `signatures` converted alone; models written to <artifacts_dir>/tflite/ with
  conversions.json (`core/tflite_layout`), which binds them to the iree_input.mlir the run
  imported before converting (a test run imports for its IREE backends first)."""
  converted = {}
  for name, signature in signatures.items():
    try:
      model = _convert(instance, name, signature)
    except TfLiteConversionError as e:
      converted[name] = ConvertedMethod(name, error=str(e))
      continue
    path = None
    if artifacts_dir is not None:
      path = tflite_layout.model_path(artifacts_dir, name)
      os.makedirs(os.path.dirname(path), exist_ok=True)
      safe_files.write_bytes(path, model)
    converted[name] = ConvertedMethod(name, model=model, path=path)
  if artifacts_dir is not None:
    os.makedirs(tflite_layout.tflite_dir(artifacts_dir), exist_ok=True)
    iree_input = os.path.join(artifacts_dir, "iree_input.mlir")  # imported before: see above.
    digest = (hashlib.sha256(safe_files.read_bytes(iree_input)).hexdigest()
              if os.path.isfile(iree_input) else None)
    safe_files.write_text(
        os.path.join(tflite_layout.tflite_dir(artifacts_dir), tflite_layout.CONVERSIONS),
        tflite_layout.conversions_text({n: c.error for n, c in converted.items()}, digest))
  return converted


def _tf_lite_interpreter(**kwargs) -> Any:
  with warnings.catch_warnings():  # "tf.lite.Interpreter is deprecated": said in backends.md.
    warnings.filterwarnings("ignore", message=".*tf.lite.Interpreter is deprecated.*")
    return tf.lite.Interpreter(**kwargs)


def interpreter_class(litert: Optional[Callable[..., Any]]) -> Callable[..., Any]:
  """`litert` (LiteRT's interpreter, when installed), else TensorFlow's own, quietly."""
  return litert if litert is not None else _tf_lite_interpreter
