"""Known e2e failures per backend, read from the BUILD.bazel beside a test file: the
`FAILING` dict of `e2e/BUILD.bazel` (and `e2e/keras/BUILD.bazel`), the lists Bazel's
`--xfail_backends` use.

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
  """{backend: {file name: reason}}: the `FAILING` dict literal of `build_file`; {} when the file
  does not exist or declares no such dict. ValueError when FAILING is not a literal."""
  try:
    with open(build_file, encoding="utf-8") as f:
      tree = ast.parse(f.read(), build_file)
  except FileNotFoundError:
    return {}
  for node in tree.body:
    if (isinstance(node, ast.Assign) and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "FAILING"):
      try:
        return ast.literal_eval(node.value)
      except ValueError as e:
        raise ValueError(f"{build_file}: FAILING must be a dict literal "
                         f"{{backend: {{file: reason}}}} of plain strings: {e}") from None
  return {}


def for_test_file(path: str) -> Dict[str, str]:
  """{backend: reason} for the test file at `path` (backends as BUILD.bazel names them)."""
  lists = failing_by_backend(os.path.join(os.path.dirname(os.path.abspath(path)), BUILD_FILE))
  name = os.path.basename(path)
  return {backend: files[name] for backend, files in lists.items() if name in files}
