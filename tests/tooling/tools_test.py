"""The maintainers' tools as a package: each runs as `python -m pyiree_tf_support.tools.<tool>`
from any directory, the package docstring names every tool, no file of the repository edits
sys.path to import another, and a copy of the package installed without the repository says in
one line that a tool needs it (real subprocesses, real installs of the package's files)."""

import os
import pkgutil
import shutil
import subprocess
import sys
import tempfile

from absl.testing import absltest
from absl.testing import parameterized

import pyiree_tf_support
from pyiree_tf_support import tools

REPO = os.path.dirname(os.path.dirname(os.path.abspath(pyiree_tf_support.__file__)))
COMMANDS = ("update_e2e_coverage", "check_suite_verdicts", "make_repros", "generate_backends_bzl")
# Tools whose files live in the repository, not in the package (Bazel's view of the table, the
# e2e lists and repros).
NEED_THE_REPOSITORY = (("generate_backends_bzl", "--check"), ("make_repros", "--check"),
                       ("update_e2e_coverage", "--update_lists"))


def run_tool(tool, *args, pythonpath=REPO, cwd=None):
  env = dict(os.environ, PYTHONPATH=pythonpath, TF_CPP_MIN_LOG_LEVEL="2")
  return subprocess.run([sys.executable, "-m", f"pyiree_tf_support.tools.{tool}", *args],
                        capture_output=True, text=True, cwd=cwd or tempfile.gettempdir(), env=env,
                        timeout=300, check=False)


class ToolsPackageTest(parameterized.TestCase):

  @parameterized.parameters(*COMMANDS)
  def test_each_tool_runs_with_python_m_from_any_directory(self, tool):
    done = run_tool(tool, "--help")
    self.assertEqual(done.returncode, 0, done.stderr)
    self.assertStartsWith(done.stdout, f"usage: python -m pyiree_tf_support.tools.{tool}")

  def test_the_package_docstring_names_every_tool(self):
    modules = [m.name for m in pkgutil.iter_modules(tools.__path__)]
    self.assertContainsSubset(COMMANDS, modules)
    self.assertEqual([m for m in modules if f"`{m}`" not in tools.__doc__], [])

  def test_no_file_of_the_repository_edits_sys_path(self):
    edits = []
    for directory, dirs, files in os.walk(REPO):
      dirs[:] = [d for d in dirs if not d.startswith((".", "bazel-")) and d != "build"]
      for name in files:
        if name.endswith(".py"):
          path = os.path.join(directory, name)
          with open(path, encoding="utf-8") as f:
            if "sys.path." + "insert(" in f.read():
              edits.append(os.path.relpath(path, REPO))
    self.assertEqual(edits, [])


class InstalledWithoutTheRepositoryTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.site = tempfile.mkdtemp(prefix="site_packages_")  # the package's files, as pip installs
    shutil.copytree(os.path.join(REPO, "pyiree_tf_support"),
                    os.path.join(cls.site, "pyiree_tf_support"),
                    ignore=shutil.ignore_patterns("__pycache__"))

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.site, ignore_errors=True)
    super().tearDownClass()

  @parameterized.parameters(*NEED_THE_REPOSITORY)
  def test_a_tool_that_needs_the_repository_says_so_in_one_line(self, tool, argument):
    done = run_tool(tool, argument, pythonpath=self.site, cwd=self.site)
    self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
    self.assertEqual(done.stderr.splitlines(), [
        f"ERROR: python -m pyiree_tf_support.tools.{tool} needs the pyiree-tf-support repository "
        f"(e2e/, build_tools/), but {os.path.join(self.site, 'pyiree_tf_support')} is not in a "
        "checkout of it; run it from a checkout (pip install -e <checkout>, or "
        "PYTHONPATH=<checkout>)."])
    self.assertEqual(sorted(os.listdir(self.site)), ["pyiree_tf_support"])  # nothing written.


if __name__ == "__main__":
  absltest.main()
