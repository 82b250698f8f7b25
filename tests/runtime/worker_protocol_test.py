"""The worker wire protocol: what crosses the pipe, and what a dying worker looks like to the
caller.

No TensorFlow. Round trips run over real os.pipe Connections in this process; the killed-worker
case runs a real worker process on local-task.
"""

import os
import pickle
import signal
import tempfile
import threading
import time

from absl.testing import absltest
from absl.testing import parameterized
import ml_dtypes
import numpy as np

from pyiree_tf_support.core import faults
from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.runtime import worker_protocol
from pyiree_tf_support.runtime.call_errors import BackendRuntimeError
from pyiree_tf_support.runtime.call_errors import WorkerCrashedError

_MODULE = """
func.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def _channel(test_case):
  """(sending Connection, receiving Connection) over a fresh pipe, closed after the test."""
  read_fd, write_fd = os.pipe()
  sender, receiver = worker_protocol.writer(write_fd), worker_protocol.reader(read_fd)
  test_case.addCleanup(sender.close)
  test_case.addCleanup(receiver.close)
  return sender, receiver


class _NotNumpy:
  pass


def _crafted(function, *args) -> bytes:
  """A request whose input unpickles by calling `function(*args)` (what an attacker would send)."""

  class Payload:

    def __reduce__(self):
      return function, args

  return pickle.dumps(("call", "f", [Payload()]), protocol=pickle.HIGHEST_PROTOCOL)


# Every dtype a signature can give an input (numpy's numbers and each scalar type of ml_dtypes:
# TensorFlow's bfloat16, float8_*, int4, uint4, int2, uint2, float4_e2m1fn among them).
_NUMPY_DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "float16", "float32", "float64", "complex64", "complex128")
_ML_DTYPES = tuple(sorted(
    name for name in dir(ml_dtypes) if not name.startswith("_")
    and isinstance(getattr(ml_dtypes, name), type)
    and issubclass(getattr(ml_dtypes, name), np.generic)))


class RoundTripTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("load_request", ("load", b"\x00vmfb bytes", "vulkan://0")),
      ("call_request", ("call", "f", [np.float32(1.5), np.arange(6, dtype=np.int64).reshape(2, 3),
                                      np.array([True, False]), 3, 2.5, True])),
      ("reset_request", ("reset",)),
      ("ok_reply_with_dict", ("ok", {"function_names": ("a", "b"), "pid": 12})),
      ("ok_reply_without_value", ("ok", None)),
      ("error_reply", ("error", "ValueError", "bad shape", "Traceback ...")),
      ("zero_size_and_scalar_arrays",
       ("ok", [np.zeros((0, 3), np.float16), np.array(7, np.uint8)])),
      ("complex_and_sets", ("ok", [complex(1, 2), frozenset({1}), np.complex64(3j)])),
  )
  def test_message_survives_round_trip(self, message):
    sender, receiver = _channel(self)
    worker_protocol.send(sender, message)
    received = worker_protocol.receive(receiver, timeout=10)
    self.assertEqual(pickle.dumps(received), pickle.dumps(message))

  def test_message_larger_than_a_pipe_buffer(self):
    sender, receiver = _channel(self)
    big = np.random.default_rng(0).random((1024, 1024), dtype=np.float32)  # 4 MiB.
    thread = threading.Thread(target=worker_protocol.send, args=(sender, ("ok", [big])))
    thread.start()
    received = worker_protocol.receive(receiver, timeout=30)
    thread.join()
    np.testing.assert_array_equal(received[1][0], big)

  @parameterized.parameters(*(_NUMPY_DTYPES + _ML_DTYPES))
  def test_every_input_dtype_survives_round_trip(self, name):
    dtype = np.dtype(getattr(ml_dtypes, name, None) or name)
    array = np.arange(6).reshape(2, 3).astype(dtype)
    sender, receiver = _channel(self)
    message = ("call", "f", [array, array[0, 1], np.zeros((0, 2), dtype), dtype])
    worker_protocol.send(sender, message)
    _, _, (got, scalar, empty, got_dtype) = worker_protocol.receive(receiver, timeout=10)
    self.assertEqual((got.dtype, got.shape, got.tobytes()), (dtype, (2, 3), array.tobytes()))
    self.assertEqual((scalar.dtype, scalar.tobytes()), (dtype, array[0, 1].tobytes()))
    self.assertEqual((empty.dtype, empty.shape), (dtype, (0, 2)))
    self.assertEqual(got_dtype, dtype)

  def test_ml_dtypes_list_is_complete(self):
    self.assertContainsSubset(["bfloat16", "float8_e4m3fn", "float8_e5m2", "int4", "uint4"],
                              _ML_DTYPES)

  @parameterized.named_parameters(
      ("numpy_save", lambda path: _crafted(np.save, path, np.arange(3)), "numpy.save"),
      ("numpy_lib_function", lambda path: _crafted(np.savetxt, path, np.arange(3)),
       "numpy.savetxt"),
      ("os_system", lambda path: _crafted(os.system, f"touch {path}"), f"{os.name}.system"),
  )
  def test_a_crafted_request_calling_a_function_is_refused(self, payload, refused):
    path = os.path.join(tempfile.mkdtemp(), "written_by_the_payload")
    sender, receiver = _channel(self)
    sender.send_bytes(payload(path))
    with self.assertRaisesRegex(worker_protocol.RefusedMessage,
                                rf"^refusing to unpickle {refused}: only numpy values"):
      worker_protocol.receive(receiver, timeout=10)
    self.assertFalse(os.path.exists(path))
    self.assertFalse(os.path.exists(path + ".npy"))

  def test_refuses_anything_but_numpy_and_builtins(self):
    sender, receiver = _channel(self)
    worker_protocol.send(sender, ("ok", _NotNumpy()))
    with self.assertRaisesRegex(pickle.UnpicklingError, r"refusing to unpickle .*_NotNumpy"):
      worker_protocol.receive(receiver, timeout=10)

  def test_closed_sender_is_channel_closed(self):
    sender, receiver = _channel(self)
    sender.close()
    with self.assertRaises(worker_protocol.ChannelClosed):
      worker_protocol.receive(receiver, timeout=10)

  def test_closed_receiver_is_channel_closed(self):
    sender, receiver = _channel(self)
    receiver.close()
    with self.assertRaises(worker_protocol.ChannelClosed):
      worker_protocol.send(sender, ("reset",))

  def test_silence_is_timeout(self):
    _, receiver = _channel(self)
    start = time.monotonic()
    with self.assertRaises(TimeoutError):
      worker_protocol.receive(receiver, timeout=0.2)
    self.assertGreaterEqual(time.monotonic() - start, 0.2)

  @parameterized.named_parameters(
      ("object_array", np.array([object()], dtype=object)),
      ("ragged_list", [[1, 2], [3]]),
  )
  def test_object_inputs_are_refused_before_sending(self, value):
    with self.assertRaisesRegex((TypeError, ValueError), r"object|inhomogeneous"):
      worker_protocol.plain_input(value)


class KilledWorkerTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    import iree.compiler
    cls.vmfb = iree.compiler.compile_str(_MODULE, target_backends=["vmvx"], input_type="stablehlo")

  def test_worker_killed_while_a_call_waits_for_its_reply(self):
    module = worker_client.WorkerModule(self.vmfb, "local-task")
    self.addCleanup(module.close)
    pid = module.pid
    # Stopped, the worker cannot answer; it is killed while the call below waits for the reply.
    os.kill(pid, signal.SIGSTOP)
    killer = threading.Timer(0.5, os.kill, (pid, signal.SIGKILL))
    killer.start()
    self.addCleanup(killer.cancel)
    with self.assertRaises(WorkerCrashedError) as caught:
      module.call("double", [np.ones(4, np.float32)])
    self.assertRegex(
        str(caught.exception),
        rf"^IREE driver 'local-task' \(isolated worker\): worker process \(pid {pid}\) was killed "
        r"by signal SIGKILL \(9\) during call to 'double'")
    self.assertIsNone(module.pid)

  def test_worker_answers_after_a_refused_request(self):
    module = worker_client.WorkerModule(self.vmfb, "local-task")
    self.addCleanup(module.close)
    path = os.path.join(tempfile.mkdtemp(), "written_by_the_payload")
    process = module._process
    process.requests.send_bytes(_crafted(np.save, path, np.arange(3)))
    reply = worker_protocol.receive(process.replies, timeout=30)
    self.assertEqual(reply[:2], ("error", "RefusedMessage"))
    self.assertIn("refusing to unpickle numpy.save", reply[2])
    self.assertFalse(os.path.exists(path + ".npy"))
    np.testing.assert_array_equal(module.call("double", [np.arange(4, dtype=np.float32)]),
                                  [np.arange(4, dtype=np.float32) * 2])
    self.assertEqual(module.pid, process.pid)

  def test_a_refused_request_is_our_fault_not_a_backend_runtime_error(self):
    module = worker_client.WorkerModule(self.vmfb, "local-task")
    self.addCleanup(module.close)
    # A float32 array whose dtype carries an object: numpy pickles it, the worker refuses it.
    odd = np.ones(4, np.dtype(np.float32, metadata={"note": _NotNumpy()}))
    with self.assertRaises(worker_protocol.RefusedMessage) as caught:
      module.call("double", [odd])
    self.assertIsInstance(caught.exception, faults.OwnFault)
    self.assertNotIsInstance(caught.exception, BackendRuntimeError)
    self.assertRegex(str(caught.exception), r"the worker refused the request for call to "
                     r"'double': refusing to unpickle \S*\._NotNumpy: only numpy values")
    np.testing.assert_array_equal(module.call("double", [np.ones(4, np.float32)]), [[2] * 4])


_BFLOAT16_MODULE = """
func.func @twice(%a: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = stablehlo.add %a, %a : tensor<3xbf16>
  return %0 : tensor<3xbf16>
}
"""


class WorkerDtypesTest(absltest.TestCase):
  """Item 5: a bfloat16 call reaches a real worker and its result comes back."""

  def test_bfloat16_call_through_a_worker(self):
    import iree.compiler
    vmfb = iree.compiler.compile_str(_BFLOAT16_MODULE, target_backends=["llvm-cpu"],
                                     input_type="stablehlo",
                                     extra_args=["--iree-llvmcpu-target-cpu=generic"])
    module = worker_client.WorkerModule(vmfb, "local-task")
    self.addCleanup(module.close)
    [result] = module.call("twice", [np.array([1, 2.5, -3], ml_dtypes.bfloat16)])
    self.assertEqual(result.dtype, np.dtype(ml_dtypes.bfloat16))
    np.testing.assert_array_equal(result.astype(np.float32), [2, 5, -6])


if __name__ == "__main__":
  absltest.main()
