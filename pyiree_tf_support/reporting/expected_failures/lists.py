"""The typed failing lists: the `FAILING` dict literal of the BUILD.bazel beside a test file
(`e2e/BUILD.bazel`, `e2e/keras/BUILD.bazel`), read, validated and rewritten in place.

`FAILING = {backend: {"file_test.py": ("<phase>", "<reason>")}}` is Starlark whose syntax is
Python's, so `ast` reads it without running anything and gives its exact source span: a rewrite
replaces only that span and leaves every other byte of the file as it was. A key names the whole
file (every class of it), one class (`"file_test.py::Class"`) or one test method
(`"file_test.py::Class::test_method"`, `scopes`). The phase is where the covered tests fail
first (`phases.Phase`); a plain string reason (an untyped entry) means any phase. The
new literal is formatted stably (backends in the table's order, files sorted, one entry per line)
with the comment lines above each backend and each entry kept; a backend without one gets
`# Backend "x": <description>.` from the backend table.
"""

import ast
import dataclasses
import functools
import json
import os
import shutil
from typing import Dict, List, Optional, Tuple

from pyiree_tf_support.core import backends
from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting.expected_failures import scopes

BUILD_FILE = "BUILD.bazel"
SHAPES = ('{backend: {"file_test.py[::Class[::test_method]]": ("<phase>", "<reason>")}} with '
          f"phase one of {', '.join(phases.NAMES)}, or a plain string reason for any phase")
INDENT = "    "


@dataclasses.dataclass(frozen=True)
class ExpectedFailure:
  """Why a file, class or test is expected to fail on a backend, and in which phase (None: any
  phase)."""
  phase: Optional[phases.Phase]
  reason: str


Lists = Dict[str, Dict[str, ExpectedFailure]]  # {backend: {scope key: ExpectedFailure}}
Comments = Dict[Tuple[str, ...], Tuple[str, ...]]  # (backend,) or (backend, file) -> lines


class ListsError(ValueError):
  """A BUILD file's FAILING is missing, not a literal, or has an entry of no valid shape."""


@dataclasses.dataclass(frozen=True)
class ListsFile:
  """A BUILD file's FAILING literal: the lists, where the literal is, and its comment lines."""
  path: str
  source: bytes
  start: int  # byte offsets of the dict literal (FAILING's value) in `source`.
  end: int
  lists: Lists
  comments: Comments


def entry(build_file: str, backend: str, name: str, value) -> ExpectedFailure:
  """One FAILING entry as a record; ListsError (one line) when it is not of a valid shape."""
  where = f"{build_file}: FAILING[{backend!r}][{name!r}]"
  try:
    scopes.parse(name, where)
  except ValueError as e:
    raise ListsError(f"{e}; valid shapes: {SHAPES}") from None
  if isinstance(value, str):
    return ExpectedFailure(None, value)
  if (not isinstance(value, tuple) or len(value) != 2
      or not all(isinstance(v, str) for v in value)):
    raise ListsError(f"{where} is {value!r}; valid shapes: {SHAPES}")
  try:
    return ExpectedFailure(phases.parse(value[0], where), value[1])
  except ValueError as e:
    raise ListsError(f"{e}; valid shapes: {SHAPES}") from None


def _failing_node(tree: ast.Module) -> Optional[ast.expr]:
  """The value assigned to FAILING at the top level (None: no such assignment)."""
  return next((n.value for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "FAILING"), None)


def _lists(path: str, node: ast.expr) -> Lists:
  """The validated lists of a FAILING value node."""
  try:
    value = ast.literal_eval(node)
  except ValueError as e:
    raise ListsError(f"{path}: FAILING must be a dict literal {SHAPES}: {e}") from None
  if not isinstance(value, dict) or not all(isinstance(f, dict) for f in value.values()):
    raise ListsError(f"{path}: FAILING must be a dict literal {SHAPES}")
  return {backend: {name: entry(path, backend, name, v) for name, v in files.items()}
          for backend, files in value.items()}


def _comment_lines(lines: List[str], first: int, stop: int) -> Tuple[str, ...]:
  """The comment lines among source lines first..stop-1 (1-based), stripped."""
  return tuple(line.strip() for line in lines[first - 1:stop - 1] if line.strip().startswith("#"))


def _comments(source: bytes, node: ast.Dict) -> Comments:
  lines = source.decode("utf-8").splitlines()
  comments: Comments = {}
  previous_end = node.lineno
  for key, inner in zip(node.keys, node.values):
    assert key is not None  # a `**` entry (no key) is no literal: _lists refused it.
    backend = ast.literal_eval(key)
    comments[(backend,)] = _comment_lines(lines, previous_end + 1, key.lineno)
    inner_end = inner.lineno
    for file_key, value in zip(getattr(inner, "keys", []), getattr(inner, "values", [])):
      comments[(backend, ast.literal_eval(file_key))] = _comment_lines(lines, inner_end + 1,
                                                                       file_key.lineno)
      inner_end = value.end_lineno
    previous_end = _end(inner)[0]
  return {k: v for k, v in comments.items() if v}


def _end(node: ast.expr) -> Tuple[int, int]:
  """(line, col offset) where `node` ends: ast.parse gives every expression both."""
  assert node.end_lineno is not None and node.end_col_offset is not None
  return node.end_lineno, node.end_col_offset


def _byte_offset(source: bytes, lineno: int, col: int) -> int:
  """ast's col offsets are UTF-8 byte offsets within their line."""
  return sum(len(line) for line in source.splitlines(keepends=True)[:lineno - 1]) + col


def read(path: str) -> ListsFile:
  """The FAILING literal of the BUILD file at `path`, with its span and comments; ListsError
  (one line) when the file cannot be read, has no FAILING or it is not of a valid shape."""
  try:
    with open(path, "rb") as f:
      source = f.read()
  except OSError as e:
    raise ListsError(f"cannot read {path}: {e.strerror}") from None
  node = _failing_node(ast.parse(source, path))
  if node is None:
    raise ListsError(f"{path}: no FAILING dict literal {{backend: {{file: (phase, reason)}}}}")
  lists = _lists(path, node)
  assert isinstance(node, ast.Dict)  # _lists read a dict from it: only a dict display is one.
  return ListsFile(path, source, _byte_offset(source, node.lineno, node.col_offset),
                   _byte_offset(source, *_end(node)), lists, _comments(source, node))


@functools.lru_cache(maxsize=None)
def failing_by_backend(build_file: str) -> Lists:
  """{backend: {file name: ExpectedFailure}} of `build_file`'s FAILING; {} when the file does not
  exist or declares no FAILING. ListsError (one line) when FAILING is not of a valid shape."""
  try:
    with open(build_file, encoding="utf-8") as f:
      tree = ast.parse(f.read(), build_file)
  except FileNotFoundError:
    return {}
  node = _failing_node(tree)
  return {} if node is None else _lists(build_file, node)


def for_test_file(path: str) -> Dict[str, Dict[str, ExpectedFailure]]:
  """{backend: {scope key: ExpectedFailure}} of every entry for the test file at `path`: the whole
  file, its classes and test methods (backends as BUILD.bazel names them)."""
  lists = failing_by_backend(os.path.join(os.path.dirname(os.path.abspath(path)), BUILD_FILE))
  name = os.path.basename(path)
  found = {backend: {key: e for key, e in entries.items() if key.split("::")[0] == name}
           for backend, entries in lists.items()}
  return {backend: entries for backend, entries in found.items() if entries}


def one_line(text: str) -> str:
  """`text` as one line of printable characters (a reason in the lists)."""
  return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def _string(text: str) -> str:
  """A double-quoted literal valid in Starlark and Python: only `\\` and `"` escaped (the text is
  one line, see one_line)."""
  return json.dumps(text, ensure_ascii=False)


def _backend_order(names) -> List[str]:
  table = [spec.e2e_name for spec in backends.BACKENDS]
  return [b for b in table if b in names] + [b for b in names if b not in table]


def _default_comment(backend: str) -> Tuple[str, ...]:
  spec = backends.find(backend)
  return (f'# Backend "{backend}": {spec.description}.',) if spec else ()


def render(lists: Lists, comments: Comments) -> str:
  """The dict literal, from `{` to `}`: one block per backend, one line per file."""
  blocks = []
  for backend in _backend_order(list(lists)):
    lines = [INDENT + c for c in comments.get((backend,)) or _default_comment(backend)]
    lines.append(f"{INDENT}{_string(backend)}: {{")
    for name in sorted(lists[backend]):
      expected = lists[backend][name]
      lines += [INDENT * 2 + c for c in comments.get((backend, name), ())]
      value = (_string(expected.reason) if expected.phase is None
               else f"({_string(expected.phase.value)}, {_string(expected.reason)})")
      lines.append(f"{INDENT * 2}{_string(name)}: {value},")
    lines.append(INDENT + "},")
    blocks.append("\n".join(lines))
  return "{\n" + "\n\n".join(blocks) + "\n}"


def rewritten(lists_file: ListsFile, lists: Lists) -> bytes:
  """The BUILD file with FAILING replaced by `lists`, every other byte unchanged; checked to read
  back as `lists`."""
  literal = render(lists, lists_file.comments).encode("utf-8")
  text = lists_file.source[:lists_file.start] + literal + lists_file.source[lists_file.end:]
  node = _failing_node(ast.parse(text, lists_file.path))
  back = None if node is None else _lists(lists_file.path, node)
  if back != lists:  # a SyntaxError above, no FAILING or a difference here: a bug of render().
    raise AssertionError(f"{lists_file.path}: the rewritten FAILING does not read back as written")
  return text


def write(lists_file: ListsFile, lists: Lists) -> bool:
  """Rewrites the file's FAILING as `lists`; False (file untouched) when nothing changed."""
  text = rewritten(lists_file, lists)
  if text == lists_file.source:
    return False
  temp = lists_file.path + ".tmp"
  with open(temp, "wb") as f:
    f.write(text)
  shutil.copymode(lists_file.path, temp)
  os.replace(temp, lists_file.path)
  return True
