"""Test files of IREE's later API build their tests in `main` (`app.run(main)` at the end): its
own flags are read there and `generate_unit_tests` adds the test methods before `tf.test.main()`.
Under pytest nothing runs `main`, so the plugin runs it once per file, with the test runner's
entry points stopped: the test methods then exist when the classes are collected.
"""

import contextlib
import re
import sys
import types
from typing import Iterator

from absl.testing import absltest

from pyiree_tf_support import cli_flags

_APP_RUN_MAIN = re.compile(r"^\s*app\.run\(\s*main\s*\)", re.M)
# The test runners a `main` may start, as (module name, attribute).
_RUNNERS = (("tensorflow.test", "main"), ("tensorflow.compat.v2.test", "main"),
            ("tensorflow.python.platform.test", "main"),
            ("tensorflow.python.platform.googletest", "main"), ("absl.testing.absltest", "main"))
_RAN = "_pyiree_tf_support_main_ran"


class _RunnerReached(Exception):
  """`main` reached the test runner: its tests are defined."""


def ends_in_app_run_main(module: types.ModuleType) -> bool:
  """Whether the file calls `app.run(main)` (the later API's ending) and defines `main`."""
  path = getattr(module, "__file__", None)
  if not callable(getattr(module, "main", None)) or not path:
    return False
  try:
    with open(path, encoding="utf-8") as f:
      return bool(_APP_RUN_MAIN.search(f.read()))
  except OSError:
    return False


@contextlib.contextmanager
def _runners_stopped() -> Iterator[None]:
  def stop(*args, **kwargs):
    raise _RunnerReached()

  saved = []
  for name, attribute in _RUNNERS:
    owner = sys.modules.get(name) if name != "absl.testing.absltest" else absltest
    if owner is not None and hasattr(owner, attribute):
      saved.append((owner, getattr(owner, attribute)))
      setattr(owner, attribute, stop)
  try:
    yield
  finally:
    for owner, runner in reversed(saved):
      setattr(owner, "main", runner)


def run_main_once(module: types.ModuleType) -> None:
  """Runs the file's `main([file])` up to its test runner, once per process (flags must be
  parsed: the file's own flags then have the values given or their defaults)."""
  if getattr(module, _RAN, False) or not ends_in_app_run_main(module):
    return
  setattr(module, _RAN, True)
  cli_flags.parse_deferred()  # the file's own flags in $PYIREE_TF_SUPPORT_FLAGS.
  with _runners_stopped():
    try:
      module.main([module.__file__])
    except _RunnerReached:
      pass
