"""Errors raised when running a compiled module on an IREE runtime driver.

TensorFlow-free (and dependency-free) so that both the test process and the runtime worker
process can import it.
"""


class BackendRuntimeError(RuntimeError):
  """A call into the IREE runtime failed; the message names the driver and the function."""


class WorkerCrashedError(BackendRuntimeError):
  """The isolated worker process running a module died (signal or exit code in the message)."""
