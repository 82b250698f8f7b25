"""Expected failures under the pytest plugin, judged per (class, backend, listing) as Bazel's
failing suite judges a file: a listed backend's items whose traces failed there are xfails; at the
last item a listing covers in the class (a file's or class's entry: every method of the class; a
method's entry: that method), `expected_failures.judge` gives its verdict over those methods, as
tearDownClass does outside pytest (XPASS and WRONG PHASE fail that item, XFAIL logs its line)."""

import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

from absl import logging

from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting.expected_failures import Listing
from pyiree_tf_support.reporting.expected_failures import Verdict

Group = Tuple[str, Listing]  # (backend, listing)


class ListedBackends:
  """Counts the finished items of each (listed backend, listing) of one test class."""

  def __init__(self, class_name: str, listed_items: Dict[Group, List[str]]):
    """`listed_items`: the test methods of the selected items of each group."""
    self._class_name = class_name
    self._methods = {group: frozenset(methods) for group, methods in listed_items.items()}
    self._items_left = {group: len(methods) for group, methods in listed_items.items()}

  def finish_item(self, backend: str, listing: Listing, compared: Sequence) -> Optional[str]:
    """Counts one finished item of `backend` under `listing`; at the group's last one, its
    verdict there: the error that fails that item (XPASS, WRONG PHASE), or None. `compared`: the
    class's compared traces so far (session.ComparedTrace, raw outcomes). A failure as listed
    is logged in one line, as tearDownClass does."""
    group = (backend, listing)
    self._items_left[group] = self._items_left.get(group, 1) - 1
    if self._items_left[group] > 0:
      return None
    methods = self._methods.get(group, frozenset())
    outcomes = [o for c in compared if c.method in methods for o in c.outcomes]
    judged = expected_failures.judge(backend, listing.expected, outcomes)
    reason, covered = listing.expected.reason, f"listed: {listing.label}"
    if judged.verdict is Verdict.XPASS:  # pytest's own words for a strict xfail that passed.
      return f"[XPASS(strict)] {reason}\n{judged.message(self._class_name)}\n{covered}"
    if judged.verdict is Verdict.WRONG_PHASE:
      return f"{judged.message(self._class_name)}\nlisted reason: {reason}\n{covered}"
    if judged.verdict is Verdict.XFAIL:
      logging.info("%s", dataclasses.replace(judged, covered=listing.label).message(
          self._class_name))
    return None
