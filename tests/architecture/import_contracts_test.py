"""The package's import rules (`.importlinter`, docs/architecture.md) hold, and a broken one fails.

`lint-imports` (import-linter) checks the contracts on the package as it is; the other tests copy
the package, add one forbidden import, and check that the run fails naming the contract and the
offending import chain, so a contract that cannot fail would be noticed.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from tests.support.repo import ROOT

LINT_IMPORTS = os.path.join(os.path.dirname(sys.executable), "lint-imports")


def lint_imports(package_parent: str) -> subprocess.CompletedProcess:
  """Runs lint-imports with the repo's contracts on the package found under `package_parent`."""
  env = dict(os.environ, PYTHONPATH=package_parent)
  return subprocess.run([LINT_IMPORTS, "--no-cache", os.path.join(ROOT, ".importlinter")],
                        cwd=package_parent, env=env, capture_output=True, text=True, timeout=300,
                        check=False)


class ImportContractsTest(unittest.TestCase):

  def test_the_package_keeps_every_contract(self):
    result = lint_imports(ROOT)
    self.assertEqual(result.returncode, 0, result.stdout[-4000:] + result.stderr[-2000:])
    self.assertRegex(result.stdout, r"Contracts: \d+ kept, 0 broken")

  def _with_added_line(self, module_path: str, line: str) -> subprocess.CompletedProcess:
    parent = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, parent)
    shutil.copytree(os.path.join(ROOT, "pyiree_tf_support"),
                    os.path.join(parent, "pyiree_tf_support"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(os.path.join(parent, "pyiree_tf_support", module_path), "a") as f:
      f.write(f"\n{line}\n")
    return lint_imports(parent)

  def test_tensorflow_in_the_runtime_breaks_a_contract_naming_the_chain(self):
    result = self._with_added_line("runtime/readback.py", "import tensorflow  # forbidden")
    self.assertNotEqual(result.returncode, 0, result.stdout[-3000:])
    self.assertIn("Only importing and the 2020 public modules import TensorFlow BROKEN",
                  result.stdout)
    self.assertIn("pyiree_tf_support.runtime.readback -> tensorflow", result.stdout)

  def test_an_indirect_tensorflow_import_of_replay_is_caught(self):
    result = self._with_added_line("comparing/tolerances.py",
                                   "from pyiree_tf_support.importing import importer  # forbidden")
    self.assertNotEqual(result.returncode, 0, result.stdout[-3000:])
    self.assertIn("pyiree_tf_support.comparing.tolerances -> pyiree_tf_support.importing.importer",
                  result.stdout)

  def test_core_importing_a_layer_above_it_breaks_the_layers(self):
    result = self._with_added_line("core/phases.py",
                                   "from pyiree_tf_support.harness import class_setup  # forbidden")
    self.assertNotEqual(result.returncode, 0, result.stdout[-3000:])
    self.assertIn("Tools over public modules over harness over phases over core BROKEN",
                  result.stdout)
    self.assertIn("pyiree_tf_support.core.phases -> pyiree_tf_support.harness.class_setup",
                  result.stdout)

  def test_the_compiler_in_the_runtime_breaks_a_contract(self):
    result = self._with_added_line("runtime/drivers.py", "import iree.compiler  # forbidden")
    self.assertNotEqual(result.returncode, 0, result.stdout[-3000:])
    self.assertIn("The runtime never imports the IREE compiler BROKEN", result.stdout)


if __name__ == "__main__":
  unittest.main()
