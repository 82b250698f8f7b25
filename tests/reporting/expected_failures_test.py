"""Expected failures: the truth table of the module's docstring checked cell by cell against the
verdict both harnesses use, its messages, the --xfail_backends entries, and the known-failure
lists as the pytest plugin and the tools read them from a BUILD.bazel."""

import dataclasses
import itertools
import os
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure
from pyiree_tf_support.reporting.expected_failures import Verdict
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status
from tests.support.repo import ROOT

STATUS_OF = {Phase.IMPORT: Status.IMPORT_ERROR, Phase.COMPILE: Status.COMPILE_ERROR,
             Phase.RUNTIME: Status.RUNTIME_ERROR, Phase.MISMATCH: Status.MISMATCH,
             Phase.REFERENCE_ERROR: Status.WITHIN_REFERENCE_ERROR}
B = "iree_vmla"


def failed(phase: Phase, backend: str = B) -> Outcome:
  return Outcome(backend, STATUS_OF[phase], f"error: {phase.value} went wrong")


def failing_first_in(phase: Phase) -> list:
  """The backend's outcomes over a class whose earliest failure is `phase`: a passing trace, then
  every phase from the latest to `phase` (the earliest counts, not the first), and another
  backend failing earlier, which is not its own."""
  later = [p for p in reversed(list(Phase)) if p.rank >= phase.rank]
  return ([Outcome(B, Status.PASS)] + [failed(p) for p in later]
          + [failed(Phase.IMPORT, "iree_llvmjit")])


# The truth table's rows and columns as inputs, for a listed phase P and another phase Q.
ROWS = {
    "not listed": lambda p: None,
    "listed, any phase": lambda p: ExpectedFailure(None, "why"),
    "listed in phase P": lambda p: ExpectedFailure(p, "why"),
}
COLUMNS = {
    "passed": lambda p, q: [Outcome(B, Status.PASS), Outcome(B, Status.PASS),
                            failed(p, "iree_llvmjit")],
    "failed in P": lambda p, q: failing_first_in(p),
    "failed in Q != P": lambda p, q: failing_first_in(q),
    "skipped": lambda p, q: [Outcome(B, Status.SKIPPED, "no Vulkan device")],
}


def docstring_table(first_header: str) -> list:
  """The rows (lists of cells, the header first) of the package docstring's table whose first
  header cell is `first_header`."""
  tables, table = [], []
  for line in expected_failures.__doc__.splitlines() + [""]:
    if line.startswith("|"):
      table.append([c.strip() for c in line.strip().strip("|").split("|")])
    elif table:
      tables.append(table)
      table = []
  header, _, *rows = next(t for t in tables if t[0][0] == first_header)
  return [header] + rows


def truth_table() -> dict:
  """{(row, column): verdict} as the package docstring writes it."""
  header, *rows = docstring_table("listed / observed")
  return {(row[0], column): verdict for row in rows for column, verdict in zip(header[1:], row[1:])}


# The scope table's rows: the FAILING entries of a file that cover a_test.py::T::test_x, and the
# key of the one it runs under (the other tests of the class and file have entries too).
SCOPE_ROWS = {
    "none": ({"b_test.py": "mismatch", "a_test.py::U": "compile"}, None),
    "the file's": ({"a_test.py": "mismatch", "a_test.py::U": "compile"}, "a_test.py"),
    "the file's and its class's": ({"a_test.py": "mismatch", "a_test.py::T": "compile",
                                    "a_test.py::U::test_x": "import"}, "a_test.py::T"),
    "the file's, its class's and its method's": (
        {"a_test.py": "mismatch", "a_test.py::T": "compile", "a_test.py::T::test_x": "runtime",
         "a_test.py::T::test_y": "import"}, "a_test.py::T::test_x"),
}


class TruthTableTest(parameterized.TestCase):

  def test_the_table_has_every_row_and_column(self):
    self.assertEqual(set(truth_table()), set(itertools.product(ROWS, COLUMNS)))

  @parameterized.named_parameters(
      (f"{row}__{column}".replace(" ", "_").replace(",", "").replace("!=", "not"), row, column)
      for row, column in itertools.product(ROWS, COLUMNS))
  def test_every_cell_is_the_verdict(self, row, column):
    want = truth_table()[(row, column)]
    for p, q in itertools.permutations(Phase, 2):
      expected, outcomes = ROWS[row](p), COLUMNS[column](p, q)
      with self.subTest(listed=p.value, other=q.value):
        judged = expected_failures.judge(B, expected, outcomes)
        self.assertEqual(judged.verdict.value, want)
        self.assertEqual(bool(judged.message("T")),
                         judged.verdict in (Verdict.XFAIL, Verdict.XPASS, Verdict.WRONG_PHASE))
        self.assertEqual(judged.verdict.list_is_wrong, want in ("XPASS", "WRONG PHASE"))

  def test_the_scope_table_has_every_row(self):
    rows = docstring_table("entries covering a test on a backend")[1:]
    self.assertEqual([row[0] for row in rows], list(SCOPE_ROWS))

  @parameterized.named_parameters((row.replace(" ", "_").replace(",", "").replace("'", ""), row)
                                  for row in SCOPE_ROWS)
  def test_every_scope_row_picks_the_entry_it_says(self, row):
    entries, key = SCOPE_ROWS[row]
    want = dict(docstring_table("entries covering a test on a backend")[1:])[row]
    failing = {B: {k: ExpectedFailure(Phase(p), k) for k, p in entries.items()}}
    listing = expected_failures.expected_for((B,), failing, [], "a_test.py", "T", "test_x")
    self.assertEqual(None if listing is None else listing.scope.key, key)
    self.assertEqual(want, "not listed" if key is None else
                     f"the {('file', 'class', 'method')[key.count('::')]}'s entry")
    if listing is not None:
      self.assertEqual(listing.expected, failing[B][key])

  def test_each_listing_is_judged_over_the_methods_it_covers(self):
    method = expected_failures.expected_for(
        (B,), {B: {"a_test.py": ExpectedFailure(Phase.COMPILE, "file"),
                   "a_test.py::T::test_x": ExpectedFailure(Phase.MISMATCH, "one method")}},
        [], "a_test.py", "T", "test_x")
    whole = expected_failures.expected_for(
        (B,), {B: {"a_test.py": ExpectedFailure(Phase.COMPILE, "file")}}, [], "a_test.py", "T",
        "test_y")
    judged = expected_failures.judge_listings(
        B, {"test_x": method, "test_y": whole, "test_z": whole, "test_w": None},
        {"test_x": [failed(Phase.MISMATCH)], "test_y": [Outcome(B, Status.PASS)], "test_z": [],
         "test_w": [failed(Phase.IMPORT)]})
    self.assertEqual([(v.verdict, v.covered) for v in judged],
                     [(Verdict.XFAIL, "FAILING a_test.py::T::test_x"),
                      (Verdict.XPASS, "FAILING a_test.py")])
    logged, errors = expected_failures.class_lines("T", judged)
    self.assertIn("[listed: FAILING a_test.py::T::test_x]", logged[0])
    self.assertEndsWith(errors[0], "--xfail_backends). [listed: FAILING a_test.py]")

  def test_a_class_that_compared_nothing_on_a_listed_backend_is_an_xpass(self):
    self.assertIs(expected_failures.judge(B, ExpectedFailure(None, "why"), []).verdict,
                  Verdict.XPASS)


class MessagesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("one", ["a"], "XPASS: T passed every trace on a, which is listed as expected to fail; "
       "remove it from the failing list (FAILING in BUILD.bazel, or --xfail_backends)."),
      ("two", ["a", "b"], "XPASS: T passed every trace on a, b, which are listed as expected to "
       "fail; remove them from the failing list (FAILING in BUILD.bazel, or --xfail_backends)."),
  )
  def test_xpass_message(self, backends, expected):
    self.assertEqual(expected_failures.xpass_message("T", backends), expected)

  def test_wrong_phase_and_xfail_lines_name_the_observed_phase_and_first_error(self):
    wrong = expected_failures.judge(B, ExpectedFailure(Phase.MISMATCH, "why"),
                                    [failed(Phase.COMPILE)])
    self.assertEqual(wrong.message("T"), (
        "WRONG PHASE: T on iree_vmla is listed as expected to fail in phase 'mismatch' but failed "
        "first in phase 'compile': error: compile went wrong; update its expected-failure phase "
        "(FAILING in BUILD.bazel, or --xfail_backends=iree_vmla:compile)."))
    xfail = expected_failures.judge(B, ExpectedFailure(Phase.COMPILE, "why"),
                                    [failed(Phase.COMPILE)])
    self.assertEqual(xfail.message("T"), "XFAIL iree_vmla (compile): error: compile went wrong")

  def test_class_lines_log_xfails_and_name_every_xpass_in_one_error(self):
    judged = [expected_failures.judge(name, ExpectedFailure(phase, "why"), outcomes)
              for name, phase, outcomes in (
                  ("a", None, [Outcome("a", Status.PASS)]),
                  ("b", Phase.RUNTIME, [failed(Phase.RUNTIME, "b")]),
                  ("c", Phase.RUNTIME, [failed(Phase.IMPORT, "c")]),
                  ("d", None, [Outcome("d", Status.PASS)]))]
    logged, errors = expected_failures.class_lines("T", judged)
    self.assertEqual(logged, ["XFAIL b (runtime): error: runtime went wrong"])
    self.assertLen(errors, 2)
    self.assertStartsWith(errors[0], "WRONG PHASE: T on c ")
    self.assertStartsWith(errors[1], "XPASS: T passed every trace on a, d, which are listed")


class XfailFlagEntriesTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("any_phase", "iree_vmla", ("iree_vmla", None, None)),
      ("with_phase", "iree_vmla:compile", ("iree_vmla", Phase.COMPILE, None)),
      ("vulkan_runtime", "iree_vulkan:runtime", ("iree_vulkan", Phase.RUNTIME, None)),
      ("todays_name", "iree_llvmcpu:mismatch", ("iree_llvmcpu", Phase.MISMATCH, None)),
      ("file_scope", "iree_vmvx:compile@a_test.py", ("iree_vmvx", Phase.COMPILE, "a_test.py")),
      ("class_scope", "iree_vmvx@a_test.py::T", ("iree_vmvx", None, "a_test.py::T")),
      ("method_scope", "iree_vmvx:mismatch@a_test.py::T::test_x",
       ("iree_vmvx", Phase.MISMATCH, "a_test.py::T::test_x")),
      ("class_of_any_file", "iree_vmvx@T::test_x", ("iree_vmvx", None, "T::test_x")),
  )
  def test_good_entries(self, entry, expected):
    self.assertEqual(expected_failures.parse_xfail_entry(entry), expected)

  @parameterized.named_parameters(
      ("artifact_name", [("iree_vmla_0", Phase.COMPILE)], ExpectedFailure(Phase.COMPILE,
                                                                          "--xfail_backends")),
      ("canonical_name_any_phase", [("iree_vmvx", None)], ExpectedFailure(None,
                                                                          "--xfail_backends")),
      ("another_backend", [("iree_vulkan", None)], None),
  )
  def test_listed_by_any_of_a_backends_names(self, entries, expected):
    listing = expected_failures.expected_for(
        ("iree_vmla_0", "iree_vmla", "iree_vmvx"), {}, [e + (None,) for e in entries],
        "a_test.py", "T", "test_x")
    self.assertEqual(listing and listing.expected, expected)

  @parameterized.named_parameters(
      ("bad_scope", "iree_vmvx@a_test.py::T::test_x::more", "--xfail_backends entry"),
      ("empty_class", "iree_vmvx@a_test.py::", "names no test file scope"),
      ("empty_scope", "iree_vmvx:compile@", "is not Class or Class::test_method"),
  )
  def test_bad_scopes_are_one_line_naming_the_entry_and_valid_shapes(self, entry, error):
    with self.assertRaises(ValueError) as raised:
      expected_failures.parse_xfail_entry(entry)
    self.assertIn(error, str(raised.exception))
    self.assertIn("file_test.py::Class::test_method", str(raised.exception))
    self.assertLen(str(raised.exception).splitlines(), 1)

  def test_a_files_failing_entry_comes_before_the_flag(self):
    listed = ExpectedFailure(Phase.RUNTIME, "from BUILD.bazel")
    names = ("iree_vmla", "iree_vmvx")
    where = ("a_test.py", "T", "test_x")
    found = expected_failures.expected_for(names, {"iree_vmla": {"a_test.py": listed}},
                                           [("iree_vmla", None, None)], *where)
    self.assertEqual((found.expected, found.label), (listed, "FAILING a_test.py"))
    found = expected_failures.expected_for(names, {"iree_vulkan": {"a_test.py": listed}},
                                           [("iree_vmla", None, None)], *where)
    self.assertEqual((found.expected, found.label),
                     (ExpectedFailure(None, "--xfail_backends"), "--xfail_backends every test"))
    self.assertIsNone(expected_failures.expected_for(names, {}, [], *where))

  @parameterized.named_parameters(
      ("other_file", "b_test.py", None),
      ("other_class", "a_test.py::U", None),
      ("other_method", "a_test.py::T::test_y", None),
      ("its_file", "a_test.py", "a_test.py"),
      ("its_class", "a_test.py::T", "a_test.py::T"),
      ("its_class_of_any_file", "T", "T"),
      ("its_method", "a_test.py::T::test_x", "a_test.py::T::test_x"),
  )
  def test_a_scoped_flag_entry_covers_only_its_scope(self, scope, key):
    entries = expected_failures.parse_xfail_entries([f"iree_vmla:mismatch@{scope}"])
    found = expected_failures.expected_for(("iree_vmla",), {}, entries, "a_test.py", "T",
                                           "test_x")
    self.assertEqual(found and found.scope.key, key)

  def test_a_more_specific_flag_entry_wins_over_a_file_entry(self):
    failing = {"iree_vmla": {"a_test.py": ExpectedFailure(Phase.COMPILE, "why")}}
    entries = expected_failures.parse_xfail_entries(["iree_vmla:mismatch@a_test.py::T"])
    found = expected_failures.expected_for(("iree_vmla",), failing, entries, "a_test.py", "T",
                                           "test_x")
    self.assertEqual(found.expected.phase, Phase.MISMATCH)

  def test_flag_entries_hold_a_file_to_its_failing_entries(self):
    failing = {"iree_vmla": {"a_test.py::T": ExpectedFailure(Phase.COMPILE, "why"),
                             "a_test.py::U::test_x": ExpectedFailure(None, "why"),
                             "b_test.py": ExpectedFailure(Phase.IMPORT, "why")}}
    self.assertEqual(expected_failures.flag_entries(failing, "a_test.py"),
                     ["iree_vmla:compile@a_test.py::T", "iree_vmla@a_test.py::U::test_x"])


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
       {"b": {"i.py": ExpectedFailure(Phase.IMPORT, "1"),
              "c.py": ExpectedFailure(Phase.COMPILE, "2"),
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
                          '{backend: {"file_test.py[::Class[::test_method]]": ("<phase>", '
                          '"<reason>")}}')
    self.assertIn("malformed node", message)
    self.assertLen(message.splitlines(), 1)

  @parameterized.named_parameters(
      ("unknown_phase", '("linking", "why")', "unknown phase 'linking'; valid phases are "
       "import, compile, runtime, mismatch, reference_error"),
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
    path = self.build_file('FAILING = {"iree_vmla": {"a_test.py": ("runtime", "why"), '
                           '"a_test.py::T::test_x": ("import", "w"), "b_test.py": "x"}, '
                           '"iree_vulkan": {"b_test.py::T": "y"}}\n')
    test_file = os.path.join(os.path.dirname(path), "a_test.py")
    self.assertEqual(expected_failures.for_test_file(test_file),
                     {"iree_vmla": {"a_test.py": ExpectedFailure(Phase.RUNTIME, "why"),
                                    "a_test.py::T::test_x": ExpectedFailure(Phase.IMPORT, "w")}})

  @parameterized.named_parameters(
      ("not_a_py_file", "a_test::T"),
      ("four_parts", "a_test.py::T::test_x::y"),
      ("empty_method", "a_test.py::T::"),
      ("a_path", "sub/a_test.py"),
  )
  def test_a_bad_key_is_one_error_naming_it_and_the_shapes(self, key):
    path = self.build_file(f'FAILING = {{"iree_vmla": {{"{key}": ("compile", "why")}}}}\n')
    with self.assertRaises(ValueError) as raised:
      expected_failures.failing_by_backend(path)
    message = str(raised.exception)
    self.assertIn(f"FAILING['iree_vmla'][{key!r}]", message)
    self.assertIn("file_test.py::Class::test_method", message)
    self.assertLen(message.splitlines(), 1)

  @parameterized.named_parameters(
      ("e2e", "e2e"),
      ("keras", "e2e/keras"),
  )
  def test_our_own_lists_are_all_typed(self, directory):
    lists = expected_failures.failing_by_backend(os.path.join(ROOT, directory, "BUILD.bazel"))
    untyped = [(b, f) for b, files in lists.items() for f, e in files.items() if e.phase is None]
    self.assertTrue(lists)
    self.assertEqual(untyped, [])


if __name__ == "__main__":
  absltest.main()
