"""The text of a run of examples: what ran, what the reference rejected, the failure found, its
first and shrunk inputs and which elements of the shrunk input matter, and how to find it again.
"""

from typing import Sequence

import numpy as np

from pyiree_tf_support.examples.engine import ExamplesResult
from pyiree_tf_support.examples.engine import FoundFailure
from pyiree_tf_support.examples.engine import input_size


def _array(array: np.ndarray) -> str:
  with np.printoptions(threshold=64, linewidth=100, precision=9):
    text = np.array2string(np.asarray(array), separator=", ")
  return f"{array.dtype}{list(array.shape)} " + " ".join(text.split())


def _inputs(inputs: Sequence[np.ndarray]) -> str:
  return "\n".join(f"    input {i}: {_array(a)}" for i, a in enumerate(inputs))


def _size(inputs: Sequence[np.ndarray]) -> str:
  """Sizes as shrinking sees them; the sum leaves inf and NaN out, and then says how many (an
  input [0, 0, 0, inf] read "sum of |x| 0" as if it were all zeros)."""
  elements, nonzero, magnitude = input_size(inputs)
  left_out = sum(int(np.count_nonzero(~np.isfinite(a))) for a in map(np.asarray, inputs)
                 if a.dtype.kind in "fc")
  return (f"{elements} elements, {nonzero} nonzero, sum of |x| {magnitude:.6g}"
          + (f" over the finite ones, {left_out} inf or nan" if left_out else ""))


def _runs(result: ExamplesResult) -> str:
  """How many ran, and when more ran than were drawn, what the others were for."""
  if not result.after_failure:
    return f"{result.run} run"
  return (f"{result.run} run ({result.run - result.after_failure} drawn until the first "
          f"failure, {result.after_failure} shrinking it and checking its elements)")


def _elements(failure: FoundFailure) -> str:
  if not failure.elements:
    return "  elements that matter: none is nonzero (the input is all zeros or empty)"
  matter = [e for e in failure.elements if e.matters]
  shown = ", ".join(f"input {e.input_index} {list(e.index)} = {e.value!r}" for e in matter)
  return (f"  elements that matter (with one alone set to 0 it no longer fails the same way): "
          f"{shown or 'none alone'}; {len(failure.elements) - len(matter)} other nonzero "
          "element(s) checked do not")


def format_summary(result: ExamplesResult, where: str, rerun_flags: str) -> str:
  """The summary of `result` for `where` (e.g. "Module.method()"); `rerun_flags` are the flags
  that draw the same examples again."""
  rejected = sum(count for _, count in result.rejected)
  lines = [f"Examples of {where}: {result.requested} requested (seed {result.seed}), "
           f"{_runs(result)}, {result.compared} compared on "
           f"{', '.join(result.targets) or 'no target'}, {rejected} rejected by the reference"
           f"{', time box reached' if result.timed_out else ''}; {result.seconds:.1f} s."]
  for reason, count in result.rejected[:5]:
    lines.append(f"  rejected {count}x (not compared): {reason}")
  if result.past_time_box is not None:
    drawn = "; ".join(_array(a) for a in result.past_time_box)
    lines.append(f"  stopped: call {result.method}() of the reference on {drawn} ran past "
                 f"{result.time_box}; not compared")
  failure = result.failure
  if failure is not None:
    lines += [f"  {failure.kind.describe()} first on:", _inputs(failure.first_inputs),
              "  shrunk by hypothesis to (failing the same way):", _inputs(failure.shrunk_inputs),
              f"  size: {_size(failure.first_inputs)} -> {_size(failure.shrunk_inputs)}",
              _elements(failure)]
  else:
    lines.append("  no example failed.")
  for kind in result.other_failures:
    lines.append(f"  also seen, not shrunk: {kind.describe()}")
  lines.append(f"  drawn again by: {rerun_flags} (the same hypothesis version and sources)")
  return "\n".join(lines)
