"""The Keras suites of e2e/keras/BUILD.bazel, as Bazel generates them: which tests the two macros
create, with which flags and environment.

They run `bazel query` themselves, so they are skipped inside a Bazel test sandbox.
"""

import os
import subprocess
from typing import Dict, List, NamedTuple
import unittest
import xml.etree.ElementTree as ElementTree

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core import backends
from pyiree_tf_support.reporting import expected_failures
from tests.support.repo import ROOT

UNDER_BAZEL = "TEST_SRCDIR" in os.environ
# The suites run on the default rows (E2E_BACKENDS), not on the opt-in tflite.
ALL_BACKENDS = {spec.e2e_name for spec in backends.BACKENDS if spec.default_target}


class PyTest(NamedTuple):
  name: str
  args: List[str]
  env: Dict[str, str]
  tags: List[str]
  main: str


def _flag(test: PyTest, flag: str) -> str:
  values = [arg.split("=", 1)[1] for arg in test.args if arg.startswith(f"--{flag}=")]
  return values[-1] if values else ""


def query_tests(expression: str) -> List[PyTest]:
  """The py_tests `expression` names, read from `bazel query --output=xml`."""
  process = subprocess.run(["bazel", "query", "--output=xml", expression], cwd=ROOT,
                           capture_output=True, text=True, timeout=600, check=False)
  if process.returncode != 0:
    raise AssertionError(f"bazel query {expression} failed:\n{process.stderr[-3000:]}")
  tests = []
  for rule in ElementTree.fromstring(process.stdout).iter("rule"):
    if rule.get("class") != "py_test":
      continue
    lists = {node.get("name"): [s.get("value") for s in node] for node in rule.findall("list")}
    env = {}
    for node in rule.findall("dict[@name='env']/pair"):
      key, value = (s.get("value") for s in node)
      env[key] = value
    tests.append(PyTest(name=rule.get("name").split(":", 1)[1], args=lists.get("args", []),
                        env=env, tags=lists.get("tags", []),
                        main=rule.find("label[@name='main']").get("value").rsplit(":", 1)[1]))
  return tests


@unittest.skipIf(UNDER_BAZEL, "runs bazel itself, which a Bazel test sandbox cannot")
class KerasSuitesTest(parameterized.TestCase):

  def test_vision_suite_is_one_test_per_backend_with_the_model_flags(self):
    tests = query_tests("tests(//e2e/keras:keras_vision_tests)")
    self.assertEqual({_flag(t, "target_backends") for t in tests}, ALL_BACKENDS)
    self.assertLen(tests, len(ALL_BACKENDS))
    for test in tests:
      self.assertStartsWith(test.name, "keras_vision_tests_MobileNet_cifar10_")
      self.assertEqual(test.main, "vision_model_test.py")
      self.assertEqual((_flag(test, "model"), _flag(test, "data"), _flag(test, "include_top")),
                       ("MobileNet", "cifar10", "1"))
      self.assertEqual(_flag(test, "url"), "", "nothing may download")

  def test_keras_3_vision_suite_runs_the_same_file_without_tf_keras(self):
    tests = query_tests("tests(//e2e/keras:keras_vision_tests_keras3)")
    self.assertEqual({_flag(t, "target_backends") for t in tests}, ALL_BACKENDS)
    for test in tests:
      self.assertStartsWith(test.name, "keras_vision_tests_keras3_MobileNet_cifar10_")
      self.assertEqual(test.main, "vision_model_test.py")
      self.assertEqual(test.env.get("TF_USE_LEGACY_KERAS"), "0", test.name)

  def test_train_suite_is_one_test_per_optimizer_and_backend(self):
    tests = query_tests("tests(//e2e/keras:keras_train_tests)")
    self.assertEqual(
        sorted((_flag(t, "optimizer_name"), _flag(t, "target_backends")) for t in tests),
        sorted((o, b) for o in ("adam", "sgd") for b in ALL_BACKENDS))
    for test in tests:
      self.assertStartsWith(test.name, f"keras_train_tests_{_flag(test, 'optimizer_name')}_")
      self.assertEqual(test.main, "model_train_test.py")

  @parameterized.parameters("keras_vision_tests", "keras_train_tests", "keras_tests",
                            "keras_tests_failing")
  def test_every_test_runs_keras_2_against_tf(self, suite):
    tests = query_tests(f"tests(//e2e/keras:{suite})")
    self.assertNotEmpty(tests)
    for test in tests:
      self.assertEqual(test.env.get("TF_USE_LEGACY_KERAS"), "1", test.name)
      self.assertEqual(_flag(test, "reference_backend"), "tf", test.name)
      self.assertTrue(any(tag.startswith("driver=") for tag in test.tags), test.name)

  def test_known_failures_are_manual_and_expect_their_backend_to_fail_in_its_phase(self):
    tests = query_tests("tests(//e2e/keras:keras_tests_failing)")
    self.assertNotEmpty(tests)
    listed = expected_failures.failing_by_backend(os.path.join(ROOT, "e2e", "keras", "BUILD.bazel"))
    expected_flags = {f"keras_tests_failing_{name[:-len('.py')]}__tf__{backend}":
                      f"{backend}:{entry.phase.value}"
                      for backend, files in listed.items() for name, entry in files.items()}
    self.assertCountEqual([test.name for test in tests], expected_flags)
    for test in tests:
      self.assertIn("manual", test.tags)
      self.assertEqual(_flag(test, "xfail_backends"), expected_flags[test.name], test.name)


if __name__ == "__main__":
  absltest.main()
