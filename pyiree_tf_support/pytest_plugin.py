"""The pytest plugin (entry point `pytest11`): the library's flags as pytest options, and one pytest
item per (test, target backend) for every `TracedModuleTestCase`.

Why items and not parametrize: a unittest TestCase cannot take pytest parameters, and the
reference trace must run once per test. So a class collector yields `test_x[<backend>]` items;
the first item of a test runs the TestCase method once (the class set up only for the backends
of the selected items), `compare_backends` records each backend's outcome instead of failing,
and every item reports its own backend's outcome. `-k`, `--lf`, `-x`, `--durations` and JUnit XML
then work per backend. Expected failures are those of the `FAILING` lists of the BUILD.bazel beside
the test file (what Bazel uses) and --xfail_backends, judged as Bazel's e2e_tests_failing judges
them: per (class, backend), not per test. A listed backend's items whose traces failed there are
xfails, its passing items pass, and its last item of the class also fails for the class's verdict
there (XPASS, WRONG PHASE: `expected_failures`, the one policy tearDownClass also applies).
So `pytest e2e/` reaches Bazel's verdict for every (file, backend), also for a file where
only one test fails. absltest and `python file.py` are untouched: there one test still compares
every backend.

The module holds pytest's hooks, the collector, the items and the per-session state; the parts
that need no pytest live beside it (`pytest_summary`, `pytest_listed`, `expected_failures`, and
`session_requests`: what it asks of a class's session).
"""

import dataclasses
import os
import shlex
import sys
import time
import traceback
from typing import Dict, List, Optional, Tuple
import unittest

import pytest

from pyiree_tf_support import cli_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import progress
from pyiree_tf_support.harness import main_files
from pyiree_tf_support.harness import pytest_listed
from pyiree_tf_support.harness import pytest_summary
from pyiree_tf_support.harness import session_requests
from pyiree_tf_support.reporting import expected_failures

__all__ = [
    "pytest_addoption", "pytest_cmdline_main", "pytest_configure", "pytest_pycollect_makeitem",
    "BackendFailed", "BackendItem", "NoVerdict", "TestFailed", "TracedCaseCollector",
]

_STATE = pytest.StashKey["_Session"]()


def _library_flags() -> list:
  return cli_flags.FLAGS.get_flags_for_module(cli_flags.__name__)


def _taken_option_names(parser) -> set:
  groups = list(parser._groups) + [parser._anonymous]
  return {name for group in groups for option in group.options for name in option.names()}


def pytest_addoption(parser):
  group = parser.getgroup("pyiree_tf_support", "pyiree_tf_support (the library's absl flags)")
  taken = _taken_option_names(parser)
  for flag in _library_flags():
    # A name pytest already uses (e.g. --verbose) gets a pyiree_ prefix.
    name = flag.name if f"--{flag.name}" not in taken else f"pyiree_{flag.name}"
    dest = f"pyiree_flag_{flag.name}"
    if flag.boolean:
      group.addoption(f"--{name}", dest=dest, nargs="?", const="true", default=None,
                      help=f"{flag.help} (default: {flag.default})")
      group.addoption(f"--no{name}", dest=dest, action="store_const", const="false",
                      help=f"Sets --{name}=false.")
    else:
      group.addoption(f"--{name}", dest=dest, default=None, help=flag.help)


def _flag_arguments(config) -> List[str]:
  return [f"--{flag.name}={value}" for flag in _library_flags()
          if (value := config.getoption(f"pyiree_flag_{flag.name}")) is not None]


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config):
  """Under pytest-xdist (`-n`), whole files go to one worker unless `--dist` is given: a module
  class then compiles (and runs its reference) once per worker, not once per worker per item."""
  option = config.option
  if getattr(option, "numprocesses", None) and getattr(option, "dist", None) == "no" \
      and not getattr(option, "distload", False):
    option.dist = "loadfile"
  return (yield)


def pytest_configure(config):
  extra = _flag_arguments(config)
  if extra:  # absl parses these (same validation); the library reads them when argv is not absl's.
    existing = os.environ.get(cli_flags.ENV_VAR, "")
    os.environ[cli_flags.ENV_VAR] = " ".join([existing] + [shlex.quote(e) for e in extra]).strip()
  if os.environ.get(cli_flags.ENV_VAR, "").strip():
    try:
      cli_flags.ensure_parsed(allow_unknown=True)  # a test file may define some (its own).
    except cli_flags.FlagsError as e:
      raise pytest.UsageError(str(e)) from None
  config.stash[_STATE] = _Session()
  config.pluginmanager.register(config.stash[_STATE], "pyiree_tf_support_session")


def _traced_case_class(obj) -> bool:
  module = sys.modules.get("pyiree_tf_support.tf_test_utils")
  # A class of the later API names its module in __init__/setUp (compile_tf_module), not with
  # the decorator: every subclass is one; one without tests yields no items.
  return (module is not None and isinstance(obj, type) and
          issubclass(obj, module.TracedModuleTestCase) and obj is not module.TracedModuleTestCase)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
  if _traced_case_class(obj):
    return TracedCaseCollector.from_parent(collector, name=name, obj=obj)
  return None


class TestFailed(Exception):
  """A failure whose text is already the whole message (no Python traceback of the plugin)."""


class BackendFailed(TestFailed):
  """The item's backend failed a trace (what a listed backend is expected to do)."""


class NoVerdict(Exception):
  """An error that is no backend's verdict (`faults.OwnFault`: a full disk, a trace whose inputs
  change): it fails every item it reaches, listed backends too, never as an xfail."""


class _Result(unittest.TestResult):
  """A unittest result that also keeps the own faults (`faults.OwnFault`) among the errors."""

  def __init__(self):
    super().__init__()
    self.own_faults: List[str] = []

  def addError(self, test, err):
    super().addError(test, err)
    if isinstance(err[1], faults.OwnFault):
      self.own_faults.append(self.errors[-1][1])


class TracedCaseCollector(pytest.Class):
  """Yields `<test>[<backend>]` for every test method and planned target backend."""

  def collect(self):
    from pyiree_tf_support.harness import class_setup
    try:
      settings = cli_flags.run_settings()
    except faults.OwnFault as e:  # e.g. another user's compile cache: one line once collected.
      self.config.stash[_STATE].setting_errors.append(str(e))
      return
    module = self.module
    assert module is not None  # a class is collected inside its file's pytest.Module.
    main_files.run_main_once(module)  # a later-API file generates its tests in main.
    targets = class_setup.plan_backends(settings).targets
    failing = expected_failures.for_test_file(str(self.path))
    xfail_backends = settings.xfail_backends
    base = sys.modules["pyiree_tf_support.tf_test_utils"].TracedModuleTestCase
    # tf.test.TestCase's own test_session is "Not a test."; only the user's methods are tests.
    methods = [m for m in unittest.TestLoader().getTestCaseNames(self.obj) if not hasattr(base, m)]
    for method in methods:
      for info in targets:
        item = BackendItem.from_parent(self, name=f"{method}[{info.name}]", method=method,
                                       backend=info.name, nodeid=_item_id(self, method, info.name))
        item.extra_keyword_matches.add(info.name)
        item.listing = expected_failures.expected_for(
            info.names(), failing, xfail_backends, self.path.name, self.obj.__name__, method)
        yield item


def _item_id(parent: pytest.Collector, method: str, backend: str):
  """The id `<method>[<backend>]` as pytest >= 9 parses it back from its cache (the method with
  the backend as its parameters): `--lf` and `--ff` match the items of the last run by it. Older
  pytest compares the string, which its default id already is (None)."""
  parent_id = getattr(parent, "id", None)
  if parent_id is None or not hasattr(parent_id, "with_params"):
    return None
  return parent_id.child(method).with_params(backend)


class BackendItem(pytest.Item):
  """One target backend of one test method."""

  def __init__(self, *, method: str, backend: str, **kwargs):
    super().__init__(**kwargs)
    self.method = method
    self.backend = backend
    # Set when the backend is listed as failing for this test method (and what the entry covers).
    self.listing: Optional[expected_failures.Listing] = None

  @property
  def case_class(self) -> type:
    parent = self.parent
    assert isinstance(parent, pytest.Class)  # items come from TracedCaseCollector.collect.
    return parent.obj

  def setup(self) -> None:
    # A set-up error is the class's, never a listed backend's expected failure (as under Bazel,
    # where tearDownClass, which judges the lists, does not run after it).
    self.config.stash[_STATE].class_run(self.case_class).set_up()

  def runtest(self) -> None:
    """A listed backend's item is an xfail when its traces failed there; its class's last item on
    the backend also fails for the class's verdict (XPASS, WRONG PHASE). The test's own error
    fails the item, listed or not (expected_failures)."""
    run = self.config.stash[_STATE].class_run(self.case_class)
    try:
      run.judge(self.method, self.backend, listed=self.listing is not None)
    except BackendFailed:
      if self.listing is None:
        raise
      self._raise_class_verdict(run, self.listing)
      phase = run.phase_of(self.method, self.backend)
      if phase is not None:  # the end table shows it beside the xfail.
        self.user_properties.append((pytest_summary.PHASE_PROPERTY, phase.value))
      pytest.xfail(f"{self.listing.expected.reason} [listed: {self.listing.label}]")
    except TestFailed as e:
      verdict = run.record(self.backend, self.listing) if self.listing is not None else None
      raise TestFailed("\n".join(filter(None, [str(e), verdict]))) from None
    fraction = run.worst_fraction(self.method, self.backend)
    if fraction is not None:  # the end table shows a pass close to its tolerance.
      self.user_properties.append((pytest_summary.CLOSENESS_PROPERTY, fraction))
    if self.listing is not None:
      self._raise_class_verdict(run, self.listing)

  def _raise_class_verdict(self, run: "_ClassRun", listing: expected_failures.Listing) -> None:
    error = run.record(self.backend, listing)
    if error:
      raise TestFailed(error)

  def repr_failure(self, excinfo, style=None):
    if isinstance(excinfo.value, (TestFailed, NoVerdict)):
      return str(excinfo.value)
    return super().repr_failure(excinfo, style)

  def teardown(self) -> None:
    self.config.stash[_STATE].item_done(self)

  def reportinfo(self):
    return self.path, None, f"{self.case_class.__name__}.{self.name}"


@dataclasses.dataclass(frozen=True)
class _MethodResult:
  error: Optional[str]
  skip_reason: Optional[str]
  compared: tuple
  own_fault: Optional[str] = None  # the method errored with a faults.OwnFault.


class _ClassRun:
  """One TestCase class under pytest: set up once for `backends`, each method run once."""

  def __init__(self, case_class: type, backends_selected: Tuple[str, ...],
               listed_items: Dict[Tuple[str, expected_failures.Listing], List[str]],
               progress_lines: progress.Progress):
    self.case_class = case_class
    self.progress = progress_lines
    self.backends = backends_selected
    self._listed = pytest_listed.ListedBackends(case_class.__name__, listed_items)
    self.setup_seconds: Optional[float] = None
    self._setup_error: Optional[BaseException] = None
    self._results: Dict[str, _MethodResult] = {}
    self._ran_by: Dict[str, str] = {}  # method -> the backend whose item ran it
    # (backend, a failure's text of several lines) -> the method whose item showed it first.
    self._shown: Dict[Tuple[str, str], str] = {}
    self.torn_down = False

  def set_up(self) -> None:
    if self.setup_seconds is None:
      started = time.monotonic()
      try:
        request = session_requests.SessionRequest(self.backends, self.progress, per_backend=True)
        with session_requests.requested(self.case_class, request):
          self.case_class.setUpClass()
      except unittest.SkipTest as e:
        self._setup_error = e
      except faults.OwnFault as e:
        self._setup_error = NoVerdict(
            f"{self.case_class.__name__}.setUpClass failed, no backend's verdict:\n"
            + "".join(traceback.format_exception(e)))
      except Exception as e:
        self._setup_error = TestFailed(f"{self.case_class.__name__}.setUpClass failed:\n"
                                       + "".join(traceback.format_exception(e)))
      self.setup_seconds = time.monotonic() - started
    if isinstance(self._setup_error, unittest.SkipTest):
      pytest.skip(str(self._setup_error))
    if self._setup_error is not None:
      raise self._setup_error

  def _run(self, method: str) -> _MethodResult:
    if method not in self._results:
      compared = self.case_class.module_session.compared
      before = len(compared)
      result = _Result()
      self.case_class(method).run(result)
      errors = [text for _, text in result.errors + result.failures]
      errors += [f"{method}: unexpected success" for _ in result.unexpectedSuccesses]
      skip = result.skipped[0][1] if result.skipped else None
      self._results[method] = _MethodResult("\n".join(errors) or None, skip,
                                            tuple(compared[before:]),
                                            "\n".join(result.own_faults) or None)
    return self._results[method]

  def _shown_once(self, method: str, outcome, listed: bool):
    """`outcome` as `method`'s item shows it: a failure of several lines (a module that did not
    compile: its error and per-method list) whole in the class's first item showing it on the
    backend, then one line naming that item (issue 30). A listed item's failure is an xfail,
    whose text pytest does not show: it is never the one named."""
    if listed or outcome.detail.count("\n") < 2:
      return outcome
    first = self._shown.setdefault((outcome.backend, outcome.detail), method)
    if first == method:
      return outcome
    return dataclasses.replace(outcome, detail=f"the same error as {first}'s item above (whole "
                               "in report.txt)")

  def judge(self, method: str, backend: str, listed: bool = False) -> None:
    """Passes, skips or raises for `backend`'s outcomes in `method` (`listed`: the backend is
    listed as failing there)."""
    from pyiree_tf_support.reporting import verdicts
    self._ran_by.setdefault(method, backend)
    result = self._run(method)
    if result.own_fault:
      raise NoVerdict(result.own_fault)
    if result.error:
      raise TestFailed(result.error)
    if result.skip_reason is not None:
      pytest.skip(result.skip_reason)
    mine = [(c, o) for c in result.compared for o in c.outcomes if o.backend == backend]
    failed = [verdicts.format_report(c.function_name, c.reference,
                                     [self._shown_once(method, o, listed)], c.report_path)
              for c, o in mine if o.status.failed]
    if failed:
      raise BackendFailed("\n".join(failed))
    if mine and all(o.status is verdicts.Status.SKIPPED for _, o in mine):
      pytest.skip(f"{backend}: {mine[0][1].detail}")

  def duration_shift(self, method: str, backend: str) -> float:
    """What to add to `backend`'s measured call time in `method` so that it is its own: the item
    that ran the method (the reference, every backend) gives the other backends' time to their
    items and keeps the reference's; the class set-up stays in its first item's setup."""
    result = self._results.get(method)
    if result is None:
      return 0.0
    times = [(o.backend, s) for c in result.compared for o, s in zip(c.outcomes, c.seconds)]
    own = sum(s for b, s in times if b == backend)
    if self._ran_by.get(method) == backend:
      return own - sum(s for _, s in times)
    return own

  def phase_of(self, method: str, backend: str):
    """The earliest phase `backend` failed in during `method` (None: it did not run or fail)."""
    from pyiree_tf_support.reporting import verdicts
    result = self._results.get(method)
    outcomes = [o for c in result.compared for o in c.outcomes
                if o.backend == backend] if result else []
    failure = verdicts.earliest_failure(outcomes)
    return failure.phase if failure else None

  def worst_fraction(self, method: str, backend: str) -> Optional[float]:
    """`backend`'s worst difference in `method` as a fraction of its tolerance (None: nothing
    compared)."""
    result = self._results.get(method)
    fractions = [o.worst_fraction for c in (result.compared if result else ()) for o in c.outcomes
                 if o.backend == backend and o.worst_fraction is not None]
    return max(fractions) if fractions else None

  def record(self, backend: str, listing: expected_failures.Listing) -> Optional[str]:
    """One finished item of listed `backend`: what fails it, if anything (`pytest_listed`)."""
    session = getattr(self.case_class, "module_session", None)
    return self._listed.finish_item(backend, listing, session.compared if session else [])

  def tear_down(self) -> None:
    if not self.torn_down:
      self.torn_down = True
      if self.setup_seconds is not None and self._setup_error is None:
        self.case_class.tearDownClass()


def _duplicate_fd(stream) -> Optional[int]:
  """A new descriptor of `stream`'s file; None when it has none (io.UnsupportedOperation)."""
  try:
    return os.dup(stream.fileno())
  except (AttributeError, OSError, ValueError):
    return None


class _Session:
  """Per-session state: class runs, how many selected items each class has left, results."""

  def __init__(self):
    self._runs: Dict[type, _ClassRun] = {}
    self._left: Dict[type, int] = {}
    self._selected: Dict[type, List[str]] = {}
    # the methods of each class's selected items, by (backend, listing), of listed backends.
    self._listed_items: Dict[type, Dict[Tuple[str, expected_failures.Listing], List[str]]] = {}
    self._items: Dict[str, Tuple[str, str]] = {}  # nodeid -> (test file, backend)
    self.setting_errors: List[str] = []  # settings no class can run with, one line each.
    self.summary = pytest_summary.Summary()
    # The terminal's stderr as it was before any capture: progress lines of a long class set-up
    # are shown while it runs, not kept in the item's captured output. A stderr that is no file
    # (pytest run in-process by a test of a plugin, which reads sys.stderr) gets them instead.
    self._stderr = sys.stderr
    self._terminal = _duplicate_fd(sys.stderr)

  def _to_terminal(self, line: str) -> None:
    try:
      if self._terminal is None:
        self._stderr.write(f"\n{line}\n")
      else:
        os.write(self._terminal, f"\n{line}\n".encode())
    except (OSError, ValueError):
      pass  # a closed terminal loses a progress line, nothing else.

  def pytest_unconfigure(self):
    if self._terminal is not None:
      os.close(self._terminal)

  def class_run(self, case_class: type) -> _ClassRun:
    if case_class not in self._runs:
      self._runs[case_class] = _ClassRun(case_class, tuple(self._selected.get(case_class, ())),
                                         self._listed_items.get(case_class, {}),
                                         progress.Progress(write=self._to_terminal))
    return self._runs[case_class]

  @pytest.hookimpl(trylast=True)
  def pytest_collection_finish(self, session):
    unknown = cli_flags.unknown_flags_error()
    if unknown:  # no collected file defined the flag: a typo must not run with the defaults.
      raise pytest.UsageError(unknown)
    if self.setting_errors:  # the same for every class: said once, as a flag error is.
      raise pytest.UsageError(self.setting_errors[0])
    for item in session.items:
      if isinstance(item, BackendItem):
        self._items[item.nodeid] = (item.nodeid.split("::")[0], item.backend)
        cls = item.case_class
        self._left[cls] = self._left.get(cls, 0) + 1
        if item.listing is not None:
          listed = self._listed_items.setdefault(cls, {})
          listed.setdefault((item.backend, item.listing), []).append(item.method)
        if item.backend not in self._selected.setdefault(cls, []):
          self._selected[cls].append(item.backend)

  def item_done(self, item: BackendItem) -> None:
    """Tears the class down after its last selected item (releasing its worker processes)."""
    self._left[item.case_class] -= 1
    if self._left[item.case_class] == 0:
      self.class_run(item.case_class).tear_down()

  @pytest.hookimpl(wrapper=True)
  def pytest_runtest_makereport(self, item, call):
    """Each backend item's call time is its backend's own (`_ClassRun.duration_shift`), for
    --durations and JUnit XML."""
    report = yield
    if isinstance(item, BackendItem) and report.when == "call":
      shift = self.class_run(item.case_class).duration_shift(item.method, item.backend)
      report.duration = max(0.0, report.duration + shift)
    return report

  def pytest_runtest_logreport(self, report):
    where = self._items.get(report.nodeid)
    if where is not None:
      self.summary.record(report, *where)

  def pytest_sessionfinish(self):
    for run in self._runs.values():
      try:
        run.tear_down()
      except Exception:
        traceback.print_exc()

  def pytest_terminal_summary(self, terminalreporter):
    set_ups = [(run.setup_seconds, f"{run.case_class.__module__}.{run.case_class.__name__}",
                run.backends) for run in self._runs.values() if run.setup_seconds is not None]
    module_dirs = [run.case_class.module_session.artifacts_dir for run in self._runs.values()
                   if run.setup_seconds is not None and run.case_class.module_session is not None]
    for line in (self.summary.lines(set_ups)
                 + pytest_summary.artifacts_lines([d for d in module_dirs if d])):
      terminalreporter.write_line(line)
