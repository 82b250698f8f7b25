"""What `TracedModuleTestCase.setUpClass` does, as named steps that return immutable records,
and which targets --xfail_backends lists, judged per class and listing by `expected_failures`.

plan_backends -> claim_artifacts_dir -> pre_import -> compile_backends -> ClassSetup

Every step takes the run's `RunSettings` (core/run_settings.py); none reads a flag.
"""

import concurrent.futures
import dataclasses
import inspect
import os
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from absl import logging

from pyiree_tf_support import tf_utils
from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.compiling.method_compiles import MethodCompiles
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import module_dirs
from pyiree_tf_support.core import progress
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.importing import importer
from pyiree_tf_support.importing.method_imports import MethodImports
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting import import_repro
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status
from pyiree_tf_support.runtime import loading
from pyiree_tf_support.runtime.call_errors import BackendRuntimeError
from pyiree_tf_support.tf_utils import BackendInfo


@dataclasses.dataclass(frozen=True)
class BackendPlan:
  """Which backends a class compiles for. `requested`: the targets were named by a flag."""
  reference: BackendInfo
  targets: Tuple[BackendInfo, ...]
  requested: bool


@dataclasses.dataclass(frozen=True)
class BackendSetup:
  """One backend after set-up: its compiled module, or why it has none."""
  info: BackendInfo
  module: Optional[tf_utils.CompiledModule] = None
  status: Status = Status.PASS
  detail: str = ""
  error: Optional[BaseException] = dataclasses.field(default=None, compare=False)  # its traceback.

  @property
  def method_compiles(self) -> Optional[MethodCompiles]:
    """Which methods compiled alone after the whole module did not: the module's record, or,
    when no method compiled (no module), its error's (None: no fallback ran)."""
    return (getattr(self.module, "method_compiles", None)
            or getattr(self.error, "method_compiles", None))


@dataclasses.dataclass(frozen=True)
class ClassSetup:
  """Everything a test class's tests need: the reference module and one setup per target."""
  module_name: str
  artifacts_dir: str
  reference: tf_utils.CompiledModule
  targets: Tuple[BackendSetup, ...]
  requested: bool
  iree_input: Optional[str] = None  # what the IREE backends were compiled from (None: no import).
  method_imports: Optional[MethodImports] = None  # the whole module did not import.

  def method_imports_note(self) -> str:
    """When the whole module did not import: its error and which functions import alone."""
    return "" if self.method_imports is None else self.method_imports.describe()

  def skipped(self) -> Tuple[BackendSetup, ...]:
    return tuple(s for s in self.targets if s.status is Status.SKIPPED)

  def method_compiles_note(self) -> str:
    """Per target whose whole module did not compile: which methods compile alone ("" if none)."""
    records = (s.method_compiles for s in self.targets)
    return "\n".join(record.describe() for record in records if record is not None)

  def skipped_note(self) -> str:
    """One line naming requested backends that could not run ("" when none)."""
    skipped = self.skipped()
    if not self.requested or not skipped:
      return ""
    return ("Requested backend(s) skipped: "
            + "; ".join(f"{s.info.name} ({s.detail})" for s in skipped)
            + ". Pass --require_backends to make this a failure.")


def target_infos(names: Sequence[str], run_in_worker: bool = False) -> List[BackendInfo]:
  return [BackendInfo(name, artifact, run_in_worker)
          for name, artifact in zip(names, backends.indexed_names(list(names)))]


def _with_compile_flags(info: BackendInfo, settings: RunSettings,
                        artifacts_dir: Optional[str]) -> BackendInfo:
  """`info` with the iree-compile flags `settings` add for it (--iree_compile_flags, and with
  --dump_compiler_ir and a module dir the dumps into it)."""
  if not info.is_iree:
    return info
  extra = compile_flags.for_backend(settings.iree_compile_flags, info.names())
  if settings.dump_compiler_ir and artifacts_dir is not None:
    extra += compile_flags.dump_flags(artifacts_dir, info.name)
  if not extra:
    return info
  return BackendInfo(info.backend_name, info.name, settings.run_in_worker, extra)


def plan_backends(settings: RunSettings, probe: bool = True,
                  artifacts_dir: Optional[str] = None) -> BackendPlan:
  """The reference and targets `settings` ask for; without target backends, every backend this
  machine can run (the others are logged as skipped; `probe=False` skips finding out which).
  Each carries the compiler flags `settings` add for it (IR dumps only given `artifacts_dir`)."""
  plan = _plan_backends(settings, probe)
  return dataclasses.replace(
      plan, reference=_with_compile_flags(plan.reference, settings, artifacts_dir),
      targets=tuple(_with_compile_flags(t, settings, artifacts_dir) for t in plan.targets))


def _plan_backends(settings: RunSettings, probe: bool) -> BackendPlan:
  run_in_worker = settings.run_in_worker
  reference_name = settings.reference_backend
  reference = BackendInfo(reference_name, f"{reference_name}_ref", run_in_worker)
  names = settings.target_backends
  if names is not None:
    return BackendPlan(reference, tuple(target_infos(names, run_in_worker)), requested=True)
  if not probe:
    return BackendPlan(reference, (), requested=False)
  targets = []
  for info in BackendInfo.get_all_backends(run_in_worker):
    if not info.spec.default_target:  # tflite: a target only when named.
      continue
    available, reason = info.available()
    if available:
      targets.append(info)
    else:
      logging.warning("Skipping backend '%s': %s", info.name, reason)
  return BackendPlan(reference, tuple(targets), requested=False)


def claim_artifacts_dir(module_class, settings: RunSettings) -> str:
  """<artifacts_dir>/<Module>, or <Module>__<hash> when another module already has the name."""
  root = settings.artifacts_dir or module_dirs.default_root()
  return module_dirs.claim_module_dir(root, tf_utils.module_name_of(module_class),
                                    tf_utils.module_identity(module_class))


@dataclasses.dataclass(frozen=True)
class ImportResult:
  """The one import of the module for every IREE backend: its input text, or why it failed
  (`method_imports`: the whole module did not import, the text holds the functions that did)."""
  iree_input: Optional[str] = None
  error: Optional[str] = None
  method_imports: Optional[MethodImports] = None


def _with_import_repro(failure: importer.ModuleImportFailure, module_class,
                       artifacts_dir: str) -> importer.ModuleImportFailure:
  """The failure naming a TF-only script that reproduces it from the user's own source file."""
  name = getattr(module_class, "__name__", "")
  if getattr(module_class, "__qualname__", name) != name:
    return failure.with_files([("no import repro", f"{name} is not defined at the top level "
                                "of its file")])
  try:
    source = inspect.getsourcefile(module_class)
  except TypeError:
    source = None
  command, why_not = import_repro.write(
      artifacts_dir, source, name, importer.LOWERING_PIPELINE,
      keras=os.environ.get("TF_USE_LEGACY_KERAS") == "1")
  if command is None:
    return failure.with_files([("no import repro", why_not)])
  return failure.with_files([("reproduce the import with TensorFlow alone", command)])


def pre_import(module_class, exported_names: Sequence[str], artifacts_dir: str,
               plan: BackendPlan, keep_saved_model: bool = False) -> ImportResult:
  """Imports the module once, before the concurrent compiles (nothing when no backend is IREE).

  A failure is reported once for every IREE backend: TF's first cause first, its whole message
  and the lowering's input in files, and a TF-only repro of the user's file (with
  `keep_saved_model`, the SavedModel is kept too: no backend compiles to keep it)."""
  iree = [info for info in (plan.reference,) + plan.targets if info.is_iree]
  if not iree:
    return ImportResult()
  keep_at = ((artifacts.saved_model_path(
      artifacts_dir, artifacts.backends_to_str(info.name for info in iree)),)
             if keep_saved_model else ())
  try:
    imported = tf_utils.import_module_class(module_class, exported_names, artifacts_dir,
                                            each_function_on_failure=True,
                                            keep_saved_model_on_failure_at=keep_at)
  except faults.OwnFault:  # e.g. the disk filled up writing iree_input.mlir: no import error.
    raise
  except Exception as e:
    # The per-function record, when functions failed for causes of their own: each test of
    # one then names that function's cause, not the first function's.
    record = getattr(e, "method_imports", None)
    if isinstance(e, importer.ModuleImportFailure):
      e = _with_import_repro(e, module_class, artifacts_dir)
    return ImportResult(error=f"{type(e).__name__}: {e}", method_imports=record)
  return ImportResult(iree_input=imported.iree_input, method_imports=imported.method_imports)


@dataclasses.dataclass(frozen=True)
class _CompileJob:
  module_class: tf_utils.ModuleClass
  exported_names: Tuple[str, ...]
  artifacts_dir: str
  import_error: Optional[str]
  compile_cache: Optional[CompileCache]
  limits: timeouts.Timeouts = timeouts.DEFAULT
  progress_lines: progress.Progress = progress.Progress()

  def run(self, info: BackendInfo) -> BackendSetup:
    available, reason = info.available()
    if not available:
      return BackendSetup(info, status=Status.SKIPPED, detail=reason)
    if info.is_iree and self.import_error:
      return BackendSetup(info, status=Status.IMPORT_ERROR, detail=self.import_error)
    name = tf_utils.module_name_of(self.module_class)
    with self.progress_lines.step(f"{name}: {'compiling for' if info.is_iree else 'building'} "
                            f"{info.name}"):
      try:
        return self._compile(info)
      finally:  # --dump_compiler_ir's phases, of a compile that failed too.
        if info.is_iree:
          compile_flags.name_phase_dumps(self.artifacts_dir, info.name, name)

  def _compile(self, info: BackendInfo) -> BackendSetup:
    try:
      return BackendSetup(info, info.compile(self.module_class, self.exported_names,
                                             self.artifacts_dir, self.compile_cache,
                                             each_method_on_failure=True, limits=self.limits))
    except faults.OwnFault:  # e.g. the vmfb could not be saved: no compile error.
      raise
    except BackendRuntimeError as e:  # it compiled; loading it (e.g. into a worker) failed.
      return BackendSetup(info, status=Status.RUNTIME_ERROR, detail=f"{type(e).__name__}: {e}",
                          error=e)
    except Exception as e:
      return BackendSetup(info, status=Status.COMPILE_ERROR, detail=f"{type(e).__name__}: {e}",
                          error=e)


def _pool_size(plan: BackendPlan, compile_jobs: Optional[int]) -> int:
  """How many backends are set up at once: --compile_jobs, at most one per IREE backend.

  Default: one more than the CPU count. A job is not on a CPU all the time (iree-compile's start,
  writing its output, loading the module, a Vulkan worker), and with as many jobs as CPUs a long
  compile left a CPU idle at the end: matmul_test on vmvx, llvm-cpu and Vulkan on 2 CPUs set up in
  1.92 s with 2 jobs and 1.70 s with 3 (medians of 4, interleaved; 2.5 s one at a time)."""
  iree = sum(info.is_iree for info in (plan.reference,) + plan.targets)
  return max(1, min(iree or 1, compile_jobs or (os.cpu_count() or 1) + 1))


def start_runtimes_early(plan: BackendPlan, compile_jobs: Optional[int]) -> None:
  """Starts, before the import, what loading the compiled modules will need (`loading.
  start_early`: Vulkan's availability probe, a fresh interpreter creating a device, and its
  worker process), so that it overlaps the import, which keeps one core busy. Not with
  --compile_jobs=1, which sets up one thing at a time."""
  if _pool_size(plan, compile_jobs) > 1:
    for info in (plan.reference,) + plan.targets:
      if info.is_iree:
        loading.start_early(info.driver, isolated=info.spec.isolated)


def compile_backends(job: _CompileJob, plan: BackendPlan,
                     compile_jobs: Optional[int] = None) -> Tuple[BackendSetup, ...]:
  """The reference's setup first, then one per target, in the plan's order.

  IREE backends compile in a thread pool while TensorFlow builds its modules on this thread, as
  one `iree_compile.batch` (compiles that fill every CPU run single-threaded).
  An interrupt (Ctrl-C, SIGTERM) kills the running iree-compile processes at once instead of
  waiting for them (see iree_compile); it is raised, never a backend's COMPILE ERROR.
  """
  infos = (plan.reference,) + plan.targets
  iree = [i for i, info in enumerate(infos) if info.is_iree]
  jobs = _pool_size(plan, compile_jobs)
  pool = concurrent.futures.ThreadPoolExecutor(jobs)
  with iree_compile.interruptible(lambda: pool.shutdown(wait=True, cancel_futures=True)), \
      iree_compile.batch(min(jobs, len(iree))):
    pending = {i: pool.submit(job.run, infos[i]) for i in iree}
    done: Dict[int, BackendSetup] = {i: job.run(info)
                                     for i, info in enumerate(infos) if i not in pending}
    done.update({i: future.result() for i, future in pending.items()})
  pool.shutdown()
  return tuple(done[i] for i in range(len(infos)))


def set_up_class(module_class, exported_names: Sequence[str], settings: RunSettings,
                 only_targets: Optional[Sequence[str]] = None,
                 progress_lines: progress.Progress = progress.Progress()) -> ClassSetup:
  """Runs the steps; raises if the reference cannot be used (nothing could be compared).

  `only_targets`: names of the planned targets to set up (the pytest plugin passes the backends
  of the selected items); None sets up every planned target. `progress_lines`: where the import
  and each compile say that they take long (the pytest plugin writes past its capture).
  """
  module_name = tf_utils.module_name_of(module_class)
  artifacts_dir = claim_artifacts_dir(module_class, settings)
  logging.info("Artifacts of %s are saved in %s", module_name, artifacts_dir)
  plan = plan_backends(settings, artifacts_dir=artifacts_dir)
  if only_targets is not None:
    plan = dataclasses.replace(
        plan, targets=tuple(t for t in plan.targets if t.name in only_targets))
  start_runtimes_early(plan, settings.compile_jobs)
  with progress_lines.step(f"{module_name}: importing from TensorFlow"):
    imported = pre_import(module_class, exported_names, artifacts_dir, plan,
                          settings.keep_saved_model)
  cache = None if settings.compile_cache_dir is None else CompileCache(settings.compile_cache_dir)
  job = _CompileJob(module_class, tuple(exported_names), artifacts_dir, imported.error, cache,
                    settings.timeouts, progress_lines)
  try:
    reference, *targets = compile_backends(job, plan, settings.compile_jobs)
  finally:
    loading.discard_early_starts()  # e.g. Vulkan's, when its compile failed.
  if reference.module is None:
    raise RuntimeError(f"The reference backend '{plan.reference.name}' could not be used for "
                       f"module '{module_name}': {reference.detail}") from reference.error
  return ClassSetup(module_name, artifacts_dir, reference.module, tuple(targets), plan.requested,
                    imported.iree_input, imported.method_imports)


def listed(info: BackendInfo, settings: RunSettings, test_file: Optional[str], test_class: str,
           method: Optional[str]) -> Optional[expected_failures.Listing]:
  """How --xfail_backends lists this backend (by artifact, typed or canonical name) for test
  `method` of `test_class` in `test_file` (a path or None); None: not listed."""
  file = os.path.basename(test_file) if test_file else None
  return expected_failures.expected_for(info.names(), {}, settings.xfail_backends, file,
                                        test_class, method)


def class_verdicts(setup: ClassSetup, outcomes: Mapping[str, Sequence[Outcome]],
                   settings: RunSettings, test_file: Optional[str],
                   test_class: str) -> List[expected_failures.ClassVerdict]:
  """The verdicts of every target --xfail_backends lists, over the class's raw `outcomes` by test
  method (every method that ran, with its compared traces' outcomes before XFAIL was applied),
  one per listing its methods ran under; a target skipped at set-up counts as skipped."""
  judged = []
  for s in setup.targets:
    listings = {m: listed(s.info, settings, test_file, test_class, m) for m in outcomes}
    skipped = [Outcome(s.info.name, s.status, s.detail)] if s.status is Status.SKIPPED else []
    judged += expected_failures.judge_listings(s.info.name, listings, outcomes, skipped)
  return judged


class TraceNames:
  """Names the artifacts of each compared trace so that different tests never share them.

  The first test to compare a trace function keeps the 2020 name (`<function>`); another test
  comparing a function of the same name gets `<function>.<test method>`, and a test comparing
  two functions of the same name numbers the second (`<function>.<test method>.2`).
  """

  def __init__(self):
    self._owners: Dict[str, Tuple[str, int]] = {}
    self._uses: Dict[Tuple[str, str], int] = {}

  def claim(self, function_name: str, test_name: str) -> str:
    use = self._uses.get((function_name, test_name), 0) + 1
    self._uses[(function_name, test_name)] = use
    candidates = [function_name, f"{function_name}.{test_name}",
                  f"{function_name}.{test_name}.{use}"]
    for candidate in candidates if use == 1 else candidates[2:]:
      owner = self._owners.setdefault(candidate, (test_name, use))
      if owner == (test_name, use):
        return candidate
    raise AssertionError(f"unreachable: no free name for trace '{function_name}'")
