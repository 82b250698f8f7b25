"""`tf.Reshape` to a shape computed at run time (inside a `tf.while_loop` body: rows of a width
that changes each trip), which TF's lowering leaves, as the input flattened to one dynamic dim
and a `tensor.expand_shape` to the shape's values, behind a `cf.assert` that they are a shape TF
accepts for it.

IREE 3.13 rejects `stablehlo.dynamic_reshape` and `tensor.reshape` with a computed shape
(docs/import_pipeline.md); an expand_shape whose sizes are the shape tensor's elements, read
with `tensor.extract`, compiles on llvm-cpu, vmvx and Vulkan (measured on
e2e/loop_reshape_test.py by hand first). TF's rules are kept: at most one -1, inferred from the
element count; no other negative value; the product equal to the input's element count; a dim
the result type fixes equal to it. Anything else fails the call, as TF raises. Shapes that are
constants are dynamic_reshapes' (a static reshape never reaches here).
Plain text work, no TF or IREE.
"""

import math
import re
from typing import List, Optional

from pyiree_tf_support.importing.rewrites import tensor_text

_RESHAPE = re.compile(
    r'^(\s*)(%[\w#]+) = "tf\.Reshape"\((%[\w#]+), (%[\w#]+)\)(?: \{[^}]*\})? : '
    r'\((tensor<[^>]*>), (tensor<(\d+)xi(?:32|64)>)\) -> (tensor<[^>]*>)$')


def _flat(p: str, operand: str, source: tensor_text.Dims, source_type: str,
          element: str) -> List[str]:
  """Lines making `{p}flat` (the operand as tensor<?xE>) and `{p}total` (its element count)."""
  flat_type = tensor_text.type_text([None], element)
  if len(source) == 1 and source[0] is None:
    return [f"{p}flat = tensor.cast {operand} : {source_type} to {flat_type}",
            f"{p}zero_dim = arith.constant 0 : index",
            f"{p}total = tensor.dim {operand}, {p}zero_dim : {source_type}"]
  lines, one_dim = [], operand
  if len(source) > 1:
    known = [d for d in source if d is not None]
    static = math.prod(known) if len(known) == len(source) else None
    one_dim_type = tensor_text.type_text([static], element)
    groups = "[[" + ", ".join(str(d) for d in range(len(source))) + "]]"
    lines.append(f"{p}collapsed = tensor.collapse_shape {operand} {groups} : {source_type} "
                 f"into {one_dim_type}")
    one_dim, source_type = f"{p}collapsed", one_dim_type
  lines.append(f"{p}flat = tensor.cast {one_dim} : {source_type} to {flat_type}")
  lines += [f"{p}zero_dim = arith.constant 0 : index",
            f"{p}total = tensor.dim {p}flat, {p}zero_dim : {flat_type}"]
  return lines


def _rewrite(match: "re.Match[str]", function: str, p: str) -> Optional[str]:
  indent, result, operand, shape, source_type, shape_type, rank, result_type = match.groups()
  source, parsed = tensor_text.dims(source_type), tensor_text.dims(result_type)
  if source is None or parsed is None or source[1] != parsed[1] or not source[0]:
    return None
  (source_dims, element), result_dims = source, parsed[0]
  if int(rank) != len(result_dims) or not result_dims:
    return None
  lines = _flat(p, operand, source_dims, source_type, element)
  lines += [f"{p}one = arith.constant 1 : index", f"{p}none = arith.constant 0 : index",
            f"{p}minus = arith.constant -1 : index"]
  for i in range(len(result_dims)):
    lines += [f"{p}at{i} = arith.constant {i} : index",
              f"{p}e{i} = tensor.extract {shape}[{p}at{i}] : {shape_type}",
              f"{p}v{i} = arith.index_cast {p}e{i} : i{_width(shape_type)} to index",
              f"{p}neg{i} = arith.cmpi eq, {p}v{i}, {p}minus : index",
              f"{p}k{i} = arith.select {p}neg{i}, {p}one, {p}v{i} : index",
              f"{p}c{i} = arith.select {p}neg{i}, {p}one, {p}none : index"]
  lines += _fold(p, "known", "arith.muli", [f"{p}k{i}" for i in range(len(result_dims))])
  lines += _fold(p, "minuses", "arith.addi", [f"{p}c{i}" for i in range(len(result_dims))])
  lines += [f"{p}divisor = arith.maxsi {p}known, {p}one : index",
            f"{p}inferred = arith.divsi {p}total, {p}divisor : index"]
  checks = []
  for i, static in enumerate(result_dims):
    lines += [f"{p}d{i} = arith.select {p}neg{i}, {p}inferred, {p}k{i} : index",
              f"{p}ok_sign{i} = arith.cmpi sge, {p}d{i}, {p}none : index"]
    checks.append(f"{p}ok_sign{i}")
    if static is not None:
      lines += [f"{p}fixed{i} = arith.constant {static} : index",
                f"{p}ok_fixed{i} = arith.cmpi eq, {p}d{i}, {p}fixed{i} : index"]
      checks.append(f"{p}ok_fixed{i}")
  lines += _fold(p, "size", "arith.muli", [f"{p}d{i}" for i in range(len(result_dims))])
  lines += [f"{p}ok_size = arith.cmpi eq, {p}size, {p}total : index",
            f"{p}ok_minuses = arith.cmpi ule, {p}minuses, {p}one : index"]
  checks += [f"{p}ok_size", f"{p}ok_minuses"]
  lines += _fold(p, "ok", "arith.andi", checks, "i1")
  lines.append(f'cf.assert {p}ok, "{function}: tf.Reshape of {source_type} to a shape '
               "computed at run time: it must hold as many elements, with at most one -1 and "
               f'no other negative value, and fit {result_type}"')
  flat_type = tensor_text.type_text([None], element)
  if len(result_dims) == 1:
    lines.append(f"{result} = tensor.cast {p}flat : {flat_type} to {result_type}")
  else:
    groups = "[[" + ", ".join(str(d) for d in range(len(result_dims))) + "]]"
    sizes = ", ".join(f"{p}d{i}" if d is None else str(d) for i, d in enumerate(result_dims))
    lines.append(f"{result} = tensor.expand_shape {p}flat {groups} output_shape [{sizes}] : "
                 f"{flat_type} into {result_type}")
  return "\n".join(indent + line for line in lines)


def _fold(p: str, name: str, op: str, values: List[str], kind: str = "index") -> List[str]:
  """Lines combining `values` with `op` into `{p}{name}` (a single value is copied)."""
  if len(values) == 1:
    neutral = "true" if kind == "i1" else "0"
    combine = "arith.andi" if kind == "i1" else "arith.addi"
    return [f"{p}{name}_neutral = arith.constant {neutral} : {kind}",
            f"{p}{name} = {combine} {values[0]}, {p}{name}_neutral : {kind}"]
  lines, current = [], values[0]
  for i, value in enumerate(values[1:], 1):
    target = f"{p}{name}" if i == len(values) - 1 else f"{p}{name}_{i}"
    lines.append(f"{target} = {op} {current}, {value} : {kind}")
    current = target
  return lines


def _width(shape_type: str) -> str:
  return "64" if shape_type.endswith("xi64>") else "32"


def rewrite_runtime_reshapes(iree_input: str) -> str:
  """`iree_input` with each tf.Reshape to a non-constant shape as the ops above."""
  if '"tf.Reshape"(' not in iree_input:
    return iree_input
  names = tensor_text.FreshNames(iree_input, "pyiree_runtime_reshape")
  lines = iree_input.split("\n")
  for index, line in enumerate(lines):
    match = _RESHAPE.match(line)
    if not match or tensor_text.integer_constant(lines, index, match.group(4)) is not None:
      continue
    rewritten = _rewrite(match, tensor_text.function_name(lines, index), names.prefix())
    if rewritten is not None:
      lines[index] = rewritten
  return "\n".join(lines)
