"""pytest run in this process (`pytester`) on test files a test writes, as a user runs it in a
directory of their own: the library's plugin and its flags as options, no conftest of this repo.

A fresh `python -m pytest` starts with no flag parsed, no $PYIREE_TF_SUPPORT_FLAGS but its own,
and reads each BUILD.bazel once. A run in this process shares its absl flags, environment and
caches, so `InProcessPytest.run` resets those before each run and `library_state_restored`
puts the test process's back afterwards. pytester also drops every module a run imported for
the first time (so that two runs can each import their own `mul_test.py`); a second copy of IREE's
runtime or of numpy's random extensions in one process is not what a user runs, so what the
library imports lazily is imported here up front, and a run that imports such a module anyway
fails naming it.

What a subprocess is still needed for: exit statuses and the whole output of a command, what
reaches the terminal's file descriptor past pytest's capture, signals, and absltest runs.
"""

import contextlib
import os
import sys
from types import ModuleType
from typing import Dict, Iterator, List

from absl.testing import flagsaver

# Imported lazily during a run (MLIR's op classes when the float64 judge first walks a module,
# the runtime on the first call, numpy.random by seeding, tensorflow.compat.v2 by 2020's test
# files); pytester would drop them after each run.
import iree.compiler.dialects.builtin  # noqa: F401
import iree.compiler.dialects.func  # noqa: F401
import iree.compiler.extras.meta  # noqa: F401
import iree.runtime  # noqa: F401
import numpy.random  # noqa: F401
import pytest
import tensorflow.compat.v2  # noqa: F401

from pyiree_tf_support import cli_flags
from pyiree_tf_support import pytest_plugin
from pyiree_tf_support import tf_test_utils  # noqa: F401  (TensorFlow and the harness)

# The float64 judge of a float mismatch, imported by the session when one is judged.
from pyiree_tf_support.localizing import reference_f64  # noqa: F401
from pyiree_tf_support.reporting.expected_failures import lists

PLUGIN = pytest_plugin.__name__
# Packages of which one process must hold one copy: a run importing one of their modules first
# leaves the next run a second copy (classes that are not the first's, extensions set up twice).
ONE_COPY = ("iree", "numpy", "tensorflow", "keras", "tf_keras", "pyiree_tf_support", "jaxlib")


@contextlib.contextmanager
def library_state_restored() -> Iterator[None]:
  """The test process's absl flags (values, and whether they were parsed) after the block, as
  before it: a run parses its own."""
  parsed = cli_flags.FLAGS.is_parsed()
  with flagsaver.flagsaver():
    try:
      yield
    finally:
      cli_flags.FLAGS.unparse_flags()
  if parsed:
    cli_flags.FLAGS.mark_as_parsed()


class _Modules:
  """A plugin of the run recording which modules it imported, before pytester drops them."""

  def __init__(self):
    self.before = set(sys.modules)
    self.imported: List[str] = []

  def pytest_unconfigure(self):
    self.imported = sorted(set(sys.modules) - self.before)


class InProcessPytest:
  """Test files written into `pytester`'s directory and pytest runs on them in this process."""

  def __init__(self, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch):
    self.pytester = pytester
    self.monkeypatch = monkeypatch
    self.dir = str(pytester.path)
    self.log = os.path.join(self.dir, "trace.log")  # MUL_TEST's traces write their backend.
    monkeypatch.setenv("TRACE_LOG", self.log)
    monkeypatch.setenv("TF_CPP_MIN_LOG_LEVEL", "2")
    # A file rewritten within a second keeps its size at times: no stale bytecode of it.
    monkeypatch.setattr(sys, "dont_write_bytecode", True)

  def write(self, name: str, text: str) -> str:
    path = os.path.join(self.dir, name)
    with open(path, "w") as f:
      f.write(text)
    return path

  def run(self, *args: str, cache: bool = False) -> pytest.RunResult:
    """`pytest -p <plugin> args` in the directory, with its own artifacts dir and a compile
    cache shared by the tests (`cache`: with pytest's cache, for --lf)."""
    # The plugin adds a run's flags to it; set (not deleted), the test's end restores the outer
    # process's value, whatever a run left.
    self.monkeypatch.setenv(cli_flags.ENV_VAR, "")
    cli_flags.FLAGS.unparse_flags()
    lists.failing_by_backend.cache_clear()  # a BUILD.bazel rewritten since the last run.
    modules = _Modules()
    no_cache = () if cache else ("-p", "no:cacheprovider")
    hidden = self._hide_same_named_modules()
    try:
      result = self.pytester.runpytest_inprocess(
          "-p", PLUGIN, *no_cache, *args, f"--artifacts_dir={self.dir}/artifacts",
          f"--compile_cache_dir={os.path.join(os.path.dirname(self.dir), 'plugin_test_cache')}",
          plugins=[modules])
    finally:
      sys.modules.update(hidden)
    shared = [m for m in modules.imported if m.split(".")[0] in ONE_COPY]
    assert not shared, (f"the run imported {shared} for the first time: import them in "
                        "tests/support/in_process_pytest.py, or the next run gets a second copy")
    return result

  def _hide_same_named_modules(self) -> Dict[str, ModuleType]:
    """Modules of this process named as a file of the directory (tests/core/phases_test.py is
    `phases_test` under xdist), taken out of sys.modules for a run: pytest imports a test file
    by its basename and refuses one whose name another file already holds."""
    hidden = {}
    for entry in os.listdir(self.dir):
      name, extension = os.path.splitext(entry)
      held = sys.modules.get(name)
      if extension == ".py" and held is not None and not _inside(held, self.dir):
        hidden[name] = sys.modules.pop(name)
    return hidden

  def traced_backends(self) -> List[str]:
    """The backends MUL_TEST's trace ran on, in order."""
    with open(self.log) as f:
      return f.read().split()


def _inside(module: ModuleType, directory: str) -> bool:
  path = getattr(module, "__file__", None) or ""
  return os.path.abspath(path).startswith(os.path.join(os.path.abspath(directory), ""))
