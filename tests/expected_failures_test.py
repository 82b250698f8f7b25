"""The known-failure lists as the pytest plugin and the scripts read them from a BUILD.bazel."""

import os
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support import expected_failures


class FailingByBackendTest(parameterized.TestCase):

  def build_file(self, text: str) -> str:
    path = os.path.join(tempfile.mkdtemp(), "BUILD.bazel")
    with open(path, "w") as f:
      f.write(text)
    return path

  @parameterized.named_parameters(
      ("literal", 'FAILING = {"iree_vmla": {"a_test.py": "why"}, "tf": {}}\n',
       {"iree_vmla": {"a_test.py": "why"}, "tf": {}}),
      ("no_failing_dict", 'load("//x:y.bzl", "z")\nOTHER = {}\n', {}),
  )
  def test_reads_the_failing_literal(self, text, expected):
    self.assertEqual(expected_failures.failing_by_backend(self.build_file(text)), expected)

  def test_a_missing_build_file_has_no_lists(self):
    self.assertEqual(expected_failures.failing_by_backend("/nonexistent/BUILD.bazel"), {})

  def test_a_failing_dict_that_is_not_a_literal_is_one_error_naming_the_file(self):
    path = self.build_file('REASON = "x"\nFAILING = {"iree_vmla": {"a_test.py": REASON}}\n')
    with self.assertRaises(ValueError) as raised:
      expected_failures.failing_by_backend(path)
    message = str(raised.exception)
    self.assertStartsWith(message, f"{path}: FAILING must be a dict literal "
                          "{backend: {file: reason}} of plain strings: malformed node")
    self.assertLen(message.splitlines(), 1)

  def test_for_test_file_picks_the_file_from_the_lists_beside_it(self):
    path = self.build_file('FAILING = {"iree_vmla": {"a_test.py": "why"}, "iree_vulkan": {}}\n')
    test_file = os.path.join(os.path.dirname(path), "a_test.py")
    self.assertEqual(expected_failures.for_test_file(test_file), {"iree_vmla": "why"})


if __name__ == "__main__":
  absltest.main()
