"""Expected failures under the pytest plugin, judged per (class, backend) as Bazel's failing suite
judges a file: a listed backend's failing items are xfails; at its last item of the class, passing
every item is an XPASS and failing first in another phase than listed a wrong-phase failure, both
decided by `verdicts.check_expected_failure` as tearDownClass decides them outside pytest."""

from typing import Dict, Optional, Sequence, Set

from absl import logging

from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import verdicts


class ListedBackends:
  """Counts the finished items of each listed backend of one test class."""

  def __init__(self, class_name: str, items_per_backend: Dict[str, int]):
    self._class_name = class_name
    self._items_left = dict(items_per_backend)
    self._failed_on: Set[str] = set()

  def finish_item(self, backend: str, failed: bool, expected: expected_failures.ExpectedFailure,
                  outcomes: Sequence[verdicts.Outcome]) -> Optional[str]:
    """Counts one finished item of `backend`; at its last one, what fails that item (None: it
    stands): an XPASS or a failure in another phase than listed. `outcomes`: the class's raw
    outcomes so far. A failure as listed is logged in one line, as tearDownClass does."""
    if failed:
      self._failed_on.add(backend)
    self._items_left[backend] = self._items_left.get(backend, 1) - 1
    if self._items_left[backend] > 0:
      return None
    if backend not in self._failed_on:
      return (f"[XPASS(strict)] {expected.reason}\n{backend} is listed as failing for "
              f"{self._class_name}, but every one of its tests passed there")
    check = verdicts.check_expected_failure(backend, expected.phase, outcomes)
    if check.wrong_phase:
      return f"{check.message(self._class_name)}\nlisted reason: {expected.reason}"
    if check.observed is not None:
      logging.info("%s", check.message(self._class_name))
    return None
