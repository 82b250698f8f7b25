"""Public API for trace-based differential tests: flags, traces, compile_module and the test case.

A test class decorated with `@compile_module(MyModule)` and derived from `TracedModuleTestCase`
compiles MyModule once for the reference and every target backend; each test calls
`self.compare_backends(trace_function)`, which runs the trace on every backend and compares.
"""

import concurrent.futures
import dataclasses
import os
import time
import unittest
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from absl import logging
import tensorflow as tf

from pyiree_tf_support import artifacts
from pyiree_tf_support import backends
from pyiree_tf_support import cli_flags
from pyiree_tf_support import reporting
from pyiree_tf_support import repro
from pyiree_tf_support import tf_utils
from pyiree_tf_support import trace_io
from pyiree_tf_support.reporting import Outcome, Status
from pyiree_tf_support.traces import NUMPY_LINEWIDTH, ModuleCall, Trace, TracedModule, run_trace  # pylint: disable=unused-import
from pyiree_tf_support.tf_utils import BackendInfo

FLAGS = cli_flags.FLAGS


def _parse_target_backends() -> Tuple[List[str], List[str]]:
  """The --target_backends names and their artifact names."""
  names = cli_flags.target_backend_names() or []
  return names, backends.indexed_names(names)


def get_reference_backend_info() -> BackendInfo:
  name = cli_flags.value("reference_backend")
  return BackendInfo(name, f"{name}_ref", cli_flags.value("run_in_worker"))


def get_target_backends() -> List[BackendInfo]:
  """The backends named by --target_backends, or every backend this machine can run."""
  if cli_flags.target_backend_names() is not None:
    names, artifact_names = _parse_target_backends()
    return [BackendInfo(name, artifact, cli_flags.value("run_in_worker"))
            for name, artifact in zip(names, artifact_names)]
  infos = []
  for info in BackendInfo.get_all_backends(cli_flags.value("run_in_worker")):
    available, reason = info.available()
    if available:
      infos.append(info)
    else:
      logging.warning("Skipping backend '%s': %s", info.name, reason)
  return infos


def _setup_artifacts_dir(module_class) -> str:
  """<artifacts_dir>/<Module>, or <Module>__<hash> when another test file's module has the name."""
  root = cli_flags.value("artifacts_dir") or artifacts.default_root()
  return artifacts.claim_module_dir(root, tf_utils.module_name_of(module_class),
                                    tf_utils.module_identity(module_class))


def _expected_to_fail(info: BackendInfo) -> bool:
  """Whether --xfail_backends names this backend (by artifact, typed or canonical name)."""
  return bool(set(cli_flags.value("xfail_backends") or ()) & set(info.names()))


def compile_module(module_class, exported_names: Sequence[str] = ()) -> Callable[[type], type]:
  """Class decorator: the TracedModuleTestCase compiles `module_class` (a class or factory)."""

  def decorator(cls):
    cls._module_class = module_class
    cls._exported_names = tuple(exported_names)
    return cls

  return decorator


@dataclasses.dataclass(frozen=True)
class _BackendSetup:
  """One target backend after setUpClass: its compiled module, or why it has none."""
  info: BackendInfo
  module: Optional[tf_utils.CompiledModule] = None
  status: Status = Status.PASS
  detail: str = ""


def _compile_backend(cls, info: BackendInfo) -> _BackendSetup:
  available, reason = info.available()
  if not available:
    return _BackendSetup(info, status=Status.SKIPPED, detail=reason)
  try:
    return _BackendSetup(info, info.compile(cls._module_class, cls._exported_names,
                                            cls._artifacts_dir, cls._compile_cache))
  except Exception as e:  # pylint: disable=broad-except
    return _BackendSetup(info, status=Status.COMPILE_ERROR, detail=f"{type(e).__name__}: {e}")


class TracedModuleTestCase(tf.test.TestCase):
  """Compiles the module once per class; each test compares a trace across the backends."""

  _module_class = None
  _exported_names: Tuple[str, ...] = ()
  _iree_input: Optional[str] = None  # what the IREE backends compiled; saved traces keep its hash

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    if cls._module_class is None:
      raise AttributeError(
          f"{cls.__name__} has no module to compile: decorate it with "
          "@tf_test_utils.compile_module(YourModule).")
    cli_flags.ensure_parsed()
    cls._compile_cache = cli_flags.compile_cache_from_flags()
    cls._module_name = tf_utils.module_name_of(cls._module_class)
    cls._artifacts_dir = _setup_artifacts_dir(cls._module_class)
    logging.info("Artifacts of %s are saved in %s", cls._module_name, cls._artifacts_dir)

    started = time.monotonic()
    ref_info = get_reference_backend_info()
    infos = get_target_backends()
    iree_infos = [info for info in [ref_info] + infos if info.is_iree]
    if iree_infos:  # import once on this thread, so that the compiles below run concurrently.
      try:
        cls._iree_input = tf_utils.import_module_class(
            cls._module_class, cls._exported_names, cls._artifacts_dir).iree_input
      except Exception:  # pylint: disable=broad-except
        pass  # reported per backend by _compile_backend.
    # IREE backends compile in a pool while TensorFlow builds its modules on this thread.
    workers = max(1, min(len(iree_infos) or 1,
                         cli_flags.value("compile_jobs") or os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
      pending = {id(info): pool.submit(_compile_backend, cls, info) for info in iree_infos}
      setups = {id(info): _compile_backend(cls, info) for info in [ref_info] + infos
                if not info.is_iree}
      setups.update({key: future.result() for key, future in pending.items()})
    ref_setup = setups[id(ref_info)]
    if ref_setup.module is None:
      raise RuntimeError(f"The reference backend '{ref_info.name}' could not be used for module "
                         f"'{cls._module_name}': {ref_setup.detail}")
    cls._compiled_ref_module = ref_setup.module
    cls._target_setups = [setups[id(info)] for info in infos]
    logging.info("Compiled %s for the reference and %d target backend(s) in %.2f s.",
                 cls._module_name, len(infos), time.monotonic() - started)
    cls._xfail_results = {s.info.name: s.status.failed for s in cls._target_setups
                          if _expected_to_fail(s.info) and s.status is not Status.SKIPPED}
    for setup in cls._target_setups:
      if setup.status is Status.SKIPPED:
        logging.warning("Skipping backend '%s': %s", setup.info.name, setup.detail)
    if infos and all(s.status is Status.SKIPPED for s in cls._target_setups):
      raise unittest.SkipTest("No target backend can run here: " + "; ".join(
          f"{s.info.name}: {s.detail}" for s in cls._target_setups))

  def setUp(self):
    super().setUp()
    # Fresh state for every test, without recompiling or restarting worker processes.
    self._ref_module = self._compiled_ref_module
    self._tar_modules = [s.module for s in self._target_setups]
    for module in [self._ref_module] + [m for m in self._tar_modules if m is not None]:
      module.reinitialize()

  @classmethod
  def tearDownClass(cls):
    expected_to_fail = getattr(cls, "_xfail_results", {})
    passed_all = [name for name, failed in expected_to_fail.items() if failed is False]
    super().tearDownClass()
    if passed_all:
      raise AssertionError(reporting.xpass_message(cls.__name__, passed_all))

  def _save_trace(self, trace: Trace, reference: bool = False) -> str:
    """Saves the trace readable (.txt, returned) and loadable (a directory beside it)."""
    trace_io.save_trace(trace, artifacts.trace_path(
        self._artifacts_dir, trace.function_name, trace.backend, suffix=""), reference,
                        self._iree_input)
    return trace.save_plaintext(self._artifacts_dir, cli_flags.value("summarize"))

  def _repro_commands(self, module, ref_trace: Trace, trace: Trace) -> List[str]:
    if not isinstance(module, tf_utils.IreeCompiledModule):
      return []
    vmfb_path = artifacts.compiled_path(self._artifacts_dir,
                                        tf_utils.backends_to_str([module.backend_info]))
    return [r.describe() for r in repro.write_call_repros(
        self._artifacts_dir, ref_trace, trace, vmfb_path, module.backend_info.driver,
        module.signatures, self._iree_input, cli_flags.tolerance_policy())]

  def _target_outcome(self, setup: "_BackendSetup", module, ref_trace: Trace,
                      trace_function) -> Outcome:
    if module is None:
      return Outcome(setup.info.name, setup.status, setup.detail)
    trace, error = run_trace(module, trace_function, tf_utils.set_random_seed)
    path = self._save_trace(trace)
    commands = [] if error else self._repro_commands(module, ref_trace, trace)
    outcome = reporting.evaluate(ref_trace, trace, error, path, commands,
                                 cli_flags.tolerance_policy())
    if cli_flags.value("log_all_traces") or outcome.status.failed:
      logging.info("%s", trace)
    return outcome

  def compare_backends(self, trace_function: Callable[[TracedModule], None]) -> None:
    """Runs `trace_function` on the reference and every target, saves the traces, compares."""
    ref_trace, ref_error = run_trace(self._ref_module, trace_function, tf_utils.set_random_seed)
    ref_path = self._save_trace(ref_trace, reference=True)
    if cli_flags.value("log_all_traces"):
      logging.info("%s", ref_trace)
    if ref_error:
      raise RuntimeError(f"Trace '{ref_trace.function_name}' failed on the reference backend "
                         f"'{ref_trace.backend}': {ref_error} (trace: {ref_path})")

    outcomes = []
    for setup, module in zip(self._target_setups, self._tar_modules):
      outcome = self._target_outcome(setup, module, ref_trace, trace_function)
      if _expected_to_fail(setup.info):
        results = type(self)._xfail_results
        results[setup.info.name] = bool(results.get(setup.info.name)) or outcome.status.failed
        outcome = outcome.expecting_failure()
      outcomes.append(outcome)

    report = reporting.format_report(ref_trace.function_name, ref_trace.backend, outcomes)
    logging.info("%s", report)
    if any(o.status.failed for o in outcomes):
      self.fail(report)
