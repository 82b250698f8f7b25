"""Every trusted backend tried, then the oracle: the suspect's dispatches are formed and its
traced module compiled once, not once per backend tried.

Counted, not timed (every iree-compile a localization starts, recorded by wrapping the function
that starts them; every compile is real). conditional_assign_test.py's bug (the global load
hoisted above the tf.cond that stores it) is wrong on every IREE backend, so a localization of
llvm-cpu tries vmvx, then Vulkan, then the oracle outside IREE: before, each of the three formed
the suspect's flow IR and compiled its traced module again (bench 7o: 5.6x the failing run's
compile and run, goal 3.0). The verdict is the same either way.
"""

import os
from typing import Sequence
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.localizing import engine
from tests.support import recorded_traces


class AddIfPositive(tf.Module):
  """A variable stored in each branch of a tf.cond and read after it."""

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(1, dtype=tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
  def add_if_positive(self, n):
    if n > 0:
      self.total.assign(self.total * 2 + n)
    else:
      self.total.assign_sub(1)
    return self.total.read_value()


def add_three(module):
  for n in [3, 0, 5]:
    module.add_if_positive(np.int32(n))


def _output(command: Sequence[str]) -> str:
  return command[command.index("-o") + 1] if "-o" in command else ""


class SuspectFormedOnceTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((AddIfPositive, add_three, ("iree_llvmcpu",), False),)

  def test_each_backend_tried_compiles_only_its_own_side(self):
    with mock.patch.object(iree_compile, "run", wraps=iree_compile.run) as run:
      result = localize.localize(self.trace_dirs["AddIfPositive"], "iree_llvmcpu")
    commands = [list(call.args[0]) for call in run.call_args_list]
    self.assertIs(result.kind, engine.Kind.OUTSIDE, result.detail)
    self.assertEqual(result.trusted, "oracle")
    self.assertEqual(result.tried_trusted, ("iree_vmvx", "iree_vulkan"))
    # The formation: one or two compiles into one directory (a second traces inside the
    # branches); before, one such directory per backend tried and the oracle's.
    formed_in = {os.path.dirname(_output(c)) for c in commands if "--compile-to=flow" in c
                 and not any("device_probe" in a for a in c)}
    suspects = [c for c in commands if _output(c).endswith("suspect.vmfb")]
    trusted = [c for c in commands if _output(c).endswith("trusted.vmfb")]
    self.assertLen(formed_in, 1, formed_in)
    self.assertLen(suspects, 1, suspects)
    self.assertLen(trusted, 2, trusted)  # vmvx's and Vulkan's traced modules
    self.assertIn("global load", result.detail)


if __name__ == "__main__":
  absltest.main()
