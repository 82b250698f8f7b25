"""Writes build_tools/bazel/backends.bzl, Bazel's view of the backend table in
pyiree_tf_support/core/backends.py.

  .venv/bin/python -m pyiree_tf_support.tools.generate_backends_bzl           # rewrite the file
  .venv/bin/python -m pyiree_tf_support.tools.generate_backends_bzl --check   # exit 1 if stale

Starlark cannot import Python, so the table reaches Bazel as a generated file;
tests/core/backends_test.py fails when the checked-in file differs from what this tool writes, so
the two cannot drift.
"""

import argparse
import json
import os
import sys
from typing import Dict, Iterable, Optional, Sequence

from pyiree_tf_support.core import backends
from pyiree_tf_support.tools import source_tree

TOOL = "python -m pyiree_tf_support.tools.generate_backends_bzl"
BZL_PATH = os.path.join(source_tree.ROOT, "build_tools", "bazel", "backends.bzl")


def _list(values: Iterable[str]) -> str:
  return json.dumps(list(values))


def _dict(entries: Dict[str, str], indent: str = "    ") -> str:
  lines = [f"{indent}{json.dumps(key)}: {value}," for key, value in entries.items()]
  return "{\n" + "\n".join(lines) + "\n}"


def render(table: Sequence[backends.BackendSpec] = backends.BACKENDS) -> str:
  """The text of backends.bzl for a backend table."""
  names: Dict[str, backends.BackendSpec] = {
      name: spec for spec in table for name in (spec.name,) + spec.aliases}
  return "\n".join([
      "# GENERATED from pyiree_tf_support/core/backends.py: do not edit. After changing the table,",
      f"# regenerate with `{TOOL}`;",
      "# tests/core/backends_test.py fails while this file is stale.",
      "",
      "# The name each backend's e2e tests use (the 2020 name where one exists), in table order:",
      "# every suite runs on these.",
      f"E2E_BACKENDS = {_list(spec.e2e_name for spec in table if spec.default_target)}",
      "",
      "# Rows that are no default target (`default_target=False`): a suite runs on them only when",
      "# it names them (e2e/BUILD.bazel's e2e suites do).",
      f"OPT_IN_BACKENDS = {_list(spec.e2e_name for spec in table if not spec.default_target)}",
      "",
      "# Every accepted backend name (canonical and 2020 alias) -> values of its `driver=` tag.",
      "BACKEND_TO_DRIVER_TAGS = " + _dict(
          {name: _list(spec.bazel_driver_tags) for name, spec in names.items()}),
      "",
      "# Backends whose tests default to timeout \"long\" (every name of a `slow` row).",
      f"SLOW_BACKENDS = {_list(name for name, spec in names.items() if spec.slow)}",
      "",
  ])


def main(argv: Optional[Sequence[str]] = None) -> int:
  parser = argparse.ArgumentParser(prog=TOOL, description=(__doc__ or "").split("\n\n")[0])
  parser.add_argument("--check", action="store_true",
                      help="only report whether the file is current")
  args = parser.parse_args(argv)
  root = source_tree.checkout_root(TOOL)
  text = render()
  current = open(BZL_PATH).read() if os.path.exists(BZL_PATH) else None
  if args.check:
    if current != text:
      print(f"{os.path.relpath(BZL_PATH, root)} is stale: run {TOOL}", file=sys.stderr)
      return 1
    return 0
  if current != text:
    with open(BZL_PATH, "w") as f:
      f.write(text)
    print(f"wrote {os.path.relpath(BZL_PATH, root)}")
  return 0


if __name__ == "__main__":
  sys.exit(main())
