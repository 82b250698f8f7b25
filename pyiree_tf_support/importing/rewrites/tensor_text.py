"""Reading and writing the pieces of StableHLO text the text rewrites share: a ranked tensor
type's dims, the values of a 1-D integer constant defined earlier in the same function, the
function a line is in, and fresh SSA names. Plain text work, no TF or IREE."""

import re
from typing import List, Optional, Sequence, Tuple

FUNC_START = re.compile(r'^\s*func\.func ')
_TYPE = re.compile(r'^tensor<((?:(?:\?|\d+)x)*)(\w+)>$')

Dims = List[Optional[int]]  # None: dynamic


def dims(tensor_type: str) -> Optional[Tuple[Dims, str]]:
  """(dims, element type) of a ranked `tensor<...>` type; None for any other text."""
  match = _TYPE.match(tensor_type)
  if not match:
    return None
  return [None if d == "?" else int(d) for d in match.group(1).split("x") if d], match.group(2)


def type_text(tensor_dims: Dims, element: str) -> str:
  """The `tensor<...>` type of `tensor_dims` (None: `?`) and `element`."""
  return ("tensor<" + "".join("?x" if d is None else f"{d}x" for d in tensor_dims) + element
          + ">")


def integer_constant(lines: Sequence[str], index: int, name: str) -> Optional[List[int]]:
  """The values of `name` if it is a 1-D integer stablehlo.constant of the function holding
  line `index` (a splat expanded to its length); None otherwise."""
  definition = re.compile(r'^\s*' + re.escape(name) +
                          r' = stablehlo\.constant dense<(\[[-\d, ]*\]|-?\d+)> : '
                          r'tensor<(\d+)xi(?:32|64)>$')
  for line in reversed(lines[:index]):
    match = definition.match(line)
    if match:
      values = [int(v) for v in match.group(1).strip("[]").split(",") if v.strip()]
      return values * int(match.group(2)) if len(values) == 1 else values
    if FUNC_START.match(line):
      return None
  return None


_FUNC_NAME = re.compile(r'^\s*func\.func (?:\w+ )?@("[^"]*"|[^\s(]+)\(')


def function_name(lines: Sequence[str], index: int) -> str:
  """The name of the function holding line `index` as its text spells it ("" outside one)."""
  for line in reversed(lines[:index + 1]):
    match = _FUNC_NAME.match(line)
    if match:
      return match.group(1).strip('"')
  return ""


class FreshNames:
  """Prefixes of fresh SSA names (`%<stem><n>_`) that no line of the text uses."""

  def __init__(self, text: str, stem: str):
    self._text, self._stem, self._count = text, stem, 0

  def prefix(self) -> str:
    while True:
      self._count += 1
      prefix = f"%{self._stem}{self._count}_"
      if prefix not in self._text:
        return prefix
