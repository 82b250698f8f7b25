"""Running TensorFlow Lite models: one interpreter per exported method, behind the `LoadedModule`
interface of `loading` (call by function name with flat numpy inputs, reset, close).

TensorFlow-free itself: the interpreter class is passed in. In a TensorFlow process (a test run)
`importing.tflite_models.interpreter_class()` gives LiteRT's when installed, else
`tf.lite.Interpreter`; replay, which never imports TensorFlow, can run tflite only with LiteRT's
(`litert_interpreter_class`, the `ai-edge-litert` package: same API, measured on 2.3.0 to run the
models TF 2.21's converter writes, in 5 ms of import and without TensorFlow).

The models are those of `importing.tflite_models` (laid out as `core/tflite_layout` says); their
state is in each interpreter's resource variables (a new interpreter starts from the values at
conversion, which is what `reset` does).
"""

from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.core.tflite_layout import input_name
from pyiree_tf_support.runtime.call_errors import BackendRuntimeError

__all__ = ["TfLiteModule", "litert_interpreter_class"]

InterpreterClass = Callable[..., Any]


def litert_interpreter_class() -> Optional[InterpreterClass]:
  """LiteRT's interpreter (TFLite's successor, no TensorFlow), or None when not installed."""
  try:
    from ai_edge_litert.interpreter import Interpreter
  except ImportError:
    return None
  return Interpreter


def _output_number(name: str) -> int:
  digits = name.rpartition("_")[2]
  return int(digits) if digits.isdigit() else -1


class TfLiteModule:
  """Models by method name, each run by its own interpreter; an interpreter's failure is a
  BackendRuntimeError naming the method, as an IREE driver's is."""

  def __init__(self, models: Mapping[str, bytes], interpreter_class: InterpreterClass):
    self._models = dict(models)
    self._interpreter_class = interpreter_class
    self.function_names: Tuple[str, ...] = tuple(self._models)
    self._runners: Dict[str, Any] = {}
    self.reset()

  def reset(self) -> None:
    self._runners = {name: self._interpreter_class(model_content=model).get_signature_runner()
                     for name, model in self._models.items()}

  def call(self, function_name: str, flat_inputs: Sequence[np.ndarray]) -> List[np.ndarray]:
    try:
      results = self._runners[function_name](
          **{input_name(i): value for i, value in enumerate(flat_inputs)})
    except Exception as e:  # the interpreter raises ValueError/RuntimeError with its message.
      raise BackendRuntimeError(f"TFLite interpreter: call to '{function_name}' failed: "
                                f"{type(e).__name__}: {' '.join(str(e).split())}") from e
    # output_0000, ... as the flat dict names them; output_0, ... once the variables are frozen
    # (importing.tflite_models): in the flat order either way, by number.
    return [np.asarray(results[key]) for key in sorted(results, key=_output_number)]

  def close(self) -> None:
    self._runners = {}
