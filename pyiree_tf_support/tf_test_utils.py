"""Public API for trace-based differential tests: flags, traces, compile_module and the test case.

A test class decorated with `@compile_module(MyModule)` and derived from `TracedModuleTestCase`
compiles MyModule once for the reference and every target backend (`class_setup`); each test calls
`self.compare_backends(trace_function)`, which runs the trace on every backend and compares.

The module is a thin 2020-compatible adapter: setUpClass opens a `harness.session.ModuleSession`,
`compare_backends` compares through it and fails on its `ComparedTrace`. What is not adapter is in
harness/ (`later_modules`, `session_examples`, `session_requests`, `generated_tests`); this module
reads the flags and keeps no state of its own (`tests/architecture/thin_adapter_test.py`).
"""

import sys
from typing import Any, Callable, List, Optional, Sequence, Tuple

from absl import logging
from absl.testing import absltest

from pyiree_tf_support.core import verbosity

verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf

from pyiree_tf_support import cli_flags

# tf_utils: 2020's module imported it too (`tf_test_utils.tf_utils` reads it).
from pyiree_tf_support import tf_utils as tf_utils
from pyiree_tf_support.comparing.traces import ModuleCall

# NUMPY_LINEWIDTH: a 2020 name of this module besides __all__'s.
from pyiree_tf_support.comparing.traces import NUMPY_LINEWIDTH as NUMPY_LINEWIDTH
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.comparing.traces import TracedModule
from pyiree_tf_support.core import progress as progress_lib
from pyiree_tf_support.core import quick_exit
from pyiree_tf_support.examples import strategies as examples_strategies
from pyiree_tf_support.harness import class_setup
from pyiree_tf_support.harness import generated_tests
from pyiree_tf_support.harness import later_modules
from pyiree_tf_support.harness import session as session_lib
from pyiree_tf_support.harness import session_examples
from pyiree_tf_support.harness import session_requests

# IREE's later (2020-11) generated-test API:
from pyiree_tf_support.harness.generated_tests import TestModule
from pyiree_tf_support.harness.generated_tests import tf_function_unit_test
from pyiree_tf_support.harness.generated_tests import unit_test_specs_from_args
from pyiree_tf_support.harness.generated_tests import unit_test_specs_from_signatures
from pyiree_tf_support.harness.generated_tests import UnitTestSpec
from pyiree_tf_support.harness.later_modules import Modules
from pyiree_tf_support.importing import importer
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.tf_utils import BackendInfo

__all__ = ["FLAGS", "ModuleCall", "Modules", "Trace", "TracedModule",
           "TracedModuleTestCase", "compile_module", "get_reference_backend_info",
           "get_target_backends",
           # IREE's later (2020-11) generated-test API.
           "DEFAULT_INPUT_GENERATOR", "TestModule", "UnitTestSpec", "compile_tf_module",
           "tf_function_unit_test", "unit_test_specs_from_args",
           "unit_test_specs_from_signatures"]

DEFAULT_INPUT_GENERATOR = generated_tests.default_input_generator

FLAGS = cli_flags.FLAGS
later_modules.settings_from(cli_flags.run_settings)  # a Modules record used outside a class.


def _run_tests_then_exit(run_tests: Callable[..., None]) -> Callable[..., None]:
  def run(*args):
    return quick_exit.run_then_exit(run_tests, *args)

  run.wrapped = run_tests
  return run


# `tf.test.main()` ends in absltest's `run_tests`, which exits with the tests' status: a test file
# run as `python file.py` then ends without the interpreter's teardown (core/quick_exit).
if not hasattr(absltest.run_tests, "wrapped"):
  absltest.run_tests = _run_tests_then_exit(absltest.run_tests)


def get_reference_backend_info() -> BackendInfo:
  return class_setup.plan_backends(cli_flags.run_settings(), probe=False).reference


def get_target_backends() -> List[BackendInfo]:
  """The backends named by --target_backends, or every backend this machine can run."""
  return list(class_setup.plan_backends(cli_flags.run_settings()).targets)


def _check_module_class(caller: str, module_class) -> None:
  if module_class is None or not callable(module_class):
    raise TypeError(f"{caller}({module_class!r}): the module class is "
                    f"{'None' if module_class is None else 'not callable'}; pass a tf.Module "
                    "subclass or a function returning a tf.Module.")


def compile_module(module_class, exported_names: Sequence[str] = ()) -> Callable[[type], type]:
  """Class decorator: the TracedModuleTestCase compiles `module_class` (a class or factory)."""
  _check_module_class("compile_module", module_class)
  names = importer.normalize_exported_names(exported_names)

  def decorator(cls):
    cls._module_class = module_class
    cls._exported_names = names
    return cls

  return decorator


def compile_tf_module(module_class, exported_names: Sequence[str] = ()) -> Modules:
  """IREE's later API: the modules record of `module_class` for the reference and targets.

  A TracedModuleTestCase sets `self._modules = compile_tf_module(M)` in `__init__` or `setUp`
  instead of decorating the class with `compile_module(M)`; either way M is imported and
  compiled once per process for the class, and `compare_backends(trace, self._modules)` runs.
  """
  _check_module_class("compile_tf_module", module_class)
  key = (module_class, importer.normalize_exported_names(exported_names))
  later_modules.request(key)  # a class being probed learns its module here.
  return Modules(*key)


def session_options() -> session_lib.SessionOptions:
  """What the flags say about judging and reporting traces, for a `ModuleSession`."""
  return session_lib.SessionOptions(
      tolerance_policy=cli_flags.tolerance_policy(),
      replay_arguments=cli_flags.replay_arguments(),
      localize_arguments=cli_flags.localize_arguments(),
      log_all_traces=bool(cli_flags.value("log_all_traces")),
      summarize=bool(cli_flags.value("summarize")), verbose=cli_flags.verbose())


class TracedModuleTestCase(tf.test.TestCase):
  """Compiles the module once per class; each test compares a trace across the backends.

  A 2020-compatible adapter of `harness.session`: setUpClass opens the class's `ModuleSession`
  (`module_session`), setUp starts the test's run, `compare_backends` compares through it and
  fails on a failed trace. The 2020 attributes `_ref_module`, `_tar_modules`, `_artifacts_dir`
  (and `_module_name`) are the session's.
  """

  _module_class = None
  _exported_names: Tuple[str, ...] = ()
  module_session: Optional[session_lib.ModuleSession] = None
  # tf.test.TestCase's deprecated TF1 `test_session` is collected as a (skipped) test: under
  # sharding it alone would make a shard set up (compile) the class for nothing.
  test_session = None

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    request = session_requests.of(cls)  # the pytest plugin's, if it runs the class.
    cls.open_session(request.only_targets, request.progress, request.per_backend)

  @classmethod
  def open_session(cls, only_targets: Optional[Tuple[str, ...]] = None,
                   progress: Optional[progress_lib.Progress] = None,
                   per_backend: bool = False) -> session_lib.ModuleSession:
    """Sets the class's module up and opens its session `module_session` (what setUpClass does,
    with what `harness.session_requests` asked for): only `only_targets` are set up, long steps
    report to `progress`, and with `per_backend` nothing fails here: one pytest item per backend
    judges the session's `compared` traces."""
    cli_flags.ensure_parsed()
    if cls._module_class is None:  # a class of the later API: its tests name the module.
      cls._module_class, cls._exported_names = later_modules.requested_module(cls)
    verbosity.apply(cli_flags.verbose())
    cls._settings = cli_flags.run_settings()
    session = session_lib.ModuleSession.open(
        cls._module_class, cls._exported_names, cls._settings, session_options(),
        test_file=cls._test_file(), class_name=cls.__name__, only_targets=only_targets,
        progress=progress, per_backend=per_backend)
    cls.module_session = session
    cls._setup = setup = session.setup
    later_modules.class_opened((cls._module_class, cls._exported_names), setup)
    cls._module_name = setup.module_name
    cls._artifacts_dir = setup.artifacts_dir
    session.check_targets(require_backends=bool(cli_flags.value("require_backends")))
    return session

  def setUp(self):
    super().setUp()
    if later_modules.probing():  # setUpClass is finding the module a later-API class compiles.
      return
    # Fresh state for every test, without recompiling or restarting worker processes.
    self._run = self._session().start(self._testMethodName, self.id())
    self._ref_module = self._run.reference
    self._tar_modules = self._run.targets

  @classmethod
  def tearDownClass(cls):
    session = cls.module_session
    judged = session.class_verdicts() if session is not None else []
    if session is not None:  # a finished class's worker processes must not outlive it.
      later_modules.class_closed((cls._module_class, cls._exported_names), session.setup)
      session.close()
    super().tearDownClass()
    logged, errors = expected_failures.class_lines(cls.__name__, judged)
    for line in logged:
      logging.info("%s", line)
    if errors:
      raise AssertionError("\n".join(errors))

  @classmethod
  def _test_file(cls) -> Optional[str]:
    """The file defining the test class (None when it has none, e.g. typed at a prompt)."""
    return getattr(sys.modules.get(cls.__module__), "__file__", None)

  @classmethod
  def generate_unit_tests(cls, module_class: type) -> None:
    """IREE's later API: a test method `test_<name>` per tf_function_unit_test of
    `module_class` (a TestModule), calling it once with its spec's inputs and tolerances. The
    method and its trace carry the spec as `unit_test_spec`."""
    generated_tests.add_unit_tests(cls, module_class)

  def compare_backends(self, trace_function: Callable[[TracedModule], None],
                       modules: Optional[Modules] = None) -> None:
    """Runs `trace_function` on the reference and every target, saves the traces, compares.

    `modules`: the later API's record (`compile_tf_module`); it must be the class's module.
    An own fault (`faults`: a full disk, a trace that is not deterministic) errors the test with
    its message; no verdict of this trace is recorded, and the class draws no XPASS from it.
    """
    if modules is not None and (modules.module_class, modules.exported_names) != (
        self._module_class, self._exported_names):
      raise ValueError(
          f"compare_backends: the modules record is of {modules.module_class!r} but "
          f"{type(self).__name__} compiles {self._module_class!r}; pass self._modules.")
    try:
      compared = self._run.compare(trace_function)
      if compared.failed and not self._session().per_backend:
        self.fail(compared.message)  # the report is shown once: as the failure message.
      # --examples: every method the trace called, once a class.
      for method in session_examples.methods_due(self._session(), compared):
        try:
          self._check_examples(method, self._session().settings.examples, None)
        except examples_strategies.UnsupportedInputError as e:  # e.g. a string input.
          logging.warning("No examples of %s.%s(): %s", self._module_name, method, e)
    except KeyboardInterrupt:
      self._run.record_interrupted("during compare_backends or its examples")
      raise

  def _session(self) -> session_lib.ModuleSession:
    if self.module_session is None:
      raise RuntimeError(f"{type(self).__name__}.setUpClass opened no session: a setUpClass of "
                         "its own must call super().setUpClass()")
    return self.module_session

  def check_examples(self, method: str, examples: Optional[int] = None,
                     input_signature: Optional[Sequence[Any]] = None) -> None:
    """Checks `method` on `examples` inputs drawn by hypothesis from its signature, on the
    reference and every target (the modules already compiled for the class), and shrinks the
    first failure to the smallest input failing the same way (docs/examples.md).

    `examples`: default --examples, or 100 when that is 0. `input_signature`: tf.TensorSpecs
    (nested as the arguments) to draw from instead of the tf.function's own, e.g. with static
    sizes for its None dims. The shrunk input (or, when nothing fails, the first compared one) is
    then compared as a trace named `<method>.shrunk` (`<method>.example`): its report, traces
    and replay command are a trace's. A run that compared nothing fails the test.
    """
    try:
      self._check_examples(method, examples or self._session().settings.examples or 100,
                           input_signature)
    except KeyboardInterrupt:
      self._run.record_interrupted(f"during check_examples('{method}')")
      raise

  def _check_examples(self, method: str, examples: int,
                      input_signature: Optional[Sequence[Any]]) -> None:
    signature = session_examples.example_signature(self._run, method, input_signature)
    result = session_examples.check_examples(self._run, method, examples, signature)
    if result.failure:
      self.fail(result.failure)
    if result.problem:
      logging.warning("%s", result.problem)
