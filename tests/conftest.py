"""The test tiers (tests/support/tiers.py decides a file's markers): `--tier=fast` collects only
the files marked neither `slow` nor anything that makes them slow, without importing the others,
so that it pays no TensorFlow import; `--tier=slow` collects the rest. Every test is in exactly
one tier, and `pytest tests/` still runs both.

A fast-tier file or test that imports TensorFlow anyway fails, naming itself: the rule reads
module-level imports, and an import it cannot see (inside a function, in a library function the
test calls) would otherwise make the fast tier slow without anybody noticing.
"""

import fnmatch
import sys

import pytest

from tests.support import tiers

TIERS = ("fast", "slow")


def pytest_addoption(parser):
  parser.addoption("--tier", choices=TIERS, default=None,
                   help="fast: only test files that import no TensorFlow, start no process and "
                        "run no Bazel (tests/support/tiers.py); slow: the others.")


def _is_test_file(path, config) -> bool:
  """Whether pytest collects `path` as a test file (pytest.ini's `python_files`)."""
  return path.suffix == ".py" and any(fnmatch.fnmatch(path.name, pattern)
                                      for pattern in config.getini("python_files"))


def pytest_ignore_collect(collection_path, config):
  tier = config.getoption("tier")
  if tier is None or not _is_test_file(collection_path, config):
    return None
  slow = tiers.SLOW in tiers.markers_of(str(collection_path))
  return True if slow != (tier == "slow") else None


def pytest_itemcollected(item):
  for marker in sorted(tiers.markers_of(str(item.path))):
    item.add_marker(marker)


def _imported_tensorflow_unmarked(path) -> bool:
  return "tensorflow" in sys.modules and "tensorflow" not in tiers.markers_of(str(path))


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
  before = "tensorflow" in sys.modules
  report = yield
  if (not before and isinstance(collector, pytest.Module)
      and _imported_tensorflow_unmarked(collector.path) and report.outcome == "passed"):
    report.outcome = "failed"
    report.longrepr = (f"importing {collector.path} imported TensorFlow, which the tier rule "
                       "(tests/support/tiers.py) did not see: it would make the fast tier pay it")
  return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
  before = "tensorflow" in sys.modules
  result = yield
  if not before and _imported_tensorflow_unmarked(item.path):
    raise AssertionError(f"{item.nodeid} imported TensorFlow, which the tier rule "
                         "(tests/support/tiers.py) did not see in its file: mark the file "
                         "(`pytestmark = pytest.mark.tensorflow`) or import no TensorFlow")
  return result
