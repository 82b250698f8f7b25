"""hypothesis strategies for a function's flattened inputs, from its signature (`InputSpec`s).

Values are dtype-aware: each example is drawn in one of three modes, which hypothesis shrinks in
order: ordinary values (small floats and integers), ordinary values mixed with the values
compilers get wrong (NaN, +-Inf, -0.0, subnormals, the dtype's extremes and epsilon, integer
minimum and maximum), and the dtype's whole range. A dynamic (`None`) dimension is drawn from
`DYNAMIC_SIZES` (0, 1 and odd sizes among them), one size per axis counted from the right and
shared by every input, so that elementwise functions get matching shapes; static dimensions
are kept. An input of unknown rank gets rank 0 to 2.

hypothesis is imported by `for_inputs`, not when this module is imported.
"""

from typing import Any, Dict, Sequence, Tuple

import numpy as np

from pyiree_tf_support.core import signatures

# Sizes of a dynamic dimension, smallest first: hypothesis shrinks towards the front.
DYNAMIC_SIZES = (0, 1, 2, 3, 5, 7, 17)
# Ordinary values lie in [-ORDINARY, ORDINARY] (clipped to the dtype's range).
ORDINARY = 100
DRAWN_ELEMENTS = 4096
MODES = ("ordinary", "special", "anything")


class UnsupportedInputError(ValueError):
  """An input whose dtype no strategy draws (strings, resources)."""


def _special_floats(dtype: np.dtype) -> Tuple[float, ...]:
  info = np.finfo(dtype)
  tiny = float(info.smallest_subnormal)
  return (float("nan"), float("inf"), float("-inf"), -0.0, tiny, -tiny, float(info.tiny),
          float(info.max), float(info.min), float(info.eps), 0.5, -0.5)


def _special_ints(dtype: np.dtype) -> Tuple[int, ...]:
  info = np.iinfo(dtype)
  values = (0, 1, -1, int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1)
  return tuple(dict.fromkeys(v for v in values if info.min <= v <= info.max))


def special_values(dtype: np.dtype) -> Tuple[Any, ...]:
  """The values compilers get wrong for `dtype` (float: NaN, +-Inf, -0.0, subnormals,
  extremes, epsilon; integer: zero, +-1, minimum and maximum): what the fuzzer mixes into its
  inputs too."""
  dtype = np.dtype(dtype)
  return _special_floats(dtype) if dtype.kind == "f" else _special_ints(dtype)


def _elements(st: Any, hnp: Any, dtype: np.dtype, mode: str) -> Tuple[Any, np.dtype]:
  """The element strategy for `dtype` in `mode`, and the dtype hypothesis draws (the input's,
  or float32 for float dtypes numpy knows only through ml_dtypes, cast afterwards)."""
  if dtype == np.bool_:
    return st.booleans(), dtype
  if dtype.kind in "iu":
    info = np.iinfo(dtype)
    ordinary = st.integers(max(int(info.min), -ORDINARY), min(int(info.max), ORDINARY))
    if mode == "ordinary":
      return ordinary, dtype
    special = st.sampled_from(_special_ints(dtype))
    return st.one_of(ordinary, special, *([hnp.from_dtype(dtype)] if mode == "anything"
                                          else [])), dtype
  if dtype.kind == "f" or dtype.kind == "V":  # "V": ml_dtypes' bfloat16 and friends.
    drawn = dtype if dtype in (np.float16, np.float32, np.float64) else np.dtype(np.float32)
    width = drawn.itemsize * 8
    ordinary = st.floats(-ORDINARY, ORDINARY, width=width)
    if mode == "ordinary":
      return ordinary, drawn
    special = st.sampled_from(_special_floats(drawn))
    return st.one_of(ordinary, special, *([hnp.from_dtype(drawn)] if mode == "anything"
                                          else [])), drawn
  if dtype.kind == "c":
    width = dtype.itemsize * 8
    ordinary = st.complex_numbers(max_magnitude=ORDINARY, width=width)
    if mode == "ordinary":
      return ordinary, dtype
    return st.one_of(ordinary, hnp.from_dtype(dtype)), dtype
  raise UnsupportedInputError(f"no values can be drawn for dtype {dtype}")


def _shape(spec: signatures.InputSpec, sizes: Sequence[int], rank: int) -> Tuple[int, ...]:
  dims = spec.shape if spec.shape is not None else (None,) * rank
  return tuple(sizes[len(dims) - 1 - axis] if dim is None else dim
               for axis, dim in enumerate(dims))


def for_inputs(inputs: Sequence[signatures.InputSpec], where: str = "the function") -> Any:
  """A strategy of tuples of numpy arrays, one per flattened input of `inputs`.

  UnsupportedInputError names the first input no values can be drawn for.
  """
  from hypothesis.extra import numpy as hnp
  import hypothesis.strategies as st

  dtypes = []
  for index, spec in enumerate(inputs):
    try:
      dtype = signatures.numpy_dtype(spec.dtype)
      _elements(st, hnp, dtype, "anything")
    except (TypeError, UnsupportedInputError) as e:
      raise UnsupportedInputError(
          f"{where} input {index} ({spec}): {e}; examples draw bool, integer, float and complex "
          "inputs") from None
    dtypes.append(dtype)
  ranks = [len(s.shape) if s.shape is not None else 2 for s in inputs]
  most = max(ranks, default=0)
  # Strategies are built once, not per draw: building and validating them costs more than
  # drawing 16 elements.
  elements = {(dtype, mode): _elements(st, hnp, dtype, mode) for dtype in set(dtypes)
              for mode in MODES}
  arrays: Dict[Tuple[np.dtype, str, Tuple[int, ...]], Any] = {}

  def array_strategy(dtype: np.dtype, mode: str, shape: Tuple[int, ...]) -> Any:
    key = (dtype, mode, shape)
    if key not in arrays:
      element, drawn = elements[(dtype, mode)]
      # Every element drawn on its own (no shared fill value), so that the shrinker can zero
      # each alone; past DRAWN_ELEMENTS hypothesis fills the rest with one value.
      fill = st.nothing() if int(np.prod(shape)) <= DRAWN_ELEMENTS else None
      strategy = hnp.arrays(drawn, shape, elements=element, fill=fill)
      arrays[key] = strategy.map(lambda a: a.astype(dtype)) if drawn != dtype else strategy
    return arrays[key]

  modes = st.sampled_from(MODES)
  dynamic = any(s.shape is None or None in s.shape for s in inputs)
  sizes = (st.lists(st.sampled_from(DYNAMIC_SIZES), min_size=most, max_size=most) if dynamic
           else st.just(()))  # nothing to draw: every dim is static.
  unknown_rank = st.integers(0, 2)

  @st.composite
  def draw_inputs(draw: Any) -> Tuple[np.ndarray, ...]:
    mode = draw(modes)
    drawn_sizes = draw(sizes)
    return tuple(
        draw(array_strategy(dtype, mode, _shape(spec, drawn_sizes, len(spec.shape)
                                                if spec.shape is not None
                                                else draw(unknown_rank))))
        for spec, dtype in zip(inputs, dtypes))

  return draw_inputs()
