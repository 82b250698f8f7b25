"""Copies IREE function results back to the host as plain numpy arrays, reliably on every driver.

iree-base-runtime 3.13's `DeviceArray.to_host()` fails on the Vulkan driver: it tries to import a
numpy allocation as a host buffer and Vulkan (lavapipe) requires 4096-byte aligned pointers
("minImportedHostPointerAlignment 4096"). Here device-resident results are instead copied into
freshly allocated HOST_LOCAL|DEVICE_VISIBLE staging buffers (all results of a call in one command
buffer, one queue submission, one wait) and read through `map()`. CPU drivers (`local-task`,
`local-sync`; see drivers) use `to_host()`.

Every array returned is an independent copy: a mapped view could alias runtime memory that a later
call overwrites (e.g. a variable's storage on local-task).

TensorFlow-free: used by the runtime worker process.
"""

from typing import Any, List, Optional, Sequence

import numpy as np

from pyiree_tf_support.core import structure
from pyiree_tf_support.runtime import drivers


def _is_device_array(value: Any) -> bool:
  """Asks the class, not the value: a DeviceArray's `dtype` is a property mapping its element
  type, a cost on every result of every call."""
  kind = type(value)
  return hasattr(kind, "to_host") and hasattr(kind, "dtype")


def staging_copy_many(values: Sequence[Any], device: Any = None) -> List[np.ndarray]:
  """Reads DeviceArrays through host-visible staging buffers: one command buffer, one wait.

  Batching matters on lavapipe, where every queue submission + host wait costs milliseconds.
  """
  from iree.runtime import BufferUsage
  from iree.runtime import HalCommandBuffer
  from iree.runtime import HalElementType
  from iree.runtime import HalFence
  from iree.runtime import MemoryType

  results: List[Optional[np.ndarray]] = [None] * len(values)
  pending = []  # (index, staging buffer, shape, dtype)
  command_buffer = None
  for index, value in enumerate(values):
    # DeviceArray does not expose its buffer view or device publicly in 3.13.
    buffer_view = value._buffer_view
    if device is None:
      device = value._device
    shape = tuple(buffer_view.shape)
    # The element type's dtype: bool for i1 (stored as one byte), ml_dtypes.bfloat16 for bf16.
    dtype = np.dtype(HalElementType.map_to_dtype(buffer_view.element_type))
    source = buffer_view.get_buffer()
    byte_length = source.byte_length()
    if byte_length == 0 or 0 in shape:
      results[index] = np.zeros(shape, dtype=dtype)
      continue
    staging = device.allocator.allocate_buffer(
        memory_type=int(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE),
        allowed_usage=int(BufferUsage.TRANSFER_TARGET | BufferUsage.MAPPING_SCOPED),
        allocation_size=byte_length)
    if command_buffer is None:
      command_buffer = HalCommandBuffer(device, binding_capacity=0, begin=True)
    command_buffer.copy(source, staging, end=False)
    pending.append((index, staging, shape, dtype))

  if command_buffer is not None:
    command_buffer.end()
    semaphore = device.create_semaphore(0)
    device.queue_execute(
        command_buffer,
        wait_semaphores=HalFence.create_at(semaphore, 0),
        signal_semaphores=HalFence.create_at(semaphore, 1))
    HalFence.create_at(semaphore, 1).wait()
  for index, staging, shape, dtype in pending:
    mapped = staging.map()
    results[index] = np.array(mapped.asarray(shape, dtype), copy=True)  # owned: see above.
    del mapped
  return results  # type: ignore[return-value]


def staging_copy(value: Any, device: Any = None) -> np.ndarray:
  """Reads one DeviceArray through a host-visible staging buffer (works where to_host() fails)."""
  return staging_copy_many([value], device)[0]


def _to_host_copy(value: Any) -> np.ndarray:
  return np.array(value.to_host(), copy=True)


def results_to_numpy(result: Any, device: Any = None,
                     driver: str = "local-task") -> List[np.ndarray]:
  """A function's return value as a flat list of owned numpy arrays ([] for no result).

  IREE returns None for no result, the value itself for one, and a tuple for several; nested
  lists/tuples and dicts are flattened by `structure` (tf.nest order). On non-CPU drivers
  all device arrays are read with one staging copy; if that fails, each falls back to to_host()
  (and on CPU drivers the other way round).
  """
  leaves = structure.flatten(result, drop_none=True)
  out: List[Any] = [None] * len(leaves)
  device_indices = []
  for index, leaf in enumerate(leaves):
    if _is_device_array(leaf):
      device_indices.append(index)
    else:
      out[index] = np.array(leaf, copy=True)
  if not device_indices:
    return out
  device_values = [leaves[i] for i in device_indices]
  if drivers.facts(driver).needs_staging:
    try:
      hosts = staging_copy_many(device_values, device)
    except Exception as staging_error:
      try:
        hosts = [_to_host_copy(v) for v in device_values]
      except Exception:
        raise staging_error from None
  else:
    hosts = []
    for value in device_values:
      try:
        hosts.append(_to_host_copy(value))
      except Exception as to_host_error:
        try:
          hosts.append(staging_copy(value, device))
        except Exception:
          raise to_host_error from None
  for index, host in zip(device_indices, hosts):
    out[index] = host
  return out


