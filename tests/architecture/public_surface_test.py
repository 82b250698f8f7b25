"""The public surface is the top-level modules' `__all__` (docs/architecture.md): each public
module has one, it names only what the module has, and it holds what users import: the names
2020's files use, what the e2e files, docs and benchmarks read, and the pytest plugin's hooks and
public classes."""

import importlib
import inspect
import os
import re
import types
from typing import Iterator, Set, Tuple
import unittest

import pytest

from tests.support.repo import ROOT

# The public modules are imported by name (importlib), which the tier rule cannot see.
pytestmark = pytest.mark.tensorflow
PUBLIC_MODULES = ("tf_utils", "tf_test_utils", "tf_test_driver", "cli_flags", "replay", "bundle",
                  "pytest_plugin")
# Names users import that the files below do not show: 2020's tf_test_driver module
# (pyiree/tf/support/tf_test_driver.py: FLAGS, add_test, run_tests; its ALL_TEST_DICTS was the
# driver's own list), the exception lit files' CHECK lines name, and the replay and bundle
# commands' Python entry points.
USED_BY_USERS = {
    "tf_test_driver": {"FLAGS", "add_test", "run_tests", "PassFailedError"},
    "replay": {"main", "replay", "replay_loaded", "ReplayModule", "ReplayError", "ReplayInput"},
    "bundle": {"main", "write", "compiled_vmfb", "BundleError", "FORMAT", "MANIFEST"},
}
# Where users' code lives in this repository: the 2020 e2e corpus, the docs' examples, benchmarks.
USER_FILES = ("e2e", "docs", "bench", "README.md")


def public(name: str) -> types.ModuleType:
  return importlib.import_module(f"pyiree_tf_support.{name}")


def listed(name: str) -> Set[str]:
  return set(getattr(public(name), "__all__", ()))


def names_read_in(text: str, module: str) -> Set[str]:
  """The names `text` reads from `module`: `module.name` (not a path such as `module.py`) and
  `from pyiree_tf_support.module import a, b` (or `(a,\\n b)`)."""
  names = set(re.findall(rf"(?<![\w./-]){module}\.(?!(?:py|md)\b)([A-Za-z_]\w*)", text))
  for parenthesized, plain in re.findall(
      rf"from pyiree_tf_support\.{module} import (?:\(([\w,\s]+)\)|([\w, ]+))", text):
    names.update(n.strip() for n in (parenthesized or plain).split(",") if n.strip())
  return names


def user_texts() -> Iterator[Tuple[str, str]]:
  """(path relative to ROOT, text) of each Python and Markdown file of USER_FILES."""
  for entry in USER_FILES:
    path = os.path.join(ROOT, entry)
    paths = [path] if os.path.isfile(path) else [
        os.path.join(d, n) for d, _, names in os.walk(path) for n in names
        if n.endswith((".py", ".md"))]
    for found in sorted(paths):
      with open(found, encoding="utf-8") as f:
        text = f.read()
      if "from iree.tf.support import" not in text:  # IREE's own library (the bench's baseline).
        yield os.path.relpath(found, ROOT), text


class PublicSurfaceTest(unittest.TestCase):

  def test_each_public_module_lists_its_own_names_once(self):
    for name in PUBLIC_MODULES:
      module = public(name)
      with self.subTest(module=name):
        self.assertTrue(hasattr(module, "__all__"), f"{name} has no __all__")
        names = list(module.__all__)
        self.assertTrue(names)
        self.assertEqual(len(names), len(set(names)), f"{name}.__all__ repeats a name")
        self.assertEqual([n for n in names if not hasattr(module, n)], [])
        self.assertEqual([n for n in names if n.startswith("_")], [])

  def test_the_names_users_import_are_public(self):
    for name, used in USED_BY_USERS.items():
      with self.subTest(module=name):
        self.assertLessEqual(used, listed(name))

  @unittest.skipUnless(os.path.isdir(os.path.join(ROOT, "docs")), "needs the repository's docs")
  def test_what_e2e_files_docs_and_benchmarks_read_is_public(self):
    for path, text in user_texts():
      for name in PUBLIC_MODULES:
        read = names_read_in(text, name)
        with self.subTest(path=path, module=name):
          self.assertLessEqual(read, listed(name), f"{path} reads them")

  def test_the_plugins_hooks_and_public_classes_are_listed(self):
    plugin = public("pytest_plugin")
    defined = {n for n, v in vars(plugin).items()
               if (inspect.isfunction(v) and n.startswith("pytest_")
                   or inspect.isclass(v) and not n.startswith("_"))
               and getattr(v, "__module__", None) == plugin.__name__}
    self.assertIn("pytest_addoption", defined)
    self.assertIn("BackendItem", defined)
    self.assertEqual(listed("pytest_plugin"), defined)

  def test_a_name_read_from_a_module_is_found(self):
    text = ("x = bundle.write(a)\nfrom pyiree_tf_support.replay import (main,\n    replay)\n"
            "from pyiree_tf_support.tf_utils import uniform\nimport os\n"
            "y = my_bundle.other  # see pyiree_tf_support/bundle.py and bundle.py\n")
    self.assertEqual(names_read_in(text, "bundle"), {"write"})
    self.assertEqual(names_read_in(text, "replay"), {"main", "replay"})
    self.assertEqual(names_read_in(text, "tf_utils"), {"uniform"})


if __name__ == "__main__":
  unittest.main()
