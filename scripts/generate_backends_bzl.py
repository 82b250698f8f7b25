#!/usr/bin/env python3
"""Writes build_tools/bazel/backends.bzl, Bazel's view of the backend table in pyiree_tf_support/core/backends.py.

  .venv/bin/python scripts/generate_backends_bzl.py           # rewrite the file
  .venv/bin/python scripts/generate_backends_bzl.py --check   # exit 1 if it is stale

Starlark cannot import Python, so the table reaches Bazel as a generated file; tests/backends_test.py
fails when the checked-in file differs from what this script writes, so the two cannot drift.
"""

import argparse
import json
import os
import sys
from typing import Dict, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from pyiree_tf_support.core import backends  # pylint: disable=wrong-import-position

BZL_PATH = os.path.join(ROOT, "build_tools", "bazel", "backends.bzl")


def _list(values: Sequence[str]) -> str:
  return json.dumps(list(values))


def _dict(entries: Dict[str, str], indent: str = "    ") -> str:
  lines = [f"{indent}{json.dumps(key)}: {value}," for key, value in entries.items()]
  return "{\n" + "\n".join(lines) + "\n}"


def render(table: Sequence[backends.BackendSpec] = backends.BACKENDS) -> str:
  """The text of backends.bzl for a backend table."""
  names: Dict[str, backends.BackendSpec] = {
      name: spec for spec in table for name in (spec.name,) + spec.aliases}
  return "\n".join([
      "# GENERATED from pyiree_tf_support/core/backends.py by scripts/generate_backends_bzl.py: do not edit.",
      "# Regenerate after changing the table; tests/backends_test.py fails while this file is stale.",
      "",
      "# The name each backend's e2e tests use (the 2020 name where one exists), in table order.",
      f"E2E_BACKENDS = {_list(spec.e2e_name for spec in table)}",
      "",
      "# Every accepted backend name (canonical and 2020 alias) -> values of its `driver=` tag.",
      "BACKEND_TO_DRIVER_TAGS = " + _dict(
          {name: _list(spec.bazel_driver_tags) for name, spec in names.items()}),
      "",
      "# Backends whose tests default to timeout \"long\" (every name of a `slow` row).",
      f"SLOW_BACKENDS = {_list(name for name, spec in names.items() if spec.slow)}",
      "",
  ])


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--check", action="store_true", help="only report whether the file is current")
  args = parser.parse_args()
  text = render()
  current = open(BZL_PATH).read() if os.path.exists(BZL_PATH) else None
  if args.check:
    if current != text:
      print(f"{os.path.relpath(BZL_PATH, ROOT)} is stale: run scripts/generate_backends_bzl.py",
            file=sys.stderr)
      return 1
    return 0
  if current != text:
    with open(BZL_PATH, "w") as f:
      f.write(text)
    print(f"wrote {os.path.relpath(BZL_PATH, ROOT)}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
