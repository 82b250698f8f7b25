"""The standalone dispatch of dynamic shapes, workloads and results written in place: the
corpus' dynamic `where` on lavapipe (e2e/dynamic_elementwise_test.py: an i1 condition of 3
bytes read as zeros) is cut out, its dims and workload from the traced shapes, and the
cut-out dispatch diverges on Vulkan alone, both in the localizer's repro and
in split_dispatches' suite; a scatter (a result written in place over its operand) is cut out
and agrees on vmvx and llvm-cpu. Real TensorFlow (to record the traces), IREE compiler and
runtime, lavapipe."""

import json
import os
import re
import subprocess
import sys

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from tests.localizing import split_dispatches_test
from tests.reducing import op_level_test
from tests.support import recorded_traces


class Scatter(tf.Module):
  """A scatter-add: its dispatch writes the result in place over the tensor it updates."""

  @tf.function(input_signature=[tf.TensorSpec([8], tf.float32),
                                tf.TensorSpec([2, 1], tf.int32),
                                tf.TensorSpec([2], tf.float32)])
  def scatter(self, x, indices, updates):
    return tf.tensor_scatter_nd_add(x, indices, updates) * 2.0


def scatter_once(module):
  module.scatter(np.arange(8, dtype=np.float32), np.array([[1], [5]], np.int32),
                 np.array([10.0, 20.0], np.float32))


def clean_run(command) -> subprocess.CompletedProcess:
  """A command run from / with no venv on PATH (as pasted into a bug report)."""
  return subprocess.run(command, cwd="/", capture_output=True, text=True, check=False,
                        env={"PATH": "/usr/bin:/bin"}, timeout=900)


class DispatchReproTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((op_level_test.DynamicWhere, op_level_test.where_once, ("iree_vulkan",), False),
           (Scatter, scatter_once, ("iree_llvmcpu",), True))

  def manifest(self, name: str, backends: str):
    completed = split_dispatches_test.split(self.trace_dirs[name], f"--target_backends={backends}")
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    command = re.search(r"^run: (\S+) -m pytest (\S+)$", completed.stdout, re.MULTILINE)
    self.assertIsNotNone(command, completed.stdout)
    assert command is not None
    with open(os.path.join(os.path.dirname(command.group(2)), "manifest.json")) as f:
      manifest = json.load(f)
    ran = clean_run([command.group(1), "-m", "pytest", command.group(2), "-q", "-p",
                     "no:cacheprovider", "-rf"])
    return manifest, ran

  def test_a_dynamic_dispatch_is_cut_out_and_diverges_on_vulkan_alone(self):
    manifest, ran = self.manifest("DynamicWhere", "iree_vulkan,iree_llvmcpu")
    self.assertEqual(manifest["skipped"], [])  # dynamic shapes and workloads are no reason
    self.assertTrue(manifest["dispatches"], manifest)
    failed = re.findall(r"^FAILED \S+::test_dispatch\[(\S+)\]", ran.stdout, re.MULTILINE)
    self.assertTrue(failed, ran.stdout[-3000:])
    self.assertTrue(all(f.endswith("-iree_vulkan") for f in failed), failed)
    # The localizer's repro of the dispatch it names is cut out too, and diverges.
    localized = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localize", self.trace_dirs["DynamicWhere"],
         "--target_backends=iree_vulkan"], capture_output=True, text=True, check=False,
        timeout=900)
    repro = re.search(r"the dispatch alone, on both backends: (\S+) (\S+)$", localized.stdout,
                      re.MULTILINE)
    self.assertIsNotNone(repro, localized.stdout + localized.stderr[-2000:])
    assert repro is not None
    rerun = clean_run([sys.executable, "-I", repro.group(2)])
    self.assertEqual(rerun.returncode, 1, rerun.stdout + rerun.stderr[-3000:])
    self.assertIn("DIVERGES", rerun.stdout)
    with open(os.path.join(os.path.dirname(repro.group(2)), "dispatch.mlir")) as f:
      self.assertIn("tensor.dim %arg0", f.read())  # its dims read from its inputs

  def test_a_result_written_in_place_is_cut_out(self):
    manifest, ran = self.manifest("Scatter", "iree_vmvx,iree_llvmcpu")
    self.assertEqual(manifest["skipped"], [])
    self.assertEqual(ran.returncode, 0, ran.stdout[-3000:])
    tied = []
    for case in manifest["dispatches"]:
      path = os.path.join(os.path.dirname(os.path.dirname(self.trace_dirs["Scatter"])),
                          "dispatches", "scatter_once__tf_ref", case["name"], "dispatch.mlir")
      with open(path) as f:
        tied += re.findall(r"-> %arg\d+", f.read())
    self.assertTrue(tied, manifest)  # the scatter's result is its argument, written in place


if __name__ == "__main__":
  absltest.main()
