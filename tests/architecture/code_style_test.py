"""The code style the repository keeps, checked on the files themselves: Python and shell lines of
at most 100 columns, and module docstrings that say what a module holds, not why it is long.
ruff and pyright run in linters_test (processes: the slow tier)."""

import ast
import os
import re
from typing import Iterable, List, Set, Tuple
import unittest

from tests.support.repo import ROOT

FOLDERS = ("pyiree_tf_support", "tests", "bench", "scripts")
MAX_COLUMNS = 100
# Templates whose lines are lines of the files made from them (e2e/repros/ holds that output): a
# line that is long in repro.sh or repro.py stays one line, so the generated text does not change.
LONG_TEMPLATES = {
    "pyiree_tf_support/tools/repro_templates.py": ("PREAMBLE", "IMPORT"),
    "pyiree_tf_support/reporting/import_repro.py": ("IMPORT_SCRIPT",),
}
# Files another change of the same issue is rewriting; they join the checks when it lands.
# A paragraph that justifies a file's size instead of saying what the file holds.
SIZE_EXCUSE = re.compile(r"\b(over|more than|above)\s+\d+\s+lines\b", re.IGNORECASE)

IN_REPOSITORY = unittest.skipUnless(
    all(os.path.isdir(os.path.join(ROOT, folder)) for folder in FOLDERS),
    "needs the repository's folders (a Bazel test's runfiles hold only the package)")


def source_files(extensions: Tuple[str, ...] = (".py", ".sh")) -> List[str]:
  """Paths relative to ROOT of the checked files."""
  found = []
  for folder in FOLDERS:
    for directory, subdirectories, names in os.walk(os.path.join(ROOT, folder)):
      subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
      for name in sorted(names):
        relative = os.path.relpath(os.path.join(directory, name), ROOT).replace(os.sep, "/")
        if name.endswith(extensions):
          found.append(relative)
  return found


def read(relative: str) -> str:
  with open(os.path.join(ROOT, relative), encoding="utf-8") as f:
    return f.read()


def template_lines(text: str, names: Iterable[str]) -> Set[int]:
  """Line numbers of the string literals assigned to `names` at the top level of `text`."""
  lines = set()
  for node in ast.parse(text).body:
    if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Name) and t.id in names for t in node.targets):
      lines.update(range(node.lineno, node.end_lineno + 1))
  return lines


def long_lines(relative: str, text: str) -> List[str]:
  """`path:line: N columns` for each line of `text` over MAX_COLUMNS outside allowed templates."""
  names = LONG_TEMPLATES.get(relative, ())
  allowed = template_lines(text, names) if names else set()
  return [f"{relative}:{number}: {len(line)} columns"
          for number, line in enumerate(text.splitlines(), 1)
          if len(line) > MAX_COLUMNS and number not in allowed]


class CheckerTest(unittest.TestCase):
  """The checks themselves find what they look for."""

  def test_101_columns_are_reported_and_100_are_not(self):
    text = "x = 1\n" + "#" * 100 + "\n" + "y = '" + "a" * 95 + "'\n"
    self.assertEqual(long_lines("a.py", text), ["a.py:3: 101 columns"])

  def test_only_the_named_templates_may_be_long(self):
    relative = "pyiree_tf_support/tools/repro_templates.py"
    shell = "echo " + "a" * 100
    text = f'PREAMBLE = r"""\n{shell}\n"""\nREADME = """\n{shell}\n"""\n'
    self.assertEqual(long_lines(relative, text), [f"{relative}:5: {len(shell)} columns"])

  def test_a_size_excuse_is_found(self):
    self.assertTrue(SIZE_EXCUSE.search("Holds x.\n\nOver 300 lines because y"))
    self.assertTrue(SIZE_EXCUSE.search("(over 300 lines: x)"))
    self.assertIsNone(SIZE_EXCUSE.search("Each of the 300 lines of a trace"))


@IN_REPOSITORY
class LineLengthTest(unittest.TestCase):
  maxDiff = None

  def test_python_and_shell_lines_fit_in_100_columns(self):
    files = source_files()
    self.assertGreater(len(files), 100)
    too_long = [entry for relative in files for entry in long_lines(relative, read(relative))]
    self.assertEqual(too_long, [], f"{len(too_long)} lines over {MAX_COLUMNS} columns")

  def test_the_allowed_templates_exist(self):
    for relative, names in LONG_TEMPLATES.items():
      text = read(relative)
      for name in names:
        with self.subTest(relative=relative, template=name):
          self.assertTrue(template_lines(text, (name,)), f"{relative} has no template {name}")


@IN_REPOSITORY
class DocstringTest(unittest.TestCase):

  def test_no_module_docstring_justifies_the_files_size(self):
    excuses = []
    for relative in source_files((".py",)):
      docstring = ast.get_docstring(ast.parse(read(relative))) or ""
      excuses += [f"{relative}: {m.group(0)!r}" for m in SIZE_EXCUSE.finditer(docstring)]
    self.assertEqual(excuses, [], "say what the module holds, not why it is long")


if __name__ == "__main__":
  unittest.main()
