"""The maintainers' tools, each run as `python -m pyiree_tf_support.tools.<tool>` from a source
checkout of the repository (an editable install: the tools that read or write e2e/, docs/ or
build_tools/ find the repository from this package's location, `source_tree`):

- `update_e2e_coverage`: docs/e2e_coverage.md (and .html) from a Bazel run of the e2e suites;
  with `--update_lists`, the FAILING lists of e2e/, e2e/keras/ and e2e/generated/ rewritten from
  a real run (`update_lists`: the command, `list_updates`: its rules); with a BUILD_DIR, the 2020
  table; with `--section=e2e/generated` or `--section=e2e/keras/applications`, the page's
  section of that suite, a row per test class or model file (`suite_sections`); the tables and
  their numbered notes are written by `noted_tables`. Its Bazel commands run in a
  `bazel_session`: its own output base (or --output_base), and the server it started shut down
  when it ends.
- `check_suite_verdicts`: whether a `pytest e2e/` JUnit XML (and a Bazel run) reached the
  verdicts the FAILING lists expect.
- `make_repros`: e2e/repros/, a standalone reproduction of every listed IREE failure, from a
  run's artifacts (`repro_layout`: where each is kept and the backends' indexes,
  `repro_templates`: the files' text, `repro_values`: inputs, outputs and the driver module);
  `--check` runs them all.
- `generate_backends_bzl`: build_tools/bazel/backends.bzl from the backend table.
- `e2e_lists`: the e2e suites as data (backends, lists, Bazel test names) for the others.
- `source_tree`: where the repository is, and the one-line error when there is none.
- `test_summary`: the last two lines of scripts/test.sh (what the unit tests' two tiers and the
  Bazel suites reported, added up; a crashed pytest is named with its run and exit status, never
  "0 failed").

The FAILING lists are read and rewritten by `reporting.expected_failures`, report.json files read
by `reporting.run_results`: the tools import them, as the library does.

Import rule: the top layer; nothing in the package imports it.
"""

import sys
from typing import Sequence

# The modules run as commands; the others are shared by them (`not_a_command`).
COMMANDS = ("check_suite_verdicts", "generate_backends_bzl", "make_repros", "test_summary",
            "update_e2e_coverage", "update_lists")


def not_a_command(module: str, argv: Sequence[str]) -> int:
  """What a shared module run with `python -m` does: one line naming the commands; exit status 0
  for --help, else 2."""
  print(f"{module} is not a command (the tools' commands share it); the commands: "
        + ", ".join(f"python -m {__name__}.{c}" for c in COMMANDS) + " (each answers --help).",
        file=sys.stderr)
  return 0 if any(a in ("-h", "--help", "--helpfull") for a in argv[1:]) else 2
