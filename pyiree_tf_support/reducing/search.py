"""Delta debugging (Zeller's ddmin) over a list of parts: the smallest sublist, in order, for
which a predicate still holds, asked as few times as it can be (each question is a compile and a
run). Deterministic: the same parts and predicate give the same result."""

from typing import Callable, List, Sequence, TypeVar

T = TypeVar("T")


def minimize(parts: Sequence[T], holds: Callable[[List[T]], bool],
             keep_last: bool = False) -> List[T]:
  """A 1-minimal sublist of `parts` for which `holds` is true (`holds(parts)` is assumed):
  removing any one more part makes it false. With `keep_last`, the last part is never removed
  (the call that fails, after the calls its state needs)."""
  fixed = [parts[-1]] if keep_last and parts else []
  current = list(parts[:-1] if fixed else parts)
  chunks = 2
  while current:
    size = max(1, len(current) // chunks)
    pieces = [current[i:i + size] for i in range(0, len(current), size)]
    reduced = False
    for index in range(len(pieces)):
      complement = [p for j, piece in enumerate(pieces) if j != index for p in piece]
      if holds(complement + fixed):
        current, chunks, reduced = complement, max(chunks - 1, 2), True
        break
    if not reduced:
      if size == 1:
        break
      chunks = min(len(current), chunks * 2)
  return current + fixed
