"""A module whose other functions made private hide the bug: the localizer goes on with the
whole module, and what it formed early from the reduced text is never used.

The localizer first compiles only the functions the trace calls (the others made private) and
starts forming the dispatches from that text while the module as tested runs. When that module
gets the trace right, it goes on with the whole module instead: the formation it started is
stale then. Here the reduced text is made right by hand (vmvx's f32 -> i32 convert rounds
0.5 to 1 where TensorFlow truncates; the reduced text converts an already truncated value, on
which rounding and truncating agree), so only the whole module fails: the verdict must name
the whole module's convert dispatch, not "masked" (what a formation of the right text would
give).
"""

import os
import re
from unittest import mock

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import localize
from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.localizing import engine
from tests.support import recorded_traces

X = np.array([0.5, 1.7, -1.5, 2.5], np.float32)
CONVERT = re.compile(r"(%\S+) = stablehlo\.convert (%\S+) : \(tensor<4xf32>\) -> tensor<4xi32>")


class CastAndMore(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def cast(self, x):
    return tf.cast(x * 1.0, tf.int32)

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def other(self, x):
    return x + 1.0


def cast_once(module):
  module.cast(X)


def _truncated_first(text: str) -> str:
  """`text` with its f32 -> i32 convert fed x truncated (floor or ceil by its sign)."""
  def exact(match):
    result, operand = match.groups()
    return ("%t0 = stablehlo.constant dense<0.0> : tensor<4xf32>\n"
            f"    %t1 = stablehlo.compare GE, {operand}, %t0, FLOAT : "
            "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>\n"
            f"    %t2 = stablehlo.floor {operand} : tensor<4xf32>\n"
            f"    %t3 = stablehlo.ceil {operand} : tensor<4xf32>\n"
            "    %t4 = stablehlo.select %t1, %t2, %t3 : tensor<4xi1>, tensor<4xf32>\n"
            f"    {result} = stablehlo.convert %t4 : (tensor<4xf32>) -> tensor<4xi32>")
  rewritten, count = CONVERT.subn(exact, text)
  assert count == 1, text
  return rewritten


class ReducedTextRightTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((CastAndMore, cast_once, ("iree_vmvx",), False),)

  def test_the_whole_module_is_localized_when_the_reduced_one_is_right(self):
    only_exporting = mlir_functions.only_exporting
    with mock.patch.object(mlir_functions, "only_exporting",
                           lambda text, names: _truncated_first(only_exporting(text, names))):
      result = localize.localize(self.trace_dirs["CastAndMore"], "iree_vmvx")
    self.assertIs(result.kind, engine.Kind.DISPATCH, result.detail)
    self.assertEqual(result.trusted, "iree_llvmcpu")
    with open(os.path.join(result.work_dir, "iree_input.mlir")) as f:
      formed_from = f.read()
    self.assertNotIn("stablehlo.floor", formed_from)  # the whole module, as tested
    self.assertRegex(formed_from, r"func\.func @other\(")


if __name__ == "__main__":
  absltest.main()
