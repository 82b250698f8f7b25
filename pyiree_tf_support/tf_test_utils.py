"""Public API for trace-based differential tests: flags, traces, compile_module and the test case.

A test class decorated with `@compile_module(MyModule)` and derived from `TracedModuleTestCase`
compiles MyModule once for the reference and every target backend (`test_setup`); each test calls
`self.compare_backends(trace_function)`, which runs the trace on every backend and compares.
"""

import atexit
import dataclasses
import os
import sys
import time
import unittest
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from absl import logging
from absl.testing import absltest
import numpy as np
from pyiree_tf_support.core import verbosity
verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf  # pylint: disable=g-import-not-at-top,wrong-import-position

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support import cli_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import progress
from pyiree_tf_support.core import signatures
from pyiree_tf_support.examples import engine as examples_engine
from pyiree_tf_support.examples import strategies as examples_strategies
from pyiree_tf_support.examples import summary as examples_summary
from pyiree_tf_support.core import quick_exit
from pyiree_tf_support.importing import importer
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import report_files
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.harness import test_setup
from pyiree_tf_support.reporting import determinism
from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.reporting.verdicts import Outcome, Status
from pyiree_tf_support.comparing.traces import (  # pylint: disable=unused-import
    NUMPY_LINEWIDTH, ModuleCall, Trace, TracedModule, run_trace)
from pyiree_tf_support.comparing.traces import check_same_calls
from pyiree_tf_support.tf_utils import BackendInfo
from pyiree_tf_support.harness import generated_tests
from pyiree_tf_support.harness.generated_tests import (  # IREE's later (2020-11) API.
    TestModule, UnitTestSpec, tf_function_unit_test, unit_test_specs_from_args,
    unit_test_specs_from_signatures)

__all__ = ["FLAGS", "ComparedTrace", "ModuleCall", "Modules", "Trace", "TracedModule",
           "TracedModuleTestCase", "compile_module", "get_reference_backend_info",
           "get_target_backends",
           # IREE's later (2020-11) generated-test API.
           "DEFAULT_INPUT_GENERATOR", "TestModule", "UnitTestSpec", "compile_tf_module",
           "tf_function_unit_test", "unit_test_specs_from_args",
           "unit_test_specs_from_signatures"]

DEFAULT_INPUT_GENERATOR = generated_tests.default_input_generator

FLAGS = cli_flags.FLAGS


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
  return test_setup.plan_backends(cli_flags.run_settings(), probe=False).reference


def get_target_backends() -> List[BackendInfo]:
  """The backends named by --target_backends, or every backend this machine can run."""
  return list(test_setup.plan_backends(cli_flags.run_settings()).targets)


def compile_module(module_class, exported_names: Sequence[str] = ()) -> Callable[[type], type]:
  """Class decorator: the TracedModuleTestCase compiles `module_class` (a class or factory)."""
  if module_class is None or not callable(module_class):
    raise TypeError(f"compile_module({module_class!r}): the module class is "
                    f"{'None' if module_class is None else 'not callable'}; pass a tf.Module "
                    "subclass or a function returning a tf.Module.")
  names = importer.normalize_exported_names(exported_names)

  def decorator(cls):
    cls._module_class = module_class
    cls._exported_names = names
    return cls

  return decorator


# Set-ups of module classes by (module class, exported names): those of running test classes
# (setUpClass registers, tearDownClass removes) and those compile_tf_module made outside one.
_CLASS_SETUPS: Dict[Tuple[Any, Tuple[str, ...]], test_setup.ClassSetup] = {}
_STANDALONE_SETUPS: Dict[Tuple[Any, Tuple[str, ...]], test_setup.ClassSetup] = {}
_probing = False  # setUpClass is building a test to find the module it compiles.


class _ModulesRequested(Exception):
  """Raised by compile_tf_module while setUpClass probes a test: which module it compiles."""

  def __init__(self, key: Tuple[Any, Tuple[str, ...]]):
    super().__init__(key)
    self.key = key


def _close_standalone_setups() -> None:
  for setup in _STANDALONE_SETUPS.values():
    for module in [setup.reference] + [t.module for t in setup.targets if t.module is not None]:
      module.close()
  _STANDALONE_SETUPS.clear()


atexit.register(_close_standalone_setups)


@dataclasses.dataclass(frozen=True)
class Modules:
  """IREE's later modules record (`compile_tf_module`): `ref_module`, `tar_modules` (the targets
  that compiled here) and `artifacts_dir`. It is a handle: the module is compiled by the test
  class that uses it (once per process), or on first use outside one."""
  module_class: Any
  exported_names: Tuple[str, ...] = ()

  def _setup(self) -> test_setup.ClassSetup:
    key = (self.module_class, self.exported_names)
    setup = _CLASS_SETUPS.get(key) or _STANDALONE_SETUPS.get(key)
    if setup is None:
      cli_flags.ensure_parsed()
      setup = test_setup.set_up_class(self.module_class, self.exported_names,
                                      cli_flags.run_settings())
      _STANDALONE_SETUPS[key] = setup
    return setup

  @property
  def ref_module(self) -> tf_utils.CompiledModule:
    return self._setup().reference

  @property
  def tar_modules(self) -> List[tf_utils.CompiledModule]:
    return [t.module for t in self._setup().targets if t.module is not None]

  @property
  def artifacts_dir(self) -> str:
    return self._setup().artifacts_dir

  def __iter__(self):  # `ref, tars, artifacts_dir = modules`, as the later namedtuple allowed.
    return iter((self.ref_module, self.tar_modules, self.artifacts_dir))


def compile_tf_module(module_class, exported_names: Sequence[str] = ()) -> Modules:
  """IREE's later API: the modules record of `module_class` for the reference and targets.

  A TracedModuleTestCase sets `self._modules = compile_tf_module(M)` in `__init__` or `setUp`
  instead of decorating the class with `compile_module(M)`; either way M is imported and
  compiled once per process for the class, and `compare_backends(trace, self._modules)` runs.
  """
  if module_class is None or not callable(module_class):
    raise TypeError(f"compile_tf_module({module_class!r}): the module class is "
                    f"{'None' if module_class is None else 'not callable'}; pass a tf.Module "
                    "subclass or a function returning a tf.Module.")
  key = (module_class, importer.normalize_exported_names(exported_names))
  if _probing:
    raise _ModulesRequested(key)
  return Modules(*key)


def _first_different_call(ref_trace: Trace, trace: Trace) -> int:
  pairs = zip(ref_trace.calls, trace.calls)
  return next((i for i, (a, b) in enumerate(pairs) if a.method != b.method),
              min(len(ref_trace.calls), len(trace.calls)))


@dataclasses.dataclass(frozen=True)
class ComparedTrace:
  """One compared trace's raw outcomes (before XFAIL), kept when the pytest plugin judges them."""
  function_name: str
  reference: str
  outcomes: Tuple[Outcome, ...]
  method: str = ""  # the test method that compared it.
  # Each outcome's own time: running, saving and comparing that backend's trace (what the
  # plugin gives the backend's item in --durations and JUnit XML).
  seconds: Tuple[float, ...] = ()
  report_path: Optional[str] = None  # report.txt, where every failing call is in full.


def _built(module_class):
  """An instance of the module class, built after seeding as every construction is."""
  tf_utils.set_random_seed()
  return module_class()


class _ExampleTrace:
  """The trace function of one drawn example: a call of `method` with `inputs` (flattened)."""

  def __init__(self, name: str, method: str, signature: signatures.FunctionSignature,
               inputs: Sequence[Any]):
    self.__name__ = name
    self._method = method
    self._args = signature.pack_inputs(list(inputs))

  def __call__(self, module) -> None:
    getattr(module, self._method)(*self._args)


class TracedModuleTestCase(tf.test.TestCase):
  """Compiles the module once per class; each test compares a trace across the backends."""

  _module_class = None
  _exported_names: Tuple[str, ...] = ()
  # Set by the pytest plugin: compare_backends records its outcomes in `_compared` instead of
  # failing, one pytest item per backend judges them, and only `_only_targets` are set up.
  _report_per_backend = False
  _only_targets: Optional[Tuple[str, ...]] = None
  # Where a long import or compile says so (the plugin writes to the terminal past its capture).
  _progress = progress.Progress()
  # tf.test.TestCase's deprecated TF1 `test_session` is collected as a (skipped) test: under
  # sharding it alone would make a shard set up (compile) the class for nothing.
  test_session = None

  @classmethod
  def _requested_module(cls) -> Optional[Tuple[Any, Tuple[str, ...]]]:
    """The module a class of the later API compiles: it calls compile_tf_module in `__init__` or
    `setUp`, so a test of it is built (and set up) until that call says which (nothing runs)."""
    global _probing
    _probing = True
    try:
      probe = cls("runTest")  # a name unittest accepts without such a method.
      probe.setUp()
    except _ModulesRequested as requested:
      return requested.key
    finally:
      _probing = False
    return None

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    if cls._module_class is None:
      requested = cls._requested_module()
      if requested is None:
        raise AttributeError(
            f"{cls.__name__} has no module to compile: decorate it with "
            "@tf_test_utils.compile_module(YourModule), or set self._modules = "
            "tf_test_utils.compile_tf_module(YourModule) in its __init__ or setUp.")
      cls._module_class, cls._exported_names = requested
    verbosity.apply(cli_flags.verbose())
    started = time.monotonic()
    cls._settings = cli_flags.run_settings()
    setup = test_setup.set_up_class(cls._module_class, cls._exported_names, cls._settings,
                                    cls._only_targets, cls._progress)
    logging.debug("Compiled %s for the reference and %d target backend(s) in %.2f s.",
                 setup.module_name, len(setup.targets), time.monotonic() - started)
    # Written once here; tests only append their outcomes and claim trace names.
    cls._setup = setup
    _CLASS_SETUPS[(cls._module_class, cls._exported_names)] = setup
    cls._notes_recorded = False  # whether report.txt has the class's notes yet.
    cls._module_name = setup.module_name
    cls._artifacts_dir = setup.artifacts_dir
    cls._iree_input = setup.iree_input
    cls._iree_input_sha256: Optional[str] = None  # of the file as saved: _saved_iree_input_sha256
    # Every test method that ran, with its raw outcomes: the unit of an expected failure may be a
    # test method (expected_failures).
    cls._outcome_log: Dict[str, List[Outcome]] = {}
    cls._own_faults = 0  # tests that errored with a faults.OwnFault: no XPASS is drawn then.
    cls._compared: List[ComparedTrace] = []
    cls._trace_names = test_setup.TraceNames()
    cls._methods_with_examples: Set[str] = set()  # --examples checks each method once a class.
    if not setup.targets:
      raise RuntimeError("No target backends to compare with the reference: --target_backends is "
                         "empty. Name at least one backend, or omit the flag for every backend "
                         "this machine can run.")
    for skipped in setup.skipped():
      logging.warning("Skipping backend '%s': %s", skipped.info.name, skipped.detail)
    if setup.skipped_note():
      if cli_flags.value("require_backends"):
        raise RuntimeError(f"--require_backends: {setup.skipped_note().split('. Pass')[0]}.")
      logging.warning("%s", setup.skipped_note())
    if setup.targets and len(setup.skipped()) == len(setup.targets):
      raise unittest.SkipTest("No target backend can run here: " + "; ".join(
          f"{s.info.name}: {s.detail}" for s in setup.targets))

  def setUp(self):
    super().setUp()
    if _probing:  # setUpClass is finding the module a later-API class compiles.
      return
    self._reported = False  # whether this test has written its entry of report.json yet.
    self._saved_reference: Optional[trace_io.SavedReference] = None  # the last reference trace.
    self._outcome_log.setdefault(self._testMethodName, [])
    # Fresh state for every test, without recompiling or restarting worker processes.
    self._ref_module = self._setup.reference
    self._tar_modules = [s.module for s in self._setup.targets]
    self._ref_module.reinitialize()  # without a reference nothing can be compared.
    # A target that cannot be reset (its worker died while idle) fails in this test alone, as
    # its own RUNTIME ERROR; the next test's reset starts a fresh worker.
    self._reset_errors: Dict[int, str] = {}
    for index, module in enumerate(self._tar_modules):
      if module is not None:
        try:
          module.reinitialize()
        except Exception as e:  # pylint: disable=broad-except
          self._reset_errors[index] = f"{type(e).__name__}: {e}"

  @classmethod
  def tearDownClass(cls):
    setup = getattr(cls, "_setup", None)
    # The plugin judges per item; no verdict is drawn from a class that met an own fault.
    judged_here = (setup is not None and not cls._report_per_backend
                   and not getattr(cls, "_own_faults", 0))
    judged = (test_setup.class_verdicts(setup, cls._outcome_log, cls._settings, cls._test_file(),
                                        cls.__name__) if judged_here else [])
    if setup is not None:  # a finished class's worker processes must not outlive it.
      if _CLASS_SETUPS.get((cls._module_class, cls._exported_names)) is setup:
        del _CLASS_SETUPS[(cls._module_class, cls._exported_names)]
      for module in [setup.reference] + [s.module for s in setup.targets if s.module is not None]:
        module.close()
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

  def _save_trace(self, trace: Trace, reference: bool = False, text: bool = True) -> str:
    """Saves the trace loadable (a directory: every value, which replay reads) and readable
    (`_save_text`; with `text=False` the caller writes it once it knows the failing call);
    returns the readable file's path."""
    loadable = self._loadable_path(trace)
    # A target's arrays shared with the reference's record are named in the reference's file.
    saved = trace_io.save_trace(trace, loadable, reference, self._iree_input,
                                None if reference else self._saved_reference,
                                self._saved_iree_input_sha256())
    if reference:
      self._saved_reference = saved
    if text:
      return self._save_text(trace)
    return artifacts.trace_path(self._artifacts_dir, trace.function_name, trace.backend)

  @classmethod
  def _saved_iree_input_sha256(cls) -> Optional[str]:
    """The hash of iree_input.mlir as saved (bytecode for a big module), once per class; None
    when the module was not imported or the file is not there (the text's hash is kept then)."""
    if cls._iree_input is None:
      return None
    if cls._iree_input_sha256 is None:
      path = os.path.join(cls._artifacts_dir, "iree_input.mlir")
      try:
        cls._iree_input_sha256 = trace_io.content_sha256(artifacts.read_bytes(path))
      except OSError:
        return None
    return cls._iree_input_sha256

  def _loadable_path(self, trace: Trace) -> str:
    return artifacts.trace_path(self._artifacts_dir, trace.function_name, trace.backend,
                                suffix="")

  def _save_text(self, trace: Trace, failing_call: Optional[int] = None) -> str:
    """The readable trace (.txt beside the loadable one, returned): arrays over 64 elements
    summarized and, over 100 calls, the first and last 10 and the failing call shown, unless
    --full_text_traces."""
    return trace.save_plaintext(
        self._artifacts_dir, summarize=not self._settings.full_text_traces,
        complete_values=os.path.join(os.path.basename(self._loadable_path(trace)),
                                     trace_io.ARRAYS_NAME),
        keep_calls=() if failing_call is None else (failing_call,))

  def _call_repros(self, module, ref_trace: Trace,
                   trace: Trace) -> Optional[repro.CallRepros]:
    """Each call's repro record (None off IREE); a call's files are written only when read."""
    if not isinstance(module, tf_utils.IreeCompiledModule):
      return None
    return repro.CallRepros(
        self._artifacts_dir, ref_trace, trace, self._vmfb_path(module),
        module.backend_info.driver, module.signatures, self._iree_input,
        cli_flags.tolerance_policy(), cli_flags.replay_arguments())

  def _vmfb_path(self, module) -> str:
    return artifacts.compiled_path(self._artifacts_dir,
                                   tf_utils.backends_to_str([module.backend_info]))

  def _backend_record(self, setup: test_setup.BackendSetup, module, outcome: Outcome,
                      raw: Outcome, trace_name: str, repros: Optional[repro.CallRepros]) -> dict:
    """report.json's entry for one target of one compared trace (`raw`: before XFAIL)."""
    call = (repros.call(outcome.call_index)
            if outcome.call_index is not None and repros is not None else None)
    paths = {"trace": outcome.trace_path,
             "trace_dir": outcome.trace_path and outcome.trace_path[:-len(".txt")],
             "compiled": (self._vmfb_path(module)  # a big module's only after a failure.
                          if module is not None and repros is not None
                          and os.path.isfile(self._vmfb_path(module)) else None),
             # the compile error's own (none after a timeout: nothing was reproduced).
             "reproducer": (getattr(setup.error, "reproducer_path", None)
                            if setup.status is Status.COMPILE_ERROR else None),
             "repro_dir": (artifacts.repro_dir(self._artifacts_dir, trace_name, outcome.backend)
                           if call is not None else None)}
    commands = {"replay": call and call.replay_command,
                "iree_run_module": call and call.run_module_command,
                "no_iree_run_module": call and call.no_run_module_reason}
    return report_files.backend_record(outcome, paths, commands, raw)

  def _target_outcome(self, setup: test_setup.BackendSetup, module, ref_trace: Trace,
                      trace_function, trace_name: str, reset_error: Optional[str] = None
                      ) -> Tuple[Outcome, Optional[repro.CallRepros]]:
    """The outcome of one target and its repro records; any exception while resetting, running,
    saving or comparing it becomes that target's RUNTIME ERROR, so the other targets still run
    and write their traces."""
    repros: Optional[repro.CallRepros] = None
    if module is None:
      return Outcome(setup.info.name, setup.status, setup.detail), repros
    if reset_error is not None:
      return Outcome(setup.info.name, Status.RUNTIME_ERROR,
                     f"resetting the module before the test raised {reset_error}"), repros
    trace, error = run_trace(module, trace_function, tf_utils.set_random_seed, trace_name,
                             reference=ref_trace)
    path = None
    step = "saving the trace"
    try:
      not_imported = module.method_import_error(trace.pending_method) if error else None
      not_compiled = module.method_compile_error(trace.pending_method) if error else None
      if trace.calls or not (not_imported or not_compiled):  # no empty trace of a method
        path = self._save_trace(trace, text=False)           # that is not in the module.
      if not_imported:
        outcome = Outcome(setup.info.name, Status.IMPORT_ERROR,
                          f"call {len(trace.calls)} ({trace.pending_method}): {not_imported}", path)
      elif not_compiled:
        outcome = Outcome(setup.info.name, Status.COMPILE_ERROR,
                          f"call {len(trace.calls)} ({trace.pending_method}): {not_compiled}", path)
      elif error:
        step = "writing the repro files"
        repros = self._call_repros(module, ref_trace, trace)
        outcome = verdicts.evaluate(ref_trace, trace, error, path, repros or ())
      else:
        step = f"call {_first_different_call(ref_trace, trace)}: comparing with the reference"
        check_same_calls(ref_trace, trace)
        step = "writing the repro files"
        repros = self._call_repros(module, ref_trace, trace)
        step = "comparing with the reference"
        outcome = verdicts.evaluate(ref_trace, trace, error, path, repros or (),
                                     cli_flags.tolerance_policy())
    except faults.OwnFault:  # e.g. the disk filled up saving the trace: no runtime error.
      raise
    except Exception as e:  # pylint: disable=broad-except
      outcome = Outcome(setup.info.name, Status.RUNTIME_ERROR,
                        f"{step} raised {type(e).__name__}: {e}", path)
    if outcome.status.failed and isinstance(module, tf_utils.IreeCompiledModule):
      module.keep_vmfb()  # a big module's is written only now: its repro runs it.
    failing = () if outcome.call_index is None else (outcome.call_index,)
    if path is not None:  # the readable trace, showing the failing call however long it is.
      self._save_text(trace, outcome.call_index)
    if cli_flags.value("log_all_traces") or outcome.status.failed:
      logging.info("%s", trace.format(cli_flags.value("summarize"), keep_calls=failing))
    return outcome, repros

  def _localize_mismatches(self, ref_trace: Trace,
                           outcomes: Sequence[Outcome]) -> Dict[int, Dict[str, Any]]:
    """--localize_mismatches: each mismatching IREE target's first diverging dispatch (its
    verdict as data, by the outcome's index); {} when the flag is off, which imports nothing."""
    mismatches = [i for i, o in enumerate(outcomes)
                  if o.status is Status.MISMATCH and o.call_index is not None]
    if not self._settings.localize_mismatches or not mismatches:
      return {}
    from pyiree_tf_support.localizing import in_child  # pylint: disable=import-outside-toplevel
    trace_dir = artifacts.trace_path(self._artifacts_dir, ref_trace.function_name,
                                     ref_trace.backend, suffix="")
    found = {}
    for index in mismatches:
      spec = backends.find_by_artifact_name(outcomes[index].backend)
      if spec is None or not spec.is_iree:
        continue
      found[index] = in_child.localize(trace_dir, spec.name, outcomes[index].call_index,
                                       cli_flags.localize_arguments())
    return found

  @classmethod
  def generate_unit_tests(cls, module_class: type) -> None:
    """IREE's later API: a test method `test_<name>` per tf_function_unit_test of
    `module_class` (a TestModule), calling it once with its spec's inputs and tolerances. The
    method and its trace carry the spec as `unit_test_spec`."""
    for name, spec in generated_tests.unit_tests_of(_built(module_class)).items():
      method_name = f"test_{name}"
      if method_name in vars(cls):
        raise ValueError(f"{cls.__name__}.generate_unit_tests: {method_name} exists already "
                         f"(two tf_function_unit_tests named '{name}'?).")

      def trace(module, name=name, spec=spec):
        getattr(module, name)(*spec.generate_args(), **spec.tolerances())

      def unit_test(self, trace=trace):
        self.compare_backends(trace)

      trace.__name__ = name
      unit_test.__name__ = method_name
      trace.unit_test_spec = unit_test.unit_test_spec = spec
      setattr(cls, method_name, unit_test)

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
      ref_trace = self._compare_backends(trace_function)
      if self._settings.examples:  # --examples: every method the trace called, once a class.
        for method in dict.fromkeys(call.method for call in ref_trace.calls):
          if method not in self._methods_with_examples:
            self._methods_with_examples.add(method)
            try:
              self._check_examples(method, self._settings.examples, None)
            except examples_strategies.UnsupportedInputError as e:  # e.g. a string input.
              logging.warning("No examples of %s.%s(): %s", self._module_name, method, e)
    except faults.OwnFault:
      type(self)._own_faults += 1
      raise
    except KeyboardInterrupt:
      self._record_interrupted("during compare_backends or its examples")
      raise

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
      self._check_examples(method, examples or self._settings.examples or 100, input_signature)
    except faults.OwnFault:
      type(self)._own_faults += 1
      raise
    except KeyboardInterrupt:
      self._record_interrupted(f"during check_examples('{method}')")
      raise

  def _record_interrupted(self, what: str) -> None:
    """Ctrl-C: the test's entry in report.json says it was interrupted, so the traces it finished
    (or an earlier run's) never stand as its pass."""
    try:
      report_files.mark_interrupted(self._artifacts_dir, self.id(), what, self._test_file())
    except Exception as e:  # pylint: disable=broad-except  # the interrupt goes on regardless.
      logging.warning("Could not record the interruption of %s: %s", self.id(), e)

  def _example_signature(self, method: str,
                         input_signature: Optional[Sequence[Any]]) -> signatures.FunctionSignature:
    known = self._ref_module.signatures
    if method not in known:
      raise ValueError(f"check_examples('{method}'): module '{self._module_name}' exports no "
                       f"such function; it exports: {', '.join(known) or 'none'}.")
    signature = known[method]
    if input_signature is None:
      return signature
    specs = tf.nest.flatten(list(input_signature))
    if len(specs) != len(signature.inputs) or not all(
        isinstance(s, tf.TensorSpec) for s in specs):
      raise ValueError(
          f"check_examples('{method}'): input_signature must be {len(signature.inputs)} "
          f"tf.TensorSpec(s) nested as the arguments of {method}{signature.python_signature()}, "
          f"got {input_signature!r}.")
    return dataclasses.replace(signature, inputs=importer.input_specs(specs))

  def _check_examples(self, method: str, examples: int,
                      input_signature: Optional[Sequence[Any]]) -> None:
    signature = self._example_signature(method, input_signature)
    name = self._trace_names.claim(f"{method}.examples", self._testMethodName)
    directory = artifacts.examples_dir(self._artifacts_dir, name)
    storage = os.path.join(directory, "hypothesis")
    with faults.writing(directory):
      # hypothesis writes its caches there with plain opens: a directory made afresh holds no
      # link an earlier hand-over planted.
      artifacts.remove_tree(storage)
      artifacts.make_dirs(storage)
    state = getattr(getattr(self._ref_module, "_instance", None), "variables", None)
    targets = tuple(
        examples_engine.ExampleTarget(s.info.name, m)
        for index, (s, m) in enumerate(zip(self._setup.targets, self._tar_modules))
        if m is not None and index not in self._reset_errors
        and not (m.method_import_error(method) or m.method_compile_error(method)))
    modules = examples_engine.ExampleModules(self._ref_module, targets,
                                             stateful=state is None or bool(state))
    settings = examples_engine.ExampleSettings(
        examples, self._settings.examples_seed, self._settings.examples_seconds,
        storage, cli_flags.tolerance_policy())
    result = examples_engine.run_examples(modules, method, signature, settings)
    where = f"{self._module_name}.{method}()"
    summary = examples_summary.format_summary(
        result, where, f"--examples={examples} --examples_seed={result.seed}")
    artifacts.write_text(os.path.join(directory, "summary.txt"), summary + "\n")
    if result.failure:  # the shrunk input is saved as a trace below.
      first = {f"input_{i}": a for i, a in enumerate(result.failure.first_inputs)}
      artifacts.write_with(os.path.join(directory, "first_failing_inputs.npz"),
                           lambda f: np.savez(f, **first))
    if result.failure:  # shown under pytest too, whose backend items judge the trace below.
      logging.warning("%s", summary)
    else:
      logging.info("%s", summary if cli_flags.verbose() else summary.splitlines()[0])
    chosen = result.failure.shrunk_inputs if result.failure else result.first_accepted
    if chosen is None or (targets and not result.compared):
      self.fail(f"Examples of {where} compared nothing: the reference rejected every input or "
                f"the time box ended before the first.\n{summary}")
    trace = _ExampleTrace(f"{method}.shrunk" if result.failure else f"{method}.example",
                          method, signature, chosen)
    if modules.stateful:
      self._reinitialize_modules()
    logged = self._outcome_log.setdefault(self._testMethodName, [])
    earlier = len(logged)
    self._compare_backends(trace, summary)
    failing = result.failure.kind.backend if result.failure else None
    again = [o for o in logged[earlier:] if o.backend == failing]
    if again and not again[0].status.failed:  # raw outcomes: a listed backend's too.
      message = (f"{summary}\nThe shrunk input passed on {again[0].backend} when compared as a "
                 "trace: the backend is not deterministic.")
      if self._report_per_backend:
        logging.warning("%s", message)
      else:
        self.fail(message)

  def _reinitialize_modules(self) -> None:
    self._ref_module.reinitialize()
    for index, module in enumerate(self._tar_modules):
      if module is not None and index not in self._reset_errors:
        module.reinitialize()

  def _check_deterministic(self, ref_trace: Trace, trace_function, trace_name: str,
                           outcomes: Sequence[Outcome]) -> None:
    """NondeterministicTraceError when a target's inputs differ from the reference's because the
    trace gives other inputs every run (see `determinism`). Only a test's first trace is run
    again: a later one starts from the state the earlier ones left."""
    if self._reported or not determinism.starts_in_inputs(outcomes):
      return
    fresh = self._ref_module.create_reinitialized()
    try:
      again, error = run_trace(fresh, trace_function, tf_utils.set_random_seed, trace_name)
    finally:
      fresh.close()
    difference = (f"the second run raised: {error}" if error
                  else determinism.input_difference(ref_trace, again))
    if difference:
      raise faults.NondeterministicTraceError(determinism.message(ref_trace, difference))

  def _compare_backends(self, trace_function: Callable[[TracedModule], None],
                        summary: str = "") -> Trace:
    """Runs, saves, compares and reports one trace (`summary`: the examples that drew its input,
    added to its report); the reference's trace."""
    function_name = getattr(trace_function, "__name__", "trace")
    trace_name = self._trace_names.claim(function_name, self._testMethodName)
    ref_trace, ref_error = run_trace(self._ref_module, trace_function, tf_utils.set_random_seed,
                                     trace_name)
    ref_path = self._save_trace(ref_trace, reference=True)
    if cli_flags.value("log_all_traces"):
      logging.info("%s", ref_trace.format(cli_flags.value("summarize")))
    if ref_error:
      raise RuntimeError(f"Trace '{ref_trace.function_name}' failed on the reference backend "
                         f"'{ref_trace.backend}': {ref_error} (trace: {ref_path})")
    if not ref_trace.calls:
      self.fail(f"Trace '{ref_trace.function_name}' made no calls on the reference backend "
                f"'{ref_trace.backend}': nothing was compared. A trace function must call the "
                "module it is given.")

    targets = list(zip(self._setup.targets, self._tar_modules))
    results, seconds = [], []
    for index, (setup, module) in enumerate(targets):
      started = time.monotonic()
      results.append(self._target_outcome(setup, module, ref_trace, trace_function, trace_name,
                                          self._reset_errors.get(index)))
      seconds.append(time.monotonic() - started)
    outcomes = [outcome for outcome, _ in results]
    self._check_deterministic(ref_trace, trace_function, trace_name, outcomes)
    localized = self._localize_mismatches(ref_trace, outcomes)
    if localized:
      outcomes = [dataclasses.replace(o, repro_command="\n".join(filter(None, (
          o.repro_command, "localized: " + localized[i]["summary"]))))
                  if i in localized else o for i, o in enumerate(outcomes)]
      results = [(o, r) for o, (_, r) in zip(outcomes, results)]
    self._outcome_log.setdefault(self._testMethodName, []).extend(outcomes)
    listings = [test_setup.listed(s.info, self._settings, self._test_file(),
                                  type(self).__name__, self._testMethodName)
                for s in self._setup.targets]
    shown = [o.expecting_failure(listing.label) if listing else o
             for listing, o in zip(listings, outcomes)]

    full = verdicts.format_report(ref_trace.function_name, ref_trace.backend, shown)
    # The message shows each backend's first failing call in full; report.txt every call.
    report_path = artifacts.display_path(report_files.text_path(self._artifacts_dir))
    verdict = verdicts.format_report(ref_trace.function_name, ref_trace.backend, shown,
                                     report_path)
    notes = "".join("\n" + note for note in (
        self._setup.method_imports_note(), self._setup.method_compiles_note(),
        self._setup.skipped_note()) if note)
    examples = f"\n{summary}" if summary else ""  # how examples found this trace's input.
    report = verdict + examples + notes  # a failure message says it all.
    # report.txt lists the class's notes (per-method import/compile lists) once, in its first
    # entry, not in every test's.
    recorded = full + examples + ("" if type(self)._notes_recorded else notes)
    type(self)._notes_recorded = True
    records = [self._backend_record(setup, module, outcome, raw, trace_name, repros)
               for (setup, module), outcome, (raw, repros) in zip(targets, shown, results)]
    for index, localization in localized.items():
      records[index]["localization"] = localization
    report_files.record(self._artifacts_dir, self.id(),
                        report_files.trace_record(trace_name, ref_trace.backend, recorded,
                                                  records),
                        first_of_test=not self._reported, test_file=self._test_file())
    self._reported = True
    if self._report_per_backend:  # the pytest plugin reports each backend as its own item.
      self._compared.append(ComparedTrace(ref_trace.function_name, ref_trace.backend,
                                          tuple(outcomes), self._testMethodName,
                                          tuple(seconds), report_path))
      return ref_trace
    failed = any(o.status.failed for o in shown)
    if failed:
      self.fail(report)  # the report is shown once: as the failure message.
    logging.info("%s", report if cli_flags.verbose() else report.splitlines()[0])
    return ref_trace
