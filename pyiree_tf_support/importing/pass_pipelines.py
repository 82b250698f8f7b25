"""The TF-side pass sequences run on tf_input.mlir before (and as) its lowering to StableHLO, as
data: each step says why it is there. The importer picks a pipeline, runs it, and records what ran
in a header of `//` lines at the top of iree_input.mlir (MLIR comments: iree-compile, replay and the
compile cache read the text unchanged, and the cache key changes with the pipeline).

Only semantics-preserving steps belong here: a differential tester must never make a module
compile by assuming something that can silently compute a wrong answer. A pipeline that fails on a
module (TF's decomposition refuses, or leaves TensorList ops) falls back to the plain lowering, so
no import that worked with the plain lowering stops working; the header says so.
Measurements behind each choice: docs/import_pipeline.md.
"""

import dataclasses
import re
from typing import Callable, List, Optional, Sequence, Tuple

import tensorflow as tf

from pyiree_tf_support.core import mlir_symbols
from pyiree_tf_support.importing.rewrites import dynamic_ops
from pyiree_tf_support.importing.rewrites import dynamic_reshapes
from pyiree_tf_support.importing.rewrites import dynamic_strided_slices
from pyiree_tf_support.importing.rewrites import growing_carries
from pyiree_tf_support.importing.rewrites import range_lengths
from pyiree_tf_support.importing.rewrites import runtime_reshapes
from pyiree_tf_support.importing.rewrites import scatter_counts

# The TF -> StableHLO + ml_program lowering IREE's own TF importer runs.
LOWERING_PIPELINE = "tf-lower-to-mlprogram-and-hlo"
HEADER_PREFIX = "// pyiree_tf_support import: "


@dataclasses.dataclass(frozen=True)
class Step:
  """One step: a pass pipeline run on the module (`passes`), or a text rewrite (`rewrite`)."""
  name: str
  why: str
  passes: str = ""
  # Run once per exported function, renamed `@main` meanwhile: TF's decomposition passes only
  # look at the function named main (and what it calls).
  per_exported_function: bool = False
  rewrite: Optional[Callable[[str], str]] = None

  def describe(self) -> str:
    if self.rewrite is not None:
      return f"{self.name} (text rewrite)"
    return f"{self.name}: {self.passes}" + (" (per exported function, as @main)"
                                            if self.per_exported_function else "")


@dataclasses.dataclass(frozen=True)
class Pipeline:
  """A named sequence of steps and the ops whose presence in tf_input selects it."""
  name: str
  steps: Tuple[Step, ...]
  selected_by: Tuple[str, ...] = ()  # TF op names; empty: the default pipeline.
  # (regex, why): tf_input matching one is not run through this pipeline, because a step would
  # not preserve its meaning there.
  refused_by: Tuple[Tuple[str, str], ...] = ()

  def applies_to(self, tf_input: str) -> bool:
    return any(f'"{op}"(' in tf_input for op in self.selected_by)

  def refusal(self, tf_input: str) -> Optional[str]:
    """Why this pipeline must not run on `tf_input` (None: it may)."""
    for pattern, why in self.refused_by:
      if re.search(pattern, tf_input):
        return why
    return None


# `tf.Cast` of a TensorList handle to its own type, which Keras' rolled RNN puts between
# TensorListReserve and the while loop; a cast to the same type is the identity, and the
# decomposition only follows handles through tf.Identity ("found tf.TensorListSetItemOp on
# unknown TensorList" otherwise).
_SAME_TYPE_VARIANT_CAST = re.compile(
    r'"tf\.Cast"\((%[\w#]+)\) <\{Truncate = (?:false|true)\}>( \{[^}]*\})? : '
    r'\((tensor<!tf_type\.variant\S*)\) -> (tensor<!tf_type\.variant\S*)$', re.M)


def variant_casts_to_identity(text: str) -> str:
  """Every tf.Cast of a variant to its own type, as tf.Identity."""

  def replace(match: "re.Match[str]") -> str:
    operand, attributes, source, result = match.groups()
    if source != result:
      return match.group(0)
    return f'"tf.Identity"({operand}){attributes or ""} : ({source}) -> {result}'

  return _SAME_TYPE_VARIANT_CAST.sub(replace, text)


# TensorListConcatV2 with no leading dims, on a list whose element type is fully static: TF
# 2.21's decomposition does not handle it (its verifier then rejects the op's buffer operand).
_CONCAT = re.compile(
    r'^(\s*)(%\w+), (%\w+) = "tf\.TensorListConcatV2"\((%[\w#]+), %[\w#]+, %[\w#]+\)'
    r'(?: \{[^}]*\})? : \(tensor<!tf_type\.variant<tensor<([0-9x]+)x(\w+)>>>, '
    r'tensor<\d+xi32>, tensor<0xi64>\) -> \((tensor<[^>]+>), tensor<\?xi64>\)$', re.M)


def _const_i32(name: str, indent: str, values: Sequence[str]) -> str:
  shape = f"tensor<{len(values)}xi32>"
  return (f'{indent}{name} = "tf.Const"() <{{value = dense<[{", ".join(values)}]> : {shape}}}> '
          f': () -> {shape}\n')


def concats_to_stack_and_reshape(text: str) -> str:
  """Every TensorListConcatV2 whose lengths result is unused, on a list of static element shape
  [d0, d1, ...], as TensorListStack (shape [n, d0, d1, ...]) reshaped to [n * d0, d1, ...]: the
  same values, since every element has that shape."""

  def replace(match: "re.Match[str]") -> str:
    indent, result, lengths, handle, dims, dtype, result_type = match.groups()
    if len(re.findall(re.escape(lengths) + r"(?![\w#])", text)) != 1:
      return match.group(0)
    dims = dims.split("x")
    element, stacked, shape = (f"{result}_pyiree_{part}"
                               for part in ("element_shape", "stacked", "shape"))
    element_type = f"tensor<{'x'.join(dims)}x{dtype}>"
    stacked_type = f"tensor<?x{'x'.join(dims)}x{dtype}>"
    shape_type = f"tensor<{len(dims)}xi32>"
    return (_const_i32(element, indent, dims)
            + f'{indent}{stacked} = "tf.TensorListStack"({handle}, {element}) '
            f'<{{num_elements = -1 : i64}}> : (tensor<!tf_type.variant<{element_type}>>, '
            f'{shape_type}) -> {stacked_type}\n'
            + _const_i32(shape, indent, ["-1"] + dims[1:])
            + f'{indent}{result} = "tf.Reshape"({stacked}, {shape}) : ({stacked_type}, '
            f'{shape_type}) -> {result_type}')

  return _CONCAT.sub(replace, text)


LOWERING = Step(
    "lower", "TF's own TF -> StableHLO + ml_program lowering (what IREE's iree-import-tf runs).",
    passes=LOWERING_PIPELINE)
RANGE_LENGTHS = Step(
    "range-lengths",
    "A tf.range with a runtime bound is given ceil(abs(limit - start) / delta) elements by the "
    "lowering, minus its length for a negative step: the quotient's absolute value instead, "
    "the length TF's kernel gives (IREE does not check an iota's dim: wrong values, a crash).",
    rewrite=range_lengths.rewrite_range_lengths)
GROWING_CARRIES = Step(
    "growing-carries",
    "A while loop carrying a tensor that grows from empty (shape invariant [None]) is printed "
    "by the lowering with the static empty start type, text that does not parse back: the start "
    "becomes an empty tensor of the body's dynamic type (and an integer concatenate of dynamic "
    "operands tensor.concat, which IREE aborts on otherwise).",
    rewrite=growing_carries.rewrite_growing_carries)
DYNAMIC_RESHAPES = Step(
    "dynamic-reshapes",
    "tf.Reshape to a constant shape with a dynamic result, which the lowering leaves, as "
    "tensor.collapse_shape / tensor.expand_shape (behind a cf.assert that the split is exact): "
    "IREE rejects stablehlo.dynamic_reshape.",
    rewrite=dynamic_reshapes.rewrite_dynamic_reshapes)
RUNTIME_RESHAPES = Step(
    "runtime-reshapes",
    "tf.Reshape to a shape computed at run time (inside a while loop's body), which the "
    "lowering leaves, as the input flattened and a tensor.expand_shape to the shape's values, "
    "behind a cf.assert keeping TF's rules (one -1 at most, the element count kept).",
    rewrite=runtime_reshapes.rewrite_runtime_reshapes)
DYNAMIC_STRIDED_SLICES = Step(
    "dynamic-strided-slices",
    "tf.StridedSlice on an input with a dynamic dim (x[:, 0] on [None, 4]), which the lowering "
    "leaves, as tensor.extract_slice with tensor.dim sizes, when its constant begin, end and "
    "strides take every dynamic dim whole: the same elements, whatever the runtime size.",
    rewrite=dynamic_strided_slices.rewrite_dynamic_strided_slices)



SCATTER_COUNTS = Step(
    "scatter-counts",
    "A scatter whose indices count is dynamic while its updates' is static (a ring buffer "
    "written at floormod(range(head, head + count))) gets indices cast to that count behind a "
    "cf.assert: IREE's linalg_ext.scatter verifier rejects the mixed shapes.",
    rewrite=scatter_counts.rewrite_scatter_counts)


def rewrite_dynamic_broadcasts(text: str) -> str:
  """The dynamic-broadcasts rewrite; IREE's MLIR bindings it runs on are imported only for a text
  that has an op it handles (dynamic_ops)."""
  if not dynamic_ops.may_rewrite(text):
    return text
  from pyiree_tf_support.importing.rewrites import dynamic_broadcasts
  return dynamic_broadcasts.rewrite_dynamic_broadcasts(text).text


DYNAMIC_BROADCASTS = Step(
    "dynamic-broadcasts",
    dynamic_ops.REWRITE_STEP.split(": ", 1)[1] + " (IREE cannot legalize a "
    "dynamic_broadcast_in_dim whose dynamic dims are not known to expand or not).",
    rewrite=rewrite_dynamic_broadcasts)

TENSOR_LIST_STEPS = (
    Step("to-regions",
         "The decomposition works on functional control flow with regions and sees through "
         "neither tf_executor islands nor calls: executor -> functional, While/If with region "
         "bodies, callees inlined, dead private functions (Keras' unused RNN variants) dropped, "
         "constants propagated and shapes inferred so list sizes and element shapes are known.",
         passes="func.func(tf-executor-to-functional-conversion),"
         "tf-functional-control-flow-to-regions,inline,symbol-dce,canonicalize,sccp,"
         "tf-shape-inference,sccp"),
    Step("variant-cast-to-identity",
         "A tf.Cast of a TensorList handle to its own type is the identity; the decomposition "
         "follows tf.Identity but not tf.Cast.",
         rewrite=variant_casts_to_identity),
    Step("concat-to-stack",
         "TensorListConcatV2 (TensorArray.concat), which the decomposition cannot take, as "
         "TensorListStack + Reshape when the list's element shape is static.",
         rewrite=concats_to_stack_and_reshape),
    Step("tensor-list-ops-decomposition",
         "TF's XLA-bridge pass: a TensorList of constant max size and element shape becomes a "
         "buffer tensor with slice / dynamic_update_slice (semantics-preserving; refuses "
         "unknown sizes, which falls back to the plain lowering).",
         passes="tf-tensor-list-ops-decomposition,canonicalize", per_exported_function=True),
    LOWERING,
    RANGE_LENGTHS,
    GROWING_CARRIES,
    DYNAMIC_RESHAPES,
    RUNTIME_RESHAPES,
    DYNAMIC_STRIDED_SLICES,
    DYNAMIC_BROADCASTS,
    SCATTER_COUNTS,
)

PLAIN = Pipeline("plain", (LOWERING, RANGE_LENGTHS, GROWING_CARRIES, DYNAMIC_RESHAPES,
                           RUNTIME_RESHAPES, DYNAMIC_STRIDED_SLICES, DYNAMIC_BROADCASTS,
                           SCATTER_COUNTS))
TENSOR_LISTS = Pipeline(
    "tensor-lists", TENSOR_LIST_STEPS,
    selected_by=("tf.TensorListReserve", "tf.TensorListFromTensor", "tf.EmptyTensorList"),
    refused_by=(
        # Measured: a dynamic_size TensorArray of size 2 written at 0..3 in a loop decomposed
        # into a 2-row buffer whose writes clamp to the last row (read(1) gave x*3, TF x*1).
        (r"resize_if_index_out_of_bounds = true",
         "a growing list (TensorArray dynamic_size=True): the decomposition's buffer has the "
         "reserved size and out-of-range writes would be clamped, not grown"),
        (r'"tf\.TensorListResize"\(', "tf.TensorListResize changes a list's size at runtime"),
    ))
# Tried in order; the first that applies runs, PLAIN when none does or when one fails.
PIPELINES = (TENSOR_LISTS,)


class StepFailedError(RuntimeError):
  """A step of a pipeline failed on a module; the message is its first error line."""


def _first_line(message: str) -> str:
  lines = [line.strip() for line in message.splitlines() if line.strip()]
  errors = [line for line in lines if "error:" in line]
  return (errors or lines or ["(no message)"])[0]


def _run_passes(text: str, passes: str) -> str:
  try:
    return tf.mlir.experimental.run_pass_pipeline(text, passes)
  except tf.errors.OpError as e:
    raise StepFailedError(_first_line(e.message)) from None


def _rename_symbol(text: str, old: str, new: str) -> str:
  """`text` with the function `old` called `new` (names, not regex syntax or MLIR spellings)."""
  symbol = "@" + mlir_symbols.spelling(new)
  return re.sub(re.escape("@" + mlir_symbols.spelling(old)) + r"(?=[(\s,\]}>])",
                lambda _: symbol, text)


def _run_per_function(text: str, passes: str, exported_names: Sequence[str]) -> str:
  if any(name != "main" for name in exported_names) and re.search(r"@main(?=[(\s,\]}>])", text):
    raise StepFailedError("a function named 'main' is already in the module")
  for name in exported_names:
    text = _rename_symbol(_run_passes(_rename_symbol(text, name, "main"), passes), "main", name)
  return text


def run_step(step: Step, text: str, exported_names: Sequence[str]) -> str:
  """`text` after `step`; StepFailedError when TF refuses."""
  if step.rewrite is not None:
    return step.rewrite(text)
  if step.per_exported_function:
    return _run_per_function(text, step.passes, exported_names)
  return _run_passes(text, step.passes)


_TENSOR_LIST_OP = re.compile(r'"tf\.(?:TensorList\w+|EmptyTensorList)"\(')


def _run_pipeline(pipeline: Pipeline, tf_input: str, exported_names: Sequence[str]) -> str:
  text = tf_input
  for step in pipeline.steps:
    text = run_step(step, text, exported_names)
    if step.per_exported_function and _TENSOR_LIST_OP.search(text):
      raise StepFailedError(f"{step.name} left TensorList ops")
  return text


@dataclasses.dataclass(frozen=True)
class Lowered:
  """iree_input text and the header lines saying which pipeline made it."""
  text: str
  pipeline: Pipeline
  fallback_reason: Optional[str] = None  # why a selected pipeline was abandoned for PLAIN.

  def header(self) -> str:
    lines = [f"{HEADER_PREFIX}pipeline '{self.pipeline.name}'"]
    if self.fallback_reason:
      lines.append(f"{HEADER_PREFIX}fell back to 'plain': {self.fallback_reason}")
    lines += [f"{HEADER_PREFIX}  {i}. {step.describe()}"
              for i, step in enumerate(self.pipeline.steps, 1)]
    return "".join(line.replace("\n", " ") + "\n" for line in lines)


def lower(tf_input: str, exported_names: Sequence[str],
          pipelines: Sequence[Pipeline] = PIPELINES) -> Lowered:
  """tf_input -> iree_input with the first pipeline that applies, PLAIN if it fails.
  Errors of the PLAIN lowering propagate (tf.errors.OpError) as they always did."""
  reasons: List[str] = []
  for pipeline in pipelines:
    if not pipeline.applies_to(tf_input):
      continue
    refusal = pipeline.refusal(tf_input)
    if refusal:
      reasons.append(f"'{pipeline.name}' not run: {refusal}")
      continue
    try:
      return Lowered(_run_pipeline(pipeline, tf_input, exported_names), pipeline)
    except StepFailedError as e:
      reasons.append(f"'{pipeline.name}' failed: {e}")
  fallback_reason = "; ".join(reasons) or None
  text = tf_input
  for step in PLAIN.steps:
    if step.rewrite is not None:
      text = step.rewrite(text)
      continue
    try:
      text = tf.mlir.experimental.run_pass_pipeline(text, step.passes)
    except tf.errors.OpError as e:
      if fallback_reason is None:
        raise
      error = type(e)(e.node_def, e.op,
                      f"{e.message}\n(pipeline 'plain' after {fallback_reason})")
      # Read by the importer's report, which puts the abandoned pipeline's error first.
      error.fallback_reason = fallback_reason
      error.plain_message = e.message
      raise error from None
  return Lowered(text, PLAIN, fallback_reason)


def strip_header(iree_input: str) -> str:
  """The text without the importer's header lines."""
  lines = iree_input.splitlines(keepends=True)
  index = 0
  while index < len(lines) and lines[index].startswith(HEADER_PREFIX):
    index += 1
  return "".join(lines[index:])
