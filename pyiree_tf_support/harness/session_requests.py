"""What the pytest plugin asks of a test class's session: only some targets, progress lines on
its terminal, each backend judged by its own item.

The plugin cannot call `open_session` itself: a class's own setUpClass (whatever it overrides
and sets up around the session) must run as under absltest. So it runs `setUpClass()` within
`requested(case_class, ...)`, and the class's session is opened with `of(case_class)`. No
TensorFlow here: the plugin imports it before any test file is collected.
"""

import contextlib
import dataclasses
from typing import Dict, Iterator, Optional, Tuple

from pyiree_tf_support.core import progress as progress_lib


@dataclasses.dataclass(frozen=True)
class SessionRequest:
  """How a class's session is opened: `only_targets` (None: every planned target) are set up,
  long steps report to `progress`, and with `per_backend` nothing fails in the class: one pytest
  item per backend judges the session's `compared` traces."""
  only_targets: Optional[Tuple[str, ...]] = None
  progress: Optional[progress_lib.Progress] = None
  per_backend: bool = False


_REQUESTS: Dict[type, SessionRequest] = {}


@contextlib.contextmanager
def requested(case_class: type, request: SessionRequest) -> Iterator[None]:
  """Within it, `case_class.setUpClass()` opens its session as `request` says."""
  _REQUESTS[case_class] = request
  try:
    yield
  finally:
    _REQUESTS.pop(case_class, None)


def of(case_class: type) -> SessionRequest:
  """What was asked of `case_class`'s session (the defaults of absltest and `python file.py`)."""
  return _REQUESTS.get(case_class, SessionRequest())
