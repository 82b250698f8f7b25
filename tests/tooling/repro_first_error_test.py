"""The first error line a generated repro.sh prints (its `first_error` shell function, run by
/bin/sh on real log lines): stable between runs of the same failure, since
tests/tooling/repros_test.py compares it with the recorded one exactly."""

import os
import subprocess
import tempfile

from absl.testing import absltest

from pyiree_tf_support.tools import repro_templates

# IREE's runtime names the native function a failure surfaced in; for a race (a transient
# buffer used before its queue_alloca, e2e/round_dynamic_test.py) that function varies between
# runs of one module on one input: hal.fence.await, hal.device.queue.alloca, ...execute.
_RACE = ("c/runtime/src/iree/hal/local/transient_buffer.c:80: FAILED_PRECONDITION; transient "
         "buffer has not been committed; ensure the alloca signal semaphores are satisfied "
         "before accessing it; while invoking native function {}; while calling import; ")
_STABLE = ("FAILED_PRECONDITION; transient buffer has not been committed; ensure the alloca "
           "signal semaphores are satisfied before accessing it")


def _first_error(log_text: str) -> str:
  """What the template's first_error prints for a log holding log_text."""
  start = repro_templates.PREAMBLE.index("first_error() {{")
  end = repro_templates.PREAMBLE.index("\n}}\n", start) + len("\n}}\n")
  function = repro_templates.PREAMBLE[start:end].replace("{{", "{").replace("}}", "}")
  with tempfile.TemporaryDirectory() as work:
    log = os.path.join(work, "log")
    with open(log, "w", encoding="utf-8") as f:
      f.write(log_text)
    return subprocess.run(["/bin/sh", "-c", function + 'first_error "$1"', "sh", log],
                          check=True, capture_output=True, text=True).stdout.strip()


class FirstErrorTest(absltest.TestCase):

  def test_a_runtime_failure_drops_the_native_function_it_surfaced_in(self):
    lines = {_first_error(_RACE.format(name) + "\n[ 0] bytecode module.__init:5742 -\n")
             for name in ("hal.fence.await", "hal.device.queue.alloca",
                          "hal.device.queue.execute")}
    self.assertEqual(lines, {_STABLE})

  def test_a_compiler_diagnostic_keeps_its_text_without_the_location(self):
    log = ("iree_input.mlir:4:8: error: failed to legalize operation 'tensor.dim' that was "
           "explicitly marked illegal\n")
    self.assertEqual(_first_error(log), "error: failed to legalize operation 'tensor.dim' that "
                     "was explicitly marked illegal")


if __name__ == "__main__":
  absltest.main()
