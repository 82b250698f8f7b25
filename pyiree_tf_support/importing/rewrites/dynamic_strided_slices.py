"""`tf.StridedSlice` ops TF's lowering leaves in the StableHLO text because the input has a
dynamic dim (`x[:, 0]` or `x[:, 1:3]` on a `[None, 4]` input), rewritten as one
`tensor.extract_slice` (with `tensor.dim` for the dynamic sizes), which IREE compiles on every
backend (measured in docs/import_pipeline.md).

Only slices whose meaning is certain without the runtime sizes are rewritten: constant begin, end
and strides, no ellipsis or new axis, positive strides, and every dynamic dim taken whole (stride 1,
begin 0 or masked, end masked); shrunk dims (`x[:, 0]`) must be static and in range. Anything
else stays a tf.StridedSlice, as before. Plain text work, no TF or IREE.
"""

import math
import re
from typing import List, Optional, Tuple

from pyiree_tf_support.importing.rewrites import tensor_text
from pyiree_tf_support.importing.rewrites.tensor_text import Dims

_STRIDED_SLICE = re.compile(
    r'^(\s*)(%[\w#]+) = "tf\.StridedSlice"\((%[\w#]+), (%[\w#]+), (%[\w#]+), (%[\w#]+)\) '
    r'<\{begin_mask = (\d+) : i64, ellipsis_mask = (\d+) : i64, end_mask = (\d+) : i64, '
    r'new_axis_mask = (\d+) : i64, shrink_axis_mask = (\d+) : i64\}>(?: \{[^}]*\})? : '
    r'\((tensor<[^>]*>), tensor<\d+xi(?:32|64)>, tensor<\d+xi(?:32|64)>, '
    r'tensor<\d+xi(?:32|64)>\) -> (tensor<[^>]*>)$')


def _clamped(value: int, size: int) -> int:
  return min(max(value + size if value < 0 else value, 0), size)


def _slice(in_dims: Dims, begin: List[int], end: List[int], strides: List[int],
           masks: Tuple[int, int, int]
           ) -> Optional[Tuple[List[int], List[object], List[int], Dims]]:
  """(offsets, sizes, strides, result dims) of the slice: a size is an int, or the index of a
  dynamic dim taken whole as ("dim", i); None when the slice is not one rewritten here."""
  begin_mask, end_mask, shrink_mask = masks
  if not len(begin) == len(end) == len(strides) <= len(in_dims):
    return None
  offsets, sizes, steps, result = [], [], [], []
  for i, size in enumerate(in_dims):
    bit = 1 << i
    if i >= len(begin):
      begin_i, end_i, stride, shrink = 0, None, 1, False
    else:
      begin_i = None if begin_mask & bit else begin[i]
      end_i = None if end_mask & bit else end[i]
      stride, shrink = strides[i], bool(shrink_mask & bit)
    if stride <= 0:
      return None
    if size is None:
      if shrink or stride != 1 or begin_i not in (None, 0) or end_i is not None:
        return None
      offsets.append(0)
      sizes.append(("dim", i))
      steps.append(1)
      result.append(None)
      continue
    if shrink:
      if begin_i is None or end_i is None:
        return None
      start = begin_i + size if begin_i < 0 else begin_i
      if not 0 <= start < size:
        return None
      offsets.append(start)
      sizes.append(1)
      steps.append(1)
      continue
    start = 0 if begin_i is None else _clamped(begin_i, size)
    stop = size if end_i is None else _clamped(end_i, size)
    count = max(0, math.ceil((stop - start) / stride))
    offsets.append(start)
    sizes.append(count)
    steps.append(stride)
    result.append(count)
  return offsets, sizes, steps, result


def _rewrite(match: "re.Match[str]", values: Tuple[List[int], List[int], List[int]],
             prefix: str) -> Optional[str]:
  indent, result, operand = match.group(1), match.group(2), match.group(3)
  begin_mask, ellipsis_mask, end_mask, new_axis_mask, shrink_mask = (
      int(match.group(g)) for g in range(7, 12))
  source_type, result_type = match.group(12), match.group(13)
  source = tensor_text.dims(source_type)
  if source is None or ellipsis_mask or new_axis_mask or None not in source[0]:
    return None
  sliced = _slice(source[0], *values, (begin_mask, end_mask, shrink_mask))
  if sliced is None or tensor_text.type_text(sliced[3], source[1]) != result_type:
    return None
  offsets, sizes, steps, _ = sliced
  lines, size_texts = [], []
  for size in sizes:
    if isinstance(size, tuple):
      index = size[1]
      lines += [f"{prefix}index{index} = arith.constant {index} : index",
                f"{prefix}size{index} = tensor.dim {operand}, {prefix}index{index} : {source_type}"]
      size_texts.append(f"{prefix}size{index}")
    else:
      size_texts.append(str(size))
  lines.append(f"{result} = tensor.extract_slice {operand}[{', '.join(map(str, offsets))}] "
               f"[{', '.join(size_texts)}] [{', '.join(map(str, steps))}] : "
               f"{source_type} to {result_type}")
  return "\n".join(indent + line for line in lines)


def rewrite_dynamic_strided_slices(iree_input: str) -> str:
  """`iree_input` with each tf.StridedSlice of the kind above as tensor ops; others untouched."""
  lines = iree_input.split("\n")
  count = 0
  for index, line in enumerate(lines):
    match = _STRIDED_SLICE.match(line)
    if not match:
      continue
    begin, end, strides = (
        tensor_text.integer_constant(lines, index, match.group(g)) for g in (4, 5, 6))
    if begin is None or end is None or strides is None:
      continue
    count += 1
    prefix = f"%pyiree_slice{count}_"
    while prefix in iree_input:
      count += 1
      prefix = f"%pyiree_slice{count}_"
    rewritten = _rewrite(match, (begin, end, strides), prefix)
    if rewritten is not None:
      lines[index] = rewritten
  return "\n".join(lines)
