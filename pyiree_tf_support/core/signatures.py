"""Function metadata as plain, JSON-able data: names, flattened input specs, input/output structure.

Extracted once on the TensorFlow side (see `importer`), it lets any process cast and flatten a
call's inputs and re-pack its results without importing TensorFlow.
"""

import dataclasses
import functools
import inspect
import json
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.core import casting
from pyiree_tf_support.core import structure


@functools.lru_cache(maxsize=None)  # once per name: every call of a trace casts its inputs.
def numpy_dtype(name: str) -> np.dtype:
  """np.dtype from a name, including ml_dtypes' bfloat16 and friends."""
  try:
    return np.dtype(name)
  except TypeError:
    import ml_dtypes
    return np.dtype(getattr(ml_dtypes, name))


@dataclasses.dataclass(frozen=True)
class InputSpec:
  """One flattened input: its shape (None for dynamic dimensions) and numpy dtype name."""
  shape: Optional[Tuple[Optional[int], ...]]
  dtype: str

  def accepts_shape(self, shape: Tuple[int, ...]) -> bool:
    if self.shape is None:
      return True
    return len(shape) == len(self.shape) and all(
        want is None or want == got for want, got in zip(self.shape, shape))

  def __str__(self) -> str:
    if self.shape is None:
      return f"{self.dtype}[*]"
    dims = ", ".join("?" if d is None else str(d) for d in self.shape)
    return f"{self.dtype}[{dims}]"


@dataclasses.dataclass(frozen=True)
class FunctionSignature:
  """How one exported function is called and what it returns."""
  name: str
  arg_names: Tuple[str, ...]
  inputs: Tuple[InputSpec, ...]
  input_structure: Any  # structure spec of the positional-arguments tuple
  output_structure: Any

  def python_signature(self) -> inspect.Signature:
    """The function's Python signature, so binding errors read like Python's own."""
    return inspect.Signature([inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                              for name in self.arg_names])

  def bind(self, module_name: str, args: Sequence[Any], kwargs: Mapping[str, Any]) -> List[Any]:
    """Positional argument list from args and keyword arguments, with a clear error on misuse."""
    if not kwargs and len(args) == len(self.arg_names):
      return list(args)  # what bind() gives, without building a Signature on every call.
    try:
      # Python's own calls name an unknown keyword before a missing argument; bind() does not.
      unknown = next((key for key in kwargs if key not in self.arg_names), None)
      if unknown is not None:
        raise TypeError(f"got an unexpected keyword argument '{unknown}'")
      bound = self.python_signature().bind(*args, **kwargs)
    except TypeError as e:
      raise TypeError(f"{module_name}.{self.name}() takes {len(self.arg_names)} argument(s) "
                      f"({', '.join(self.arg_names)}): {e}.") from None
    return list(bound.args)

  def flatten_inputs(self, module_name: str, args: Sequence[Any],
                     kwargs: Mapping[str, Any]) -> List[np.ndarray]:
    """The call's inputs flattened in signature order and cast to the signature's dtypes."""
    bound = self.bind(module_name, args, kwargs)
    try:
      flat = structure.flatten_as(self.input_structure, tuple(bound), "args")
    except TypeError as e:
      raise TypeError(
          f"{module_name}.{self.name}() inputs do not match its signature: {e}.") from None
    return [self._cast(i, value, spec, module_name) for i, (value, spec)
            in enumerate(zip(flat, self.inputs))]

  def _input_name(self, index: int) -> str:
    """'input 1 (b)' when the flat input is a whole argument, else 'input 1'."""
    if len(self.inputs) == len(self.arg_names):
      return f"input {index} ('{self.arg_names[index]}')"
    return f"input {index}"

  def _cast(self, index: int, value: Any, spec: InputSpec, module_name: str) -> np.ndarray:
    dtype = numpy_dtype(spec.dtype)
    if type(value) is np.ndarray and value.dtype == dtype and dtype.kind != "O":
      array = value  # what `cast` returns for it, without naming the input first.
    else:
      where = f"{module_name}.{self.name}() {self._input_name(index)}"
      array = casting.cast(value, dtype, where)
    if not spec.accepts_shape(array.shape):
      raise ValueError(f"{module_name}.{self.name}() input {index} has shape "
                       f"{list(array.shape)}, but the signature expects {spec}.")
    return array

  def pack_inputs(self, flat: Sequence[Any]) -> List[Any]:
    """The positional arguments rebuilt from flattened inputs."""
    return list(structure.pack(self.input_structure, flat))

  def pack_outputs(self, flat: Sequence[Any]) -> Any:
    """The function's result in the structure TensorFlow returns it."""
    return structure.pack(self.output_structure, list(flat))

  def to_json(self) -> Dict[str, Any]:
    return {
        "name": self.name,
        "arg_names": list(self.arg_names),
        "inputs": [{"shape": None if s.shape is None else list(s.shape), "dtype": s.dtype}
                   for s in self.inputs],
        "input_structure": self.input_structure,
        "output_structure": self.output_structure,
    }

  @classmethod
  def from_json(cls, data: Mapping[str, Any]) -> "FunctionSignature":
    return cls(
        name=data["name"],
        arg_names=tuple(data["arg_names"]),
        inputs=tuple(InputSpec(None if s["shape"] is None else tuple(s["shape"]), s["dtype"])
                     for s in data["inputs"]),
        input_structure=data["input_structure"],
        output_structure=data["output_structure"])


def signatures_to_json(signatures: Mapping[str, FunctionSignature]) -> str:
  return json.dumps({name: sig.to_json() for name, sig in signatures.items()}, indent=1)


def signatures_from_json(text: str) -> Dict[str, FunctionSignature]:
  return {name: FunctionSignature.from_json(data) for name, data in json.loads(text).items()}
