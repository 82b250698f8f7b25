"""The schema of a campaign's findings.json, checked whole when it is loaded.

Why one check at load time: `--resume` and `merge` read a findings.json back, and it may be
hand-edited, truncated or from another machine (an unzipped Bazel output). Unchecked, a field
fails wherever it is first used (a TypeError on a string `hits`, a KeyError on a missing `seed`)
or, worse, a name that becomes a path component (a signature is a dir under DIR/findings/)
writes wherever a `../` in it points. So every field's type is checked here, once, and every
name that becomes a path component must be a plain file name (`plain_name`).
"""

import math
import os
import re
from typing import Any, Callable, Dict, Mapping, Tuple

FORMAT = "pyiree_tf_support.fuzz/2"
READABLE = ("pyiree_tf_support.fuzz/1", FORMAT)
MAX_NAME = 200  # bytes: under every file system's 255 with room for a temp file's suffix.
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_SHARD = re.compile(r"^(\d+)/(\d+)$")
NAME_RULE = (f"one plain file name: letters, digits, '_', '-' and '.', no '/', no '..', no NUL, "
             f"at most {MAX_NAME} characters")


class SchemaError(ValueError):
  """A field of a findings.json that is missing or of the wrong type; the message names it."""


def _shown(value: Any) -> str:
  text = repr(value)
  return text if len(text) <= 60 else text[:57] + "..."


def _kind(value: Any) -> str:
  return "null" if value is None else type(value).__name__


def _fail(field: str, value: Any, expected: str) -> None:
  raise SchemaError(f"{field} is {_kind(value)} {_shown(value)}, expected {expected}")


def plain_name(value: Any, field: str) -> str:
  """`value` when it is one path component that cannot leave the directory it is joined to."""
  if (not isinstance(value, str) or not _NAME.match(value) or ".." in value
      or len(value.encode("utf-8")) > MAX_NAME):
    _fail(field, value, NAME_RULE)
  return value


def parse_shard(spec: Any, field: str) -> Tuple[int, int]:
  """The (I, N) of a shard "I/N" with 0 <= I < N ("" is the whole campaign, 0/1)."""
  if spec == "":
    return 0, 1
  match = _SHARD.match(spec) if isinstance(spec, str) else None
  index, count = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
  if not index < count:
    _fail(field, spec, '"" or "I/N" with 0 <= I < N')
  return index, count


Check = Callable[[Any, str], None]


def _integer(minimum: float = -math.inf) -> Check:
  def check(value: Any, field: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
      _fail(field, value, "an integer" + (f" >= {minimum}" if minimum > -math.inf else ""))
  return check


def _number(low: float, high: float = math.inf) -> Check:
  def check(value: Any, field: str) -> None:
    if (isinstance(value, bool) or not isinstance(value, (int, float))
        or not low <= value <= high):
      _fail(field, value, f"a number from {low} to {high}")
  return check


def _of_type(kind: type, name: str) -> Check:
  def check(value: Any, field: str) -> None:
    if not isinstance(value, kind):
      _fail(field, value, name)
  return check


def _list_of(item: Check) -> Check:
  def check(value: Any, field: str) -> None:
    if not isinstance(value, list):
      _fail(field, value, "a list")
    for i, element in enumerate(value):
      item(element, f"{field}[{i}]")
  return check


def _map_of(key: Check, item: Check) -> Check:
  def check(value: Any, field: str) -> None:
    if not isinstance(value, dict):
      _fail(field, value, "an object")
    for name, element in value.items():
      key(name, f"{field} key")
      item(element, f"{field}[{name!r}]")
  return check


def _object(required: Mapping[str, Check], optional: Mapping[str, Check]) -> Check:
  """An object with every `required` field and any `optional` one, each checked (other fields
  are left alone: a later version's additions)."""
  def check(value: Any, field: str) -> None:
    if not isinstance(value, dict):
      _fail(field, value, "an object")
    prefix = f"{field}." if field else ""
    for name, item in required.items():
      if name not in value:
        raise SchemaError(f"{prefix}{name} is missing")
      item(value[name], prefix + name)
    for name, item in optional.items():
      if name in value:
        item(value[name], prefix + name)
  return check


def _name(value: Any, field: str) -> None:
  plain_name(value, field)


def _shard(value: Any, field: str) -> None:
  parse_shard(value, field)


def _format(value: Any, field: str) -> None:
  if value not in READABLE:
    _fail(field, value, f"one of {', '.join(READABLE)} (a campaign of this version)")


def _test_file(value: Any, field: str) -> None:
  """A path whose last component, the one `merge` looks for below the shard, is a plain name."""
  if not isinstance(value, str):
    _fail(field, value, "a path")
  plain_name(os.path.basename(value), field + "'s file name")


_COUNT = _integer(0)
_TEXT = _of_type(str, "a string")
_TEXTS = _list_of(_TEXT)
FINDING = _object(
    {"signature": _name, "status": _TEXT, "backend": _TEXT, "key": _TEXT, "ops": _TEXTS,
     "hits": _COUNT, "first_module": _COUNT, "seed": _integer(), "test_file": _test_file,
     "confirmed": _of_type(bool, "true or false"), "agrees": _TEXTS},
    {"dispatch": _TEXT, "variants": _TEXTS})
_GENERATION = _object({}, {
    "shapes": _TEXT, "special_values": _number(0, 1), "stateful": _number(0, 1),
    "states": _TEXTS, "functions_per_module": _integer(1), "dynamic_sizes": _list_of(_COUNT)})
_UNFINISHED = _object({}, {"hits": _COUNT, "precision": _COUNT,
                           "finding_hits": _map_of(_TEXT, _COUNT)})
CAMPAIGN = _object(
    {"format": _format, "seed": _integer(), "ops": _TEXTS, "targets": _TEXTS, "modules": _COUNT,
     "functions": _COUNT, "hits": _COUNT, "precision": _COUNT, "seconds": _number(0),
     "findings": _list_of(FINDING)},
    {"shard": _shard, "generation": _GENERATION, "aliases": _map_of(_TEXT, _name),
     "merged_from": _TEXTS, "unfinished": _UNFINISHED})


def check(data: Any) -> Dict[str, Any]:
  """`data` (a parsed findings.json) when every field has its type; SchemaError naming the first
  field that does not. Signatures are unique: a second row of one would be dropped silently."""
  if not isinstance(data, dict):
    raise SchemaError(f"the file holds {_kind(data)} {_shown(data)}, expected an object of a "
                      "campaign's fields")
  CAMPAIGN(data, "")
  unfinished = data.get("unfinished") or {}
  if unfinished and set(unfinished) != {"hits", "precision", "finding_hits"}:
    raise SchemaError("unfinished is neither {} nor the counts hits, precision, finding_hits")
  seen = set()
  for i, entry in enumerate(data["findings"]):
    if entry["signature"] in seen:
      raise SchemaError(f"findings[{i}].signature {entry['signature']!r} is listed twice")
    seen.add(entry["signature"])
  return data
