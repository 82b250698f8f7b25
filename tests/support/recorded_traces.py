"""Reference traces recorded the way a test run records them, for the localizer's tests.

One home for what those tests repeat: a TracedModuleTestCase made for one module and one trace
function (made in a function, so no test runner collects it), run once with the library's
flags, leaving the module's artifacts (reference trace, iree_input.mlir) in a directory; and
the localize command run on one of them.
"""

import io
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Callable, Sequence, Tuple
import unittest

from absl.testing import flagsaver

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils


def case(module_class: type, trace_function: Callable) -> type:
  """A test class comparing `trace_function` on `module_class` across the flags' backends."""

  @tf_test_utils.compile_module(module_class)
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  return Case


def record(artifacts_dir: str, module_class: type, trace_function: Callable,
           backends: Sequence[str] = ("iree_llvmcpu",)) -> Tuple[str, unittest.TestResult]:
  """Runs the case on `backends` into `artifacts_dir`: (its reference trace dir, the result)."""
  with flagsaver.flagsaver(artifacts_dir=artifacts_dir, target_backends=list(backends)):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(case(module_class, trace_function))
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
  return (os.path.join(artifacts_dir, module_class.__name__, "traces",
                       trace_function.__name__ + "__tf_ref"), result)


def localize(trace_dir: str, backend: str, *extra: str) -> subprocess.CompletedProcess:
  """`python -m pyiree_tf_support.localize` on `trace_dir` for `backend` (its verdict on stdout);
  AssertionError with its stderr's tail unless it exits 0."""
  completed = subprocess.run(
      [sys.executable, "-m", "pyiree_tf_support.localize", trace_dir,
       f"--target_backends={backend}", *extra],
      capture_output=True, text=True, check=False, timeout=900)
  if completed.returncode != 0:
    raise AssertionError(f"localize failed ({completed.returncode}): {completed.stderr[-3000:]}")
  return completed


class RecordedTraces:
  """A test class mixin (before its TestCase base) that records the reference traces of CASES
  ((module class, trace function[, backends, passes]), ...) once for the class into a
  temporary artifacts dir, which goes with the class. `trace_dirs` maps each module class's
  name and each trace function's name to its reference trace dir (a name two cases share is
  ambiguous: use the other); `results` maps the latter to the run's result. `passes` (default
  None: either) is whether the run must pass."""

  CASES: Sequence[tuple] = ()

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.artifacts_dir = tempfile.mkdtemp()
    cls.trace_dirs, cls.results = {}, {}
    for module_class, trace_function, *rest in cls.CASES:
      backends = rest[0] if rest else ("iree_llvmcpu",)
      passes = rest[1] if len(rest) > 1 else None
      trace_dir, result = record(cls.artifacts_dir, module_class, trace_function, backends)
      assert not result.errors, result.errors
      assert passes is None or result.wasSuccessful() == passes, (
          module_class.__name__, result.failures)
      cls.trace_dirs[module_class.__name__] = trace_dir
      cls.trace_dirs[trace_function.__name__] = trace_dir
      cls.results[trace_function.__name__] = result

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.artifacts_dir, ignore_errors=True)
    super().tearDownClass()
