"""The oracle's verdict on a dispatch whose output IREE flattens: named, never put outside.

IREE collapses an elementwise chain over a [64, 64] input to one dimension: its dispatch writes
a [4096] value and a flow.tensor.reshape (which moves no values) makes it [64, 64] again, so no
StableHLO value has its shape. The chain holds vmvx's real bug (an f32 -> i32 convert that
rounds to nearest instead of truncating), so on iree_vmla the chain's dispatch is wrong.
"""

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from tests.support import recorded_traces

N = 64
X = np.random.default_rng(5).uniform(-4, 4, (N, N)).astype(np.float32)


class Chain(tf.Module):
  """An elementwise chain (flattened by IREE) and a row sum, both returned."""

  @tf.function(input_signature=[tf.TensorSpec([N, N], tf.float32)])
  def chain(self, x):
    z = tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32) * 0.25 + 0.5  # quarters: sums exact.
    return tf.reduce_sum(z, axis=1), z


def chain_once(module):
  module.chain(X)


class OracleReshapeTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((Chain, chain_once, ("iree_vmla",), False),)

  def test_the_flattened_dispatch_is_named(self):
    completed = recorded_traces.localize(self.trace_dirs["Chain"], "iree_vmla",
                                         "--trusted_backend=oracle")
    verdict = completed.stdout.splitlines()[0]
    # IREE flattened the chain: the flow IR reshapes its [4096] result back to [64, 64].
    flow = completed.stdout.split("(--iree-flow-trace-dispatch-tensors): ", 1)[1].split()[0]
    with open(flow) as f:
      self.assertRegex(f.read(), r"flow.tensor.reshape %\S+ : tensor<4096xf32> -> "
                       r"tensor<64x64xf32>")
    self.assertRegex(verdict, r"on iree_vmvx against oracle: dispatch chain_dispatch_0::\S+ "
                     r"\(occurrence 0\): outputs \S+x tolerance, worst at \[\d+\]: .*; from the "
                     r"dispatch output at iree_input.mlir:\d+:\d+, compared as \[4096\] \(it is "
                     r"\[64, 64\] in the oracle\); its inputs 0x tolerance$")
    self.assertNotIn("outside any dispatch", verdict)


if __name__ == "__main__":
  absltest.main()
