"""Known e2e failures per backend, read from the BUILD.bazel beside a test file: the
`FAILING` dict of `e2e/BUILD.bazel` (and `e2e/keras/BUILD.bazel`), the lists Bazel's
`--xfail_backends` use.

The lists are Starlark dict literals, whose syntax is Python's, so `ast` reads them without
running anything. Each entry is typed, `"file_test.py": ("<phase>", "<reason>")`, the phase being
where it fails first (`phases.Phase`); a plain string reason (an untyped list) means any phase.
A file with no BUILD.bazel beside it (or none with those lists) has none.
"""

import ast
import dataclasses
import functools
import os
from typing import Dict, Optional

from pyiree_tf_support.core import phases

BUILD_FILE = "BUILD.bazel"
SHAPES = ('{backend: {"file_test.py": ("<phase>", "<reason>")}} with phase one of '
          f"{', '.join(phases.NAMES)}, or a plain string reason for any phase")


@dataclasses.dataclass(frozen=True)
class ExpectedFailure:
  """Why a file is expected to fail on a backend, and in which phase (None: any phase)."""
  phase: Optional[phases.Phase]
  reason: str


def entry(build_file: str, backend: str, name: str, value) -> ExpectedFailure:
  """One FAILING entry as a record; ValueError (one line) when it is not of a valid shape."""
  if isinstance(value, str):
    return ExpectedFailure(None, value)
  where = f"{build_file}: FAILING[{backend!r}][{name!r}]"
  if (not isinstance(value, tuple) or len(value) != 2
      or not all(isinstance(v, str) for v in value)):
    raise ValueError(f"{where} is {value!r}; valid shapes: {SHAPES}")
  try:
    return ExpectedFailure(phases.parse(value[0], where), value[1])
  except ValueError as e:
    raise ValueError(f"{e}; valid shapes: {SHAPES}") from None


@functools.lru_cache(maxsize=None)
def failing_by_backend(build_file: str) -> Dict[str, Dict[str, ExpectedFailure]]:
  """{backend: {file name: ExpectedFailure}}: the `FAILING` dict literal of `build_file`; {} when
  the file does not exist or declares no such dict. ValueError (one line) when FAILING is not a
  literal or an entry is not of a valid shape."""
  try:
    with open(build_file, encoding="utf-8") as f:
      tree = ast.parse(f.read(), build_file)
  except FileNotFoundError:
    return {}
  for node in tree.body:
    if (isinstance(node, ast.Assign) and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "FAILING"):
      try:
        lists = ast.literal_eval(node.value)
      except ValueError as e:
        raise ValueError(f"{build_file}: FAILING must be a dict literal {SHAPES}: {e}") from None
      if not isinstance(lists, dict) or not all(isinstance(f, dict) for f in lists.values()):
        raise ValueError(f"{build_file}: FAILING must be a dict literal {SHAPES}")
      return {backend: {name: entry(build_file, backend, name, value)
                        for name, value in files.items()}
              for backend, files in lists.items()}
  return {}


def for_test_file(path: str) -> Dict[str, ExpectedFailure]:
  """{backend: ExpectedFailure} for the test file at `path` (backends as BUILD.bazel names them)."""
  lists = failing_by_backend(os.path.join(os.path.dirname(os.path.abspath(path)), BUILD_FILE))
  name = os.path.basename(path)
  return {backend: files[name] for backend, files in lists.items() if name in files}
