"""Every `python -m pyiree_tf_support.tools.<module>` answers `--help`: a command prints its
usage; a module the commands share says it is none and names the commands."""

import pkgutil
import subprocess
import sys

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support import tools

MODULES = sorted(m.name for m in pkgutil.iter_modules(tools.__path__))
SHARED = [m for m in MODULES if m not in tools.COMMANDS]


def run(module: str, *args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", f"pyiree_tf_support.tools.{module}", *args],
                        capture_output=True, text=True, check=False, timeout=120)


class HelpTest(parameterized.TestCase):

  @parameterized.parameters(*MODULES)
  def test_answers_help(self, module):
    completed = run(module, "--help")
    self.assertEqual(completed.returncode, 0, completed.stderr[-2000:])
    if module in tools.COMMANDS:
      self.assertIn("usage:", completed.stdout + completed.stderr)
    else:
      self.assertEqual(completed.stdout, "")
      lines = completed.stderr.strip().splitlines()
      self.assertLen(lines, 1, completed.stderr)
      self.assertIn(f"pyiree_tf_support.tools.{module} is not a command", lines[0])
      self.assertIn("update_e2e_coverage", lines[0])

  @parameterized.parameters(*SHARED)
  def test_a_shared_module_run_as_a_command_is_refused(self, module):
    completed = run(module)
    self.assertEqual(completed.returncode, 2)
    self.assertIn("is not a command", completed.stderr)

  def test_update_lists_is_the_command_its_docstring_says(self):
    completed = run("update_lists", "--help")
    self.assertIn("--dry_run", completed.stdout)
    self.assertIn("update_lists", completed.stdout.splitlines()[0])

  def test_the_commands_are_the_modules_with_a_main(self):
    self.assertTrue(set(tools.COMMANDS) <= set(MODULES), tools.COMMANDS)


if __name__ == "__main__":
  absltest.main()
