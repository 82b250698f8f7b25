"""The known-failure lists as the pytest plugin and the scripts read them from a BUILD.bazel."""

import dataclasses
import os
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure
from pyiree_tf_support.core.phases import Phase


class FailingByBackendTest(parameterized.TestCase):

  def build_file(self, text: str) -> str:
    path = os.path.join(tempfile.mkdtemp(), "BUILD.bazel")
    with open(path, "w") as f:
      f.write(text)
    return path

  @parameterized.named_parameters(
      ("typed", 'FAILING = {"iree_vmla": {"a_test.py": ("compile", "why")}, "tf": {}}\n',
       {"iree_vmla": {"a_test.py": ExpectedFailure(Phase.COMPILE, "why")}, "tf": {}}),
      ("every_phase", 'FAILING = {"b": {"i.py": ("import", "1"), "c.py": ("compile", "2"), '
       '"r.py": ("runtime", "3"), "m.py": ("mismatch", "4")}}\n',
       {"b": {"i.py": ExpectedFailure(Phase.IMPORT, "1"), "c.py": ExpectedFailure(Phase.COMPILE, "2"),
              "r.py": ExpectedFailure(Phase.RUNTIME, "3"),
              "m.py": ExpectedFailure(Phase.MISMATCH, "4")}}),
      ("untyped_is_any_phase", 'FAILING = {"iree_vmla": {"a_test.py": "why"}}\n',
       {"iree_vmla": {"a_test.py": ExpectedFailure(None, "why")}}),
      ("no_failing_dict", 'load("//x:y.bzl", "z")\nOTHER = {}\n', {}),
  )
  def test_reads_the_failing_literal(self, text, expected):
    self.assertEqual(expected_failures.failing_by_backend(self.build_file(text)), expected)

  def test_the_record_is_frozen(self):
    with self.assertRaises(dataclasses.FrozenInstanceError):
      ExpectedFailure(Phase.COMPILE, "why").phase = Phase.RUNTIME

  def test_a_missing_build_file_has_no_lists(self):
    self.assertEqual(expected_failures.failing_by_backend("/nonexistent/BUILD.bazel"), {})

  def test_a_failing_dict_that_is_not_a_literal_is_one_error_naming_the_file(self):
    path = self.build_file('REASON = "x"\nFAILING = {"iree_vmla": {"a_test.py": REASON}}\n')
    with self.assertRaises(ValueError) as raised:
      expected_failures.failing_by_backend(path)
    message = str(raised.exception)
    self.assertStartsWith(message, f"{path}: FAILING must be a dict literal "
                          '{backend: {"file_test.py": ("<phase>", "<reason>")}}')
    self.assertIn("malformed node", message)
    self.assertLen(message.splitlines(), 1)

  @parameterized.named_parameters(
      ("unknown_phase", '("linking", "why")', "unknown phase 'linking'; valid phases are "
       "import, compile, runtime, mismatch"),
      ("three_items", '("compile", "why", "more")', "is ('compile', 'why', 'more'); valid shapes"),
      ("a_list", '["compile", "why"]', "is ['compile', 'why']; valid shapes"),
      ("a_number", "3", "is 3; valid shapes"),
      ("phase_not_a_string", '(1, "why")', "is (1, 'why'); valid shapes"),
  )
  def test_a_bad_entry_is_one_error_naming_file_backend_entry_and_shapes(self, value, error):
    path = self.build_file(f'FAILING = {{"iree_vmla": {{"a_test.py": {value}}}}}\n')
    with self.assertRaises(ValueError) as raised:
      expected_failures.failing_by_backend(path)
    message = str(raised.exception)
    self.assertStartsWith(message, f"{path}: FAILING['iree_vmla']['a_test.py']")
    self.assertIn(error, message)
    self.assertIn("valid shapes: {backend: {", message)
    self.assertLen(message.splitlines(), 1)

  def test_for_test_file_picks_the_file_from_the_lists_beside_it(self):
    path = self.build_file('FAILING = {"iree_vmla": {"a_test.py": ("runtime", "why")}, '
                           '"iree_vulkan": {}}\n')
    test_file = os.path.join(os.path.dirname(path), "a_test.py")
    self.assertEqual(expected_failures.for_test_file(test_file),
                     {"iree_vmla": ExpectedFailure(Phase.RUNTIME, "why")})

  @parameterized.named_parameters(
      ("e2e", "e2e"),
      ("keras", "e2e/keras"),
  )
  def test_our_own_lists_are_all_typed(self, directory):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lists = expected_failures.failing_by_backend(os.path.join(root, directory, "BUILD.bazel"))
    untyped = [(b, f) for b, files in lists.items() for f, e in files.items() if e.phase is None]
    self.assertTrue(lists)
    self.assertEqual(untyped, [])


if __name__ == "__main__":
  absltest.main()
