"""The `FAILING` dict literal of a BUILD.bazel as data, and rewriting it in place.

`FAILING = {backend: {"foo_test.py": ("<phase>", "<reason>")}}` is Starlark whose syntax is
Python's, so `ast` reads it and gives its exact source span: a rewrite replaces only that span and
leaves every other byte of the file as it was. The new literal is formatted stably (backends in the
table's order, files sorted, one entry per line) with the comment lines above each backend and each
entry kept; a backend without one gets `# Backend "x": <description>.` from the backend table.
An untyped entry (`"foo_test.py": "reason"`, the lists before phases) reads as phase None.
"""

import ast
import dataclasses
import json
import os
import shutil
import sys
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from pyiree_tf_support.core import backends  # pylint: disable=wrong-import-position
from pyiree_tf_support.reporting import expected_failures  # pylint: disable=wrong-import-position

INDENT = "    "


@dataclasses.dataclass(frozen=True)
class Expected:
  """One listed failure: the phase it fails in (None for an untyped entry) and why."""
  phase: Optional[str]
  reason: str


Lists = Dict[str, Dict[str, Expected]]  # {backend: {file: Expected}}


@dataclasses.dataclass(frozen=True)
class ListsFile:
  """A BUILD file's FAILING literal: the lists, where the literal is, and its comment lines."""
  path: str
  source: bytes
  start: int  # byte offsets of the dict literal (FAILING's value) in `source`.
  end: int
  lists: Lists
  comments: Dict[Tuple[str, ...], Tuple[str, ...]]  # (backend,) or (backend, file) -> lines


class ListsError(ValueError):
  """The BUILD file has no FAILING dict literal of the expected shape."""


def _expected(path: str, backend: str, name: str, value) -> Expected:
  """The entry as the library reads it (expected_failures: one rule for what is valid)."""
  try:
    entry = expected_failures.entry(path, backend, name, value)
  except ValueError as e:
    raise ListsError(str(e)) from None
  return Expected(entry.phase and entry.phase.value, entry.reason)


def _comment_lines(lines: List[str], first: int, stop: int) -> Tuple[str, ...]:
  """The comment lines among source lines first..stop-1 (1-based), stripped."""
  return tuple(line.strip() for line in lines[first - 1:stop - 1] if line.strip().startswith("#"))


def _byte_offset(line_starts: List[int], lineno: int, col: int) -> int:
  return line_starts[lineno - 1] + col  # ast's col offsets are UTF-8 byte offsets.


def read(path: str) -> ListsFile:
  """The FAILING literal of the BUILD file at `path`; ListsError when there is none or it is not a
  literal {backend: {file: (phase, reason) | reason}}."""
  try:
    with open(path, "rb") as f:
      source = f.read()
  except OSError as e:
    raise ListsError(f"cannot read {path}: {e.strerror}") from None
  tree = ast.parse(source, path)
  node = next((n.value for n in tree.body if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name) and n.targets[0].id == "FAILING"), None)
  if not isinstance(node, ast.Dict):
    raise ListsError(f"{path}: no FAILING dict literal {{backend: {{file: (phase, reason)}}}}")
  try:
    value = ast.literal_eval(node)
  except ValueError as e:
    raise ListsError(f"{path}: FAILING must be a literal {{backend: {{file: (phase, reason)}}}}: "
                     f"{e}") from None
  lines = source.decode("utf-8").splitlines()
  comments: Dict[Tuple[str, ...], Tuple[str, ...]] = {}
  previous_end = node.lineno
  for key, inner in zip(node.keys, node.values):
    backend = ast.literal_eval(key)
    comments[(backend,)] = _comment_lines(lines, previous_end + 1, key.lineno)
    inner_end = inner.lineno
    for file_key, entry in zip(getattr(inner, "keys", []), getattr(inner, "values", [])):
      comments[(backend, ast.literal_eval(file_key))] = _comment_lines(lines, inner_end + 1,
                                                                       file_key.lineno)
      inner_end = entry.end_lineno
    previous_end = inner.end_lineno
  line_starts = [0]
  for line in source.splitlines(keepends=True):
    line_starts.append(line_starts[-1] + len(line))
  lists = {b: {name: _expected(path, b, name, v) for name, v in files.items()}
           for b, files in value.items()}
  return ListsFile(path, source, _byte_offset(line_starts, node.lineno, node.col_offset),
                   _byte_offset(line_starts, node.end_lineno, node.end_col_offset), lists,
                   {k: v for k, v in comments.items() if v})


def _string(text: str) -> str:
  """A double-quoted literal valid in Starlark and Python: only `\\` and `"` escaped (the text is
  one line, see one_line)."""
  return json.dumps(text, ensure_ascii=False)


def one_line(text: str) -> str:
  """`text` as one line of printable characters (a reason in the lists)."""
  return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def _backend_order(names) -> List[str]:
  table = [spec.e2e_name for spec in backends.BACKENDS]
  return [b for b in table if b in names] + [b for b in names if b not in table]


def _default_comment(backend: str) -> Tuple[str, ...]:
  spec = backends.find(backend)
  return (f'# Backend "{backend}": {spec.description}.',) if spec else ()


def render(lists: Lists, comments: Dict[Tuple[str, ...], Tuple[str, ...]]) -> str:
  """The dict literal, from `{` to `}`: one block per backend, one line per file."""
  blocks = []
  for backend in _backend_order(list(lists)):
    lines = [INDENT + c for c in comments.get((backend,)) or _default_comment(backend)]
    lines.append(f"{INDENT}{_string(backend)}: {{")
    for name in sorted(lists[backend]):
      entry = lists[backend][name]
      lines += [INDENT * 2 + c for c in comments.get((backend, name), ())]
      value = (_string(entry.reason) if entry.phase is None
               else f"({_string(entry.phase)}, {_string(entry.reason)})")
      lines.append(f"{INDENT * 2}{_string(name)}: {value},")
    lines.append(INDENT + "},")
    blocks.append("\n".join(lines))
  return "{\n" + "\n\n".join(blocks) + "\n}"


def rewritten(lists_file: ListsFile, lists: Lists) -> bytes:
  """The BUILD file with FAILING replaced by `lists`, every other byte unchanged; checked to read
  back as `lists`."""
  literal = render(lists, lists_file.comments).encode("utf-8")
  text = lists_file.source[:lists_file.start] + literal + lists_file.source[lists_file.end:]
  tree = ast.parse(text, lists_file.path)  # a SyntaxError here is a bug of render().
  node = next(n.value for n in tree.body if isinstance(n, ast.Assign)
              and getattr(n.targets[0], "id", None) == "FAILING")
  back = {b: {f: _expected(lists_file.path, b, f, v) for f, v in files.items()}
          for b, files in ast.literal_eval(node).items()}
  if back != lists:
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
