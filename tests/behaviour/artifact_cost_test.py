"""Artifacts grow with failures, not with calls: a passing trace leaves a fixed number of files per
backend however many calls it makes (3000 passing calls once wrote 24,024 files)."""

import os
import tempfile

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from tests.behaviour import robustness_test

CALLS = 200


class AddModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def add_one(self, x):
    return x + 1.0


def many_calls(module):
  for i in range(CALLS):
    module.add_one(np.full([4], i, np.float32))


def files_under(directory: str) -> int:
  return sum(len(files) for _, _, files in os.walk(directory))


class PassingTraceFilesTest(absltest.TestCase):

  def test_a_passing_200_call_trace_writes_a_fixed_number_of_files_per_backend(self):
    cli_flags.ensure_parsed()
    root = tempfile.mkdtemp()
    case = robustness_test.make_case({"test_many": many_calls}, AddModule)
    with flagsaver.flagsaver(target_backends=["iree_vmla", "iree_llvmjit"], artifacts_dir=root,
                             compile_cache=False):
      result = robustness_test.run_case(case)
    self.assertTrue(result.wasSuccessful(), robustness_test.messages(result))
    module_dir = os.path.join(root, "AddModule")
    traces = os.path.join(module_dir, "traces")
    for backend in ("tf_ref", "iree_vmla", "iree_llvmjit"):
      # One readable file, and what replay loads: the call list and one array file.
      self.assertTrue(os.path.isfile(os.path.join(traces, f"many_calls__{backend}.txt")))
      self.assertCountEqual(os.listdir(os.path.join(traces, f"many_calls__{backend}")),
                            ["trace.json", "arrays.npz"])
    self.assertFalse(os.path.exists(os.path.join(module_dir, "repro")))
    # tf_input/iree_input.mlir, signatures.json, .owner, a vmfb per backend, report.json/.txt/.lock.
    self.assertEqual(files_under(module_dir) - files_under(traces), 9)


if __name__ == "__main__":
  absltest.main()
