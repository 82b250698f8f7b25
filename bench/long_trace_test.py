"""A long stateful trace: `--calls` calls adding 16 floats to a tf.Variable and returning it.

Used by bench/run_benchmark.py (figure L): run with --calls=3000 and --calls=1 on the same
backends, the difference over 2999 x (1 + targets) call executions is the per-call cost of
recording, comparing and the worker protocol.
"""

from absl import flags
import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf

flags.DEFINE_integer("calls", 3000, "calls the trace makes")


class Accumulator(tf.Module):

  def __init__(self):
    super().__init__()
    self.total = tf.Variable(tf.zeros([16]))

  @tf.function(input_signature=[tf.TensorSpec([16], tf.float32)])
  def add(self, x):
    self.total.assign_add(x)
    return self.total.read_value()


@tf_test_utils.compile_module(Accumulator)
class LongTraceTest(tf_test_utils.TracedModuleTestCase):

  def test_long_trace(self):
    calls = flags.FLAGS.calls

    def long_trace(module):
      for i in range(calls):
        module.add(np.full([16], i % 7, np.float32))

    self.compare_backends(long_trace)


if __name__ == "__main__":
  tf.test.main()
