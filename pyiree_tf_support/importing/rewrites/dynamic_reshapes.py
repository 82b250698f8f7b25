"""`tf.Reshape` ops TF's lowering leaves in the StableHLO text (a constant target shape, a
dynamic result: `tf.reshape(x, [-1])` on a `[None, 3]` input), rewritten as `tensor` ops IREE
compiles: `tensor.collapse_shape`, or `tensor.expand_shape` behind a `cf.assert` that the
dynamic size splits as asked (TF raises there too). IREE 3.13 rejects both
`stablehlo.dynamic_reshape` ("explicitly marked illegal") and `tensor.reshape` with a computed
shape ("index types must not cross the dispatch boundary"), measured in docs/import_pipeline.md.

Only shapes whose meaning is certain are rewritten: dims equal on both sides at the front and
back stay, and the rest is one dynamic input dim split into several (expand) or several input
dims merged into one `-1` (collapse). Anything else stays a tf.Reshape, as before.
Plain text work, no TF or IREE.
"""

import re
from typing import List, Optional, Sequence

from pyiree_tf_support.importing.rewrites import tensor_text

_RESHAPE = re.compile(
    r'^(\s*)(%[\w#]+) = "tf\.Reshape"\((%[\w#]+), (%[\w#]+)\)(?: \{[^}]*\})? : '
    r'\((tensor<[^>]*>), tensor<\d+xi(?:32|64)>\) -> (tensor<[^>]*>)$')


def _groups(first: int, middle: int, count: int) -> str:
  """Reassociation: one group per dim, except `middle` dims starting at `first` in one group."""
  groups, dim = [], 0
  while dim < count:
    size = middle if dim == first else 1
    groups.append("[" + ", ".join(str(d) for d in range(dim, dim + size)) + "]")
    dim += size
  return "[" + ", ".join(groups) + "]"


def _rewrite(match: "re.Match[str]", target: List[int],
             names: tensor_text.FreshNames) -> Optional[str]:
  indent, result, operand, _, source_type, result_type = match.groups()
  source, result_parsed = tensor_text.dims(source_type), tensor_text.dims(result_type)
  if source is None or result_parsed is None or source[1] != result_parsed[1]:
    return None
  (in_dims, element), out_dims = source, result_parsed[0]
  if target.count(-1) > 1 or any(t < -1 or t == 0 for t in target) or len(target) != len(out_dims):
    return None
  front = 0
  while (front < min(len(in_dims), len(target)) and in_dims[front] is not None
         and in_dims[front] == target[front]):
    front += 1
  back = 0
  while (back < min(len(in_dims), len(target)) - front and in_dims[-1 - back] is not None
         and in_dims[-1 - back] == target[-1 - back]):
    back += 1
  in_middle, out_middle = in_dims[front:len(in_dims) - back], target[front:len(target) - back]
  if len(out_middle) == 1 and out_middle[0] == -1 and len(in_middle) >= 2:
    # Merging dims into one -1: its size is their product, always valid.
    known = [dim for dim in in_middle if dim is not None]
    merged = _product(known) if len(known) == len(in_middle) else None
    expected = in_dims[:front] + [merged] + in_dims[len(in_dims) - back:]
    if tensor_text.type_text(expected, element) != result_type:
      return None
    return (f"{indent}{result} = tensor.collapse_shape {operand} "
            f"{_groups(front, len(in_middle), len(in_dims))} : {source_type} into {result_type}")
  if len(in_middle) == 1 and in_middle[0] is None and len(out_middle) >= 2:
    known = _product([t for t in out_middle if t != -1])
    expected = (in_dims[:front] + [None if t == -1 else t for t in out_middle]
                + in_dims[len(in_dims) - back:])
    if tensor_text.type_text(expected, element) != result_type:
      return None
    p = names.prefix()
    lines = [f"{p}index = arith.constant {front} : index",
             f"{p}known = arith.constant {known} : index",
             f"{p}size = tensor.dim {operand}, {p}index : {source_type}"]
    if -1 in out_middle:
      lines += [f"{p}zero = arith.constant 0 : index",
                f"{p}rest = arith.remui {p}size, {p}known : index",
                f"{p}ok = arith.cmpi eq, {p}rest, {p}zero : index",
                f"{p}split = arith.divui {p}size, {p}known : index"]
      condition = f"a multiple of {known}"
    else:
      lines.append(f"{p}ok = arith.cmpi eq, {p}size, {p}known : index")
      condition = f"{known}"
    lines.append(f'cf.assert {p}ok, "tf.Reshape of {source_type} to {target}: dim {front} '
                 f'must be {condition}"')
    sizes = [str(d) for d in in_dims[:front]]
    sizes += [f"{p}split" if t == -1 else str(t) for t in out_middle]
    sizes += [str(d) for d in in_dims[len(in_dims) - back:]]
    lines.append(f"{result} = tensor.expand_shape {operand} "
                 f"{_groups(front, len(out_middle), len(target))} "
                 f"output_shape [{', '.join(sizes)}] : {source_type} into {result_type}")
    return "\n".join(indent + line for line in lines)
  return None


def _product(values: Sequence[int]) -> int:
  product = 1
  for value in values:
    product *= value
  return product


def rewrite_dynamic_reshapes(iree_input: str) -> str:
  """`iree_input` with each tf.Reshape of the kinds above as tensor ops; others untouched."""
  names = tensor_text.FreshNames(iree_input, "pyiree_reshape")
  lines = iree_input.split("\n")
  for index, line in enumerate(lines):
    match = _RESHAPE.match(line)
    if not match:
      continue
    target = tensor_text.integer_constant(lines, index, match.group(4))
    rewritten = None if target is None else _rewrite(match, target, names)
    if rewritten is not None:
      lines[index] = rewritten
  return "\n".join(lines)
