"""`--xfail_backends` entries (`backend[:phase][@scope]`), and which expectation a test runs
under on a backend: the most specific scope (`scopes`) among its file's FAILING entries (the
pytest plugin reads them) and the flag's, FAILING first of equal ones. Bazel's failing suites
pass the flag from FAILING, one entry per listed scope, so absltest reads only the flag. An entry
without `@scope` covers every test the run holds, of every file."""

import dataclasses
from typing import List, Mapping, Optional, Sequence, Tuple

from pyiree_tf_support.core import backends
from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting.expected_failures import scopes
from pyiree_tf_support.reporting.expected_failures.lists import ExpectedFailure

FLAG_REASON = "--xfail_backends"  # the reason of an expectation that only the flag gives.
# (backend as named, phase or None: any, scope key or None: everything)
Entry = Tuple[str, Optional[phases.Phase], Optional[str]]
Entries = Sequence[Entry]
FAILING_SOURCE = "FAILING"


@dataclasses.dataclass(frozen=True)
class Listing:
  """The expectation a test runs under on a backend, and what it covers (the verdict's unit)."""
  scope: scopes.Scope
  expected: ExpectedFailure
  source: str  # FAILING_SOURCE or FLAG_REASON

  @property
  def label(self) -> str:
    """What the expectation covers, as written where it was listed."""
    return f"{self.source} {self.scope.key or 'every test'}"


def parse_xfail_entry(entry: str) -> Entry:
  """(backend, phase or None, scope key or None) of one --xfail_backends entry
  `backend[:phase][@scope]`; ValueError naming the entry and what is valid otherwise."""
  head, at, scope = entry.partition("@")
  backend, colon, phase = head.partition(":")
  if backends.find(backend) is None:
    raise ValueError(backends.unknown_backend_message(backend))
  where = f"--xfail_backends entry {entry!r}"
  key = scopes.parse(scope, where, file_optional=True).key if at else None
  return backend, (phases.parse(phase, where) if colon else None), key


def parse_xfail_entries(entries: Sequence[str]) -> Tuple[Entry, ...]:
  """Every entry of a --xfail_backends value, parsed (ValueError at the first bad one); a later
  entry of the same backend and scope replaces an earlier one."""
  parsed = {}
  for entry in entries:
    backend, phase, scope = parse_xfail_entry(entry)
    parsed[(backend, scope)] = (backend, phase, scope)
  return tuple(parsed.values())


def flag_entries(failing: Mapping[str, Mapping[str, ExpectedFailure]], file: str) -> List[str]:
  """The --xfail_backends entries that hold a test of `file` to its FAILING entries
  ({backend: {scope key: ExpectedFailure}}), as Bazel's failing suite passes them."""
  return [f"{backend}{':' + e.phase.value if e.phase else ''}@{key}"
          for backend, listed in failing.items() for key, e in sorted(listed.items())
          if key.split("::")[0] == file]


def expected_for(names: Sequence[str], failing: Mapping[str, Mapping[str, ExpectedFailure]],
                 entries: Entries, file: Optional[str], test_class: str,
                 method: Optional[str]) -> Optional[Listing]:
  """The expectation of test `method` of `test_class` in `file` (basename) on a backend known by
  `names` (artifact, typed, canonical name; `names[-1]` canonical, BackendInfo.names()): the most
  specific scope covering it among its file's FAILING entries (`failing`, {backend as BUILD.bazel
  names it: {scope key: entry}}) and --xfail_backends', FAILING first; None: neither lists it."""
  canonical = backends.lookup(names[-1]).name
  candidates = [(scopes.parse(key, FAILING_SOURCE), Listing(scopes.parse(key, FAILING_SOURCE),
                                                            expected, FAILING_SOURCE))
                for listed, keyed in failing.items() if backends.lookup(listed).name == canonical
                for key, expected in keyed.items()]
  for name in names:
    for backend, phase, key in entries:
      if backend == name:
        scope = scopes.EVERYTHING if key is None else scopes.parse(key, FLAG_REASON, True)
        candidates.append((scope, Listing(scope, ExpectedFailure(phase, FLAG_REASON),
                                          FLAG_REASON)))
  best = scopes.most_specific(candidates, file, test_class, method)
  return None if best is None else best[1]
