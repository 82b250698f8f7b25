"""ruff (ruff.toml) and pyright's basic type checks of the package (pyrightconfig.json), run from
the repository's root as a developer runs them: both must find nothing. In a file of their own:
they start processes, which puts a file in the slow tier, and code_style_test stays in the fast
one."""

import os
import subprocess
import sys
import unittest

from tests.support.repo import ROOT

# The linters run as `python -m <tool>`: scripts/bootstrap.sh installs them (setup.py's lint extra).
LINT_TIMEOUT = 900  # seconds; pyright over the package takes ~40-80 s here.
IN_REPOSITORY = unittest.skipUnless(
    os.path.isfile(os.path.join(ROOT, "ruff.toml")),
    "needs the repository's root (a Bazel test's runfiles hold only the package)")


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


@IN_REPOSITORY
class LinterTest(unittest.TestCase):
  """ruff and pyright as a developer runs them from the root, with the repository's settings."""

  def test_ruff_finds_nothing(self):
    result = run_tool("ruff", "check", "--no-cache", "--output-format", "concise")
    self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

  def test_pyright_finds_no_type_error(self):
    result = run_tool("pyright")
    self.assertEqual(result.returncode, 0, "pyright (pyrightconfig.json):\n" + result.stdout
                     + result.stderr)


if __name__ == "__main__":
  unittest.main()
