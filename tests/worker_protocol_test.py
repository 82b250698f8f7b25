"""The worker wire protocol: what crosses the pipe, and what a dying worker looks like to the caller.

No TensorFlow. Round trips run over real os.pipe Connections in this process; the killed-worker case
runs a real worker process on local-task.
"""

import os
import pickle
import signal
import threading
import time

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.runtime import worker_protocol
from pyiree_tf_support.runtime.runtime_errors import WorkerCrashedError

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


class RoundTripTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("load_request", ("load", b"\x00vmfb bytes", "vulkan://0")),
      ("call_request", ("call", "f", [np.float32(1.5), np.arange(6, dtype=np.int64).reshape(2, 3),
                                      np.array([True, False]), 3, 2.5, True])),
      ("reset_request", ("reset",)),
      ("ok_reply_with_dict", ("ok", {"function_names": ("a", "b"), "pid": 12})),
      ("ok_reply_without_value", ("ok", None)),
      ("error_reply", ("error", "ValueError", "bad shape", "Traceback ...")),
      ("zero_size_and_scalar_arrays", ("ok", [np.zeros((0, 3), np.float16), np.array(7, np.uint8)])),
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
    import iree.compiler  # pylint: disable=g-import-not-at-top
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
    np.testing.assert_array_equal(module.call("double", [np.arange(4, dtype=np.float32)]),
                                  [np.arange(4, dtype=np.float32) * 2])


if __name__ == "__main__":
  absltest.main()
