"""What an expected failure covers: a whole test file, one test class of it, or one test method,
written `file_test.py`, `file_test.py::Class` or `file_test.py::Class::test_method` (a FAILING
key, and the `@scope` of a --xfail_backends entry, where the file may be left out: `Class`,
`Class::test_method`). The most specific scope covering a test is the one it runs under, so a
per-method entry takes one method out of its class's entry, and a per-class one out of its file's.
"""

import dataclasses
from typing import Iterable, Optional, Tuple, TypeVar

SCOPES = ('"file_test.py" (every class of the file), "file_test.py::Class" or '
          '"file_test.py::Class::test_method"')
T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class Scope:
  """The tests an expected failure covers; None parts match anything (only `file` may be None
  while a deeper part is set: a --xfail_backends scope without a file)."""
  file: Optional[str]
  test_class: Optional[str] = None
  method: Optional[str] = None

  @property
  def key(self) -> str:
    return "::".join(p for p in (self.file, self.test_class, self.method) if p is not None)

  @property
  def depth(self) -> int:
    """How specific the scope is: 0 everything, 1 a file, 2 a class, 3 a method."""
    if self.method is not None:
      return 3
    if self.test_class is not None:
      return 2
    return 0 if self.file is None else 1

  def covers(self, file: Optional[str], test_class: str, method: Optional[str] = None) -> bool:
    """Whether the test `method` of `test_class` in `file` (basename; None: unknown) is in scope;
    method None asks about the class as a whole."""
    return ((self.file is None or self.file == file)
            and (self.test_class is None or self.test_class == test_class)
            and (self.method is None or self.method == method))


EVERYTHING = Scope(None)


def parse(key: str, where: str, file_optional: bool = False) -> Scope:
  """The scope `key` names; ValueError naming `where` and the valid shapes otherwise."""
  parts = key.split("::")
  if not file_optional or parts[0].endswith(".py"):
    if not parts[0].endswith(".py") or len(parts) > 3 or not all(parts) or "/" in parts[0]:
      raise ValueError(f"{where}: {key!r} names no test file scope; valid: {SCOPES}")
    return Scope(*parts)
  if len(parts) > 2 or not all(parts):
    raise ValueError(f"{where}: scope {key!r} is not Class or Class::test_method, nor one of "
                     f"{SCOPES}")
  return Scope(None, *parts)


def most_specific(candidates: Iterable[Tuple[Scope, T]], file: Optional[str], test_class: str,
                  method: Optional[str]) -> Optional[Tuple[Scope, T]]:
  """The candidate of the most specific scope covering the test (the first of equal ones)."""
  best = None
  for scope, value in candidates:
    if scope.covers(file, test_class, method) and (best is None or scope.depth > best[0].depth):
      best = (scope, value)
  return best
