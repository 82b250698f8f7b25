"""The test tiers: the markers a test file gets, decided once from its source, so that a new
file lands in its tier with nobody keeping a list.

A file is marked
- `tensorflow` when importing it imports TensorFlow (or Keras): its own imports, then those of
  the modules of this repo they reach, at module level only (what runs when the file is
  imported; an import inside a function runs only if that function does);
- `subprocess` when it, or a helper of tests/ it imports, can start a process (`subprocess`,
  `multiprocessing`, `pty`, `sys.executable`, `os.fork`, `os.system`, ...): a child may import
  TensorFlow, compile or run Bazel, which its parent's imports do not tell;
- `bazel` when a command line starting with "bazel" is written in it or in a module it reaches;
- any of these named by its own `pytestmark = pytest.mark.<marker>` (or a list of them), for
  what the rule cannot see (a module imported by name at run time);
- `slow` when it has any of these. The fast tier is every other file: `pytest --tier=fast
  tests/`, which does not even import the slow tier's files (tests/conftest.py), and fails a
  file or test that imports TensorFlow there anyway (the rule missed an import).
"""

import ast
import functools
import os
from typing import FrozenSet, Iterator, List, Optional, Tuple

from tests.support.repo import ROOT

SLOW = "slow"
REASONS = ("tensorflow", "subprocess", "bazel")
# Packages whose import is TensorFlow's (an external package counts by its top name).
_TENSORFLOW = frozenset({"tensorflow", "tf_keras", "keras"})
_PROCESS_MODULES = frozenset({"subprocess", "multiprocessing", "pty"})
_PROCESS_CALLS = frozenset({
    ("sys", "executable"), ("os", "fork"), ("os", "forkpty"), ("os", "system"),
    ("os", "popen"), ("os", "posix_spawn"), ("os", "posix_spawnp"), ("os", "execv"),
    ("os", "execve"), ("os", "execvp")})
# The top packages whose modules are files of this repo, followed through their imports.
_LOCAL = ("pyiree_tf_support", "tests")


def _local_file(module: str) -> Optional[str]:
  """The file of `module` when it is one of this repo's modules (None for anything else)."""
  if module.split(".")[0] not in _LOCAL:
    return None
  base = os.path.join(ROOT, *module.split("."))
  for candidate in (base + ".py", os.path.join(base, "__init__.py")):
    if os.path.isfile(candidate):
      return candidate
  return None


def _module_name(path: str) -> str:
  relative = os.path.relpath(path, ROOT)[:-len(".py")].split(os.sep)
  return ".".join(relative[:-1] if relative[-1] == "__init__" else relative)


def _top_level(statements: List[ast.stmt]) -> Iterator[ast.stmt]:
  """The statements run when the module is imported: into `if`, `try`, `with` and class bodies,
  not into functions."""
  for statement in statements:
    yield statement
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
      continue
    for field in ("body", "orelse", "finalbody", "handlers"):
      for nested in getattr(statement, field, None) or []:
        if isinstance(nested, ast.ExceptHandler):
          yield from _top_level(nested.body)
        elif isinstance(nested, ast.stmt):
          yield from _top_level([nested])


def _imported(statement: ast.stmt, path: str) -> List[str]:
  """The modules an import statement imports, parents included (a parent runs first)."""
  if isinstance(statement, ast.Import):
    names = [alias.name for alias in statement.names]
  elif isinstance(statement, ast.ImportFrom):
    base = statement.module or ""
    if statement.level:
      package = _module_name(path).split(".")
      if not path.endswith("__init__.py"):
        package = package[:-1]
      base = ".".join(package[:len(package) - statement.level + 1] + ([base] if base else []))
    names = [base] + [f"{base}.{alias.name}" for alias in statement.names]
  else:
    return []
  return [".".join(name.split(".")[:i + 1]) for name in names
          for i in range(len(name.split(".")))]


@functools.lru_cache(maxsize=None)
def _facts(path: str) -> Tuple[FrozenSet[str], bool, bool, FrozenSet[str]]:
  """(modules imported at module level, whether it can start a process, whether it writes a
  bazel command line, the markers its `pytestmark` names) of one file."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), path)
  imports = frozenset(name for statement in _top_level(tree.body)
                      for name in _imported(statement, path))
  processes = any(name.split(".")[0] in _PROCESS_MODULES
                  for node in ast.walk(tree) for name in _imported(node, path)
                  if isinstance(node, (ast.Import, ast.ImportFrom)))
  processes = processes or any(
      isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
      and (node.value.id, node.attr) in _PROCESS_CALLS for node in ast.walk(tree))
  marked = frozenset(
      node.attr for statement in tree.body if isinstance(statement, ast.Assign)
      and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in statement.targets)
      for node in ast.walk(statement.value) if isinstance(node, ast.Attribute)
      and isinstance(node.value, ast.Attribute) and node.value.attr == "mark"
      and node.attr in REASONS)
  bazel = any(isinstance(node, (ast.List, ast.Tuple)) and node.elts
              and isinstance(node.elts[0], ast.Constant) and node.elts[0].value == "bazel"
              for node in ast.walk(tree))
  return imports, processes, bazel, marked


@functools.lru_cache(maxsize=None)
def markers_of(path: str) -> FrozenSet[str]:
  """The tier markers of the test file at `path` (see the module docstring)."""
  path = os.path.abspath(path)
  reasons, seen, todo = set(_facts(path)[3]), {path}, [path]
  while todo:
    current = todo.pop()
    imports, processes, bazel, _ = _facts(current)
    if processes and (current == path or _module_name(current).startswith("tests.")):
      reasons.add("subprocess")
    if bazel:
      reasons.add("bazel")
    if any(name.split(".")[0] in _TENSORFLOW for name in imports):
      reasons.add("tensorflow")
    for name in imports:
      found = _local_file(name)
      if found is not None and found not in seen:
        seen.add(found)
        todo.append(found)
  return frozenset(reasons | ({SLOW} if reasons else set()))
