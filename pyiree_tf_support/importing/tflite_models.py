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
one is used when it is installed, the warning is silenced otherwise.
"""

import dataclasses
import os
import re
import warnings
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from pyiree_tf_support.core import verbosity
verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf  # pylint: disable=g-import-not-at-top,wrong-import-position

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import structure
from pyiree_tf_support.core.signatures import FunctionSignature

__all__ = ["ConvertedMethod", "TfLiteConversionError", "convert_methods", "first_cause",
           "MethodInterpreter", "tflite_dir"]

SUBDIR = "tflite"


class TfLiteConversionError(RuntimeError):
  """The converter could not turn a method into a TFLite model."""


@dataclasses.dataclass(frozen=True)
class ConvertedMethod:
  """One method's TFLite model, or the converter's first cause of not making one."""
  name: str
  model: Optional[bytes] = None
  error: Optional[str] = None
  path: Optional[str] = None


def tflite_dir(artifacts_dir: str) -> str:
  return os.path.join(artifacts_dir, SUBDIR)


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


def _flat_function(method: Any, signature: FunctionSignature) -> Any:
  """`method` as a tf.function of flat named inputs returning a flat dict (see the docstring)."""
  def flat(*inputs):
    result = method(*signature.pack_inputs(list(inputs)))
    leaves = structure.flatten(result, drop_none=True)
    return {f"output_{i:04d}": leaf for i, leaf in enumerate(leaves)}

  specs = [tf.TensorSpec(None if spec.shape is None else list(spec.shape), spec.dtype,
                         name=f"input_{i:04d}") for i, spec in enumerate(signature.inputs)]
  return tf.function(flat, input_signature=specs).get_concrete_function()


def _convert(instance: tf.Module, name: str, signature: FunctionSignature) -> bytes:
  concrete = _flat_function(getattr(instance, name), signature)
  converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], instance)
  try:
    with verbosity.quiet_native_stderr():
      return converter.convert()
  except Exception as e:  # pylint: disable=broad-except
    # ConverterError (convert_phase), or a ValueError/TypeError of its Python side.
    raise TfLiteConversionError(first_cause(str(e)) or type(e).__name__) from None


def convert_methods(instance: tf.Module, signatures: Dict[str, FunctionSignature],
                    artifacts_dir: Optional[str]) -> Dict[str, ConvertedMethod]:
  """Each method of `signatures` converted alone; models written to <artifacts_dir>/tflite/."""
  converted = {}
  for name, signature in signatures.items():
    try:
      model = _convert(instance, name, signature)
    except TfLiteConversionError as e:
      converted[name] = ConvertedMethod(name, error=str(e))
      continue
    path = None
    if artifacts_dir is not None:
      os.makedirs(tflite_dir(artifacts_dir), exist_ok=True)
      path = os.path.join(tflite_dir(artifacts_dir), f"{name}.tflite")
      artifacts.write_bytes(path, model)
    converted[name] = ConvertedMethod(name, model=model, path=path)
  return converted


def _interpreter_class() -> Any:
  try:  # LiteRT, TFLite's successor: the same interpreter without TensorFlow's deprecation.
    from ai_edge_litert.interpreter import Interpreter  # pylint: disable=import-outside-toplevel
    return Interpreter
  except ImportError:
    return tf.lite.Interpreter


class MethodInterpreter:
  """One method's interpreter, called with flat numpy inputs; `reset` starts a new one (the
  variables back to their values at conversion)."""

  def __init__(self, model: bytes):
    self._model = model
    self.reset()

  def reset(self) -> None:
    with warnings.catch_warnings():
      warnings.filterwarnings("ignore", message=".*tf.lite.Interpreter is deprecated.*")
      self._interpreter = _interpreter_class()(model_content=self._model)
    self._runner = self._interpreter.get_signature_runner()

  def call(self, flat: Sequence[np.ndarray]) -> List[np.ndarray]:
    results = self._runner(**{f"input_{i:04d}": value for i, value in enumerate(flat)})
    return [np.asarray(results[key]) for key in sorted(results)]
