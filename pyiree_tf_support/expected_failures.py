"""Known e2e failures per backend, read from the BUILD.bazel beside a test file: the
`_FAILING_BY_BACKEND` dict of `e2e/BUILD.bazel`, the lists Bazel's `--xfail_backends` use.

The lists are Starlark dict literals, whose syntax is Python's, so `ast` reads them without
running anything. A file with no BUILD.bazel beside it (or none with those lists) has none.
"""

import ast
import functools
import os
from typing import Dict

BUILD_FILE = "BUILD.bazel"


@functools.lru_cache(maxsize=None)
def failing_by_backend(build_file: str) -> Dict[str, Dict[str, str]]:
  """{backend: {file name: reason}}; {} when `build_file` does not declare the lists."""
  try:
    with open(build_file, encoding="utf-8") as f:
      tree = ast.parse(f.read(), build_file)
  except FileNotFoundError:
    return {}
  assigned = {node.targets[0].id: node.value for node in tree.body
              if isinstance(node, ast.Assign) and len(node.targets) == 1
              and isinstance(node.targets[0], ast.Name)}
  mapping = assigned.get("_FAILING_BY_BACKEND")
  if not isinstance(mapping, ast.Dict):
    return {}
  result = {}
  for key, value in zip(mapping.keys, mapping.values):
    backend = ast.literal_eval(key)
    if not isinstance(value, ast.Name) or value.id not in assigned:
      raise ValueError(f"{build_file}: _FAILING_BY_BACKEND[{backend!r}] must name a dict "
                       "literal defined above it.")
    result[backend] = ast.literal_eval(assigned[value.id])
  return result


def for_test_file(path: str) -> Dict[str, str]:
  """{backend: reason} for the test file at `path` (backends as BUILD.bazel names them)."""
  lists = failing_by_backend(os.path.join(os.path.dirname(os.path.abspath(path)), BUILD_FILE))
  name = os.path.basename(path)
  return {backend: files[name] for backend, files in lists.items() if name in files}
