"""A traced run's memory is bounded: every tensor is saved as it comes, and past the run's total
budget a tensor is a digest and stats only. A real traced vmfb, run on llvm-cpu."""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.localizing import formation
from pyiree_tf_support.localizing import traced_run

MODULE = """func.func @scale(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


class TracedRunTest(absltest.TestCase):

  def test_tensors_past_the_budget_are_digests_and_stats(self):
    work = tempfile.mkdtemp()
    source, vmfb = os.path.join(work, "m.mlir"), os.path.join(work, "m.vmfb")
    with open(source, "w") as f:
      f.write(MODULE)
    subprocess.run([formation.compiler_tool(), source, "--iree-input-type=stablehlo_xla",
                    "--iree-hal-target-backends=llvm-cpu", formation.TRACE_ALL_TOP_LEVEL,
                    "-o", vmfb], check=True, capture_output=True, timeout=300)
    a = np.array([1., 2., 3., 4.], np.float32)
    b = np.array([2., np.nan, -1., 0.5], np.float32)
    run_dir = os.path.join(work, "run")
    os.makedirs(run_dir)
    np.savez(os.path.join(run_dir, traced_run.INPUTS), c0_0=a, c0_1=b)
    with open(os.path.join(run_dir, traced_run.REQUEST), "w") as f:
      # Room for the two 16-byte inputs, not for the output as well.
      json.dump({"vmfb": vmfb, "driver": "local-task", "max_total_bytes": 40,
                 "calls": [{"function": "scale", "inputs": 2}]}, f)
    subprocess.run([sys.executable, "-m", "pyiree_tf_support.localizing.traced_run", run_dir],
                   check=True, capture_output=True, timeout=300)
    with open(os.path.join(run_dir, traced_run.RESULT)) as f:
      document = json.load(f)
    (inputs, outputs) = document["events"]
    self.assertEqual([("array" in t) for t in inputs["tensors"]], [True, True])
    (kept,) = outputs["tensors"]
    product = a * b
    self.assertNotIn("array", kept)
    self.assertEqual(kept["sha256"], traced_run.digest(product))
    self.assertEqual(kept["stats"], {"nan": 1, "inf": 0, "min": -3.0, "max": 2.0,
                                     "mean": 1 / 3})
    self.assertEqual(sorted(os.listdir(os.path.join(run_dir, traced_run.TENSORS))),
                     ["e0_0.npy", "e0_1.npy", "r0_0.npy"])  # the call's result is always kept
    raw, results, error, stopped = traced_run.load_result(run_dir)
    np.testing.assert_array_equal(raw[0][2][1], b)
    np.testing.assert_array_equal(results[0][0], product)
    self.assertEqual((error, stopped), (None, None))


if __name__ == "__main__":
  absltest.main()
