"""Finished test classes shut their worker processes down, so one process running many classes
(`pytest e2e/`) keeps a bounded number of workers (11 idle Vulkan workers were once alive
after a third of the corpus)."""

import os
import tempfile

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support.runtime import worker_client
from tests.behaviour import robustness_test


def live_workers(ignore=frozenset()) -> set:
  """Pids of child processes of this one that run the runtime worker (besides `ignore`)."""
  found = set()
  for task in os.listdir(f"/proc/{os.getpid()}/task"):
    with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
      for pid in f.read().split():
        try:
          with open(f"/proc/{pid}/cmdline", "rb") as cmd:
            if worker_client.WORKER_MODULE.encode() in cmd.read() and pid not in ignore:
              found.add(pid)
        except FileNotFoundError:
          pass
  return found


class DoubleModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def double(self, x):
    return 2.0 * x


class FinishedClassTest(absltest.TestCase):

  def test_after_several_classes_at_most_one_worker_is_alive(self):
    cli_flags.ensure_parsed()
    root = tempfile.mkdtemp()
    earlier = frozenset(live_workers())  # other tests of this process may hold their own.
    for _ in range(3):
      case = robustness_test.make_case(
          {"test_double": lambda module: module.double(np.ones([2], np.float32))}, DoubleModule)
      with flagsaver.flagsaver(target_backends=["iree_vmla"], run_in_worker=True,
                               artifacts_dir=root):
        result = robustness_test.run_case(case)
      self.assertTrue(result.wasSuccessful(), robustness_test.messages(result))
      self.assertLessEqual(len(live_workers(earlier)), 1)
    self.assertEqual(live_workers(earlier), set())


if __name__ == "__main__":
  absltest.main()
