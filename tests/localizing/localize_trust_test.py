"""Verdicts rest on what they say: traced values that agree with the run as tested, trusted
backends judged by how close they are, errors that are errors. Real TensorFlow traces, real
iree-compile, real runs on llvm-cpu, vmvx and Vulkan (lavapipe).

- A stateful module on Vulkan, call 1 and later: with IREE's default indirect command buffers the
  copies that hand a dispatch's inputs to the trace read an earlier call's buffers
  (e2e/repros/findings/vulkan_stale_command_buffer_copies), which once gave "diverged outside
  any dispatch" on a module Vulkan gets right. The traced modules are compiled without them;
  with them (the flag taken away, as the bug is real), the traced values contradict the run as
  tested and the verdict must say so, never blame.
"""

import shutil
import tempfile
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import localize
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.localizing import formation
from pyiree_tf_support.localizing import report
from tests.support import recorded_traces


class Smoother(tf.Module):
  """An exponential smoother: the level (a variable) and each input meet in one dispatch."""

  def __init__(self):
    super().__init__()
    self.level = tf.Variable(tf.zeros([4], tf.float32))

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def smooth(self, x):
    self.level.assign(self.level * 0.75 + x)
    return self.level - x


def smooth_three(module):
  module.smooth(np.array([1.0, -2.0, 3.5, 0.25], np.float32))
  module.smooth(np.array([0.5, 4.0, -1.0, 2.0], np.float32))
  module.smooth(np.array([-3.0, 1.5, 0.0, 8.0], np.float32))


class StatefulTracingTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.artifacts_dir = tempfile.mkdtemp()
    cls.trace_dir, result = recorded_traces.record(cls.artifacts_dir, Smoother, smooth_three,
                                                   ("iree_llvmcpu", "iree_vulkan"))
    assert result.wasSuccessful(), (result.failures, result.errors)

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.artifacts_dir, ignore_errors=True)
    super().tearDownClass()

  def test_no_divergence_at_every_call_on_every_backend(self):
    for suspect in ("iree_vulkan", "iree_llvmcpu", "iree_vmvx"):
      for call in (1, 2):
        with self.subTest(suspect=suspect, call=call):
          result = localize.localize(self.trace_dir, suspect, call=call)
          self.assertIs(result.kind, engine.Kind.NONE, report.verdict_line(result))
          # Every traced dispatch input was compared, call 0 up to this call.
          self.assertEqual(sorted({row.call for row in result.finding.rows}), list(range(call + 1)))

  def test_traced_values_that_contradict_the_run_as_tested_blame_nothing(self):
    with mock.patch.object(formation, "TRACED_MODULE_FLAGS", ()):
      result = localize.localize(self.trace_dir, "iree_vulkan", call=1)
    line = report.verdict_line(result)
    self.assertIs(result.kind, engine.Kind.NOT_TRACEABLE, line)
    self.assertIn("iree_vulkan gets calls 0..1 right as compiled for the test", line)
    self.assertIn("the traced values blame", line)
    self.assertNotIn(": diverged outside any dispatch", line)


if __name__ == "__main__":
  absltest.main()
