"""Generated TensorFlow programs: seeded chains of ops of the table (`fuzzing.ops`), their inputs
and the readable source of a module holding them.

A program is a chain of steps over one value `v`, starting from the float32 input `x`, each step
one op of the table applied to `v` (and, for a binary op, the function's input of `v`'s dtype),
optionally ended by a reduction. A function takes only the inputs its steps use, all of one
shape of rank 0 to 4 (its first dim a `None` dim of the signature when the program is dynamic,
its size drawn per call from the campaign's sizes, 0 too); a stateful program adds its value's
clipped sum to a variable (`assign`, or inside a `tf.cond`: `cond`) and returns the variable,
and is called several times in its trace.

Why a chain: removing any step leaves a program whose ops still type-check in most cases (a step
whose dtype no longer fits is skipped when the source is written; every op keeps the shape), so
the fuzzer's reduction can delete ops one by one while the failure stays the same. Inputs stay
inside each op's domain by the op's own template (the rules: `fuzzing.ops`). Values are drawn
from [-4, 4] with two decimals (fractions on both sides of .5, exact halves, whole numbers,
zero), integers from [-5, 5] (unsigned: [0, 10]); with `special` > 0 that fraction of the
elements are the examples engine's special values (NaN, +-Inf, -0.0, subnormals, extremes).
"""

import dataclasses
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.core import quoting
from pyiree_tf_support.examples import strategies
from pyiree_tf_support.fuzzing import ops as ops_lib
from pyiree_tf_support.fuzzing.findings import FuzzError
from pyiree_tf_support.fuzzing.ops import BOOL
from pyiree_tf_support.fuzzing.ops import F16
from pyiree_tf_support.fuzzing.ops import F32
from pyiree_tf_support.fuzzing.ops import I32
from pyiree_tf_support.fuzzing.ops import Op
from pyiree_tf_support.fuzzing.ops import OPS

SHAPE = (3, 4)
STATES = ("", "assign", "cond")
DYNAMIC_ROWS = (1, 2, 3, 5)  # a `None` dim's sizes in a campaign that names none
DYNAMIC_SIZES = (0, 1, 2, 3, 5)  # --dynamic_sizes' default: a size-0 call too
# --shapes' default: rank 2 as before, then ranks 0, 1, 3 and 4 and a static size-0 dim.
DEFAULT_SHAPES = "3x4,3x5,2x3,?x4,scalar,5,?x3,2x3x2,?x2x3,2x2x3x2,0x3"
CALLS_OF_STATEFUL = 3
F16_TOLERANCE = 1e-2  # ~10 ulps of float16, for a program with a float16 step
BF16_TOLERANCE = 5e-2  # ~6 ulps of bfloat16 (8 bits of mantissa), for a bfloat16 step
_INPUT_DTYPE = {"x": F32, "y": F32, "n": I32, "b": BOOL, "w_u8": ops_lib.U8,
                "w_u32": ops_lib.U32, "w_i8": ops_lib.I8, "w_i16": ops_lib.I16, "w_f16": F16}
_SHAPE = re.compile(r"^(\d+|\?)(x\d+){0,3}$")
_NAME = re.compile(r"\b(" + "|".join(ops_lib.INPUT_NAMES) + r")\b")


def op_names(spec: Optional[str], target: Sequence[str] = ()) -> Tuple[str, ...]:
  """The ops `--ops` names (comma-separated; None or "" for all that run on every one of
  `target`); ValueError naming an unknown one, or one `target` cannot run, and the valid names."""
  if not spec:
    return tuple(n for n, op in OPS.items()
                 if not op.targets or all(t in op.targets for t in target))
  names = tuple(n.strip() for n in spec.split(",") if n.strip())
  unknown = [n for n in names if n not in OPS]
  if unknown or not names:
    raise ValueError(f"--ops names {', '.join(unknown) or 'nothing'}, which is not an op of the "
                     f"table; valid: {', '.join(OPS)}.")
  for name in names:
    refused = [t for t in target if OPS[name].targets and t not in OPS[name].targets]
    if refused:
      raise ValueError(f"--ops names {name}, which runs on {', '.join(OPS[name].targets)} only, "
                       f"not {', '.join(refused)}; drop it or those backends.")
  return names


@dataclasses.dataclass(frozen=True)
class Program:
  """A chain of ops from `x`; `name` is the function's; `shape` its inputs' (rows first);
  `dynamic`: rows is a `None` dim; `state`: "" (none), "assign" or "cond" (see the module)."""
  name: str
  steps: Tuple[str, ...]
  shape: Tuple[int, ...] = SHAPE
  dynamic: bool = False
  state: str = ""

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

  def with_steps(self, steps: Sequence[str]) -> "Program":
    return dataclasses.replace(self, steps=tuple(steps))

  def body(self, after_step: Optional[Callable[[int, Op], str]] = None) -> List[str]:
    """The method's statements after its `def`; `after_step(i, op)` (the float policy's hook)
    gives a statement on `v` to follow step i, or ""."""
    lines, dtype = ["    v = x"], F32
    for i, op in enumerate(self.typed_steps()):
      text = op.template.format(v="v", w=ops_lib.OTHER_INPUT[dtype], n="n")
      lines.append(f"    v = {text}  # {op.name}")
      extra = after_step(i, op) if after_step else ""
      if extra:
        lines.append(f"    v = {extra}  # the float policy's move of {op.name}")
      dtype = op.gives
    if dtype in ops_lib.RETURNED_AS:
      lines.append(f"    v = {ops_lib.RETURNED_AS[dtype]}  # {dtype} stays inside")
    if self.state:
      lines.append("    s = tf.reduce_sum(tf.clip_by_value(tf.cast(v, tf.float32), -1e15, "
                   "1e15))  # the state's update")
      state = f"self.{self.name}_state"
      if self.state == "assign":
        lines.append(f"    {state}.assign({state} * 0.5 + s)")
      else:
        lines.append(f"    tf.cond(s > 0.0, lambda: {state}.assign_add(s), "
                     f"lambda: {state}.assign({state} * 0.5))")
      lines.append(f"    return {state}.read_value()")
    else:
      lines.append("    return v")
    return lines

  def input_names(self) -> Tuple[str, ...]:
    """The inputs the function takes: x and those its steps name, in `INPUT_NAMES` order."""
    used = set(_NAME.findall("\n".join(self.body()))) | {"x"}
    return tuple(n for n in ops_lib.INPUT_NAMES if n in used)

  def calls(self) -> int:
    return CALLS_OF_STATEFUL if self.state else 1

  def tolerances(self, rtol: float, atol: float) -> Tuple[float, float]:
    """The call's (rtol, atol): float16 and bfloat16 steps round at their precision."""
    dtypes = {d for op in self.typed_steps() for d in (op.takes, op.gives)}
    if ops_lib.BF16 in dtypes:
      return max(rtol, BF16_TOLERANCE), max(atol, BF16_TOLERANCE)
    if F16 in dtypes:
      return max(rtol, F16_TOLERANCE), max(atol, F16_TOLERANCE)
    return rtol, atol


def generate(rng: np.random.Generator, name: str, allowed: Sequence[str],
             max_steps: int = 6, shape: Tuple[int, ...] = SHAPE, dynamic: bool = False,
             state: str = "", empty: bool = False) -> Program:
  """A program of 1..max_steps ops of `allowed`, each fitting the dtype the chain has then and
  the shape's rank (`empty`: a dim may be 0, so no `sized` op)."""
  dtype, steps = F32, []
  empty = empty or 0 in shape
  for _ in range(int(rng.integers(1, max_steps + 1))):
    fitting = [n for n in allowed if OPS[n].takes == dtype and not (dynamic and OPS[n].static)
               and len(shape) in OPS[n].ranks and not (empty and OPS[n].sized)]
    if not fitting:
      break
    op = OPS[fitting[int(rng.integers(len(fitting)))]]
    steps.append(op.name)
    dtype = op.gives
    if op.reduction:
      break
  return Program(name, tuple(steps), tuple(shape), dynamic, state)


def parse_shapes(spec: str) -> List[Tuple[Tuple[int, ...], bool]]:
  """--shapes: (dims, dynamic) per comma-separated item: `scalar` (rank 0) or up to 4 sizes
  joined by `x` (`?` first: a None dim, its size drawn per call; 3 stands for it in `dims`);
  FuzzError naming a bad one."""
  shapes = []
  for item in (spec or "").split(","):
    item = item.strip()
    if item == "scalar":
      shapes.append(((), False))
      continue
    sizes = item.split("x")
    if not _SHAPE.match(item) or any(s == "1" for s in sizes):
      raise FuzzError(f"--shapes names {item or 'nothing'}, which is not scalar or 1 to 4 sizes "
                      "joined by x, each 0 or at least 2 (the first may be ?, a None dim), "
                      "e.g. 3x4,?x4,0x3,5,2x3x2,scalar.")
    dynamic = sizes[0] == "?"
    shapes.append((tuple(3 if s == "?" else int(s) for s in sizes), dynamic))
  return shapes


def parse_sizes(spec: Sequence[str]) -> Tuple[int, ...]:
  """--dynamic_sizes: the sizes a None dim is drawn from (each >= 0); FuzzError otherwise."""
  if not spec or not all(s.strip().isdigit() for s in spec):
    raise FuzzError(f"--dynamic_sizes={','.join(spec)} is not a list of sizes >= 0, "
                    "e.g. 0,1,2,3,5.")
  return tuple(int(s) for s in spec)


def module_functions(seed: int, index: int, allowed: Sequence[str], generation: Dict[str, Any],
                     per_module: int = 8
                     ) -> Tuple[List[Program], List[List[Tuple[np.ndarray, ...]]]]:
  """Module `index`'s functions of a campaign with `seed` and `generation` settings (a
  campaign's state: shapes, state, special values, functions per module, which overrides
  `per_module`), and each function's calls' inputs. A function of (seed, index) and the
  settings alone: a resumed or sharded campaign generates module `index` as one uninterrupted
  process would."""
  rng = np.random.default_rng([seed, index])
  features = np.random.default_rng([seed, index, 1])  # shapes and state, apart.
  shapes = parse_shapes(generation.get("shapes", "3x4"))
  states = generation.get("states", STATES[1:])
  sizes = tuple(generation.get("dynamic_sizes", DYNAMIC_ROWS))
  functions = []
  for i in range(int(generation.get("functions_per_module", per_module))):
    shape, dynamic = shapes[int(features.integers(len(shapes)))]
    state = ""
    if features.random() < generation.get("stateful", 0.0):
      state = states[int(features.integers(len(states)))]
    functions.append(generate(rng, f"f{i}", allowed, shape=shape, dynamic=dynamic, state=state,
                              empty=dynamic and 0 in sizes))
  special = generation.get("special_values", 0.0)
  arrays = [[inputs(rng, p, special, sizes) for _ in range(p.calls())] for p in functions]
  return functions, arrays


def _with_specials(rng: np.random.Generator, array: np.ndarray, special: float) -> np.ndarray:
  if special <= 0 or array.dtype == np.bool_:
    return array
  values = np.array(strategies.special_values(array.dtype), array.dtype)
  mask = rng.random(array.shape) < special
  picked = values[rng.integers(len(values), size=array.shape)]
  return np.where(mask, picked, array).astype(array.dtype)


def inputs(rng: np.random.Generator, program: Optional[Program] = None,
           special: float = 0.0, sizes: Sequence[int] = DYNAMIC_ROWS
           ) -> Tuple[np.ndarray, ...]:
  """The inputs of one call of `program` (default: of a static 3x4 program taking x, y, n, b),
  in its `input_names` order: floats in [-4, 4] with two decimals, int32 in [-5, 5], bools, the
  narrow ints in [-5, 5] or [0, 10], and `special` of the elements special values."""
  program = program or Program("f", ())
  shape = tuple(program.shape)
  if program.dynamic:
    shape = (int(sizes[int(rng.integers(len(sizes)))]),) + shape[1:]

  def floats():
    return np.round(rng.uniform(-4.0, 4.0, shape), 2).astype(np.float32)
  drawn = {"x": floats(), "y": floats(), "n": rng.integers(-5, 6, shape).astype(np.int32),
           "b": rng.integers(0, 2, shape).astype(bool)}
  names = program.input_names() if program.steps else ("x", "y", "n", "b")
  for name in names:
    if name not in drawn:
      dtype = np.dtype(_INPUT_DTYPE[name])
      drawn[name] = (floats().astype(dtype) if dtype.kind == "f" else
                     rng.integers(0 if dtype.kind == "u" else -5, 11 if dtype.kind == "u" else 6,
                                  shape).astype(dtype))
  return tuple(_with_specials(rng, drawn[name], special) for name in names)


def inputs_for(candidate: Program, original: Program,
               inputs: Tuple[np.ndarray, ...]) -> Tuple[np.ndarray, ...]:
  """`inputs` of a call of `original`, as `candidate` (the same chain with steps deleted) takes
  them: a deleted `add` of y takes y out of its signature."""
  by_name = dict(zip(original.input_names(), inputs))
  return tuple(by_name[name] for name in candidate.input_names())


def _signature(program: Program, float_dtype: str) -> str:
  dims: List[Optional[int]] = list(program.shape)
  if program.dynamic:
    dims[0] = None
  specs = [f"tf.TensorSpec({dims}, tf.{_INPUT_DTYPE[n]})" for n in program.input_names()]
  return ",\n      ".join(specs)


def function_source(program: Program, float_dtype: str = F32,
                    after_step: Optional[Callable[[int, Op], str]] = None) -> str:
  """The method's source; with `float_dtype` "float64" its floats (float32 and float16) are
  float64 (what the fuzzer's precision policy runs on TensorFlow); `after_step`: `Program.body`'s
  hook."""
  lines = [f"  @tf.function(input_signature=[\n      {_signature(program, float_dtype)}])",
           f"  def {program.name}(self, {', '.join(program.input_names())}):"]
  lines += program.body(after_step)
  return _floats_as("\n".join(lines), float_dtype)


def _floats_as(text: str, float_dtype: str) -> str:
  if float_dtype == F32:
    return text
  text = text.replace("tf.complex64", "tf.complex128")  # complex of float64 parts
  for narrower in ("tf.float32", "tf.float16", "tf.bfloat16"):
    text = text.replace(narrower, f"tf.{float_dtype}")
  return text


def class_source(class_name: str, programs: Sequence[Program], float_dtype: str = F32,
                 after_step: Optional[Callable[[int, Op], str]] = None) -> str:
  """The tf.Module class: one method per program, a variable per stateful one (`after_step`:
  `Program.body`'s hook)."""
  states = [f"    self.{p.name}_state = tf.Variable(0.0, dtype=tf.float32)"
            for p in programs if p.state]
  init = ("  def __init__(self):\n    super().__init__()\n" + "\n".join(states) + "\n\n"
          if states else "")
  methods = "\n\n".join(function_source(p, after_step=after_step) for p in programs)
  return _floats_as(f"class {class_name}(tf.Module):\n\n{init}{methods}\n", float_dtype)


def _values(array: np.ndarray) -> str:
  """Nested list text of `array`; float elements in the shortest form that reads back exactly
  (NaN and infinities by name)."""
  if array.ndim == 0:
    value = array.item()
    if array.dtype.kind == "f":
      if not np.isfinite(value):
        return "np.nan" if np.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
      if value == 0:
        return "-0.0" if np.signbit(value) else "0"
      return np.format_float_positional(array.dtype.type(value), unique=True, trim="-")
    return repr(value)
  return "[" + ", ".join(_values(a) for a in array) + "]"


def _literal(array: np.ndarray) -> str:
  if array.size == 0:
    return f"np.zeros({list(array.shape)}, np.{array.dtype.name})"
  return f"np.array({_values(array)}, np.{array.dtype.name})"


def module_source(class_name: str, programs: Sequence[Program],
                  calls: Sequence[Tuple[str, Tuple[np.ndarray, ...]]],
                  rtol: float, atol: float, header: str = "") -> str:
  """A test file in the corpus' format: the module with one method per program, and a test
  class whose one trace makes `calls` (method name, inputs) in order, with per-call tolerances
  (`Program.tolerances`). `header`, its docstring's text, may hold a backend's error message:
  it is a string literal of the file, whatever it holds."""
  by_name: Dict[str, Program] = {p.name: p for p in programs}
  indent = "\n" + " " * 10
  lines = []
  for name, arrays in calls:
    call_rtol, call_atol = by_name[name].tolerances(rtol, atol)
    lines.append(f"      module.{name}({indent}{(',' + indent).join(_literal(a) for a in arrays)},"
                 f"{indent}rtol={call_rtol!r}, atol={call_atol!r})")
  trace = "\n".join(lines)
  return f'''{quoting.docstring(header or "A module the fuzzer generated.")}

import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow.compat.v2 as tf


{class_source(class_name, programs)}

@tf_test_utils.compile_module({class_name})
class {class_name}Test(tf_test_utils.TracedModuleTestCase):

  def test_calls(self):
    def calls(module):
{trace}
    self.compare_backends(calls)


if __name__ == "__main__":
  tf.test.main()
'''
