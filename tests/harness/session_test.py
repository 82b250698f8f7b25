"""A module's traces compared through `ModuleSession` alone: no unittest class, no flags (what
a fuzzer, a reducer or a tool does). Real TensorFlow and IREE."""

import json
import os
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import session as session_lib
from tests.behaviour import hostile_paths_test as hostile

Truncating = hostile.Hostile  # vmvx rounds f32 -> i32 where TF truncates.
passing = hostile.passing


def failing(module):
  module.truncate(np.array([1.0, -2.0], np.float32))
  module.truncate(np.array([0.7, -2.0], np.float32))


class ModuleSessionTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.root = tempfile.mkdtemp()
    settings = RunSettings(target_backends=("iree_vmla",), artifacts_dir=cls.root)
    cls.session = session_lib.ModuleSession.open(Truncating, (), settings,
                                                 class_name="Fuzzed")
    cls.addClassCleanup(cls.session.close)

  def test_a_passing_trace(self):
    compared = self.session.start("one", "fuzz.one").compare(passing)
    self.assertFalse(compared.failed)
    self.assertEqual([o.status.value for o in compared.outcomes], ["PASS"])
    self.assertEqual(compared.called, ("truncate",))

  def test_a_failing_trace_is_a_record_not_an_exception(self):
    compared = self.session.start("two", "fuzz.two").compare(failing)
    self.assertTrue(compared.failed)
    (outcome,) = compared.outcomes
    self.assertEqual((outcome.status.value, outcome.call_index), ("MISMATCH", 1))
    self.assertIn("iree_vmla: MISMATCH", compared.message)
    self.assertIn("call 1 (truncate)", compared.message)
    with open(os.path.join(self.session.artifacts_dir, "report.json")) as f:
      tests = json.load(f)["tests"]
    self.assertFalse(tests["fuzz.two"]["passed"])
    self.assertEqual(self.session.outcome_log["two"], list(compared.outcomes))

  def test_two_runs_of_one_trace_name_keep_their_own_artifacts(self):
    first = self.session.start("three").compare(passing)
    second = self.session.start("four").compare(passing)
    self.assertNotEqual(first.outcomes[0].trace_path, second.outcomes[0].trace_path)


if __name__ == "__main__":
  absltest.main()
