"""The examples' time box (`--examples_timeout`) bounds the whole run: drawing stops when it
ends, however many examples were asked for, and a reference call still running then (a loop
that never ends on a drawn input) is stopped there and said to be, with the examples done
before it kept. Real TensorFlow reference, in this process (the engine as the harness runs it).
"""

import tempfile
import time

from absl.testing import absltest
import hypothesis
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.examples import engine
from pyiree_tf_support.examples import summary

# Generous: how long stopping may take past the time box, never how fast examples run.
_STOP_SECONDS = 15.0


class Looping(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return x * 2.0

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def count_to(self, x):  # +inf, NaN-free huge values: i + 1 stalls at 2**24, never ends.
    return tf.while_loop(lambda i: i < x, lambda i: i + 1.0, [tf.constant(0.0)])[0]


class TimeBoxTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.reference = tf_utils.BackendInfo("tf").compile(Looping)

  def setUp(self):
    super().setUp()
    hypothesis.configuration.set_hypothesis_home_dir(tempfile.mkdtemp())
    self.addCleanup(hypothesis.configuration.set_hypothesis_home_dir, None)

  def run_examples(self, method, examples, seconds):
    modules = engine.ExampleModules(self.reference, (), stateful=False)
    started = time.monotonic()
    result = engine.run_examples(modules, method, self.reference.signatures[method],
                                 engine.ExampleSettings(examples, seconds=seconds))
    return result, time.monotonic() - started

  def test_ten_million_examples_stop_drawing_at_the_time_box(self):
    result, seconds = self.run_examples("double", 10**7, 2.0)
    self.assertTrue(result.timed_out)
    self.assertGreater(result.run, 0)
    self.assertLess(seconds, 2.0 + _STOP_SECONDS)

  def test_a_call_that_never_ends_is_stopped_at_the_time_box_and_named(self):
    # The default --call_timeout (300 s) alone would let it run for minutes.
    result, seconds = self.run_examples("count_to", 10**6, 4.0)
    self.assertLess(seconds, 4.0 + _STOP_SECONDS)
    self.assertTrue(result.timed_out)
    self.assertIsNotNone(result.past_time_box)
    self.assertGreater(result.run, 1)  # the examples before it were run, and are kept.
    self.assertEqual(result.failure, None)  # no backend's verdict drawn from it.
    text = summary.format_summary(result, "Looping.count_to()", "--examples=1000000")
    lines = [line for line in text.splitlines() if "ran past the time box" in line]
    self.assertLen(lines, 1, text)
    self.assertRegex(lines[0], r"^  stopped: call count_to\(\) of the reference on "
                     r"float32\[\] \S+ ran past the time box \(4 s, --examples_timeout\); "
                     r"not compared$")


if __name__ == "__main__":
  absltest.main()
