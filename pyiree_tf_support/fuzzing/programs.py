"""Generated TensorFlow programs: an op table with dtype rules, seeded programs, readable source.

A program is a chain of steps over one value `v`, starting from the input `x`, each step one op
of the table applied to `v` (and, for a binary op, the input of `v`'s dtype: `y` for float32,
`n` for int32, `b` for bool), optionally ended by a reduction. Every function takes the same four
inputs of one static shape, so a module holds many of them and one trace calls each.

Why a chain: removing any step leaves a program whose ops still type-check in most cases (a step
whose dtype no longer fits is skipped when the source is written), so the fuzzer's reduction can
delete ops one by one while the failure stays the same. Inputs stay inside each op's domain by
the op itself (`exp` of a clipped value, `sqrt` of an absolute value, division by `|w| + 1`): the
rule is the op's template, written once here. Values are drawn from [-4, 4] with two decimals
(fractions on both sides of .5, exact halves, whole numbers, zero), without NaN, infinities or
subnormals (not yet: every op would need a rule for them).
"""

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

F32, I32, BOOL = "float32", "int32", "bool"
OTHER_INPUT = {F32: "y", I32: "n", BOOL: "b"}
SHAPE = (3, 4)


@dataclasses.dataclass(frozen=True)
class Op:
  """One op of the table: what `v` it takes, what it gives, and its source (`{v}`, `{w}`: the
  other input of `v`'s dtype)."""
  name: str
  takes: str
  gives: str
  template: str
  reduction: bool = False

  @property
  def binary(self) -> bool:
    return "{w}" in self.template


def _ops() -> Dict[str, Op]:
  table = [
      # float32 -> float32, in the op's domain for every finite input.
      Op("abs", F32, F32, "tf.abs({v})"), Op("negative", F32, F32, "-{v}"),
      Op("tanh", F32, F32, "tf.tanh({v})"), Op("sigmoid", F32, F32, "tf.sigmoid({v})"),
      Op("sin", F32, F32, "tf.sin({v})"), Op("cos", F32, F32, "tf.cos({v})"),
      Op("floor", F32, F32, "tf.floor({v})"), Op("ceil", F32, F32, "tf.math.ceil({v})"),
      Op("round", F32, F32, "tf.round({v})"), Op("square", F32, F32, "tf.square({v})"),
      Op("exp", F32, F32, "tf.exp(tf.clip_by_value({v}, -10.0, 10.0))"),
      Op("sqrt", F32, F32, "tf.sqrt(tf.abs({v}))"),
      Op("log", F32, F32, "tf.math.log(tf.abs({v}) + 1.0)"),
      Op("add", F32, F32, "{v} + {w}"), Op("subtract", F32, F32, "{v} - {w}"),
      Op("multiply", F32, F32, "{v} * {w}"), Op("maximum", F32, F32, "tf.maximum({v}, {w})"),
      Op("minimum", F32, F32, "tf.minimum({v}, {w})"),
      Op("divide", F32, F32, "{v} / (tf.abs({w}) + 1.0)"),
      Op("where", F32, F32, "tf.where({v} > {w}, {v}, {w})"),
      # casts and comparisons between the three dtypes.
      Op("cast_f32_to_i32", F32, I32, "tf.cast({v}, tf.int32)"),
      Op("cast_i32_to_f32", I32, F32, "tf.cast({v}, tf.float32)"),
      Op("cast_bool_to_f32", BOOL, F32, "tf.cast({v}, tf.float32)"),
      Op("cast_bool_to_i32", BOOL, I32, "tf.cast({v}, tf.int32)"),
      Op("greater", F32, BOOL, "{v} > {w}"), Op("equal_i32", I32, BOOL, "tf.equal({v}, {w})"),
      # int32 and bool.
      Op("add_i32", I32, I32, "{v} + {w}"), Op("multiply_i32", I32, I32, "{v} * {w}"),
      Op("maximum_i32", I32, I32, "tf.maximum({v}, {w})"), Op("abs_i32", I32, I32, "tf.abs({v})"),
      Op("bitwise_and", I32, I32, "tf.bitwise.bitwise_and({v}, {w})"),
      Op("logical_and", BOOL, BOOL, "tf.logical_and({v}, {w})"),
      Op("logical_xor", BOOL, BOOL, "tf.math.logical_xor({v}, {w})"),
      Op("logical_not", BOOL, BOOL, "tf.logical_not({v})"),
      # a last step: reductions over one axis.
      Op("reduce_sum", F32, F32, "tf.reduce_sum({v}, axis=1)", reduction=True),
      Op("reduce_max", F32, F32, "tf.reduce_max({v}, axis=0)", reduction=True),
      Op("reduce_sum_i32", I32, I32, "tf.reduce_sum({v}, axis=1)", reduction=True),
      Op("reduce_any", BOOL, BOOL, "tf.reduce_any({v}, axis=0)", reduction=True),
  ]
  return {op.name: op for op in table}


OPS: Dict[str, Op] = _ops()


def op_names(spec: Optional[str]) -> Tuple[str, ...]:
  """The ops `--ops` names (comma-separated; None or "" for all); ValueError naming an unknown
  one and the valid names."""
  if not spec:
    return tuple(OPS)
  names = tuple(n.strip() for n in spec.split(",") if n.strip())
  unknown = [n for n in names if n not in OPS]
  if unknown or not names:
    raise ValueError(f"--ops names {', '.join(unknown) or 'nothing'}, which is not an op of the "
                     f"table; valid: {', '.join(OPS)}.")
  return names


@dataclasses.dataclass(frozen=True)
class Program:
  """A chain of ops from `x`; `name` is the function's."""
  name: str
  steps: Tuple[str, ...]

  def typed_steps(self) -> List[Op]:
    """The steps whose dtype fits the value they get (a step a reduction removed the input dtype
    of is skipped), ending at the first reduction."""
    dtype, kept = F32, []
    for name in self.steps:
      op = OPS[name]
      if op.takes != dtype:
        continue
      kept.append(op)
      dtype = op.gives
      if op.reduction:
        break
    return kept

  def ops(self) -> Tuple[str, ...]:
    return tuple(op.name for op in self.typed_steps())


def generate(rng: np.random.Generator, name: str, allowed: Sequence[str],
             max_steps: int = 6) -> Program:
  """A program of 1..max_steps ops of `allowed`, each fitting the dtype the chain has then."""
  dtype, steps = F32, []
  for _ in range(int(rng.integers(1, max_steps + 1))):
    fitting = [n for n in allowed if OPS[n].takes == dtype]
    if not fitting:
      break
    op = OPS[fitting[int(rng.integers(len(fitting)))]]
    steps.append(op.name)
    dtype = op.gives
    if op.reduction:
      break
  return Program(name, tuple(steps))


def inputs(rng: np.random.Generator) -> Tuple[np.ndarray, ...]:
  """x, y (float32 in [-4, 4], two decimals), n (int32 in [-5, 5]) and b (bool)."""
  def floats():
    return np.round(rng.uniform(-4.0, 4.0, SHAPE), 2).astype(np.float32)
  return (floats(), floats(), rng.integers(-5, 6, SHAPE).astype(np.int32),
          rng.integers(0, 2, SHAPE).astype(bool))


_SIGNATURE = ",\n      ".join(f"tf.TensorSpec({list(SHAPE)}, tf.{d})"
                             for d in (F32, F32, I32, BOOL))


def function_source(program: Program, float_dtype: str = F32) -> str:
  """The method's source: a tf.function of (x, y, n, b); with `float_dtype` "float64" its
  floats are float64 (what the fuzzer's precision policy runs on TensorFlow)."""
  return _function_source(program).replace("tf.float32", f"tf.{float_dtype}")


def _function_source(program: Program) -> str:
  lines = [f"  @tf.function(input_signature=[\n      {_SIGNATURE}])",
           f"  def {program.name}(self, x, y, n, b):", "    v = x"]
  dtype = F32
  for op in program.typed_steps():
    lines.append(f"    v = {op.template.format(v='v', w=OTHER_INPUT[dtype])}  # {op.name}")
    dtype = op.gives
  lines.append("    return v")
  return "\n".join(lines)


def _values(array: np.ndarray) -> str:
  """Nested list text of `array`; float32 elements in the shortest form that reads back exactly."""
  if array.ndim == 0:
    value = array.item()
    if array.dtype == np.float32:
      return np.format_float_positional(np.float32(value), unique=True, trim="-")
    return repr(value)
  return "[" + ", ".join(_values(a) for a in array) + "]"


def _literal(array: np.ndarray) -> str:
  return f"np.array({_values(array)}, np.{array.dtype.name})"


def module_source(class_name: str, programs: Sequence[Program],
                  calls: Sequence[Tuple[str, Tuple[np.ndarray, ...]]],
                  rtol: float, atol: float, header: str = "") -> str:
  """A test file in the corpus' format: the module with one method per program, and a test
  class whose one trace calls each method with its inputs (per-call tolerances)."""
  methods = "\n\n".join(function_source(p) for p in programs)
  indent = "\n" + " " * 10
  trace = "\n".join(
      f"      module.{name}({indent}{(',' + indent).join(_literal(a) for a in arrays)},"
      f"{indent}rtol={rtol!r}, atol={atol!r})" for name, arrays in calls)
  return f'''"""{header or "A module the fuzzer generated."}"""

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


class {class_name}(tf.Module):

{methods}


@tf_test_utils.compile_module({class_name})
class {class_name}Test(tf_test_utils.TracedModuleTestCase):

  def test_calls(self):
    def calls(module):
{trace}
    self.compare_backends(calls)


if __name__ == "__main__":
  tf.test.main()
'''
