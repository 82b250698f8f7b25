"""ruff (ruff.toml) and pyright's basic type checks of the package (pyrightconfig.json), run from
the repository's root as a developer runs them. In a file of their own: they start processes,
which puts a file in the slow tier, and code_style_test stays in the fast one.

pyright does not pass yet: REMAINING_TYPE_ERRORS lists, per file, the errors left when it was
set up. A file may not gain one, and when a file loses some its count here must be lowered to
match: the counts only go down, until the list is empty."""

import json
import os
import subprocess
import sys
from typing import Dict, List
import unittest

from tests.support.repo import ROOT

# The linters run as `python -m <tool>`: scripts/bootstrap.sh installs them (setup.py's lint extra).
LINT_TIMEOUT = 900  # seconds; pyright over the package takes ~40-80 s here.
IN_REPOSITORY = unittest.skipUnless(
    os.path.isfile(os.path.join(ROOT, "ruff.toml")),
    "needs the repository's root (a Bazel test's runfiles hold only the package)")
# pyright's errors per file when it was set up; only ever lowered (the module docstring).
REMAINING_TYPE_ERRORS: Dict[str, int] = {
    "pyiree_tf_support/reporting/expected_failures/lists.py": 7,
    "pyiree_tf_support/reporting/report_files.py": 10,
    "pyiree_tf_support/reporting/repro.py": 3,
    "pyiree_tf_support/reporting/run_results.py": 1,
}


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
  """The comparison with the list finds what it looks for."""

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
class LinterTest(unittest.TestCase):
  """ruff and pyright as a developer runs them from the root, with the repository's settings."""
  maxDiff = None

  def test_ruff_finds_nothing(self):
    result = run_tool("ruff", "check", "--no-cache", "--output-format", "concise")
    self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

  def test_pyright_finds_no_type_error_but_the_listed_ones(self):
    result = run_tool("pyright", "--outputjson")
    self.assertIn(result.returncode, (0, 1), result.stdout + result.stderr)  # 1: errors found.
    changes = type_error_changes(type_errors(result.stdout), REMAINING_TYPE_ERRORS)
    self.assertEqual(changes, [], "pyright (pyrightconfig.json):\n" + "\n".join(changes))


if __name__ == "__main__":
  unittest.main()
