"""Every module of the package is named where a newcomer looks for it: in its folder's
`__init__` docstring (which also names the folder's import rule) and in docs/architecture.md.
A module added without a word about it fails here, naming the module and the missing place."""

import ast
import os
import re
from typing import Iterator, List, Tuple

import pytest

from tests.support.repo import ROOT

PACKAGE = os.path.join(ROOT, "pyiree_tf_support")
ARCHITECTURE = os.path.join(ROOT, "docs", "architecture.md")


def _folders() -> Iterator[str]:
  for folder, subfolders, _ in os.walk(PACKAGE):
    subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
    if folder != PACKAGE:
      yield folder


def _docstring(folder: str) -> str:
  with open(os.path.join(folder, "__init__.py"), encoding="utf-8") as f:
    return ast.get_docstring(ast.parse(f.read())) or ""


def _members(folder: str) -> List[str]:
  """The folder's modules and subpackages, by name."""
  names = []
  for entry in sorted(os.listdir(folder)):
    path = os.path.join(folder, entry)
    if entry.endswith(".py") and entry != "__init__.py":
      names.append(entry[:-3])
    elif os.path.isfile(os.path.join(path, "__init__.py")):
      names.append(entry)
  return names


def _named(name: str, text: str) -> bool:
  return re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", text) is not None


def _cases() -> Iterator[Tuple[str, str]]:
  for folder in _folders():
    for name in _members(folder):
      yield os.path.relpath(folder, ROOT), name


CASES = list(_cases())


def test_the_package_has_folders_to_check():
  assert len(CASES) > 50, CASES


@pytest.mark.parametrize("folder,name", CASES, ids=[f"{f}/{n}" for f, n in CASES])
def test_a_module_is_named_in_its_folders_docstring(folder, name):
  doc = _docstring(os.path.join(ROOT, folder))
  assert _named(name, doc), (
      f"{folder}/__init__.py's docstring does not name `{name}`: say what it holds there")


def test_every_folder_docstring_states_its_import_rule():
  missing = [os.path.relpath(f, ROOT) for f in _folders()
             if "import rule" not in _docstring(f).lower()]
  assert not missing, f"folders whose __init__ docstring names no import rule: {missing}"


@pytest.mark.parametrize("folder,name", CASES, ids=[f"{f}/{n}" for f, n in CASES])
def test_a_module_is_named_in_the_architecture_page(folder, name):
  with open(ARCHITECTURE, encoding="utf-8") as f:
    page = f.read()
  assert _named(name, page), (
      f"docs/architecture.md does not name `{name}` ({folder}): add it to its folder's row")
