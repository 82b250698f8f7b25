"""The messages between the test process and a runtime worker, over `multiprocessing` connections.

Framing is `multiprocessing.connection.Connection` (`send_bytes` / `recv_bytes` / `poll`) over two
plain pipes; each message is a pickle of plain Python and numpy values. The receiving side unpickles
numpy arrays, scalars and dtypes (ml_dtypes' bfloat16, float8, int4, ... included) and a few
builtins only, so a message can never run a function or import TensorFlow into the worker.

Requests: ("load", vmfb, driver, release device when idle, fixed idle seconds or None),
("call", function name, flat inputs), ("reset",), ("close",).
Replies: ("ok", value) or ("error", exception type name, message, traceback text).

TensorFlow-free.
"""

import io
from multiprocessing.connection import Connection
import pickle
from typing import Any, Optional

import numpy as np

from pyiree_tf_support.core import faults

# Exactly the globals a pickle of numpy arrays, scalars and dtypes (numpy >= 2) refers to; any
# other numpy function (numpy.save, numpy.load, ...) would run with the pickle's arguments.
_NUMPY_GLOBALS = frozenset((
    ("numpy", "dtype"),
    ("numpy", "ndarray"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy._core.numeric", "_frombuffer"),
))
_ALLOWED_BUILTINS = frozenset(("complex", "bytearray", "slice", "range", "set", "frozenset"))


class ChannelClosed(Exception):
  """The other end of the connection went away (process exited, was killed or closed it)."""


class RefusedMessage(faults.OwnFault, pickle.UnpicklingError):
  """A message held something the receiver does not unpickle: our fault, not a backend's."""


def _is_ml_dtypes_scalar_type(name: str) -> bool:
  """Whether `ml_dtypes.<name>` is one of its scalar types (bfloat16, float8_e4m3fn, int4, ...),
  which the dtype of an array of them names."""
  try:
    import ml_dtypes
  except ImportError:  # then no sender here has its values either.
    return False
  candidate = getattr(ml_dtypes, name, None) if not name.startswith("_") else None
  return isinstance(candidate, type) and issubclass(candidate, np.generic)


class _NumpyOnlyUnpickler(pickle.Unpickler):
  """Unpickles plain data, numpy arrays, scalars and dtypes (ml_dtypes' too) only, so nothing
  runs and nothing (e.g. TensorFlow) gets imported."""

  def find_class(self, module: str, name: str) -> Any:
    if ((module, name) in _NUMPY_GLOBALS
        or (module == "builtins" and name in _ALLOWED_BUILTINS)
        or (module == "ml_dtypes" and _is_ml_dtypes_scalar_type(name))):
      return super().find_class(module, name)
    raise pickle.UnpicklingError(
        f"refusing to unpickle {module}.{name}: only numpy values cross the worker boundary")


def reader(fd: int) -> Connection:
  """The receiving end of a pipe as a Connection (owns and closes `fd`)."""
  return Connection(fd, writable=False)


def writer(fd: int) -> Connection:
  """The sending end of a pipe as a Connection (owns and closes `fd`)."""
  return Connection(fd, readable=False)


def send(connection: Connection, message: Any) -> None:
  """Sends one message; raises ChannelClosed if the receiver is gone."""
  payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
  try:
    connection.send_bytes(payload)
  except OSError as e:  # BrokenPipeError, or the connection was closed on our side.
    raise ChannelClosed(str(e)) from e


def receive(connection: Connection, timeout: Optional[float] = None) -> Any:
  """The next message; TimeoutError if none starts within `timeout` s, ChannelClosed on EOF.

  The timeout bounds the wait for a message to begin; a sender that dies mid-message is EOF.
  """
  try:
    ready = timeout is None or connection.poll(max(timeout, 0.0))
    payload = connection.recv_bytes() if ready else None
  except (EOFError, OSError) as e:
    raise ChannelClosed(str(e) or "end of stream") from e
  if payload is None:
    raise TimeoutError(f"no message within {timeout:g} s")
  try:
    return _NumpyOnlyUnpickler(io.BytesIO(payload)).load()
  except pickle.UnpicklingError as e:  # the stream stays in step: the whole message was read.
    raise RefusedMessage(str(e)) from None


def plain_input(value: Any) -> Any:
  """An input as a plain numpy value that pickles without importing anything but numpy."""
  if (type(value) is np.ndarray
      or isinstance(value, np.generic) or type(value) in (bool, int, float)):
    array = value
  else:
    array = np.asarray(value)  # e.g. a tf.Tensor or a numpy subclass.
  if isinstance(array, np.ndarray) and array.dtype.hasobject:
    raise TypeError(f"cannot pass an object array (dtype {array.dtype}) to an IREE function")
  return array
