"""Expected failures under the pytest plugin, judged per (class, backend) as Bazel's failing suite
judges a file: a listed backend's items whose traces failed there are xfails; at its last item of
the class, `expected_failures.judge` gives the class's verdict on the backend, as tearDownClass
does outside pytest (XPASS and WRONG PHASE fail that item, XFAIL logs its line)."""

from typing import Dict, Optional, Sequence

from absl import logging

from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.expected_failures import Verdict


class ListedBackends:
  """Counts the finished items of each listed backend of one test class."""

  def __init__(self, class_name: str, items_per_backend: Dict[str, int]):
    self._class_name = class_name
    self._items_left = dict(items_per_backend)

  def finish_item(self, backend: str, expected: expected_failures.ExpectedFailure,
                  outcomes: Sequence[verdicts.Outcome]) -> Optional[str]:
    """Counts one finished item of `backend`; at its last one, the class's verdict there: the
    error that fails that item (XPASS, WRONG PHASE), or None. `outcomes`: the class's raw outcomes
    so far. A failure as listed is logged in one line, as tearDownClass does."""
    self._items_left[backend] = self._items_left.get(backend, 1) - 1
    if self._items_left[backend] > 0:
      return None
    judged = expected_failures.judge(backend, expected, outcomes)
    if judged.verdict is Verdict.XPASS:  # pytest's own words for a strict xfail that passed.
      return f"[XPASS(strict)] {expected.reason}\n{judged.message(self._class_name)}"
    if judged.verdict is Verdict.WRONG_PHASE:
      return f"{judged.message(self._class_name)}\nlisted reason: {expected.reason}"
    if judged.verdict is Verdict.XFAIL:
      logging.info("%s", judged.message(self._class_name))
    return None
