"""The functions of an MLIR module as text: where each `func.func` starts and ends, which are
exported (public), what they call; compiler locations mapped back to exported functions; and the
same text holding only some functions and what they use.

Plain text work, no TF or IREE: iree-compile reports `<stdin>:L:C` (and `called from` notes for
inlined private callees), while users know their TF methods, which are the public functions of
iree_input.mlir.
"""

import dataclasses
import re
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from pyiree_tf_support.core import mlir_symbols

_FUNC_RE = re.compile(r'^(\s*func\.func\s+)(?:(public|private|nested)\s+)?'
                      r'@("(?:[^"\\]|\\.)*"|[\w$.\-]+)\(')
_SYMBOL_RE = re.compile(r'@("(?:[^"\\]|\\.)*"|[\w$.\-]+)')
# `<stdin>:9:10: error:` and `loc("<stdin>":9:10)` / `callsite("<stdin>":8:10 at ...)`.
_LOCATION_RE = re.compile(r'<stdin>"?:(\d+):(\d+)')


@dataclasses.dataclass(frozen=True)
class FunctionSpan:
  """One top-level function: 1-based first and last line, visibility, functions it refers to."""
  name: str
  first_line: int
  last_line: int
  public: bool
  callees: Tuple[str, ...]


def _unquote(symbol: str) -> str:
  """The function name `symbol` (as MLIR spells it: `f`, `"gr\\C3\\B6\\C3\\9Fe"`) stands for."""
  return mlir_symbols.name_of(symbol)


def _brace_delta(line: str) -> int:
  """Braces opened minus closed on a line, ignoring those inside string literals."""
  depth, in_string, escaped = 0, False, False
  for char in line:
    if in_string:
      if escaped:
        escaped = False
      elif char == "\\":
        escaped = True
      elif char == '"':
        in_string = False
    elif char == '"':
      in_string = True
    elif char == "{":
      depth += 1
    elif char == "}":
      depth -= 1
  return depth


def functions_of(mlir: str) -> Tuple[FunctionSpan, ...]:
  """Every function definition of `mlir`, in text order (declarations without a body included)."""
  lines = mlir.splitlines()
  found: List[Tuple[str, int, int, bool]] = []
  index = 0
  while index < len(lines):
    match = _FUNC_RE.match(lines[index])
    if not match:
      index += 1
      continue
    start, depth = index, 0
    if lines[index].rstrip().endswith("{"):  # a definition; a declaration is one line.
      while index < len(lines):
        depth += _brace_delta(lines[index])
        if depth <= 0:
          break
        index += 1
    end = min(index, len(lines) - 1)
    found.append((_unquote(match.group(3)), start + 1, end + 1, match.group(2) in (None, "public")))
    index = end + 1
  names = {name for name, _, _, _ in found}
  spans = []
  for name, first, last, public in found:
    body = "\n".join(lines[first - 1:last])
    callees = dict.fromkeys(_unquote(s) for s in _SYMBOL_RE.findall(body)
                            if _unquote(s) in names and _unquote(s) != name)
    spans.append(FunctionSpan(name, first, last, public, tuple(callees)))
  return tuple(spans)


def locations_in(diagnostics: str) -> Tuple[Tuple[int, int], ...]:
  """The (line, column) of every `<stdin>` location in compiler output, in order, once each."""
  return tuple(dict.fromkeys((int(line), int(column))
                             for line, column in _LOCATION_RE.findall(diagnostics)))


def _function_at(spans: Sequence[FunctionSpan], line: int) -> Optional[FunctionSpan]:
  return next((s for s in spans if s.first_line <= line <= s.last_line), None)


def _exporting_callers(spans: Sequence[FunctionSpan], start: FunctionSpan) -> List[str]:
  """`start` if public, else the public functions that reach it through private callees."""
  callers: Dict[str, List[FunctionSpan]] = {}
  for span in spans:
    for callee in span.callees:
      callers.setdefault(callee, []).append(span)
  result, seen, pending = [], {start.name}, [start]
  while pending:
    span = pending.pop(0)
    if span.public:
      result.append(span.name)
      continue
    for caller in callers.get(span.name, ()):
      if caller.name not in seen:
        seen.add(caller.name)
        pending.append(caller)
  return result


def exported_functions_at(mlir: str, lines: Iterable[int]) -> Tuple[str, ...]:
  """The exported functions whose code holds any of `lines` of `mlir`, in text order.

  A line in a private function names every exported function that calls it (through any chain
  of private functions); a line outside every function names nothing.
  """
  spans = functions_of(mlir)
  names: Dict[str, None] = {}
  for line in lines:
    span = _function_at(spans, line)
    if span is not None:
      names.update(dict.fromkeys(_exporting_callers(spans, span)))
  return tuple(s.name for s in spans if s.name in names)


def exported_functions(mlir: str) -> Tuple[str, ...]:
  return tuple(s.name for s in functions_of(mlir) if s.public)


def _reached(spans: Sequence[FunctionSpan], lines: Sequence[str], roots: Set[str]) -> Set[str]:
  """`roots`, the functions named by a line outside every function (an initializer's callee),
  and every function these refer to, through any chain."""
  inside = {line for s in spans for line in range(s.first_line, s.last_line + 1)}
  names = {s.name for s in spans}
  pending = set(roots)
  for number, line in enumerate(lines, start=1):
    if number not in inside:
      pending.update(n for n in map(_unquote, _SYMBOL_RE.findall(line)) if n in names)
  callees = {s.name: s.callees for s in spans}
  reached: Set[str] = set()
  while pending:
    name = pending.pop()
    if name not in reached:
      reached.add(name)
      pending.update(callees.get(name, ()))
  return reached


def only_exporting(mlir: str, names: Sequence[str]) -> str:
  """`mlir` exporting only `names`: every function only the other exported functions reach is
  removed, its lines left empty, and an exported function `names` call is made private.

  Why removed and not only made private: IREE runs its input passes (StableHLO preprocessing)
  on private functions too, so one bad sibling fails every method compiled "alone" with its own
  error. Every remaining line keeps its number and columns, so compiler locations still point
  into the original text; globals and module-level ops stay, and so does every function they
  name."""
  keep: Set[str] = set(names)
  missing = keep - set(exported_functions(mlir))
  if missing:
    raise ValueError(f"No exported function named {', '.join(sorted(missing))} in the MLIR text.")
  lines = mlir.splitlines(keepends=True)
  spans = functions_of(mlir)
  bare = [line.rstrip("\r\n") for line in lines]
  reached = _reached(spans, bare, keep)
  # What nothing exported reaches is left to the compiler (it drops it), as the whole module was.
  others = _reached(spans, bare, {s.name for s in spans if s.public}) - reached
  for span in spans:
    text = lines[span.first_line - 1:span.last_line]
    if span.name not in others or sum(map(_brace_delta, text)) != 0:
      continue  # kept; or its last line also closes an enclosing region: left, made private.
    for index in range(span.first_line - 1, span.last_line):
      lines[index] = lines[index][len(lines[index].rstrip("\r\n")):]

  def hide(line: str) -> str:
    match = _FUNC_RE.match(line)
    if not match or match.group(2) == "private" or _unquote(match.group(3)) in keep:
      return line
    rest = line[match.end(1):]
    if match.group(2):
      rest = rest[len(match.group(2)):].lstrip()
    return match.group(1) + "private " + rest

  return "".join(hide(line) for line in lines)
