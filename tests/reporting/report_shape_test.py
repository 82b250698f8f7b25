"""A failing test's message leads with what matters: the first failing call in full, one line
for each later one (all of them in full in report.txt); a RUNTIME ERROR comes with the commands
that reproduce it, as a mismatch does. Real TensorFlow, IREE and lavapipe."""

import io
import json
import os
import subprocess
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.runtime import drivers

CALLS = 22


class Truncating(tf.Module):
  """vmvx rounds f32 -> i32 where TF truncates: every call with a fraction over .5 mismatches."""

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32)


class Doubling(tf.Module):
  """Vulkan refuses a size-0 dynamic input at run time (TF returns an empty result)."""

  @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
  def double(self, x):
    return x * 2.0


def long_trace(module):
  for i in range(CALLS):
    module.truncate(np.array([0.7 + i, 1.0, -2.0], np.float32))


def empty_second_call(module):
  module.double(np.ones([3], np.float32))
  module.double(np.ones([0], np.float32))


def run(module_class, trace_function, backend: str):
  root = tempfile.mkdtemp()

  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  cli_flags.ensure_parsed()
  with flagsaver.flagsaver(artifacts_dir=root, target_backends=[backend]):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
  problems = result.failures + result.errors
  assert len(problems) == 1, problems
  return problems[0][1], os.path.join(root, module_class.__name__)


class LongTraceTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.message, cls.module_dir = run(Truncating, long_trace, "iree_vmla")

  def test_the_message_shows_the_first_call_in_full_and_the_rest_in_a_line_each(self):
    self.assertIn("call 0 (truncate):\n", self.message)
    self.assertIn("greatest absolute difference", self.message)
    self.assertEqual(self.message.count("greatest absolute difference"), 1, self.message)
    for index in range(1, 6):
      self.assertIn(f"\n    call {index} (truncate): outputs: int32[3]", self.message)
    self.assertNotIn("call 6 (truncate)", self.message)
    self.assertIn(f"... and {CALLS - 6} more failing calls; every call in full: ", self.message)
    self.assertLess(len(self.message.splitlines()), 40, self.message)

  def test_report_txt_and_json_keep_every_call_in_full(self):
    with open(os.path.join(self.module_dir, "report.txt")) as f:
      text = f.read()
    self.assertEqual(text.count("greatest absolute difference"), CALLS, text)
    self.assertIn(f"call {CALLS - 1} (truncate):\n", text)
    with open(os.path.join(self.module_dir, "report.json")) as f:
      record = json.load(f)["tests"]
    (test,) = record.values()
    self.assertIn(f"call {CALLS - 1} (truncate):", test["traces"][0]["backends"][0]["detail"])


@unittest.skipUnless(drivers.driver_available("vulkan")[0], "no Vulkan device here")
class RuntimeErrorCommandsTest(absltest.TestCase):

  def test_a_runtime_error_names_its_replay_and_iree_run_module_commands(self):
    message, module_dir = run(Doubling, empty_second_call, "iree_vulkan")
    self.assertIn("iree_vulkan: RUNTIME ERROR", message)
    self.assertIn("replay every call in order: ", message)
    self.assertIn("re-run call 1 alone: ", message)
    with open(os.path.join(module_dir, "report.json")) as f:
      (test,) = json.load(f)["tests"].values()
    backend = test["traces"][0]["backends"][0]
    self.assertEqual(backend["call"], {"index": 1, "method": "double"})
    command = backend["commands"]["iree_run_module"]
    rerun = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=False,
                           timeout=300)
    self.assertNotEqual(rerun.returncode, 0, rerun.stdout)
    self.assertIn("empty buffer range", rerun.stderr)
    replay = subprocess.run(["bash", "-c", backend["commands"]["replay"]], capture_output=True,
                            text=True, check=False, timeout=300)
    self.assertIn("iree_vulkan: RUNTIME ERROR", replay.stdout + replay.stderr)


if __name__ == "__main__":
  absltest.main()
