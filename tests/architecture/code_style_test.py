"""The code style the repository keeps, checked on the files themselves: Python and shell lines of
at most 100 columns, module docstrings that say what a module holds, not why it is long, ruff's
checks (ruff.toml) and pyright's basic type checks of the package (pyrightconfig.json).

pyright does not pass yet: REMAINING_TYPE_ERRORS lists, per file, the errors left when it was
set up. A file may not gain one, and when a file loses some its count here must be lowered to
match: the counts only go down, until the list is empty."""

import ast
import json
import os
import re
import subprocess
import sys
from typing import Dict, Iterable, List, Set, Tuple
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

# The linters run as `python -m <tool>`: scripts/bootstrap.sh installs them (setup.py's lint extra).
# Imports are sorted by `ruff check --select I --fix` in one commit of their own; until then the
# test leaves that rule out (the commit removes this).
UNTIL_IMPORTS_ARE_SORTED = ("--extend-ignore", "I001")
LINT_TIMEOUT = 900  # seconds; pyright over the package takes ~40 s here.
# pyright's errors per file when it was set up; only ever lowered (the module docstring).
REMAINING_TYPE_ERRORS: Dict[str, int] = {
    "pyiree_tf_support/cli_flags.py": 1,
    "pyiree_tf_support/comparing/recorded_values.py": 1,
    "pyiree_tf_support/comparing/trace_io.py": 6,
    "pyiree_tf_support/comparing/traces.py": 2,
    "pyiree_tf_support/compiling/compile_key.py": 2,
    "pyiree_tf_support/compiling/compiler.py": 3,
    "pyiree_tf_support/compiling/mlir_files.py": 3,
    "pyiree_tf_support/core/interrupts.py": 1,
    "pyiree_tf_support/core/safe_files.py": 1,
    "pyiree_tf_support/core/verbosity.py": 2,
    "pyiree_tf_support/examples/engine.py": 5,
    "pyiree_tf_support/fuzz.py": 6,
    "pyiree_tf_support/harness/generated_tests.py": 1,
    "pyiree_tf_support/harness/session.py": 4,
    "pyiree_tf_support/harness/test_setup.py": 3,
    "pyiree_tf_support/importing/importer.py": 6,
    "pyiree_tf_support/importing/module_imports.py": 3,
    "pyiree_tf_support/importing/rewrites/dynamic_broadcasts.py": 32,
    "pyiree_tf_support/importing/rewrites/dynamic_reshapes.py": 1,
    "pyiree_tf_support/importing/rewrites/dynamic_strided_slices.py": 2,
    "pyiree_tf_support/importing/rewrites/growing_carries.py": 4,
    "pyiree_tf_support/importing/rewrites/shape_sources.py": 31,
    "pyiree_tf_support/importing/rewrites/unit_dim_reshapes.py": 13,
    "pyiree_tf_support/importing/saved_models.py": 1,
    "pyiree_tf_support/localizing/dispatch_repro.py": 2,
    "pyiree_tf_support/localizing/engine.py": 48,
    "pyiree_tf_support/localizing/formation.py": 8,
    "pyiree_tf_support/localizing/traced_run.py": 4,
    "pyiree_tf_support/pytest_plugin.py": 4,
    "pyiree_tf_support/replay.py": 1,
    "pyiree_tf_support/reporting/expected_failures/class_verdicts.py": 8,
    "pyiree_tf_support/reporting/expected_failures/lists.py": 7,
    "pyiree_tf_support/reporting/report_files.py": 10,
    "pyiree_tf_support/reporting/repro.py": 3,
    "pyiree_tf_support/reporting/run_results.py": 1,
    "pyiree_tf_support/reporting/verdicts.py": 1,
    "pyiree_tf_support/runtime/worker_client.py": 1,
    "pyiree_tf_support/tf_test_utils.py": 8,
    "pyiree_tf_support/tf_utils.py": 1,
    "pyiree_tf_support/tools/check_suite_verdicts.py": 1,
    "pyiree_tf_support/tools/generate_backends_bzl.py": 3,
    "pyiree_tf_support/tools/generated_coverage.py": 1,
    "pyiree_tf_support/tools/list_updates.py": 9,
    "pyiree_tf_support/tools/make_repros.py": 1,
    "pyiree_tf_support/tools/repro_layout.py": 1,
    "pyiree_tf_support/tools/test_summary.py": 3,
    "pyiree_tf_support/tools/update_e2e_coverage.py": 5,
    "pyiree_tf_support/tools/update_lists.py": 1,
}

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


def run_tool(module: str, *args: str) -> subprocess.CompletedProcess:
  """`python -m module args` in ROOT, its output captured; fails the test if it is not installed."""
  # PYRIGHT_PYTHON_IGNORE_WARNINGS: pyright's wrapper does not ask PyPI for a newer version.
  env = dict(os.environ, PYRIGHT_PYTHON_IGNORE_WARNINGS="1")
  result = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=LINT_TIMEOUT, env=env, check=False)
  if f"No module named {module}" in result.stderr:
    raise AssertionError(f"{module} is not installed: run scripts/bootstrap.sh (setup.py's lint "
                         f"extra)\n{result.stderr}")
  return result


def type_errors(pyright_json: str) -> Dict[str, List[str]]:
  """pyright's errors from its --outputjson text, per path relative to ROOT, each as pyright
  prints it (`path:line:column - error: message (rule)`)."""
  errors: Dict[str, List[str]] = {}
  for diagnostic in json.loads(pyright_json)["generalDiagnostics"]:
    if diagnostic["severity"] != "error":
      continue
    relative = os.path.relpath(diagnostic["file"], ROOT).replace(os.sep, "/")
    start = diagnostic["range"]["start"]
    rule = f" ({diagnostic['rule']})" if diagnostic.get("rule") else ""
    errors.setdefault(relative, []).append(
        f"{relative}:{start['line'] + 1}:{start['character'] + 1} - error: "
        f"{diagnostic['message']}{rule}")
  return errors


def type_error_changes(errors: Dict[str, List[str]], remaining: Dict[str, int]) -> List[str]:
  """What differs from `remaining`: a file with more errors than listed (with them), or fewer."""
  changes = []
  for relative in sorted(set(errors) | set(remaining)):
    found, listed = errors.get(relative, []), remaining.get(relative, 0)
    if len(found) > listed:
      changes.append(f"{relative}: {len(found)} type errors, {listed} listed:")
      changes += [f"  {error}" for error in found]
    elif len(found) < listed:
      changes.append(f"{relative}: {len(found)} type errors, {listed} listed: lower "
                     f"REMAINING_TYPE_ERRORS to {len(found)}")
  return changes


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

  def test_a_file_gaining_or_losing_type_errors_is_reported(self):
    error = {"file": os.path.join(ROOT, "p", "a.py"), "severity": "error", "message": "m",
             "range": {"start": {"line": 2, "character": 4}}, "rule": "reportX"}
    warning = dict(error, severity="warning")
    errors = type_errors(json.dumps({"generalDiagnostics": [error, error, warning]}))
    self.assertEqual(errors, {"p/a.py": ["p/a.py:3:5 - error: m (reportX)"] * 2})
    self.assertEqual(type_error_changes(errors, {"p/a.py": 2}), [])
    self.assertEqual(type_error_changes(errors, {"p/a.py": 1}),
                     ["p/a.py: 2 type errors, 1 listed:", "  p/a.py:3:5 - error: m (reportX)",
                      "  p/a.py:3:5 - error: m (reportX)"])
    self.assertEqual(type_error_changes({}, {"p/a.py": 1}),
                     ["p/a.py: 0 type errors, 1 listed: lower REMAINING_TYPE_ERRORS to 0"])


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


@IN_REPOSITORY
class LinterTest(unittest.TestCase):
  """ruff and pyright as a developer runs them from the root, with the repository's settings."""
  maxDiff = None

  def test_ruff_finds_nothing(self):
    result = run_tool("ruff", "check", "--no-cache", "--output-format", "concise",
                      *UNTIL_IMPORTS_ARE_SORTED)
    self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

  def test_pyright_finds_no_type_error_but_the_listed_ones(self):
    result = run_tool("pyright", "--outputjson")
    self.assertIn(result.returncode, (0, 1), result.stdout + result.stderr)  # 1: errors found.
    changes = type_error_changes(type_errors(result.stdout), REMAINING_TYPE_ERRORS)
    self.assertEqual(changes, [], "pyright (pyrightconfig.json):\n" + "\n".join(changes))


if __name__ == "__main__":
  unittest.main()
