"""While loops whose carried tensor grows, as TF's lowering prints them, rewritten so IREE takes
them: a `tf.while_loop` with shape invariant `[None]` and an empty start (`tf.zeros([0])`)
becomes a `stablehlo.while` whose start operand keeps its static `tensor<0xi32>` type while the
body carries `tensor<?xi32>`. The custom printed form gives the body the start's types, so the
text does not parse back ("expects different type than prior uses"). Measured in
docs/import_pipeline.md:

- the start is replaced by an empty tensor of the body's type, `tensor.empty(%size)` with the
  zero size behind a `util.optimization_barrier`: a `tensor.cast` (or a constant size) is folded
  back into the loop by IREE's canonicalization, which then carries `tensor<0xi32>` and returns
  an empty result for every trip count (a silent wrong answer, measured);
- only empty starts are rewritten: an empty tensor has no contents to lose. A non-empty static
  start stays as printed (and still fails to parse, as before);
- an integer `stablehlo.concatenate` with a dynamic operand becomes `tensor.concat` (the same
  op): IREE 3.13 aborts on it ("SmallVector unable to grow" in LegalizeShapeComputations).

Plain text work on the printed StableHLO, no TF or IREE.
"""

import re
from typing import List, Optional

_WHILE = re.compile(r'^(\s*)(%[\w#]+(?::\d+)?) = stablehlo\.while\((.*)\) : (.*)$')
_OPERAND = re.compile(r'^(%[\w#]+) = (%[\w#]+)$')
_RETURN = re.compile(r'^\s*stablehlo\.return .* : (.*)$')
_EMPTY_STATIC = re.compile(r'^tensor<((?:\d+x)+)(\w+)>$')
_CONCAT = re.compile(
    r'^(\s*)(%[\w#]+) = stablehlo\.concatenate (.*), dim = (\d+) : \((.*)\) -> '
    r'(tensor<[^>]*xi\d+>)$')


def _split_types(types: str) -> List[str]:
  parts, depth, start = [], 0, 0
  for index, char in enumerate(types):
    depth += {"<": 1, ">": -1}.get(char, 0)
    if char == "," and depth == 0:
      parts.append(types[start:index].strip())
      start = index + 1
  parts.append(types[start:].strip())
  return parts


def _body_types(lines: List[str], header: int, indent: str) -> Optional[List[str]]:
  """The types the body's terminator yields: the last `stablehlo.return` before the line closing
  the while's regions (`}` at the while's indentation)."""
  last = None
  for line in lines[header + 1:]:
    if line.rstrip() == indent + "}":
      return last
    if line.startswith(indent + "  ") and not line.startswith(indent + "    "):
      match = _RETURN.match(line)
      if match:
        last = _split_types(match.group(1))
  return None


def _generalizes_empty(start: str, body: str) -> bool:
  """`start` is a static type with a zero dim and `body` the same type with some dims dynamic."""
  match = _EMPTY_STATIC.match(start)
  if not match or start == body or "0" not in match.group(1).rstrip("x").split("x"):
    return False
  dims = match.group(1).rstrip("x").split("x")
  body_match = re.match(r'^tensor<((?:(?:\?|\d+)x)+)(\w+)>$', body)
  if not body_match or body_match.group(2) != match.group(2):
    return False
  body_dims = body_match.group(1).rstrip("x").split("x")
  return len(dims) == len(body_dims) and all(b in ("?", d) for d, b in zip(dims, body_dims))


def _empty_of(name: str, indent: str, start: str, body: str) -> List[str]:
  static = _EMPTY_STATIC.match(start)
  assert static is not None  # _generalizes_empty(start, ...) matched it.
  dims = static.group(1).rstrip("x").split("x")
  body_dims = body[len("tensor<"):].split("x")[:len(dims)]
  sizes = []
  for position, (dim, body_dim) in enumerate(zip(dims, body_dims)):
    if body_dim == "?":
      sizes.append(f"{name}_size" + (f"_{position}" if position else ""))
  lines = []
  for size, position in zip(sizes, [p for p, b in enumerate(body_dims) if b == "?"]):
    lines.append(f"{indent}{size}_const = arith.constant {dims[position]} : index")
    lines.append(f"{indent}{size} = util.optimization_barrier {size}_const : index")
  lines.append(f"{indent}{name} = tensor.empty({', '.join(sizes)}) : {body}")
  return lines


def _rewrite_while(lines: List[str], index: int, count: int) -> List[str]:
  """Lines to put before the while at `index` (rewritten in place); [] if it needs nothing."""
  match = _WHILE.match(lines[index])
  if match is None:
    return []
  indent, result, operand_text, type_text = match.groups()
  matches = [_OPERAND.match(o.strip()) for o in operand_text.split(",")]
  operands = [m for m in matches if m is not None]
  types = _split_types(type_text)
  body = _body_types(lines, index, indent)
  if (body is None or len(operands) != len(matches) or len(operands) != len(types)
      or len(body) != len(types)):
    return []
  texts = [operand.group(0) for operand in operands]  # `%iterArg = %init`
  before = []
  for position, (start, body_type) in enumerate(zip(types, body)):
    if _generalizes_empty(start, body_type):
      name = f"%pyiree_carry_{count}_{position}"
      before += _empty_of(name, indent, start, body_type)
      texts[position] = f"{operands[position].group(1)} = {name}"
      types[position] = body_type
  if before:
    lines[index] = (f"{indent}{result} = stablehlo.while(" + ", ".join(texts) + ") : "
                    + ", ".join(types))
  return before


def _rewrite_concat(line: str) -> str:
  match = _CONCAT.match(line)
  if not match or "?" not in match.group(5):
    return line
  indent, result, operands, dim, operand_types, result_type = match.groups()
  return (f"{indent}{result} = tensor.concat dim({dim}) {operands} : ({operand_types}) -> "
          f"{result_type}")


def rewrite_growing_carries(text: str) -> str:
  """`text` with every growing while carry started from an empty tensor of its dynamic type, and
  integer concatenates of dynamic operands as tensor.concat; anything else unchanged."""
  lines = text.split("\n")
  out: List[str] = []
  rewritten = 0
  for index in range(len(lines)):
    if _WHILE.match(lines[index]):
      before = _rewrite_while(lines, index, rewritten)
      if before:
        rewritten += 1
        out += before
    out.append(_rewrite_concat(lines[index]))
  return "\n".join(out)
