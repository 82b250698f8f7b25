"""`stablehlo.scatter` whose indices count is dynamic while its updates' is static, given indices
of the updates' count behind a `cf.assert` that the counts agree.

A ring buffer written at `floormod(range(head, head + count))` (keras_ring_buffer_test.py,
ring_slice_update_test.py) scatters `[1, 2]` rows at `tensor<?x1xi32>` indices: `tf.range` with a
runtime start has a length TF's lowering cannot see is `count`, static 1. IREE 3.13's
StableHLO -> linalg_ext conversion makes an `iree_linalg_ext.scatter` its own verifier rejects
("mismatch in shape of indices and update value at dim#0", ConvertStableHloToLinalgExt). A
scatter is only valid when each indices batch dim equals the updates' scatter dim it pairs with
(TF raises otherwise), so a `tensor.cast` of the indices to the static count, after asserting
it at run time, keeps every valid execution and fails the others as TF does. Measured: the ring
buffer compiles on llvm-cpu, vmvx and Vulkan and matches TF (docs/import_pipeline.md).
Only three-operand scatters (one operand, one update) are rewritten; anything else stays.
Plain text work, no TF or IREE.
"""

import re
from typing import List, Optional, Sequence

from pyiree_tf_support.importing.rewrites import tensor_text

_START = re.compile(r'^(\s*)(%\S+) = "stablehlo\.scatter"\((%[^\s,()]+), (%[^\s,()]+), '
                    r'(%[^\s,()]+)\) <\{(.*)\}> \(\{$')
_END = re.compile(r'^(\s*)\}\) : \((tensor<[^>]*>), (tensor<[^>]*>), (tensor<[^>]*>)\) -> '
                  r'(tensor<[^>]*>)$')
_INDEX_VECTOR_DIM = re.compile(r'\bindex_vector_dim = (\d+)')
_UPDATE_WINDOW_DIMS = re.compile(r'\bupdate_window_dims = \[([\d, ]*)\]')


def _pairs(attributes: str, indices_rank: int, updates_rank: int) -> Optional[List[tuple]]:
  """(indices dim, updates dim) of each scatter batch dim, from the scatter's attributes."""
  vector = _INDEX_VECTOR_DIM.search(attributes)
  vector_dim = int(vector.group(1)) if vector else 0
  window = _UPDATE_WINDOW_DIMS.search(attributes)
  window_dims = {int(d) for d in window.group(1).split(",") if d.strip()} if window else set()
  batch = [d for d in range(indices_rank) if d != vector_dim]
  scatter = [d for d in range(updates_rank) if d not in window_dims]
  return list(zip(batch, scatter)) if len(batch) == len(scatter) else None


def _rewrite(lines: Sequence[str], start: int, end: int,
             names: tensor_text.FreshNames) -> Optional[List[str]]:
  """The lines `start..end` (one scatter op) with static-count indices, or None to keep them."""
  head, tail = _START.match(lines[start]), _END.match(lines[end])
  if head is None or tail is None:
    return None
  indent, indices = head.group(1), head.group(4)
  indices_type, updates_type = tail.group(3), tail.group(4)
  parsed, updates = tensor_text.dims(indices_type), tensor_text.dims(updates_type)
  if parsed is None or updates is None:
    return None
  pairs = _pairs(head.group(6), len(parsed[0]), len(updates[0]))
  if not pairs:
    return None
  fixed = [(i, u) for i, u in pairs if parsed[0][i] is None and updates[0][u] is not None]
  if not fixed:
    return None
  static = list(parsed[0])
  p = names.prefix()
  function = tensor_text.function_name(lines, start)
  added = []
  for i, u in fixed:
    static[i] = updates[0][u]
    added += [f"{p}dim{i} = arith.constant {i} : index",
              f"{p}count{i} = tensor.dim {indices}, {p}dim{i} : {indices_type}",
              f"{p}want{i} = arith.constant {static[i]} : index",
              f"{p}ok{i} = arith.cmpi eq, {p}count{i}, {p}want{i} : index",
              f'cf.assert {p}ok{i}, "{function}: a scatter\'s indices dim {i} must be its '
              f'updates\' dim {u} ({static[i]})"']
  static_type = tensor_text.type_text(static, parsed[1])
  added.append(f"{p}indices = tensor.cast {indices} : {indices_type} to {static_type}")
  first = lines[start].replace(f", {indices}, {head.group(5)}) <{{",
                               f", {p}indices, {head.group(5)}) <{{", 1)
  last = lines[end].replace(f", {indices_type}, {updates_type}) -> ",
                            f", {static_type}, {updates_type}) -> ", 1)
  return [indent + line for line in added] + [first] + list(lines[start + 1:end]) + [last]


def rewrite_scatter_counts(iree_input: str) -> str:
  """`iree_input` with each scatter of the kind above given static-count indices."""
  if '"stablehlo.scatter"(' not in iree_input:
    return iree_input
  names = tensor_text.FreshNames(iree_input, "pyiree_scatter")
  lines = iree_input.split("\n")
  out: List[str] = []
  index = 0
  while index < len(lines):
    head = _START.match(lines[index])
    end = None
    if head:
      end = next((j for j in range(index + 1, len(lines))
                  if lines[j].startswith(head.group(1) + "})")), None)
    rewritten = None
    if end is not None and _END.match(lines[end]):
      rewritten = _rewrite(lines, index, end, names)
    if rewritten is None:
      out.append(lines[index])
      index += 1
    else:
      assert end is not None  # a rewrite is of a matched op's lines.
      out += rewritten
      index = end + 1
  return "\n".join(out)
