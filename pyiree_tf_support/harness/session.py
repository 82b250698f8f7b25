"""One module's compiled backends and a run's records: traces compared without unittest.

`ModuleSession.open(module_class, settings, options)` sets the module up (`class_setup`: import
once, compile for every target) and owns what a run of its traces accumulates: the outcome log
(every test's raw outcomes, from which a class's expected failures are judged), the trace names
claimed, report.json's entries, the determinism check and localization (examples of a method:
`session_examples`). `start(test_name)` gives a test its fresh modules (`TestRun`);
`TestRun.compare(trace_function)` runs the trace on the reference and every target, saves,
compares and records it, and returns a frozen `ComparedTrace`: the outcomes, the message,
whether it failed and its report.json record (`reporting.records`). Nothing here fails a test on
its outcomes or reads a flag: the 2020 `TracedModuleTestCase` (tf_test_utils) is an adapter that
opens a session in setUpClass and fails on a failed `ComparedTrace`; the pytest plugin judges
each backend's outcomes itself; a fuzzer or reducer calls the session directly. What the flags
decide comes in as `RunSettings` and `SessionOptions`, built by the public modules
(`tf_test_utils.session_options`).
"""

import dataclasses
import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple
import unittest

from absl import logging

from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import check_same_calls
from pyiree_tf_support.comparing.traces import run_trace
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import progress as progress_lib
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup
from pyiree_tf_support.reporting import determinism
from pyiree_tf_support.reporting import report_files
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.records import BackendRecord
from pyiree_tf_support.reporting.records import TraceRecord
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status


@dataclasses.dataclass(frozen=True)
class SessionOptions:
  """How a session judges and reports, beside `RunSettings` (the public modules read the flags
  into both): the tolerance table, the flags printed commands repeat, and what is logged."""
  tolerance_policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
  replay_arguments: Tuple[str, ...] = ()  # what a printed replay command repeats.
  localize_arguments: Tuple[str, ...] = ()  # what a localizer started for a mismatch repeats.
  log_all_traces: bool = False
  summarize: bool = True  # logged traces summarize arrays over 64 elements.
  verbose: bool = False


@dataclasses.dataclass(frozen=True)
class ComparedTrace:
  """One compared trace: its raw outcomes (before XFAIL) and what a test shows of them."""
  function_name: str
  reference: str
  outcomes: Tuple[Outcome, ...]
  method: str = ""  # the test that compared it.
  # Each outcome's own time: running, saving and comparing that backend's trace (what the
  # plugin gives the backend's item in --durations and JUnit XML).
  seconds: Tuple[float, ...] = ()
  report_path: Optional[str] = None  # report.txt, where every failing call is in full.
  shown: Tuple[Outcome, ...] = ()  # the outcomes with listed failures as XFAIL.
  message: str = ""  # the report a failing test shows (brief: report.txt has it all).
  called: Tuple[str, ...] = ()  # the methods the trace called, in order.
  record: Optional[TraceRecord] = None  # what report.json holds of it (`to_json()`).

  @property
  def failed(self) -> bool:
    """Whether a backend failed that is not listed as expected to fail."""
    return any(o.status.failed for o in self.shown)


def first_different_call(ref_trace: Trace, trace: Trace) -> int:
  pairs = zip(ref_trace.calls, trace.calls)
  return next((i for i, (a, b) in enumerate(pairs) if a.method != b.method),
              min(len(ref_trace.calls), len(trace.calls)))


class ModuleSession:
  """A module set up for the reference and every target, and the records of its traces."""

  def __init__(self, setup: class_setup.ClassSetup, settings: RunSettings,
               options: SessionOptions = SessionOptions(), test_file: Optional[str] = None,
               class_name: str = "", per_backend: bool = False):
    self.setup = setup
    self.settings = settings
    self.options = options
    self.test_file = test_file
    self.class_name = class_name or setup.module_name
    # The pytest plugin judges each backend as its own item: then nothing fails here.
    self.per_backend = per_backend
    self.module_name = setup.module_name
    self.artifacts_dir = setup.artifacts_dir
    self.iree_input = setup.iree_input
    # Every test that ran, with its raw outcomes: the unit of an expected failure may be a test
    # method (expected_failures).
    self.outcome_log: Dict[str, List[Outcome]] = {}
    self.own_faults: Set[str] = set()  # tests that met a faults.OwnFault: then no XPASS.
    self.compared: List[ComparedTrace] = []
    self.trace_names = class_setup.TraceNames()
    self.methods_with_examples: Set[str] = set()  # --examples checks each method once.
    self._notes_recorded = False  # whether report.txt has the class's notes yet.
    # Per target whose module did not compile: the test whose report.txt entry holds the error.
    self.compile_error_recorded: Dict[str, str] = {}
    # Per class-level block (a target's compile error, the per-method lists): the test whose
    # failure message showed it; a later failing test's message points at it in one line.
    self.shown_in_message: Dict[str, str] = {}
    self._iree_input_sha256: Optional[str] = None

  @classmethod
  def open(cls, module_class, exported_names: Tuple[str, ...], settings: RunSettings,
           options: SessionOptions = SessionOptions(), *, test_file: Optional[str] = None,
           class_name: str = "", only_targets: Optional[Tuple[str, ...]] = None,
           progress: Optional[progress_lib.Progress] = None,
           per_backend: bool = False) -> "ModuleSession":
    """Imports and compiles `module_class` (only `only_targets` of the planned targets, when
    given), then a session of it."""
    started = time.monotonic()
    setup = class_setup.set_up_class(module_class, exported_names, settings, only_targets,
                                    progress or progress_lib.Progress())
    logging.debug("Compiled %s for the reference and %d target backend(s) in %.2f s.",
                  setup.module_name, len(setup.targets), time.monotonic() - started)
    return cls(setup, settings, options, test_file, class_name, per_backend)

  def start(self, test_name: str, test_id: Optional[str] = None) -> "TestRun":
    """A test's run: the reference and targets reset to their initial state (no recompiling).
    `test_id`: report.json's key of the test (default `<class name>.<test name>`)."""
    return TestRun(self, test_name, test_id or f"{self.class_name}.{test_name}")

  def check_targets(self, require_backends: bool = False) -> None:
    """What a class with this session cannot run: no target at all (RuntimeError), skipped
    targets with `require_backends` (RuntimeError) or all of them (unittest.SkipTest); a
    skipped target alone is a warning."""
    setup = self.setup
    if not setup.targets:
      raise RuntimeError("No target backends to compare with the reference: --target_backends is "
                         "empty. Name at least one backend, or omit the flag for every backend "
                         "this machine can run.")
    for skipped in setup.skipped():
      logging.warning("Skipping backend '%s': %s", skipped.info.name, skipped.detail)
    if setup.skipped_note():
      if require_backends:
        raise RuntimeError(f"--require_backends: {setup.skipped_note().split('. Pass')[0]}.")
      logging.warning("%s", setup.skipped_note())
    if len(setup.skipped()) == len(setup.targets):
      raise unittest.SkipTest("No target backend can run here: " + "; ".join(
          f"{s.info.name}: {s.detail}" for s in setup.targets))

  def class_verdicts(self) -> List[Any]:
    """The class's verdicts on its listed backends (XPASS, a wrong phase), from every test's
    raw outcomes; none once a test met an own fault, or when the plugin judges per item."""
    if self.per_backend or self.own_faults:
      return []
    return class_setup.class_verdicts(self.setup, self.outcome_log, self.settings, self.test_file,
                                     self.class_name)

  def close(self) -> None:
    """Ends the modules' runtimes (a finished class's worker processes must not outlive it)."""
    for module in [self.setup.reference] + [s.module for s in self.setup.targets
                                            if s.module is not None]:
      module.close()

  def iree_input_sha256(self) -> Optional[str]:
    """The hash of iree_input.mlir as saved (bytecode for a big module), once; None when the
    module was not imported or the file is not there (the text's hash is kept then)."""
    if self.iree_input is None:
      return None
    if self._iree_input_sha256 is None:
      path = os.path.join(self.artifacts_dir, "iree_input.mlir")
      try:
        self._iree_input_sha256 = trace_io.content_sha256(safe_files.read_bytes(path))
      except OSError:
        return None
    return self._iree_input_sha256

  def shown_before(self, block: str, test_id: str, showing: bool) -> Optional[str]:
    """The test whose failure message showed `block` first when that is another test's, else
    None; then `test_id` becomes that test if `showing` (its message is shown: it fails). A
    passing test's message is never shown, so it cannot be the one pointed at."""
    first = self.shown_in_message.get(block)
    if first is not None and first != test_id:
      return first
    if showing:
      self.shown_in_message[block] = test_id
    return None

  def take_notes(self) -> bool:
    """Whether this report.txt entry is the first to carry the class's notes (per-method import
    and compile lists): they are written once, not in every test's entry."""
    first, self._notes_recorded = not self._notes_recorded, True
    return first


def _iree_targets(outcomes: Sequence[Outcome],
                  wanted: Callable[[Outcome], bool]) -> List[Tuple[int, backends.BackendSpec]]:
  """(index, backend spec) of each outcome `wanted` picks whose backend is IREE's."""
  found = []
  for index, outcome in enumerate(outcomes):
    spec = backends.find_by_artifact_name(outcome.backend) if wanted(outcome) else None
    if spec is not None and spec.is_iree:
      found.append((index, spec))
  return found


def _where_shown(test_id: str) -> str:
  """Where a class-level block is, for a failure message that points at it."""
  return f"{test_id.rsplit('.', 1)[-1]}'s failure message above and in report.txt"


def _with_lines(outcomes: Sequence[Outcome], lines: Dict[int, str]) -> List[Outcome]:
  """`outcomes` with `lines[i]` added below outcome i's repro commands."""
  return [dataclasses.replace(o, repro_command="\n".join(filter(None, (
      o.repro_command, lines[i])))) if i in lines else o for i, o in enumerate(outcomes)]


class TestRun:
  """One test of a session: its fresh modules and whether it has reported yet."""

  def __init__(self, session: ModuleSession, test_name: str, test_id: str):
    self.session = session
    self.name = test_name
    self.test_id = test_id
    self.reported = False  # whether this test has written its entry of report.json yet.
    self.saved_reference: Optional[trace_io.SavedReference] = None  # the last reference trace.
    session.outcome_log.setdefault(test_name, [])
    setup = session.setup
    self.reference = setup.reference
    self.targets = [s.module for s in setup.targets]
    self.reference.reinitialize()  # without a reference nothing can be compared.
    # A target that cannot be reset (its worker died while idle) fails in this test alone, as
    # its own RUNTIME ERROR; the next test's reset starts a fresh worker.
    self.reset_errors: Dict[int, str] = {}
    for index, module in enumerate(self.targets):
      if module is not None:
        try:
          module.reinitialize()
        except Exception as e:
          self.reset_errors[index] = f"{type(e).__name__}: {e}"

  def record_interrupted(self, what: str) -> None:
    """Ctrl-C: the test's entry in report.json says it was interrupted, so the traces it finished
    (or an earlier run's) never stand as its pass."""
    try:
      report_files.mark_interrupted(self.session.artifacts_dir, self.test_id, what,
                                    self.session.test_file)
    except Exception as e:  # the interrupt goes on regardless.
      logging.warning("Could not record the interruption of %s: %s", self.test_id, e)

  # --- Comparing one trace ----------------------------------------------------------------------

  def compare(self, trace_function: Callable[[Any], None], summary: str = "") -> ComparedTrace:
    """Runs, saves, compares and reports one trace (`summary`: the examples that drew its input,
    added to its report). An own fault (`faults`) is raised, never an outcome."""
    try:
      return self._compare(trace_function, summary)
    except faults.OwnFault:
      self.met_own_fault()
      raise

  def met_own_fault(self) -> None:
    """The test met an own fault (`faults`): the class draws no XPASS from its outcomes."""
    self.session.own_faults.add(self.name)

  def _compare(self, trace_function: Callable[[Any], None], summary: str) -> ComparedTrace:
    session, options = self.session, self.session.options
    function_name = getattr(trace_function, "__name__", "trace")
    trace_name = session.trace_names.claim(function_name, self.name)
    ref_trace, ref_error = run_trace(self.reference, trace_function, tf_utils.set_random_seed,
                                     trace_name)
    ref_path = self._save_trace(ref_trace, reference=True)
    if options.log_all_traces:
      logging.info("%s", ref_trace.format(options.summarize))
    if ref_error:
      raise RuntimeError(f"Trace '{ref_trace.function_name}' failed on the reference backend "
                         f"'{ref_trace.backend}': {ref_error} (trace: {ref_path})")
    if not ref_trace.calls:
      raise AssertionError(
          f"Trace '{ref_trace.function_name}' made no calls on the reference backend "
          f"'{ref_trace.backend}': nothing was compared. A trace function must call the module "
          "it is given.")

    targets = list(zip(session.setup.targets, self.targets))
    results, seconds = [], []
    for index, (setup, module) in enumerate(targets):
      started = time.monotonic()
      results.append(self._target_outcome(setup, module, ref_trace, trace_function, trace_name,
                                          self.reset_errors.get(index)))
      seconds.append(time.monotonic() - started)
    outcomes = [outcome for outcome, _ in results]
    self._check_deterministic(ref_trace, trace_function, trace_name, outcomes)
    outcomes, float64 = self._judged_by_float64(ref_trace, trace_name, outcomes)
    localized = self._localize_mismatches(ref_trace, outcomes)
    outcomes = _with_lines(outcomes, {
        i: "localized: " + found.get("message", found["summary"])
        for i, found in localized.items()})
    reduced = self._reduce_failures(ref_trace, outcomes)
    outcomes = _with_lines(outcomes, {
        i: "reduced: " + found["summary"]
        + (f"; reproduce: {found['repro']}" if "repro" in found else "")
        for i, found in reduced.items()})
    results = [(o, r) for o, (_, r) in zip(outcomes, results)]
    session.outcome_log.setdefault(self.name, []).extend(outcomes)
    listings = [class_setup.listed(s.info, session.settings, session.test_file,
                                  session.class_name, self.name)
                for s in session.setup.targets]
    shown = [o.expecting_failure(listing.label) if listing else o
             for listing, o in zip(listings, outcomes)]

    full = verdicts.format_report(ref_trace.function_name, ref_trace.backend,
                                  self._before_notes(shown, in_file=True))
    # The message shows each backend's first failing call in full; report.txt every call.
    report_path = bazel_paths.display_path(report_files.text_path(session.artifacts_dir))
    failing = any(o.status.failed for o in shown)  # whether this message is shown.
    verdict = verdicts.format_report(
        ref_trace.function_name, ref_trace.backend,
        self._before_notes(shown, in_file=False, showing=failing), report_path)
    setup = session.setup
    notes = "".join("\n" + note for note in (
        setup.method_imports_note(), setup.method_compiles_note(), setup.skipped_note()) if note)
    examples = f"\n{summary}" if summary else ""  # how examples found this trace's input.
    # A failure message says it all, but the class's notes only in the class's first shown one.
    message = verdict + examples + self._message_notes(failing)
    # report.txt lists the class's notes (per-method import/compile lists) once, in its first
    # entry, not in every test's.
    recorded = full + examples + (notes if session.take_notes() else "")
    records = [self._backend_record(setup, module, outcome, raw, trace_name, repros)
               for (setup, module), outcome, (raw, repros) in zip(targets, shown, results)]
    # What was learnt after a record was built goes into a copy of it (records are frozen).
    for index, target in enumerate(session.setup.targets):
      compiles = target.method_compiles
      records[index] = dataclasses.replace(
          records[index], method_compiles=None if compiles is None else compiles.to_json(),
          float64=float64.get(index), localization=localized.get(index),
          reduction=reduced.get(index))
    trace_record = report_files.trace_record(trace_name, ref_trace.backend, recorded, records)
    report_files.record(session.artifacts_dir, self.test_id, trace_record,
                        first_of_test=not self.reported, test_file=session.test_file)
    self.reported = True
    compared = ComparedTrace(ref_trace.function_name, ref_trace.backend, tuple(outcomes),
                             self.name, tuple(seconds), report_path, tuple(shown), message,
                             tuple(call.method for call in ref_trace.calls), trace_record)
    if session.per_backend:
      session.compared.append(compared)
    elif not compared.failed:
      logging.info("%s", message if options.verbose else message.splitlines()[0])
    return compared

  def _message_notes(self, showing: bool) -> str:
    """The class's notes as this test's failure message shows them: whole in the class's first
    shown message, then one line each naming where they are (a 27-line block repeated in every
    failing test's message buried what each test had of its own)."""
    setup, session = self.session.setup, self.session
    blocks = [("imports", setup.method_imports_note(), "the whole module did not import")]
    blocks += [(f"compiles:{s.info.name}", compiles.describe(),
                f"{s.info.name}: the whole module did not compile")
               for s in setup.targets if (compiles := s.method_compiles) is not None]
    lines = []
    for block, text, what in blocks:
      if not text:
        continue
      first = session.shown_before(block, self.test_id, showing)
      lines.append(text if first is None else
                   f"{what}: the per-method list is in {_where_shown(first)}")
    lines.append(setup.skipped_note())
    return "".join("\n" + line for line in lines if line)

  def _before_notes(self, outcomes: Sequence[Outcome], in_file: bool,
                    showing: bool = False) -> List[Outcome]:
    """`outcomes` as a report followed by the per-method list shows them: a call of a method
    that did not compile without its reproducer (the list has it once for every method failing
    alike); a module that did not compile at all with its error once per class: `in_file`
    (report.txt) in the first test's entry, else (the failure message, shown when `showing`)
    in the first failing test's message, a later one naming where it is. Records and pytest's
    items keep it whole."""
    shown = []
    for outcome, setup, module in zip(outcomes, self.session.setup.targets, self.targets):
      record = setup.method_compiles
      method = outcome.call_method
      if (record is not None and outcome.status is Status.COMPILE_ERROR and method
          and record.failure_of(method) is not None):  # its own method's cause, listed once.
        text = record.call_reference(method) if in_file else record.call_note(method)
        index = outcome.detail.split(" ", 2)[1]  # "call <index> (<method>): ..."
        outcome = dataclasses.replace(outcome, detail=f"call {index} ({method}): {text}")
      elif in_file and module is None and outcome.status is Status.COMPILE_ERROR:
        first = self.session.compile_error_recorded.setdefault(outcome.backend, self.test_id)
        if first != self.test_id:
          outcome = dataclasses.replace(
              outcome, detail=f"the module did not compile for {outcome.backend}: the error "
              f"is in {first}'s entry")
      elif module is None and outcome.status is Status.COMPILE_ERROR:
        first = self.session.shown_before(f"compile:{outcome.backend}", self.test_id, showing)
        if first is not None:
          outcome = dataclasses.replace(
              outcome, detail=f"the module did not compile for {outcome.backend}: its error is "
              f"in {_where_shown(first)}")
      shown.append(outcome)
    return shown

  def _save_trace(self, trace: Trace, reference: bool = False, text: bool = True) -> str:
    """Saves the trace loadable (a directory: every value, which replay reads) and readable
    (`_save_text`; with `text=False` the caller writes it once it knows the failing call);
    returns the readable file's path."""
    session = self.session
    loadable = self._loadable_path(trace)
    # A target's arrays shared with the reference's record are named in the reference's file.
    saved = trace_io.save_trace(trace, loadable, reference, session.iree_input,
                                None if reference else self.saved_reference,
                                session.iree_input_sha256())
    if reference:
      self.saved_reference = saved
    if text:
      return self._save_text(trace)
    return artifacts.trace_path(session.artifacts_dir, trace.function_name, trace.backend)

  def _loadable_path(self, trace: Trace) -> str:
    return artifacts.trace_path(self.session.artifacts_dir, trace.function_name, trace.backend,
                                suffix="")

  def _save_text(self, trace: Trace, failing_call: Optional[int] = None) -> str:
    """The readable trace (.txt beside the loadable one, returned): arrays over 64 elements
    summarized and, over 100 calls, the first and last 10 and the failing call shown, unless
    --full_text_traces."""
    return trace.save_plaintext(
        self.session.artifacts_dir, summarize=not self.session.settings.full_text_traces,
        complete_values=os.path.join(os.path.basename(self._loadable_path(trace)),
                                     trace_io.ARRAYS_NAME),
        keep_calls=() if failing_call is None else (failing_call,))

  def _call_repros(self, module, ref_trace: Trace,
                   trace: Trace) -> Optional[repro.CallRepros]:
    """Each call's repro record (None off IREE); a call's files are written only when read."""
    if not isinstance(module, tf_utils.IreeCompiledModule):
      return None
    session = self.session
    return repro.CallRepros(
        session.artifacts_dir, ref_trace, trace, self._vmfb_path(module),
        module.backend_info.driver, module.signatures, session.iree_input,
        session.options.tolerance_policy, session.options.replay_arguments)

  def _vmfb_path(self, module) -> str:
    return artifacts.compiled_path(self.session.artifacts_dir,
                                   tf_utils.backends_to_str([module.backend_info]))

  def _backend_record(self, setup: class_setup.BackendSetup, module, outcome: Outcome,
                      raw: Outcome, trace_name: str,
                      repros: Optional[repro.CallRepros]) -> BackendRecord:
    """report.json's entry for one target of one compared trace (`raw`: before XFAIL)."""
    call = (repros.call(outcome.call_index)
            if outcome.call_index is not None and repros is not None
            and outcome.call_index < len(repros) else None)
    paths = {"trace": outcome.trace_path,
             "trace_dir": outcome.trace_path and outcome.trace_path[:-len(".txt")],
             "compiled": (self._vmfb_path(module)  # a big module's only after a failure.
                          if module is not None and repros is not None
                          and os.path.isfile(self._vmfb_path(module)) else None),
             # the compile error's own (none after a timeout: nothing was reproduced).
             "reproducer": (getattr(setup.error, "reproducer_path", None)
                            if setup.status is Status.COMPILE_ERROR else None),
             "repro_dir": (artifacts.repro_dir(self.session.artifacts_dir, trace_name,
                                               outcome.backend)
                           if call is not None else None)}
    commands = {"replay": call and call.replay_command,
                "iree_run_module": call and call.run_module_command,
                "no_iree_run_module": call and call.no_run_module_reason}
    return report_files.backend_record(outcome, paths, commands, raw)

  def _target_outcome(self, setup: class_setup.BackendSetup, module, ref_trace: Trace,
                      trace_function, trace_name: str, reset_error: Optional[str] = None
                      ) -> Tuple[Outcome, Optional[repro.CallRepros]]:
    """The outcome of one target and its repro records; any exception while resetting, running,
    saving or comparing it becomes that target's RUNTIME ERROR, so the other targets still run
    and write their traces."""
    options = self.session.options
    repros: Optional[repro.CallRepros] = None
    if module is None:
      return (self._own_compile_error(setup, ref_trace)
              or Outcome(setup.info.name, setup.status,
                         self._own_import_error(setup, ref_trace) or setup.detail)), repros
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
                          f"call {len(trace.calls)} ({trace.pending_method}): {not_compiled}", path,
                          call_method=trace.pending_method)
      elif error:
        step = "writing the repro files"
        repros = self._call_repros(module, ref_trace, trace)
        outcome = verdicts.evaluate(ref_trace, trace, error, path, repros or ())
      else:
        step = f"call {first_different_call(ref_trace, trace)}: comparing with the reference"
        check_same_calls(ref_trace, trace)
        step = "writing the repro files"
        repros = self._call_repros(module, ref_trace, trace)
        step = "comparing with the reference"
        outcome = verdicts.evaluate(ref_trace, trace, error, path, repros or (),
                                     options.tolerance_policy)
    except faults.OwnFault:  # e.g. the disk filled up saving the trace: no runtime error.
      raise
    except Exception as e:
      outcome = Outcome(setup.info.name, Status.RUNTIME_ERROR,
                        f"{step} raised {type(e).__name__}: {e}", path)
    if outcome.status.failed and isinstance(module, tf_utils.IreeCompiledModule):
      module.keep_vmfb()  # a big module's is written only now: its repro runs it.
    failing = () if outcome.call_index is None else (outcome.call_index,)
    if path is not None:  # the readable trace, showing the failing call however long it is.
      self._save_text(trace, outcome.call_index)
    if options.log_all_traces or outcome.status.failed:
      logging.info("%s", trace.format(options.summarize, keep_calls=failing))
    return outcome, repros

  def _own_import_error(self, setup: class_setup.BackendSetup, ref_trace: Trace) -> Optional[str]:
    """When no function imported but some failed for causes of their own: the first call of one
    of them with that function's cause (None otherwise), so that each test names its own."""
    record = self.session.setup.method_imports
    if setup.status is not Status.IMPORT_ERROR or record is None:
      return None
    return next((f"call {index} ({call.method}): {record.call_error(call.method)}"
                 for index, call in enumerate(ref_trace.calls)
                 if record.failure_of(call.method)), None)

  def _own_compile_error(self, setup: class_setup.BackendSetup,
                         ref_trace: Trace) -> Optional[Outcome]:
    """When no method compiled but each was compiled alone: the first call of one that failed,
    with that method's own first cause (None otherwise). The whole module's error is the first
    method's: every test showed it, whatever method it called."""
    record = setup.method_compiles
    if setup.status is not Status.COMPILE_ERROR or record is None:
      return None
    return next((Outcome(setup.info.name, setup.status,
                         f"call {index} ({call.method}): {record.call_error(call.method)}",
                         call_method=call.method)
                 for index, call in enumerate(ref_trace.calls)
                 if record.failure_of(call.method)), None)

  def _judged_by_float64(self, ref_trace: Trace, trace_name: str,
                         outcomes: Sequence[Outcome]
                         ) -> Tuple[List[Outcome], Dict[int, Dict[str, Any]]]:
    """Each IREE target's float mismatch judged by the reference's own error: its failing call
    evaluated in float64 on the oracle (localizing/reference_f64), both sides' errors a line
    of the failing call's text, and WITHIN REFERENCE ERROR when the backend is within K x
    TensorFlow's own error (comparing/reference_error); and report.json's `float64` entry of
    each judged one, by the outcome's index."""
    # Only finite floats beyond tolerance can be within the reference's own error: an integer,
    # NaN or shape mismatch is judged by no float64 run (and imports no oracle).
    targets = _iree_targets(outcomes, lambda o: (
        o.status is Status.MISMATCH and o.call_index is not None and o.trace_path is not None
        and any(isinstance(m, comparison.NumericMismatch) for m in o.mismatches or ())))
    if not targets:
      return list(outcomes), {}
    from pyiree_tf_support.localizing import reference_f64
    session, judged, entries = self.session, {}, {}
    for index, spec in targets:
      outcome = outcomes[index]
      found, why = reference_f64.judge_trace(
          self._loadable_path(ref_trace), (outcome.trace_path or "")[:-len(".txt")],
          outcome.call_index or 0, (outcome.backend, spec.name) + spec.aliases,
          session.options.tolerance_policy,
          os.path.join(session.artifacts_dir, "float64", f"{trace_name}__{spec.name}"))
      if found is not None or why:
        entries[index] = found.to_json() if found else {"within": False, "not_judged": why}
      if found is not None and found.within:
        judged[index] = verdicts.within_reference_error(outcome, found.describe())
      elif found is not None or why:
        judged[index] = verdicts.with_call_note(outcome, "float64: " + (
            found.describe() if found else f"not judged: {why}"))
    return [judged.get(i, o) for i, o in enumerate(outcomes)], entries

  def _localize_mismatches(self, ref_trace: Trace,
                           outcomes: Sequence[Outcome]) -> Dict[int, Dict[str, Any]]:
    """--localize_mismatches: each mismatching IREE target's first diverging dispatch (its
    verdict as data, by the outcome's index); {} when the setting is off, which imports
    nothing."""
    session = self.session
    targets = _iree_targets(outcomes, lambda o: (o.status is Status.MISMATCH
                                                 and o.call_index is not None))
    if not session.settings.localize_mismatches or not targets:
      return {}
    from pyiree_tf_support.localizing import in_child
    trace_dir = self._loadable_path(ref_trace)
    return {index: in_child.localize(trace_dir, spec.name, outcomes[index].call_index or 0,
                                     session.options.localize_arguments)
            for index, spec in targets}

  def _reduce_failures(self, ref_trace: Trace,
                       outcomes: Sequence[Outcome]) -> Dict[int, Dict[str, Any]]:
    """--reduce_failures: each failing IREE target's failure reduced to the smallest program
    failing the same way (what the reducer wrote, by the outcome's index); {} when the setting
    is off, which imports nothing."""
    session = self.session
    targets = _iree_targets(outcomes, lambda o: o.status.failed)
    if not session.settings.reduce_failures or not targets:
      return {}
    from pyiree_tf_support.reducing import in_child
    trace_dir = self._loadable_path(ref_trace)
    found = {}
    for index, spec in targets:
      backend = outcomes[index].backend  # as the test named it, unless indexed (a duplicate).
      found[index] = in_child.reduce(trace_dir, backend if backends.find(backend) else spec.name,
                                     session.options.localize_arguments)
    return found

  def _check_deterministic(self, ref_trace: Trace, trace_function, trace_name: str,
                           outcomes: Sequence[Outcome]) -> None:
    """NondeterministicTraceError when a target's inputs differ from the reference's because the
    trace gives other inputs every run (see `determinism`). Only a test's first trace is run
    again: a later one starts from the state the earlier ones left."""
    if self.reported or not determinism.starts_in_inputs(outcomes):
      return
    fresh = self.reference.create_reinitialized()
    try:
      again, error = run_trace(fresh, trace_function, tf_utils.set_random_seed, trace_name)
    finally:
      fresh.close()
    difference = (f"the second run raised: {error}" if error
                  else determinism.input_difference(ref_trace, again))
    if difference:
      raise faults.NondeterministicTraceError(determinism.message(ref_trace, difference))

  def reinitialize(self) -> None:
    """The reference and every target that could be reset back to their initial state (an
    example's input compared as a trace of a stateful module starts from it)."""
    self.reference.reinitialize()
    for index, module in enumerate(self.targets):
      if module is not None and index not in self.reset_errors:
        module.reinitialize()
