"""Under pytest too, a class-level failure is shown once per class and backend: each test's item
for the backend repeated the whole module's error and the per-method list. Now, when no method
compiles, each item names its own method's cause in one line (as absltest's messages do), and a
failure of several lines a backend's items share (a TF import error every function shares) is
whole in the first item, a later one naming it (real TF and iree-compile on vmvx, which cannot
lower erf; e2e/variable_scatter_test.py, which TF cannot import). pytest runs in this process
(`pytester`): what is checked is the items' failure messages, not the process."""

import os
import re
import sys

import pytest

from tests.harness.class_failure_message_test import TEST_FILE
from tests.support import in_process_pytest
from tests.support.repo import ROOT

pytest_plugins = ("pytester",)


@pytest.fixture
def runs(pytester, monkeypatch):
  with in_process_pytest.library_state_restored():
    yield in_process_pytest.InProcessPytest(pytester, monkeypatch)


def _failures(runs, test_file):
  result = runs.run(test_file, "--target_backends=iree_vmla", "--compile_cache=false")
  out = result.stdout.str()
  # The short summary at the end repeats test_a's message: its first line, or all of it when
  # pytest sees $CI set (as the project's CI does), so the failures are read from before it.
  body = re.split(r"^=+ short test summary info =+$", out, flags=re.M)[0]
  return re.split(r"^_{5,} .* _{5,}$", body, flags=re.M)[1:], out


def test_each_item_names_its_own_method_when_none_compiles(runs):
  runs.write("none_compile_test.py", TEST_FILE.format(name="PytestNone", extra=""))
  failures, out = _failures(runs, "none_compile_test.py")
  assert len(failures) == 3, out
  for failure, method in zip(failures, ("erf", "erf2", "erf")):
    assert "compiled alone" not in failure
    assert re.search(rf"iree_vmla: COMPILE ERROR\n  call 0 \({method}\): method "
                     rf"'{method}' did not compile for iree_vmla: .*failed to legalize operation",
                     failure), failure


def test_the_second_item_points_at_the_first(runs):
  # A copy: beside e2e/BUILD.bazel, which lists it, its failures are xfails pytest hides.
  with open(os.path.join(ROOT, "e2e", "variable_scatter_test.py")) as f:
    runs.write("variable_scatter_test.py", f.read())
  failures, out = _failures(runs, "variable_scatter_test.py")
  assert len(failures) == 3, out
  assert "ResourceScatterNdUpdate" in failures[0]
  for failure in failures[1:]:
    assert "ResourceScatterNdUpdate" not in failure
    assert re.search(r"iree_vmla: IMPORT ERROR\n  the same error as test_\w+'s "
                     r"item above \(whole in report\.txt\)", failure), failure


if __name__ == "__main__":  # as Bazel runs it: the library is imported before pytest starts.
  sys.exit(pytest.main([__file__, "-p", "no:cacheprovider", "-W",
                        "ignore::pytest.PytestAssertRewriteWarning"]))
