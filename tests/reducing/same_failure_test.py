"""The reducer's predicate and the fuzzer's signatures on runtime errors whose context varies."""

from absl.testing import absltest

from pyiree_tf_support.fuzzing import signatures
from pyiree_tf_support.reducing import failures
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

# The transient-buffer race of campaign 20261201 as llvm-cpu raised it: one error, surfacing in
# whichever native function waited on the buffer first (three rows of one bug then).
RACE = ("call 0 (f4) raised BackendRuntimeError: IREE driver 'local-task': call to 'f4' failed: "
        "RuntimeError: Error invoking function: c/runtime/src/iree/hal/local/transient_buffer.c:80"
        ": FAILED_PRECONDITION; transient buffer has not been committed; ensure the alloca signal "
        "semaphores are satisfied before accessing it; while invoking native function {native}; "
        "while calling {import_kind};")
SURFACED = (("hal.device.queue.alloca", "import"), ("hal.fence.await", "variadic import"),
            ("hal.device.queue.dealloca", "import"))


def outcome(native, import_kind, backend="iree_llvmjit"):
  return Outcome(backend, Status.RUNTIME_ERROR, RACE.format(native=native, import_kind=import_kind),
                 call_index=0, call_method="f4")


class RuntimeContextTest(absltest.TestCase):

  def test_where_a_runtime_error_surfaced_is_not_part_of_the_failure(self):
    [first, *others] = [outcome(*where) for where in SURFACED]
    original = failures.failure_of(first)
    self.assertNotIn("hal.", original.key)
    self.assertIn("transient buffer has not been committed", original.key)
    for other in others:
      self.assertTrue(failures.same_failure(original, other), other.detail)
    other_error = outcome(*SURFACED[0])
    other_error = Outcome(other_error.backend, other_error.status,
                          other_error.detail.replace("not been committed", "no staged backing"),
                          call_index=0, call_method="f4")
    self.assertFalse(failures.same_failure(original, other_error))

  def test_one_race_is_one_signature_per_backend(self):
    rows = {signatures.signature(Status.RUNTIME_ERROR, failures.failure_of(outcome(*where)).key,
                                 "iree_llvmcpu", ["round"]) for where in SURFACED}
    self.assertLen(rows, 1)


if __name__ == "__main__":
  absltest.main()
