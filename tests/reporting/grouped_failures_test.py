"""A failure repeated per method is one failure: methods whose first errors are
the same once normalised (as the FAILING lists normalise them) are one entry of the per-method
list, with the methods it covers and one reproducer, in the failure message, report.txt and
report.json. Real TensorFlow and iree-compile: IREE 3.13 rejects an einsum with a repeated index
(`ii->`) in its StableHLO preprocessing."""

import io
import json
import os
import re
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils

BACKEND = "iree_llvmcpu"
SHARED = "number of output elements (1) doesn't match expected number of elements (9)"
V = np.array([1., -2., 3.], np.float32)
M33 = np.arange(9, dtype=np.float32).reshape(3, 3)
PLAIN = ("add", "sub", "mul", "neg", "abs", "square", "exp", "tanh", "relu", "sum", "max",
         "double", "half")


def _plain(name):
  ops = {"add": lambda x: x + 1, "sub": lambda x: x - 1, "mul": lambda x: x * 3,
         "neg": lambda x: -x, "abs": tf.abs, "square": tf.square, "exp": tf.exp,
         "tanh": tf.tanh, "relu": tf.nn.relu, "sum": tf.reduce_sum, "max": tf.reduce_max,
         "double": lambda x: x * 2, "half": lambda x: x / 2}
  op = ops[name]
  return tf.function(lambda self, x: op(x), input_signature=[tf.TensorSpec([3], tf.float32)])


class TwoBadMethods(tf.Module):
  """Two methods IREE rejects alike (the same op, the same shape): nothing compiles, and the whole
  module's error is each method's."""

  @tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])
  def trace(self, x):
    return tf.einsum("ii->", x)

  @tf.function(input_signature=[tf.TensorSpec([3, 3], tf.float32)])
  def trace_twice(self, x):
    return tf.einsum("ii->", x) * 2


class FifteenMethods(TwoBadMethods):
  """The two beside 13 methods IREE compiles."""


for _name in PLAIN:
  setattr(FifteenMethods, _name, _plain(_name))


def _case(module_class, plain):

  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):
    pass

  for name in plain:
    setattr(Case, f"test_{name}", lambda self, n=name: self.compare_backends(
        lambda module: getattr(module, n)(V)))
  for name in ("trace", "trace_twice"):
    setattr(Case, f"test_{name}", lambda self, n=name: self.compare_backends(
        lambda module: getattr(module, n)(M33)))
  return Case


def _run(case, artifacts_dir):
  with flagsaver.flagsaver(artifacts_dir=artifacts_dir, compile_cache=False,
                           target_backends=BACKEND):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case)
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


class GroupedFailuresTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.artifacts_dir = tempfile.mkdtemp()
    cls.result = _run(_case(FifteenMethods, PLAIN), cls.artifacts_dir)
    module_dir = os.path.join(cls.artifacts_dir, "FifteenMethods")
    with open(os.path.join(module_dir, "report.txt")) as f:
      cls.report = f.read()
    with open(os.path.join(module_dir, "report.json")) as f:
      cls.document = json.load(f)

  def test_13_of_15_compile_and_compare(self):
    failed = sorted(t.id().rsplit(".", 1)[1] for t, _ in self.result.failures)
    self.assertEqual(failed, ["test_trace", "test_trace_twice"])
    self.assertEqual(self.result.errors, [])
    self.assertIn("compiled alone, 13 of 15 method(s) compile:", self.report)

  def test_report_txt_holds_the_shared_error_once(self):
    self.assertEqual(self.report.count(SHARED), 1, self.report)
    self.assertEqual(self.report.count("Reproducer: "), 1, self.report)
    self.assertRegex(self.report, r"\n  trace, trace_twice: do not compile: "
                     r"iree_input.mlir:\d+:\d+: error: " + re.escape(SHARED))
    self.assertIn("call 0 (trace_twice): method 'trace_twice' did not compile for iree_llvmcpu: "
                  "see 'trace, trace_twice: do not compile' in the per-method list", self.report)

  def test_a_failure_message_has_one_entry_and_one_reproducer(self):
    # The class's first failure message holds the list; a later one points at it (issue 30).
    first, *later = [message for _, message in self.result.failures]
    self.assertEqual(first.count("Reproducer: "), 1, first)
    self.assertEqual(first.count("compile it again with: "), 1, first)
    self.assertIn("trace, trace_twice: do not compile: ", first)
    for message in later:
      self.assertEqual(message.count("Reproducer: "), 0, message)
      self.assertIn("the per-method list is in test_", message)

  def test_report_json_keeps_each_methods_data(self):
    (test_id,) = [t for t in self.document["tests"] if t.endswith(".test_trace")]
    (record,) = self.document["tests"][test_id]["traces"][0]["backends"]
    self.assertEqual(record["first_error"], "error: " + SHARED)  # as the lists read it.
    fallback = record["method_compiles"]
    self.assertLen(fallback["compiled"], 13)
    (group,) = fallback["groups"]
    self.assertEqual(group["methods"], ["trace", "trace_twice"])
    self.assertEqual(group["first_error"], "error: " + SHARED)
    self.assertTrue(os.path.isfile(group["reproducer"]), group)
    self.assertEqual(sorted(fallback["failed"]), ["trace", "trace_twice"])
    self.assertIn(SHARED, fallback["failed"]["trace_twice"])


class NothingCompilesTest(absltest.TestCase):

  def test_the_whole_modules_error_is_not_repeated_per_method_nor_per_test(self):
    cli_flags.ensure_parsed()
    artifacts_dir = tempfile.mkdtemp()
    result = _run(_case(TwoBadMethods, ()), artifacts_dir)
    with open(os.path.join(artifacts_dir, "TwoBadMethods", "report.txt")) as f:
      report = f.read()
    self.assertEqual(report.count(SHARED), 1, report)
    self.assertEqual(report.count("Reproducer: "), 1, report)
    # Each test names its own method (tests/harness/own_compile_cause_test.py), the list once.
    for method in ("trace", "trace_twice"):
      self.assertIn(f"iree_llvmcpu: COMPILE ERROR\n  call 0 ({method}): method '{method}' did "
                    "not compile for iree_llvmcpu: see 'trace, trace_twice: do not compile' in "
                    "the per-method list", report)
    self.assertLen(result.failures, 2)
    # The first failure message has the list; the other its own line and a pointer (issue 30).
    first, second = [message for _, message in result.failures]
    self.assertEqual(first.count("Reproducer: "), 1, first)
    self.assertRegex(first, r"compiled alone, 0 of 2 method\(s\) compile:\n +trace, "
                     r"trace_twice: do not compile: iree_input.mlir:\d+:\d+: error: "
                     + re.escape(SHARED))
    self.assertEqual(second.count(SHARED), 1, second)  # its own method's line.
    self.assertEqual(second.count("Reproducer: "), 0, second)
    self.assertRegex(second, r"iree_llvmcpu: the whole module did not compile: the per-method "
                     r"list is in test_trace(_twice)?'s failure message above and in report.txt")

if __name__ == "__main__":
  absltest.main()
