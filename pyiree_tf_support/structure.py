"""Nested structures (dicts, lists, tuples) without TensorFlow, flattened in tf.nest's order.

Function metadata describes inputs and outputs as JSON-able structure specs so that a process
that never imports TensorFlow (a runtime worker, `replay`) can flatten and re-pack values.
A spec is "T" for a value, None for a None, or {"list"|"tuple": [specs]} / {"dict": [[key, spec]]}.
"""

from typing import Any, Iterator, List, Sequence

LEAF = "T"


def _sorted_keys(d: dict) -> list:
  try:
    return sorted(d)
  except TypeError:  # mixed key types; tf.nest refuses these, keep insertion order.
    return list(d)


def flatten(value: Any) -> List[Any]:
  """Leaves of `value` in tf.nest order: dict values by sorted key, sequences in order."""
  if isinstance(value, dict):
    return [leaf for key in _sorted_keys(value) for leaf in flatten(value[key])]
  if isinstance(value, (list, tuple)):
    return [leaf for item in value for leaf in flatten(item)]
  return [value]


def flatten_as(spec: Any, value: Any, path: str = "") -> List[Any]:
  """Leaves of `value` taken where `spec` has leaves, so a Python list can be one tensor value."""
  if spec == LEAF:
    return [value]
  if spec is None:
    return []
  if "dict" in spec:
    if not isinstance(value, dict):
      raise TypeError(f"expected a dict at {path or 'the top level'}, got {type(value).__name__}")
    keys = [key for key, _ in spec["dict"]]
    if sorted(map(repr, value)) != sorted(map(repr, keys)):
      raise TypeError(f"expected keys {keys} at {path or 'the top level'}, got {list(value)}")
    return [leaf for key, sub in spec["dict"] for leaf in flatten_as(sub, value[key], f"{path}[{key!r}]")]
  items = spec.get("list", spec.get("tuple"))
  if not isinstance(value, (list, tuple)) or len(value) != len(items):
    got = f"{len(value)} items" if isinstance(value, (list, tuple)) else type(value).__name__
    raise TypeError(f"expected {len(items)} items at {path or 'the top level'}, got {got}")
  return [leaf for i, (sub, item) in enumerate(zip(items, value))
          for leaf in flatten_as(sub, item, f"{path}[{i}]")]


def spec_of(value: Any, is_leaf=lambda v: v is not None) -> Any:
  """The JSON-able structure spec of `value`."""
  if isinstance(value, dict):
    return {"dict": [[key, spec_of(value[key], is_leaf)] for key in _sorted_keys(value)]}
  if isinstance(value, (list, tuple)):
    kind = "list" if isinstance(value, list) else "tuple"
    return {kind: [spec_of(item, is_leaf) for item in value]}
  return LEAF if is_leaf(value) else None


def count_leaves(spec: Any) -> int:
  return sum(1 for _ in _spec_leaves(spec))


def _spec_leaves(spec: Any) -> Iterator[None]:
  if spec == LEAF:
    yield None
  elif isinstance(spec, dict):
    for kind, items in spec.items():
      for item in items:
        yield from _spec_leaves(item[1] if kind == "dict" else item)


def pack(spec: Any, flat: Sequence[Any]) -> Any:
  """Rebuilds the structure described by `spec` from its flattened leaves."""
  expected = count_leaves(spec)
  if expected != len(flat):
    raise ValueError(f"Expected {expected} flat values for structure {spec}, got {len(flat)}.")
  leaves = iter(flat)

  def build(s):
    if s == LEAF:
      return next(leaves)
    if s is None:
      return None
    if "dict" in s:
      return {key: build(sub) for key, sub in s["dict"]}
    if "list" in s:
      return [build(sub) for sub in s["list"]]
    return tuple(build(sub) for sub in s["tuple"])

  return build(spec)


def map_structure(fn, value: Any) -> Any:
  """Applies `fn` to every leaf, keeping dicts, lists and tuples (namedtuples become tuples)."""
  if isinstance(value, dict):
    return {key: map_structure(fn, value[key]) for key in value}
  if isinstance(value, list):
    return [map_structure(fn, item) for item in value]
  if isinstance(value, tuple):
    return tuple(map_structure(fn, item) for item in value)
  return fn(value)
