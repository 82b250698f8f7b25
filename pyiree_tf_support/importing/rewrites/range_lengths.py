"""`tf.range` with a runtime bound and a negative step given the length TensorFlow gives it.

TF's lowering (`tf-lower-to-mlprogram-and-hlo`, TF 2.21) computes a runtime range's length as
`ceil(abs(limit - start) / delta)` into the shape of a `stablehlo.dynamic_iota`: for a negative
step that is minus the length. `tf.range(n - 1, -1, -1)` at n = 5 asks for an iota of -5
elements; IREE 3.13 does not check the dim: on llvm-cpu a scatter at that range wrote 4 of its
8 outputs wrong (zeros), and iree-run-module crashed (SIGSEGV) on one such module, while
TensorFlow gives [4, 3, 2, 1, 0]. A test of it failed as IREE's mismatch, a verdict about IREE
for a fault of the import. The length TF's kernel gives is `ceil(abs((limit - start) /
delta))`; since `abs(limit - start) >= 0`, that is the quotient's absolute value, so the step
puts a `stablehlo.abs` of the quotient before the `ceil`. Matched only as the lowering writes
it: `ceil(divide(convert(abs(x)), d))`, converted to i64 and reshaped into a dynamic_iota's
shape operand; a step that is a positive constant is left as it is (its length is right).
Plain text work, no TF or IREE.
"""

import re
from typing import Dict, List, Optional, Tuple

from pyiree_tf_support.importing.rewrites import tensor_text

# `%name = stablehlo.op operands : types`, the ops of the chain as the lowering prints them.
_OP = re.compile(r"^(\s*)(%[\w#.$-]+) = stablehlo\.(\w+) (.*)$")
_IOTA = re.compile(r"= stablehlo\.dynamic_iota (%[\w#.$-]+),")
_POSITIVE = re.compile(r"^dense<\+?(\d+(\.\d*)?([eE][-+]?\d+)?)> : ")
_FUNCTION = re.compile(r"^\s*func\.func\b")


def _definitions(lines: List[str], start: int, end: int
                 ) -> Dict[str, Tuple[int, str, List[str], str]]:
  """Each stablehlo result's (line index, op, operands, the text after the op's name) in lines
  `start..end` (one function: SSA names are numbered afresh in each)."""
  found = {}
  for index in range(start, end):
    match = _OP.match(lines[index])
    if match:
      rest = match.group(4)
      operands = [o.strip() for o in rest.split(":", 1)[0].split(",")
                  if o.strip().startswith("%")]
      found[match.group(2)] = (index, match.group(3), operands, rest)
  return found


def _negated_length(definitions, shape: str) -> Optional[Tuple[int, str]]:
  """(the ceil's line, its quotient operand) when `shape` is a range length as lowered with a
  step that may be negative; else None."""
  chain = []
  name = shape
  for op in ("reshape", "convert", "ceil", "divide", "convert", "abs"):
    entry = definitions.get(name)
    if entry is None or entry[1] != op or not entry[2]:
      return None
    chain.append(entry)
    name = entry[2][0]
  ceil, divide = chain[2], chain[3]
  if len(divide[2]) != 2:
    return None
  step = definitions.get(divide[2][1])
  if step is not None and step[1] == "constant" and _POSITIVE.match(step[3]):
    return None
  return ceil[0], ceil[2][0]


def rewrite_range_lengths(iree_input: str) -> str:
  """`iree_input` with each runtime range's length made non-negative, as above."""
  if "stablehlo.dynamic_iota" not in iree_input or "stablehlo.ceil" not in iree_input:
    return iree_input
  lines = iree_input.split("\n")
  starts = [i for i, line in enumerate(lines) if _FUNCTION.match(line)] + [len(lines)]
  names = tensor_text.FreshNames(iree_input, "pyiree_range")
  inserted: Dict[int, str] = {}
  for start, end in zip(starts, starts[1:]):
    definitions = _definitions(lines, start, end)
    for index in range(start, end):
      iota = _IOTA.search(lines[index])
      found = _negated_length(definitions, iota.group(1)) if iota else None
      if found is not None and found[0] not in inserted:
        _insert_abs(lines, inserted, names, *found)
  if not inserted:
    return iree_input
  out: List[str] = []
  for index, line in enumerate(lines):
    if index in inserted:
      out.append(inserted[index])
    out.append(line)
  return "\n".join(out)


def _insert_abs(lines: List[str], inserted: Dict[int, str], names: tensor_text.FreshNames,
                index: int, quotient: str) -> None:
  """The ceil at line `index` made to take the absolute value of `quotient` (the abs op goes
  into `inserted`, by the line it precedes)."""
  match = _OP.match(lines[index])
  assert match is not None  # a ceil found by _definitions
  element_type = lines[index].rsplit(":", 1)[1].strip()
  absolute = f"{names.prefix()}length"
  inserted[index] = f"{match.group(1)}{absolute} = stablehlo.abs {quotient} : {element_type}"
  lines[index] = lines[index].replace(f"stablehlo.ceil {quotient} :",
                                      f"stablehlo.ceil {absolute} :", 1)
