"""Calling the TF reference's exported methods: each method's one concrete function, directly.

A tf.function called as `instance.method(*args)` binds and converts its arguments against its
FunctionType and looks its concrete function up in a cache keyed by the calling context, on
every call: ~250 us of a ~400 us call of a small method, and a long trace makes thousands. An
exported method has an input_signature, so exactly one concrete function; after the first call
of a method on an instance (made the ordinary way, which also lets TensorFlow create variables a
method makes on its first call), `ReferenceMethods` calls that concrete function with the flat
inputs as tensors. It gives the same results, state effects and errors: it is taken only when
every flat input is a numpy array of exactly the dtype of the concrete function's input spec and
a shape the spec accepts, TensorFlow executes eagerly and does not run functions as Python
(`tf.config.run_functions_eagerly`); anything else takes the ordinary call, with TensorFlow's
own errors. A new instance (`reinitialize`) gets new `ReferenceMethods`, and the variables'
current values are read at each call (the captured inputs are their handles).
"""

import contextlib
import dataclasses
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.core import verbosity

verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf

try:  # private TensorFlow API: what tf.function's calls consult to be cancellable.
  from tensorflow.python.eager import cancellation as _cancellation
except ImportError:  # a TensorFlow without it: calls cannot be cancelled.
  _cancellation = None

__all__ = ["ReferenceMethods", "cancellable"]

Dims = Optional[Tuple[Optional[int], ...]]


def _flat_caller(concrete: Any) -> Callable[[List[Any]], Any]:
  """Runs `concrete` on flat input tensors as its own call does once the arguments are bound.

  `ConcreteFunction._call_flat` is private TensorFlow API, the step a tf.function call ends in
  (tracing_compilation.call_function) after binding and converting the arguments, with the
  variables' handles as captured inputs. Without it (a TensorFlow that renamed it) the public
  flat signature is used: `concrete(*tensors)` binds the tensors itself, a little slower.
  """
  call_flat = getattr(concrete, "_call_flat", None)
  if call_flat is None:
    return lambda tensors: concrete(*tensors)
  return lambda tensors: call_flat(tensors, concrete.captured_inputs)


def _accepts(dims: Dims, shape: Tuple[int, ...]) -> bool:
  return dims is None or (len(dims) == len(shape) and all(
      want is None or want == got for want, got in zip(dims, shape)))


@dataclasses.dataclass(frozen=True)
class _Direct:
  """One method's concrete function and what its flat inputs must be to call it directly."""
  call: Callable[[List[Any]], Any]
  dtypes: Tuple[np.dtype, ...]
  dims: Tuple[Dims, ...]

  def takes(self, flat: Sequence[Any]) -> bool:
    return len(flat) == len(self.dtypes) and all(
        type(value) is np.ndarray and value.dtype == dtype and _accepts(dims, value.shape)
        for value, dtype, dims in zip(flat, self.dtypes, self.dims))


def _direct_call(function: Any) -> Optional[_Direct]:
  """The direct call of a tf.function already called once, or None when it has no single
  concrete function of numeric tensor inputs."""
  signature = getattr(function, "input_signature", None)
  if signature is None or not hasattr(function, "get_concrete_function"):
    return None
  traces = function.experimental_get_tracing_count()
  concrete = function.get_concrete_function()
  if function.experimental_get_tracing_count() != traces:  # not the one the call ran.
    return None
  specs = tf.nest.flatten(tuple(concrete.structured_input_signature[0])[:len(signature)])
  if not all(isinstance(spec, tf.TensorSpec) for spec in specs):
    return None
  if len(concrete.inputs) != len(specs) + len(concrete.captured_inputs):
    return None
  dtypes, dims = [], []
  for spec in specs:
    if not spec.dtype.is_numeric and not spec.dtype.is_bool:
      return None  # strings and resources: converted only by the ordinary call.
    dtype = np.dtype(spec.dtype.as_numpy_dtype)
    if tf.as_dtype(dtype) != spec.dtype:
      return None
    dtypes.append(dtype)
    dims.append(None if spec.shape.rank is None else tuple(spec.shape.as_list()))
  return _Direct(_flat_caller(concrete), tuple(dtypes), tuple(dims))


_UNSEEN = object()


class ReferenceMethods:
  """The exported methods of one tf.Module instance, called with flat numpy inputs."""

  def __init__(self, instance: tf.Module):
    self._instance = instance
    self._direct: Dict[str, Any] = {}  # name -> _Direct, None (never direct) or unseen.

  def call(self, name: str, flat: Sequence[Any], pack: Callable[[Sequence[Any]], List[Any]]
           ) -> Any:
    """`instance.<name>` on the inputs `flat`; `pack` rebuilds its positional arguments."""
    direct = self._direct.get(name, _UNSEEN)
    if (direct is not _UNSEEN and direct is not None and direct.takes(flat)
        and tf.executing_eagerly() and not tf.config.functions_run_eagerly()):
      return direct.call([tf.constant(value) for value in flat])
    function = getattr(self._instance, name)
    result = function(*pack(flat))
    if direct is _UNSEEN:
      self._direct[name] = _direct_call(function)
    return result


@contextlib.contextmanager
def cancellable() -> Iterator[Optional[Callable[[], None]]]:
  """Within, a tf.function call can be cancelled from another thread by the function yielded
  (None when this TensorFlow cannot): its executor stops between ops, a `tf.while_loop` too,
  and the call raises CancelledError. How the watchdog stops a reference call that would loop
  for hours (`core/interrupts`)."""
  if _cancellation is None:
    yield None
    return
  manager = _cancellation.CancellationManager()
  with _cancellation.CancellationManagerContext(manager):
    yield manager.start_cancel
