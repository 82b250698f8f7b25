"""Reads the per-backend lists of known e2e failures from e2e/BUILD.bazel (the source of truth).

The lists are plain Starlark dict literals (`VMLA_FAILING = {"foo_test.py": "reason"}`) mapped to
backend names by `_FAILING_BY_BACKEND`; Starlark's syntax for them is Python's, so `ast` reads them.
"""

import ast
import glob
import os
from typing import Dict, List

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD_FILE = os.path.join(ROOT, "e2e", "BUILD.bazel")


def failing_by_backend(build_file: str = BUILD_FILE) -> Dict[str, Dict[str, str]]:
  """{backend: {file: reason}} as e2e/BUILD.bazel declares it."""
  with open(build_file) as f:
    tree = ast.parse(f.read(), build_file)
  dicts: Dict[str, ast.AST] = {}
  for node in tree.body:
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
      dicts[node.targets[0].id] = node.value
  mapping = dicts.get("_FAILING_BY_BACKEND")
  if not isinstance(mapping, ast.Dict):
    raise ValueError(f"{build_file} has no _FAILING_BY_BACKEND dict literal.")
  result = {}
  for key, value in zip(mapping.keys, mapping.values):
    backend = ast.literal_eval(key)
    if not isinstance(value, ast.Name) or value.id not in dicts:
      raise ValueError(f"{build_file}: _FAILING_BY_BACKEND[{backend!r}] must name a dict defined above.")
    result[backend] = ast.literal_eval(dicts[value.id])
  return result


def e2e_files() -> List[str]:
  """Every e2e test file name, sorted."""
  return sorted(os.path.basename(p) for p in glob.glob(os.path.join(ROOT, "e2e", "*_test.py")))
