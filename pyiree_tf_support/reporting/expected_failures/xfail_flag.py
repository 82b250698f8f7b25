"""`--xfail_backends` entries (`backend[:phase]`), and which expectation a backend runs under:
its file's FAILING entry (the pytest plugin), else the flag's (the flag is defined in cli_flags;
Bazel's failing suites pass it from FAILING, so absltest reads only the flag)."""

from typing import Mapping, Optional, Sequence, Tuple

from pyiree_tf_support.core import backends
from pyiree_tf_support.core import phases
from pyiree_tf_support.reporting.expected_failures.lists import ExpectedFailure

FLAG_REASON = "--xfail_backends"  # the reason of an expectation that only the flag gives.
Entries = Sequence[Tuple[str, Optional[phases.Phase]]]  # (backend as named, phase or None: any)


def parse_xfail_entry(entry: str) -> Tuple[str, Optional[phases.Phase]]:
  """(backend, phase or None) of one --xfail_backends entry `backend[:phase]`; ValueError naming
  the entry and what is valid otherwise."""
  backend, colon, phase = entry.partition(":")
  if backends.find(backend) is None:
    raise ValueError(backends.unknown_backend_message(backend))
  if not colon:
    return backend, None
  return backend, phases.parse(phase, f"--xfail_backends entry {entry!r}")


def parse_xfail_entries(entries: Sequence[str]) -> Tuple[Tuple[str, Optional[phases.Phase]], ...]:
  """Every entry of a --xfail_backends value, parsed (ValueError at the first bad one)."""
  return tuple(dict(parse_xfail_entry(entry) for entry in entries).items())


def listed_by_flag(entries: Entries, names: Sequence[str]) -> Optional[ExpectedFailure]:
  """The expectation --xfail_backends gives a backend known by any of `names` (artifact, typed
  or canonical name); its phase is the first of `names` listed with one. None: not listed."""
  listed = dict(entries)
  if not any(name in listed for name in names):
    return None
  return ExpectedFailure(next((listed[n] for n in names if listed.get(n) is not None), None),
                         FLAG_REASON)


def expected_for(names: Sequence[str], failing: Mapping[str, ExpectedFailure],
                 entries: Entries) -> Optional[ExpectedFailure]:
  """A backend's expectation in a file: its entry in the file's FAILING lists (`failing`,
  {backend as BUILD.bazel names it: entry}), else --xfail_backends'; None when neither lists it.
  `names[-1]` is the backend's canonical name (BackendInfo.names())."""
  for listed, expected in failing.items():
    if backends.lookup(listed).name == backends.lookup(names[-1]).name:
      return expected
  return listed_by_flag(entries, names)
