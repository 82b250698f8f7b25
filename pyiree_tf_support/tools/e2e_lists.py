"""The e2e suites as data: backends, known failures, files and Bazel test names.

The known failures are the `FAILING` dict literal of e2e/BUILD.bazel (the source of truth):
`{backend: {"foo_test.py": ("<phase>", "reason")}}`, read by `reporting.expected_failures`.
The backends are the backend table's (`pyiree_tf_support/core/backends.py`), by the name the e2e
tests use.
"""

import os
from typing import Tuple

from pyiree_tf_support.core import backends
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.tools import source_tree

ROOT = source_tree.ROOT
BUILD_FILE = os.path.join(ROOT, "e2e", "BUILD.bazel")
REFERENCE_BACKEND = "tf"


def e2e_backends() -> Tuple[str, ...]:
  """The backend of every row of the table, as its e2e tests name it (2020 names where they
  exist): the columns of the e2e coverage table."""
  return tuple(spec.e2e_name for spec in backends.BACKENDS)


def default_backends() -> Tuple[str, ...]:
  """The backends every suite runs on (E2E_BACKENDS of backends.bzl): the table's rows but the
  opt-in ones (tflite), which only e2e/BUILD.bazel's suites add."""
  return tuple(spec.e2e_name for spec in backends.BACKENDS if spec.default_target)


def failing_by_backend(build_file: str = BUILD_FILE) -> expected_failures.Lists:
  """{backend: {file: ExpectedFailure(phase, reason)}} as e2e/BUILD.bazel declares it."""
  return expected_failures.read(build_file).lists


def test_name(suite: str, src: str, backend: str, reference: str = REFERENCE_BACKEND) -> str:
  """The Bazel test `iree_e2e_test_suite` makes for one file and backend (the 2020 naming)."""
  return f"{suite}_{os.path.basename(src)[:-len('.py')]}__{reference}__{backend}"


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
