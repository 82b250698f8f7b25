"""Under pytest too, a module that does not compile shows its error once per class and backend
(issue 30 item 5): each test's item for the backend repeated the whole error and the
per-method list; now the first failing item holds it and a later one names that item (real TF
and iree-compile on vmvx, which cannot lower erf). pytest runs in this process (`pytester`):
what is checked is the items' failure messages, not the process."""

import re
import sys

import pytest

from tests.harness.class_failure_message_test import TEST_FILE
from tests.support import in_process_pytest

pytest_plugins = ("pytester",)


@pytest.fixture
def runs(pytester, monkeypatch):
  with in_process_pytest.library_state_restored():
    yield in_process_pytest.InProcessPytest(pytester, monkeypatch)


def test_the_second_item_points_at_the_first(runs):
  runs.write("none_compile_test.py", TEST_FILE.format(name="PytestNone", extra=""))
  result = runs.run("none_compile_test.py", "--target_backends=iree_vmla", "--compile_cache=false")
  out = result.stdout.str()
  # The short summary at the end repeats test_a's message: its first line, or all of it when
  # pytest sees $CI set (as the project's CI does), so the failures are read from before it.
  body = re.split(r"^=+ short test summary info =+$", out, flags=re.M)[0]
  failures = re.split(r"^_{5,} .* _{5,}$", body, flags=re.M)[1:]
  assert len(failures) == 3, out
  assert "the whole module did not compile" in failures[0]
  assert "failed to legalize operation" in failures[0]
  for failure in failures[1:]:
    assert "failed to legalize operation" not in failure
    assert re.search(r"iree_vmla: COMPILE ERROR\n  the same error as test_a's item "
                     r"above \(whole in report\.txt\)", failure)


if __name__ == "__main__":  # as Bazel runs it: the library is imported before pytest starts.
  sys.exit(pytest.main([__file__, "-p", "no:cacheprovider", "-W",
                        "ignore::pytest.PytestAssertRewriteWarning"]))
