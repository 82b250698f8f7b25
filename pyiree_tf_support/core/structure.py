"""Nested values (dicts, lists, tuples) without TensorFlow: the one walker, in tf.nest's order.

Every module that walks nested values goes through `children`, so there is one definition of
nesting and one order: dict items by sorted key (insertion order when keys cannot be sorted, which
tf.nest refuses), list and tuple items in order; namedtuples are tuples; everything else, None
included, is a leaf. A path is a tuple of dict keys and sequence indices from the root.

Function metadata describes inputs and outputs as JSON-able structure specs so that a process
that never imports TensorFlow (a runtime worker, `replay`) can flatten and re-pack values.
A spec is None for a None, {"list"|"tuple": [specs]} / {"dict": [[key, spec]]} for a container,
and anything else for a leaf ("T" in signatures, an array reference in saved traces).
"""

from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

LEAF = "T"
Path = Tuple[Any, ...]
_CONTAINER_KINDS = ("dict", "list", "tuple")


def _sorted_keys(d: dict) -> list:
  try:
    return sorted(d)
  except TypeError:  # mixed key types; tf.nest refuses these, keep insertion order.
    return list(d)


def is_container(value: Any) -> bool:
  return isinstance(value, (dict, list, tuple))


def children(value: Any) -> Optional[List[Tuple[Any, Any]]]:
  """(key or index, child) pairs of a container in tf.nest order; None for a leaf."""
  if isinstance(value, dict):
    return [(key, value[key]) for key in _sorted_keys(value)]
  if isinstance(value, (list, tuple)):
    return list(enumerate(value))
  return None


def flatten_with_paths(value: Any, path: Path = ()) -> List[Tuple[Path, Any]]:
  """(path, leaf) pairs of `value` in tf.nest order."""
  items = children(value)
  if items is None:
    return [(path, value)]
  return [pair for key, child in items for pair in flatten_with_paths(child, path + (key,))]


def flatten(value: Any, drop_none: bool = False) -> List[Any]:
  """Leaves of `value` in tf.nest order (None is a leaf, as in tf.nest, unless `drop_none`)."""
  return [leaf for _, leaf in flatten_with_paths(value)
          if not (drop_none and leaf is None)]


def zip_paths(a: Any, b: Any, path: Path = ()) -> Iterator[Tuple[Path, Any, Any]]:
  """Corresponding parts of `a` and `b` with their paths, in tf.nest order.

  Yields pairs of leaves, and, where the two differ in structure (container against leaf, dict
  against sequence, other keys or lengths), the two subtrees there instead of descending. Lists
  and tuples of equal length match each other.
  """
  a_items, b_items = children(a), children(b)
  if (a_items is None or b_items is None or isinstance(a, dict) != isinstance(b, dict)
      or [k for k, _ in a_items] != [k for k, _ in b_items]):
    yield path, a, b
    return
  for (key, a_child), (_, b_child) in zip(a_items, b_items):
    yield from zip_paths(a_child, b_child, path + (key,))


def format_path(root: str, path: Path) -> str:
  """`root` followed by each key or index as Python would subscript it: outputs[0]['logits']."""
  return root + "".join(f"[{key!r}]" for key in path)


def map_structure(fn: Callable[[Any], Any], value: Any) -> Any:
  """Applies `fn` to every leaf, keeping dicts, lists and tuples (namedtuples become tuples)."""
  items = children(value)
  if items is None:
    return fn(value)
  mapped = [(key, map_structure(fn, child)) for key, child in items]
  if isinstance(value, dict):
    return dict(mapped)
  if isinstance(value, list):
    return [child for _, child in mapped]
  return tuple(child for _, child in mapped)


def encode(value: Any, leaf_spec: Callable[[Any], Any]) -> Any:
  """The JSON-able spec of `value`, each leaf replaced by `leaf_spec(leaf)` (`children`'s order,
  walked without building its lists: a saved trace encodes every value of every call)."""
  if isinstance(value, dict):
    return {"dict": [[key, encode(value[key], leaf_spec)] for key in _sorted_keys(value)]}
  if isinstance(value, (list, tuple)):
    kind = "list" if isinstance(value, list) else "tuple"
    return {kind: [encode(child, leaf_spec) for child in value]}
  return leaf_spec(value)


def spec_of(value: Any, is_leaf: Callable[[Any], bool] = lambda v: v is not None) -> Any:
  """The JSON-able structure spec of `value`: LEAF where `is_leaf`, None elsewhere."""
  return encode(value, lambda leaf: LEAF if is_leaf(leaf) else None)


def _spec_kind(spec: Any) -> Optional[str]:
  if isinstance(spec, dict) and len(spec) == 1:
    kind = next(iter(spec))
    if kind in _CONTAINER_KINDS:
      return kind
  return None


def decode(spec: Any, leaf: Callable[[Any], Any]) -> Any:
  """Rebuilds the value a spec describes; `leaf(leaf_spec)` gives each leaf (None stays None)."""
  kind = _spec_kind(spec)
  if kind is None:
    return None if spec is None else leaf(spec)
  if kind == "dict":
    return {key: decode(sub, leaf) for key, sub in spec["dict"]}
  items = [decode(sub, leaf) for sub in spec[kind]]
  return items if kind == "list" else tuple(items)


def count_leaves(spec: Any) -> int:
  count = 0

  def leaf(_):
    nonlocal count
    count += 1

  decode(spec, leaf)
  return count


def pack(spec: Any, flat: Sequence[Any]) -> Any:
  """Rebuilds the structure described by `spec` from its flattened leaves."""
  expected = count_leaves(spec)
  if expected != len(flat):
    raise ValueError(f"Expected {expected} flat values for structure {spec}, got {len(flat)}.")
  leaves = iter(flat)
  return decode(spec, lambda _: next(leaves))


def flatten_as(spec: Any, value: Any, root: str = "", path: Path = ()) -> List[Any]:
  """Leaves of `value` taken where `spec` has leaves, so a Python list can be one tensor value.

  Errors name the place as `root` and `path` (see format_path).
  """
  kind = _spec_kind(spec)
  if kind is None:
    return [] if spec is None else [value]

  def where() -> str:  # only errors say where.
    return format_path(root, path) or "the top level"

  if kind == "dict":
    if not isinstance(value, dict):
      raise TypeError(f"expected a dict at {where()}, got {type(value).__name__}")
    keys = [key for key, _ in spec["dict"]]
    if sorted(map(repr, value)) != sorted(map(repr, keys)):
      raise TypeError(f"expected keys {keys} at {where()}, got {list(value)}")
    return [leaf for key, sub in spec["dict"] for leaf in flatten_as(sub, value[key], root,
                                                                  path + (key,))]
  items = spec[kind]
  if not isinstance(value, (list, tuple)) or len(value) != len(items):
    got = f"{len(value)} items" if isinstance(value, (list, tuple)) else type(value).__name__
    raise TypeError(f"expected {len(items)} items at {where()}, got {got}")
  return [leaf for i, (sub, item) in enumerate(zip(items, value))
          for leaf in flatten_as(sub, item, root, path + (i,))]
