"""Localizes a mismatching call to the first IREE dispatch whose outputs diverge.

The steps, each a reason to stop with a verdict that cannot mislead:
1. the suspect as the test compiled it (no tracing) replays calls 0..K of the reference trace:
   K is the first call it gets wrong, unless given;
2. dispatches are formed once with the suspect's flags and both backends compiled from them
   with a trace op at every dispatch boundary (formation); what cannot be traced says why;
3. the trusted backend replays calls 0..K, traced, in a fresh child process; it is trusted
   when within tolerance of the reference or far closer to it than the suspect; one that
   cannot compile or run the module is no evidence; otherwise the next is tried, then the
   verdict is drift on every backend or target-independent (_against_trusted);
4. the suspect replays them, traced; when it now gets call K right, tracing masked the bug;
5. the two event streams are aligned and judged (events.compare); results that differ while
   no dispatch output did were changed outside any dispatch;
6. the verdict is checked against step 1's run: traced values that contradict it blame
   nothing (_as_tested).
Every backend runs in a child process that never imports TensorFlow (traced_run).
"""

import concurrent.futures
import dataclasses
import hashlib
import json
import math
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.compiling import tested_compiles
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.localizing import dispatch_repro
from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing import formation
from pyiree_tf_support.localizing import oracle
from pyiree_tf_support.localizing import oracle_sites
from pyiree_tf_support.localizing import tensors
from pyiree_tf_support.localizing import traced_run
from pyiree_tf_support.reporting import repro as call_repro
from pyiree_tf_support.reporting.replay_input import ReplayInput
from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_client

Kind = events.Kind
LOCALIZE_DIR = "localize"
ORACLE = oracle.NAME  # --trusted_backend's name of the oracle outside IREE

# The trusted backends to try for each suspect, in order (the first is the default).
TRUSTED_ORDER: Dict[str, Tuple[str, ...]] = {
    "iree_vulkan": ("iree_llvmcpu", "iree_vmvx"),
    "iree_llvmcpu": ("iree_vmvx", "iree_vulkan"),
    "iree_vmvx": ("iree_llvmcpu", "iree_vulkan"),
}


# Past this size of iree_input.mlir the compile cache is not consulted: hashing the input for
# its key (4 s on a ResNet50's 188 MB) costs about what the compile does.
CACHE_INPUT_LIMIT = 32 << 20


class LocalizeError(Exception):
  """The localization could not run (bad input, our fault or the toolchain's); one line."""


@dataclasses.dataclass(frozen=True)
class Run:
  """One backend's replay of calls 0..K: trace events, each call's flat results, its error,
  and why it stopped before the end (at the divergence), if it did."""
  events: Tuple[events.Event, ...]
  outputs: Tuple[Tuple[np.ndarray, ...], ...]
  error: Optional[str]
  stopped: Optional[str] = None
  # The globals after each call ({symbol: value}), when the run was asked to read them back.
  state: Tuple[Dict[str, np.ndarray], ...] = ()


@dataclasses.dataclass(frozen=True)
class Localization:
  """What the localizer found for (trace, suspect, call)."""
  kind: Kind
  suspect: str
  trusted: Optional[str]
  call: int
  method: str
  detail: str
  finding: Optional[events.Finding] = None
  formed: Optional[formation.Formation] = None
  work_dir: str = ""
  tried_trusted: Tuple[str, ...] = ()
  repro: Optional[dispatch_repro.Repro] = None
  trusted_note: str = ""  # how close an imprecise trusted backend is to the reference.
  # Against the oracle: the traced tensors that had no counterpart in it (never agreeing).
  unmatched: Tuple[str, ...] = ()


def default_trusted(suspect: str) -> str:
  return TRUSTED_ORDER[backends.lookup(suspect).name][0]


def _flags(spec: backends.BackendSpec, extra: compile_flags.Entries) -> Tuple[str, ...]:
  return spec.compiler_flags + compile_flags.for_backend(extra, (spec.name,) + spec.aliases)


def run_child(vmfb_path: str, driver: str, run_dir: str, calls: List[dict],
              inputs: Dict[str, np.ndarray], limits: timeouts.Timeouts,
              judged_against: Optional[dict] = None, state: bool = False) -> Run:
  """Replays `calls` on `vmfb_path` in a fresh TF-free child process (see traced_run);
  `judged_against`: the trusted run's dir, tolerances and backend names, to stop the run once
  the divergence is found; `state`: read the globals back after each call."""
  safe_files.make_dirs(run_dir)
  safe_files.write_with(os.path.join(run_dir, traced_run.INPUTS),
                        lambda f: np.savez(f, allow_pickle=False, **inputs))
  tensors.release_pages(*inputs.values())  # the reference's, mapped: np.savez read them whole.
  safe_files.write_text(os.path.join(run_dir, traced_run.REQUEST), json.dumps(
      {"vmfb": vmfb_path, "driver": driver, "calls": calls, "state": state,
       **(judged_against or {})}))
  size = os.path.getsize(vmfb_path)
  load, call = limits.load.seconds(size), limits.call.seconds(size)
  limit = None if load is None or call is None else load + call * max(1, len(calls))
  try:
    completed = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localizing.traced_run", run_dir],
        env=worker_client.worker_env(), capture_output=True, timeout=limit, check=False)
  except subprocess.TimeoutExpired:
    return Run((), (), f"the traced run did not finish in {limit:g} s and was killed")
  result_path = os.path.join(run_dir, traced_run.RESULT)
  tail = completed.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
  if completed.returncode == traced_run.OWN_FAULT:  # ours (a full disk), not the backend's.
    raise LocalizeError(f"the run in {run_dir} failed on our side, not the backend's: "
                        f"{tail[0] if tail else 'no message'}")
  if completed.returncode != 0 or not os.path.exists(result_path):
    return Run((), (), f"the traced run crashed (exit status {completed.returncode}"
               f"{': ' + tail[0] if tail else ''})")
  own = traced_run.fault(run_dir)
  if own:
    raise LocalizeError(own)
  raw, outputs, error, stopped = traced_run.load_result(run_dir)
  return Run(tuple(events.number_events(raw)), tuple(tuple(o) for o in outputs), error,
             stopped, tuple(traced_run.load_state(run_dir)) if state else ())


def _reference_outputs(reference: Trace, index: int) -> List[np.ndarray]:
  return [np.asarray(v) for v in structure.flatten(reference.calls[index].outputs,
                                                     drop_none=True)]


def first_wrong_call(run: Run, reference: Trace, backend_names: Sequence[str],
                     policy: tolerances.TolerancePolicy) -> Optional[int]:
  """The first call whose results are over tolerance against the reference, else None."""
  for index, outputs in enumerate(run.outputs):
    call = reference.calls[index]
    error = events.outputs_error(outputs, _reference_outputs(reference, index), policy,
                                 backend_names, call.given_rtol, call.given_atol)
    if error.error > 1:
      return index
  return None


def _untraced_vmfb(loaded: ReplayInput, spec: backends.BackendSpec,
                   flags: Sequence[str], limits: timeouts.Timeouts,
                   source: Optional[str] = None, cache: Optional[CompileCache] = None) -> bytes:
  request = compiler.CompileRequest(source or loaded.iree_input, spec.compiler_targets,
                                    tuple(flags))
  try:
    return compiler.compile_request(request, f"module '{loaded.reference.module_name}' for "
                                    f"{spec.name}", cache=cache, timeout=limits.compile)
  except compiler.CompileError as e:
    raise LocalizeError(f"{spec.name} does not compile the module, so it has no mismatch to "
                        f"localize: {e.reason}") from None


def _start_formation(source_path: str, work_dir: str, suspect_spec: backends.BackendSpec,
                     suspect_flags: Sequence[str], trusted_name: str,
                     extra_flags: compile_flags.Entries, limits: timeouts.Timeouts) -> None:
  """The first trusted backend's formation, started while the module as tested runs (it is
  what `_against_trusted` forms first, when its driver is there)."""
  trusted_spec = backends.lookup(trusted_name)
  if not drivers.driver_available(trusted_spec.driver)[0]:
    return
  side_dir = os.path.join(work_dir, trusted_spec.name)
  safe_files.make_dirs(side_dir)
  formation.start_early(source_path, side_dir, suspect_spec, suspect_flags, trusted_spec,
                        _flags(trusted_spec, extra_flags), limits.compile)


def _tested_vmfb(loaded: ReplayInput, spec: backends.BackendSpec, flags: Sequence[str],
                 cache: Optional[CompileCache]) -> Optional[bytes]:
  """The test's compile of the whole module for `spec` with `flags`, from the compile cache
  (filed under the saved iree_input.mlir's digest: tested_compiles), or None."""
  if cache is None:
    return None
  saved = hashlib.sha256(loaded.saved_iree_input).hexdigest()
  return tested_compiles.find(cache, saved, spec.compiler_targets, tuple(dict.fromkeys(flags)))


def _compile_as_tested(source_path: str, spec: backends.BackendSpec, flags: Sequence[str],
                       vmfb_path: str, limits: timeouts.Timeouts) -> None:
  try:
    formation.compile_as_tested(source_path, spec, flags, vmfb_path, limits.compile)
  except formation.FormationError as e:
    raise LocalizeError(f"{spec.name} does not compile the module, so it has no mismatch to "
                        f"localize: {e}") from None


def default_work_dir(trace_dir: str, suspect: str) -> str:
  """<module dir>/localize/<trace>__<suspect's canonical name>."""
  module_dir = os.path.dirname(os.path.dirname(os.path.abspath(trace_dir)))
  return os.path.join(module_dir, LOCALIZE_DIR,
                      f"{os.path.basename(trace_dir)}__{backends.lookup(suspect).name}")


def localize(loaded: ReplayInput, suspect: str, trusted: Optional[str] = None,
             call: Optional[int] = None, work_dir: Optional[str] = None,
             **options) -> Localization:
  """Localizes call `call` of `loaded`'s reference trace on `suspect` (see `_localize`) in
  `work_dir` (default: `default_work_dir`), which is emptied first.

  Why the work dir is claimed this way: the localizer empties and refills it, so a symlink at
  it or above it below the module dir would have it empty and fill the link's target instead
  (another user's planted link, or one inside a directory someone handed over). The module
  dir (or the work dir's parent when one is given) is treated as an artifacts root: it must
  be this user's and not writable by every user, and every write and removal below it walks
  there without following links (core/safe_files). Two localizers of one trace and suspect
  (two pytest runs with --localize_mismatches) would empty each other's files mid-run: the
  second waits on `<work dir>.lock`'s lock until the first is done (saying so on stderr), then
  starts afresh.
  """
  if not backends.lookup(suspect).is_iree:  # said before anything is written.
    return _localize(loaded, suspect, trusted, call, work_dir=work_dir, **options)
  _ = loaded.iree_input  # a handed module's hand-written code is refused before any write.
  work_dir = os.path.abspath(work_dir or default_work_dir(loaded.trace_dir, suspect))
  parent = os.path.dirname(work_dir)
  root = (os.path.dirname(parent) if os.path.basename(parent) == LOCALIZE_DIR else parent)
  safe_files.open_root(root, "The module's artifacts dir")
  lock = os.path.join(parent, f".{os.path.basename(work_dir)}.lock")
  with safe_files.locked(lock, lambda: print(
      f"localize: another localize of this trace on {backends.lookup(suspect).name} holds "
      f"{lock}; waiting for it to end", file=sys.stderr, flush=True)):
    safe_files.remove_tree(work_dir)
    safe_files.make_dirs(work_dir)
    # A formation started early and never taken is waited for (its compiles killed when the
    # localization fails), so nothing writes into the work dir once the lock is released.
    with iree_compile.interruptible(formation.settle_early):
      try:
        return _localize(loaded, suspect, trusted, call, work_dir=work_dir, **options)
      finally:
        formation.settle_early()


def _localize(loaded: ReplayInput, suspect: str, trusted: Optional[str] = None,
              call: Optional[int] = None,
              policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
              extra_flags: compile_flags.Entries = (),
              limits: timeouts.Timeouts = timeouts.DEFAULT,
              work_dir: Optional[str] = None,
              cache: Optional[CompileCache] = None,
              tensor_budget: int = traced_run.MAX_TOTAL_BYTES) -> Localization:
  """Localizes call `call` (default: the suspect's first wrong call) of the reference trace in
  `loaded` on backend `suspect` against `trusted` (default: TRUSTED_ORDER's first, then the
  others while the trusted one cannot be trusted: see _against_trusted). Files go to
  `work_dir` (default: <module dir>/localize/<trace dir name>__<suspect>, replaced).
  `cache`: the compile cache, for the module as tested when the trace calls every function it
  exports (the test's own compile, same input, targets and flags, is then reused).
  `tensor_budget`: the bytes of traced tensors each run keeps as arrays (past it: digests and
  stats)."""
  reference = loaded.reference
  suspect_spec = backends.lookup(suspect)
  if not suspect_spec.is_iree:
    raise LocalizeError(f"--target_backends={suspect} is not an IREE backend; valid: "
                        + ", ".join(TRUSTED_ORDER) + ".")
  by_oracle = trusted == ORACLE
  candidates = ((backends.lookup(trusted).name,) if trusted and not by_oracle
                else TRUSTED_ORDER[suspect_spec.name])
  if suspect_spec.name in candidates and trusted and not by_oracle:
    raise LocalizeError(f"--trusted_backend={trusted} is the suspect itself; pick another of "
                        + ", ".join(TRUSTED_ORDER) + ".")
  if not reference.calls:
    raise LocalizeError(f"{loaded.trace_dir} records no call to localize.")
  if call is not None and not 0 <= call < len(reference.calls):
    raise LocalizeError(f"--call={call} is out of range: the trace has calls 0.."
                        f"{len(reference.calls) - 1}.")
  available, reason = drivers.driver_available(suspect_spec.driver)
  if not available:
    raise LocalizeError(f"{suspect_spec.name} cannot run here: {reason}")
  # The module's text first: a hand-written one (native code to link) is refused as replay
  # refuses it (ReplayError), before any file is made.
  if not loaded.iree_input.strip():
    raise LocalizeError(f"The iree_input.mlir of {loaded.trace_dir} is empty.")
  module_dir = os.path.dirname(os.path.dirname(loaded.trace_dir))
  if work_dir is None:
    work_dir = os.path.join(module_dir, LOCALIZE_DIR,
                            f"{os.path.basename(loaded.trace_dir)}__{suspect_spec.name}")
  names = (suspect, suspect_spec.name) + suspect_spec.aliases
  suspect_flags = _flags(suspect_spec, extra_flags)

  # 1. The suspect as tested: which call is wrong.
  all_calls, all_inputs = traces.flat_calls(reference, loaded.signatures, len(reference.calls))
  # Only the functions the trace calls are compiled (the others made private, every line kept
  # in place so loc()s still point into iree_input.mlir): much less to compile and trace. If
  # the bug goes with the others, the whole module is used instead.
  reduced = mlir_functions.only_exporting(
      loaded.iree_input, sorted({c.method for c in reference.calls}))
  if reduced == loaded.iree_input:
    reduced = loaded.iree_input  # one copy, not two, of what may be a model's 200 MB of text.
  last = len(reference.calls) if call is None else call + 1
  untraced_path = os.path.join(work_dir, "suspect_untraced.vmfb")
  source_path = os.path.join(work_dir, "iree_input.mlir")
  source, written = reduced, None
  for attempt in (reduced, loaded.iree_input):
    small = len(attempt) <= formation.SHARED_FRONTEND_ABOVE
    if attempt is not reduced:  # the reduced text is right as tested: its formation is stale.
      formation.settle_early()
    elif small and not by_oracle:
      # Formed beside the compile and run as tested (formed again in the rare case that the
      # reduced module does not fail as tested): ~0.5 s of a small module's 4 s localization.
      safe_files.write_text(source_path, attempt)
      written = attempt
      _start_formation(source_path, work_dir, suspect_spec, suspect_flags, candidates[0],
                       extra_flags, limits)
    if not small:
      safe_files.write_text(source_path, attempt)
      written = attempt
      # The whole module: the test's own compile, when the cache holds it; else compiled with
      # its frontend kept for `form`.
      tested = (_tested_vmfb(loaded, suspect_spec, suspect_flags, cache)
                if attempt is loaded.iree_input else None)
      if tested is not None:
        safe_files.write_bytes(untraced_path, tested)
      else:
        _compile_as_tested(source_path, suspect_spec, suspect_flags, untraced_path, limits)
    else:
      # Nothing was made private: the module as tested, maybe compiled by the test already.
      reuse = (cache if (attempt == loaded.iree_input or reduced == loaded.iree_input)
               and len(attempt) <= CACHE_INPUT_LIMIT
               else None)
      safe_files.write_bytes(untraced_path, _untraced_vmfb(loaded, suspect_spec, suspect_flags,
                                                          limits, attempt, reuse))
    if attempt is reduced is loaded.iree_input and not by_oracle and not small:  # the only one:
      if written is not attempt:  # the formation's source is final, so it starts now.
        safe_files.write_text(source_path, attempt)
        written = attempt
      _start_formation(source_path, work_dir, suspect_spec, suspect_flags, candidates[0],
                       extra_flags, limits)
    untraced = run_child(untraced_path, suspect_spec.driver,
                         os.path.join(work_dir, "untraced"), all_calls[:last],
                         _inputs_below(all_inputs, last), limits)
    if first_wrong_call(untraced, reference, names, policy) is not None or untraced.error:
      source = attempt
      break
    if attempt == loaded.iree_input:
      break  # right either way: the reduced module is as good and cheaper to trace.
  if written is not source:  # rewritten, the shared frontend (of another text) goes stale.
    safe_files.write_text(source_path, source)
  wrong = first_wrong_call(untraced, reference, names, policy)
  if call is None:
    call = wrong if wrong is not None else (
        len(untraced.outputs) if untraced.error else len(reference.calls) - 1)
    call = min(call, len(reference.calls) - 1)
  method = reference.calls[call].method
  base = dict(suspect=suspect_spec.name, call=call, method=method, work_dir=work_dir)
  calls, inputs = all_calls[:call + 1], _inputs_below(all_inputs, call + 1)

  if by_oracle:
    try:
      return _against_oracle(loaded, suspect_spec, suspect_flags, untraced, source,
                             source_path, calls, inputs, wrong, base, names, policy, limits,
                             tensor_budget)
    except oracle.OracleError as e:
      raise LocalizeError(str(e)) from None
  return _against_trusted(loaded, suspect_spec, suspect_flags, candidates, untraced,
                          untraced_path, source, source_path, calls, inputs, wrong, base,
                          names, policy, extra_flags, limits, tensor_budget)


@dataclasses.dataclass(frozen=True)
class _Trusted:
  """A trusted backend's traced run and how far its results are from the reference."""
  spec: backends.BackendSpec
  side_dir: str
  formed: formation.Formation
  run: Run
  off: events.TensorError  # its results against the reference (tolerance units).


def reference_error(run: Run, reference: Trace, backend_names: Sequence[str],
                    policy: tolerances.TolerancePolicy, last: int) -> events.TensorError:
  """The worst error of `run`'s results of calls 0..`last` against the reference (each call's
  own tolerances apply); infinite when it has no results for some of them."""
  if len(run.outputs) <= last:
    return events.TensorError(float("inf"), note=f"no results for call {len(run.outputs)}")
  worst = events.TensorError(0.0)
  for index in range(last + 1):
    call = reference.calls[index]
    error = events.outputs_error(run.outputs[index], _reference_outputs(reference, index),
                                 policy, backend_names, call.given_rtol, call.given_atol)
    if error.error > worst.error:
      worst = error
  return worst


def _closeness(trusted: str, off: events.TensorError, suspect: str,
               suspect_off: events.TensorError) -> str:
  """How close an imprecise trusted backend is, said in the verdict ('' if within tolerance)."""
  if off.error <= 1:
    return ""
  ratio = suspect_off.error / off.error
  return (f"itself {off.error:.3g}x tolerance off the reference, {ratio:.3g}x closer than "
          f"{suspect}")


def _against_trusted(loaded: ReplayInput, suspect_spec: backends.BackendSpec,
                     suspect_flags: Sequence[str], candidates: Sequence[str], untraced: Run,
                     untraced_path: str, source: str, source_path: str, calls, inputs,
                     wrong: Optional[int], base: dict, names: Sequence[str],
                     policy: tolerances.TolerancePolicy, extra_flags: compile_flags.Entries,
                     limits: timeouts.Timeouts, tensor_budget: int) -> Localization:
  """Tries the trusted backends in order. One is trusted when its results of calls 0..K are
  within tolerance of the reference, or AMPLIFICATION x closer to it than the suspect's (an
  imprecise backend can still tell a wrong one apart: the closest such one is used, and its
  own distance is the noise floor of the traced comparison). A backend that cannot compile or
  run the module is no evidence either way: the next is tried, and when none ran, the
  localization cannot run (LocalizeError). When every one that ran is off the reference too,
  the verdict is drift on every backend or target-independent (_every_backend_off)."""
  reference = loaded.reference
  call = base["call"]
  suspect_off = (events.TensorError(float("inf"), note=f"failed: {untraced.error}")
                 if untraced.error and len(untraced.outputs) <= call else
                 reference_error(untraced, reference, names, policy, call))
  tried: List[str] = []
  unusable: List[str] = []  # "<backend>: why it could not be used"
  near: List[_Trusted] = []
  off_too: List[Tuple[str, events.TensorError]] = []
  chosen: Optional[_Trusted] = None
  formed_before: Optional[formation.Formation] = None  # the suspect's side, formed once
  for position, trusted_name in enumerate(candidates):
    if position + 1 < len(candidates):  # the next one's device probe overlaps this attempt.
      drivers.probe_soon(backends.lookup(candidates[position + 1]).driver)
    trusted_spec = backends.lookup(trusted_name)
    available, reason = drivers.driver_available(trusted_spec.driver)
    if not available:
      unusable.append(f"{trusted_spec.name}: {reason}")
      continue
    tried.append(trusted_spec.name)
    trusted_names = (trusted_spec.name,) + trusted_spec.aliases
    trusted_flags = _flags(trusted_spec, extra_flags)
    side_dir = os.path.join(base["work_dir"], trusted_spec.name)
    safe_files.make_dirs(side_dir)
    try:
      formed = formation.form(source_path, side_dir, suspect_spec, suspect_flags, trusted_spec,
                              trusted_flags, limits.compile, suspect_from=formed_before)
      formed_before = formed_before or formed
    except formation.NoDispatch as e:
      try:
        vmfb = _untraced_vmfb(loaded, trusted_spec, trusted_flags, limits, source)
      except LocalizeError as error:
        unusable.append(f"{trusted_spec.name}: {error}")
        continue
      trusted_run = run_child(_write(os.path.join(side_dir, "trusted_untraced.vmfb"), vmfb),
                              trusted_spec.driver, os.path.join(side_dir, "trusted_run"),
                              calls, inputs, limits)
      if trusted_run.error:
        unusable.append(f"{trusted_spec.name}: its run failed ({trusted_run.error})")
        continue
      off = reference_error(trusted_run, reference, trusted_names, policy, call)
      if off.error > 1 and not (math.isfinite(off.error)
                                and off.error * events.AMPLIFICATION <= suspect_off.error):
        off_too.append((trusted_spec.name, off))
        continue
      note = _closeness(trusted_spec.name, off, suspect_spec.name, suspect_off)
      if wrong is None or wrong > call:
        return Localization(Kind.NONE, trusted=trusted_spec.name, detail=str(e),
                            trusted_note=note, **base)
      return Localization(Kind.OUTSIDE, trusted=trusted_spec.name, tried_trusted=tuple(tried),
                          trusted_note=note,
                          detail=(f"{e}: it is only copies, fills and transfers, and "
                                  f"{suspect_spec.name} gets call {wrong} wrong where "
                                  f"{trusted_spec.name} is right"), **base)
    except formation.NotTraceable as e:
      return Localization(Kind.NOT_TRACEABLE, trusted=trusted_spec.name, detail=str(e), **base)
    except formation.FormationError as e:
      if not e.trusted_side:  # the suspect's own step: no trusted backend changes it.
        raise LocalizeError(str(e)) from None
      unusable.append(f"{trusted_spec.name}: {e}")
      continue
    if formed.trusted is None:  # form() compiles a trusted side whenever it is given a backend.
      raise LocalizeError(f"the formation has no traced {trusted_spec.name} module")
    trusted_run = run_child(formed.trusted.vmfb_path, trusted_spec.driver,
                            os.path.join(side_dir, "trusted_run"), calls, inputs, limits,
                            {"max_total_bytes": tensor_budget})
    if trusted_run.error:
      unusable.append(f"{trusted_spec.name}: its traced run failed ({trusted_run.error})")
      continue
    off = reference_error(trusted_run, reference, trusted_names, policy, call)
    entry = _Trusted(trusted_spec, side_dir, formed, trusted_run, off)
    if off.error <= 1:
      chosen = entry
      break
    if math.isfinite(off.error) and off.error * events.AMPLIFICATION <= suspect_off.error:
      near.append(entry)  # imprecise, yet far closer than the suspect: the closest is used.
    else:
      off_too.append((trusted_spec.name, off))
  if chosen is None and near:
    chosen = min(near, key=lambda entry: entry.off.error)
  if chosen is not None:
    trusted_flags = _flags(chosen.spec, extra_flags)
    return _compare(chosen.formed, chosen.run, calls, inputs, chosen.side_dir, reference,
                    names, untraced, wrong, policy, limits, tensor_budget, tuple(tried), base,
                    ((suspect_spec, suspect_flags), (chosen.spec, trusted_flags)),
                    chosen.off.error, _closeness(chosen.spec.name, chosen.off,
                                                 suspect_spec.name, suspect_off))
  suspect = suspect_spec.name
  reasons = unusable + [f"{name} is {off.error:.3g}x tolerance off the reference itself"
                        for name, off in off_too]
  if suspect_off.error <= 1:
    return Localization(Kind.NONE, trusted=None, tried_trusted=tuple(tried), detail=(
        f"{suspect} gets calls 0..{call} right against the reference "
        f"({suspect_off.error:.3g}x tolerance), so there is nothing to localize (no trusted "
        "backend to diff against: " + "; ".join(reasons) + ")"), **base)
  # A backend far further off than the suspect says nothing about it (f16 on a target that
  # has no f16): only those about as far off as the suspect make every backend wrong.
  alike = [(name, off) for name, off in off_too
           if off.error <= events.AMPLIFICATION * suspect_off.error]
  if not alike:
    raise LocalizeError(_none_usable(suspect, call, reasons, untraced,
                                     "f16" in source or "bf16" in source))
  far = [f"{name}: {off.error:.3g}x tolerance off the reference, far further than {suspect}"
         for name, off in off_too if (name, off) not in alike]
  off = _every_backend_off(suspect_spec, suspect_off, alike, unusable + far, tuple(tried),
                           untraced, untraced_path, calls, inputs, base, names, policy, limits)
  if off.kind is not Kind.TARGET_INDEPENDENT:
    return off
  # Every IREE backend is wrong alike: the oracle outside IREE is what can still localize it.
  offs = ", ".join(f"{name} {error.error:.3g}x" for name, error in alike)
  try:
    return dataclasses.replace(_against_oracle(
        loaded, suspect_spec, suspect_flags, untraced, source, source_path, calls, inputs,
        wrong, base, names, policy, limits, tensor_budget, formed_before),
        tried_trusted=tuple(tried),
        trusted_note=(f"every IREE backend tried is wrong too: {offs} tolerance off the "
                      "reference; the bug is target-independent"))
  except oracle.OracleError as e:
    return dataclasses.replace(off, detail=f"{off.detail}; the oracle could not run: {e}")


def _against_oracle(loaded: ReplayInput, suspect_spec: backends.BackendSpec,
                    suspect_flags: Sequence[str], untraced: Run, source: str,
                    source_path: str, calls, inputs, wrong: Optional[int], base: dict,
                    names: Sequence[str], policy: tolerances.TolerancePolicy,
                    limits: timeouts.Timeouts, tensor_budget: int,
                    formed_before: Optional[formation.Formation] = None) -> Localization:
  """The suspect's traced dispatches against the StableHLO reference interpreter (oracle):
  the oracle is used when its results of calls 0..K are within tolerance of the reference or
  AMPLIFICATION x closer to it than the suspect's (its own distance is then the noise floor);
  each traced tensor is paired with the oracle's value of the op it comes from
  (oracle_sites), and what has no counterpart is said in `unmatched`. OracleError: the oracle
  could not run or is off the reference itself. `formed_before`: the suspect's formation a
  trusted backend's attempt made, taken as it is."""
  reference = loaded.reference
  call = base["call"]
  side_dir = os.path.join(base["work_dir"], oracle.NAME)
  safe_files.make_dirs(side_dir)
  per_call = limits.call.seconds(len(source))

  def traced_suspect(formed: formation.Formation) -> Run:
    return run_child(formed.suspect.vmfb_path, formed.suspect.driver,
                     os.path.join(side_dir, "suspect_run"), calls, inputs, limits,
                     {"max_total_bytes": tensor_budget}, state=True)

  # Formed already: the suspect's traced run (a child process) goes beside the oracle's.
  with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
    early = pool.submit(traced_suspect, formed_before) if formed_before is not None else None
    result = oracle.run(source, calls, inputs, os.path.join(side_dir, "oracle_run"),
                        None if per_call is None else per_call * max(1, len(calls)))
  if result.error or len(result.calls) <= call:
    raise oracle.OracleError(f"the oracle failed: {result.error}")
  as_run = Run((), tuple(c.results for c in result.calls), None)
  off = reference_error(as_run, reference, (oracle.NAME,), policy, call)
  suspect_off = reference_error(untraced, reference, names, policy, call)
  if off.error > 1 and not (math.isfinite(off.error)
                            and off.error * events.AMPLIFICATION <= suspect_off.error):
    raise oracle.OracleError(f"the oracle is {off.error:.3g}x tolerance off the reference "
                             f"itself ({off.describe()}), not closer than {suspect_spec.name}")
  note = _closeness(oracle.NAME, off, suspect_spec.name, suspect_off)
  functions = [c["function"] for c in calls]
  common: Dict[str, Any] = dict(trusted=oracle.NAME, trusted_note=note, **base)
  flow_bytecode = os.path.join(side_dir, "flow.mlirbc")
  try:
    formed = formation.form(source_path, side_dir, suspect_spec, suspect_flags, None, (),
                            limits.compile, suspect_from=formed_before)
  except formation.NoDispatch as e:
    _, sources = oracle_sites.sites(flow_bytecode)
    # The module as tested again, its globals read back after each call (nothing is traced).
    held = run_child(os.path.join(base["work_dir"], "suspect_untraced.vmfb"),
                     suspect_spec.driver, os.path.join(side_dir, "state_run"), calls, inputs,
                     limits, state=True).state
    outside = oracle.outside(untraced.outputs, held, result, sources, functions, policy,
                             names, 0.0, off.error)
    if outside is None:
      return Localization(Kind.NONE, detail=f"{e}; every call's results agree with the "
                          "oracle's", **common)
    return Localization(Kind.OUTSIDE, detail=f"{e}: {outside}", **common)
  except formation.NotTraceable as e:
    return Localization(Kind.NOT_TRACEABLE, detail=str(e), **common)
  except formation.FormationError as e:
    raise LocalizeError(str(e)) from None
  suspect_run = early.result() if early is not None else traced_suspect(formed)
  if suspect_run.error and not suspect_run.events:
    raise LocalizeError(f"the traced {suspect_spec.name} module failed: {suspect_run.error}")
  sites, sources = oracle_sites.sites(formed.flow_bytecode)
  judged = oracle.judge(suspect_run.events, result, sites, functions, policy, names, off.error)
  finding = judged.finding
  common.update(formed=formed, finding=finding, unmatched=judged.unmatched)
  traced_wrong = None if suspect_run.error else first_wrong_call(suspect_run, reference, names,
                                                                  policy)
  if wrong is not None and wrong <= call and traced_wrong is None and not suspect_run.error:
    return Localization(Kind.MASKED, detail=(
        f"{suspect_spec.name} gets call {wrong} wrong as compiled for the test, but right "
        "with a trace at every dispatch: tracing changes scheduling, buffer offsets and "
        "aliasing, which hid the bug"), **common)
  detail = finding.detail
  worst = max((row.output_error for row in finding.rows
               if row.output_error == row.output_error), default=0.0)
  if finding.kind in (Kind.DISPATCH, Kind.OUTSIDE) and finding.culprit is not None:
    # A state gone wrong at an earlier call is the earlier divergence.
    before = finding.culprit.call
    earlier = oracle.outside(suspect_run.outputs, suspect_run.state, result, sources,
                             functions, policy, names, max(
                                 (row.output_error for row in finding.rows
                                  if row.call < before and row.output_error == row.output_error),
                                 default=0.0), off.error, before=before)
    if earlier is not None:
      return _as_tested(Localization(Kind.OUTSIDE, detail=earlier, **common), suspect_run,
                        untraced, wrong, policy, names)
  if finding.kind in (Kind.NONE, Kind.DRIFT):
    outside = oracle.outside(suspect_run.outputs, suspect_run.state, result, sources,
                             functions, policy, names, worst, off.error)
    if outside is not None:
      return _as_tested(Localization(Kind.OUTSIDE, detail=outside, **common), suspect_run,
                        untraced, wrong, policy, names)
    if finding.kind is Kind.NONE:
      detail = ("every traced dispatch and result that has a counterpart agrees with the "
                "oracle" + (f"; {len(judged.unmatched)} traced tensors had none"
                            if judged.unmatched else ""))
  return _as_tested(Localization(finding.kind, detail=detail, **common), suspect_run,
                    untraced, wrong, policy, names)


# A Vulkan target whose devices have f16 (Vulkan's default target has none); lavapipe runs it.
VULKAN_F16_TARGET = "--iree-vulkan-target=valhall4"


def _none_usable(suspect: str, call: int, reasons: Sequence[str], untraced: Run,
                 half: bool = False) -> str:
  """Why no trusted backend could be used, and what could be (one line)."""
  message = (f"no trusted backend to diff {suspect}'s calls 0..{call} against (an error is no "
             "wrong value, and a backend far further off the reference than the suspect says "
             "nothing about it): " + "; ".join(reasons))
  if untraced.error:
    if all(": its traced run failed (" in reason or ": its run failed (" in reason
           for reason in reasons):
      return (f"every backend tried fails as the trace feeds it, so nothing can be compared "
              f"(an error is no wrong value): {suspect} as tested ({untraced.error}) and "
              + ", ".join(reason.split(":")[0] for reason in reasons) + " alike: are the "
              "trace's inputs (signatures.json) those the module takes?")
    message += (f"; {suspect} as tested fails too ({untraced.error}): are the trace's inputs "
                "(signatures.json) those the module takes?")
  message += (". Pick one that compiles and runs the module right with "
              "--trusted_backend=<backend> and its own flags "
              "(--iree_compile_flags=<backend>:<flag>")
  if half and suspect != "iree_vulkan":
    message += (f", e.g. --trusted_backend=iree_vulkan --iree_compile_flags=iree_vulkan:"
                f"{VULKAN_F16_TARGET}, a target with f16")
  return message + ")."


def _one_ulp_up(inputs: Dict[str, np.ndarray]) -> Dict[str, np.ndarray]:
  return {name: (np.nextafter(array, np.inf).astype(array.dtype) if array.dtype.kind == "f"
                 else array) for name, array in inputs.items()}


def _every_backend_off(suspect_spec: backends.BackendSpec, suspect_off: events.TensorError,
                       off_too: Sequence[Tuple[str, events.TensorError]],
                       unusable: Sequence[str], tried: Tuple[str, ...], untraced: Run,
                       untraced_path: str, calls,
                       inputs, base: dict, names: Sequence[str],
                       policy: tolerances.TolerancePolicy,
                       limits: timeouts.Timeouts) -> Localization:
  """Every trusted backend that ran is off the reference too. Drift on every backend when
  their errors are alike (none AMPLIFICATION x closer than another) and the computation is
  that sensitive: moving every float input by one ulp moves the suspect's results by at least
  1/AMPLIFICATION of its error (a chaotic map); otherwise target-independent."""
  call = base["call"]
  suspect = suspect_spec.name
  ran = [name for name, _ in off_too]
  besides = f"; not used: {'; '.join(unusable)}" if unusable else ""
  offs = ", ".join([f"{suspect} {suspect_off.error:.3g}x"]
                   + [f"{name} {off.error:.3g}x" for name, off in off_too])
  alike = suspect_off.error > 1 and all(
      suspect_off.error <= events.AMPLIFICATION * off.error
      and off.error <= events.AMPLIFICATION * suspect_off.error for _, off in off_too)
  perturbed = _one_ulp_up(inputs)
  if alike and not untraced.error and any(
      a.dtype.kind == "f" for a in perturbed.values()):
    moved_run = run_child(untraced_path, suspect_spec.driver,
                          os.path.join(base["work_dir"], "one_ulp_up"), calls, perturbed,
                          limits)
    if not moved_run.error and len(moved_run.outputs) > call:
      moved = max((events.outputs_error(moved_run.outputs[i], untraced.outputs[i], policy,
                                        names).error for i in range(call + 1)), default=0.0)
      if moved * events.AMPLIFICATION >= suspect_off.error:
        return Localization(Kind.DRIFT, trusted=None, tried_trusted=tried, detail=(
            f"{offs} tolerance off the reference, none {events.AMPLIFICATION:g}x closer than "
            f"another; moving the inputs by one ulp moves {suspect}'s results by "
            f"{moved:.3g}x tolerance: the computation amplifies rounding, so no bug is "
            f"localized{besides}"), **base)
  return Localization(
      Kind.TARGET_INDEPENDENT, trusted=None, tried_trusted=tried,
      detail=(f"every trusted backend tried ({', '.join(ran)}) also gets calls 0..{call} "
              "wrong against the reference, so a cross-backend diff cannot localize it: the "
              f"bug is not the suspect's alone (target-independent; {offs} tolerance off the "
              f"reference, none {events.AMPLIFICATION:g}x closer than {suspect}{besides})"),
      **base)


def _write(path: str, data: bytes) -> str:
  safe_files.write_bytes(path, data)
  return path


def _inputs_below(inputs: Dict[str, np.ndarray], count: int) -> Dict[str, np.ndarray]:
  return {k: v for k, v in inputs.items() if int(k[1:].split("_")[0]) < count}


def _compare(formed: formation.Formation, trusted_run: Run, calls, inputs, side_dir: str,
             reference: Trace, names: Sequence[str], untraced: Run,
             untraced_wrong: Optional[int], policy: tolerances.TolerancePolicy,
             limits: timeouts.Timeouts, tensor_budget: int, tried: Tuple[str, ...], base: dict,
             sides, floor: float = 1.0, trusted_note: str = "") -> Localization:
  """The suspect's traced run, judged against the trusted one's; the verdict is then checked
  against the run as tested (_as_tested). `floor`: the trusted backend's own error against the
  reference (tolerance units, at least 1): errors up to it are no divergence."""
  floor = max(1.0, floor)
  judged_against = {
      "trusted_dir": os.path.join(side_dir, "trusted_run"), "backend_names": list(names),
      "tolerances": [[backend, dtype, t.rtol, t.atol]
                     for (backend, dtype), t in policy.overrides],
      "stop_at_divergence": True, "max_total_bytes": tensor_budget, "floor": floor}
  suspect_run = run_child(formed.suspect.vmfb_path, formed.suspect.driver,
                          os.path.join(side_dir, "suspect_run"), calls, inputs, limits,
                          judged_against)
  traced = _traced_verdict(formed, trusted_run, suspect_run, reference, names, untraced_wrong,
                           policy, tried, dict(base, trusted_note=trusted_note), sides, floor)
  return _as_tested(traced, suspect_run, untraced, untraced_wrong, policy, names)


def _traced_verdict(formed: formation.Formation, trusted_run: Run, suspect_run: Run,
                    reference: Trace, names: Sequence[str], untraced_wrong: Optional[int],
                    policy: tolerances.TolerancePolicy, tried: Tuple[str, ...], base: dict,
                    sides, floor: float) -> Localization:
  """What the two traced runs say."""
  call = base["call"]
  if formed.trusted is None:  # only a trusted backend's formation is compared.
    raise LocalizeError("the formation has no traced trusted module to compare against")
  trusted = formed.trusted.backend
  common: Dict[str, Any] = dict(trusted=trusted, formed=formed, tried_trusted=tried, **base)
  if suspect_run.error and len(suspect_run.outputs) <= call and not suspect_run.events:
    raise LocalizeError(f"the traced {formed.suspect.backend} module failed: "
                        f"{suspect_run.error}")
  traced_wrong = (None if suspect_run.error or suspect_run.stopped else
                  first_wrong_call(suspect_run, reference, names, policy))
  # Stopped at a dispatch (or a step outside dispatches) to blame: tracing did not hide the
  # divergence, whatever call K's results would have been.
  if untraced_wrong is not None and untraced_wrong <= call and traced_wrong is None \
      and not suspect_run.error and not suspect_run.stopped:
    return Localization(Kind.MASKED, detail=(
        f"{formed.suspect.backend} gets call {untraced_wrong} wrong as compiled for the test, "
        "but right with a trace at every dispatch: tracing changes scheduling, buffer offsets "
        "and aliasing, which hid the bug; suspect those, not a dispatch's code"), **common)
  finding = events.compare(suspect_run.events, trusted_run.events, policy, names,
                           suspect_stopped=suspect_run.stopped is not None, floor=floor)
  if suspect_run.error and finding.kind not in (Kind.DISPATCH, Kind.OUTSIDE):
    return Localization(Kind.NOT_TRACEABLE, finding=finding, detail=(
        f"the traced {formed.suspect.backend} module failed before any divergence: "
        f"{suspect_run.error}"), **common)
  if finding.kind in (Kind.NONE, Kind.DRIFT) and finding.uncompared:
    return Localization(Kind.NOT_TRACEABLE, finding=finding, detail=(
        f"{finding.uncompared} traced tensors differ but were over the memory budget, kept as "
        "digests only, so their error is unknown and no dispatch can be blamed or cleared"),
                        **common)
  if finding.kind in (Kind.NONE, Kind.DRIFT):
    outside = _results_outside(finding, suspect_run, trusted_run, policy, names, floor)
    if outside is not None:
      return Localization(Kind.OUTSIDE, finding=finding, detail=outside, **common)
  detail = finding.detail
  if finding.kind is Kind.DISPATCH and finding.culprit is not None:
    common["repro"] = _dispatch_repro(formed, finding.culprit, trusted_run, sides, policy,
                                      base["work_dir"])
  if finding.kind is Kind.NONE and untraced_wrong is not None:
    detail = (f"every traced dispatch and result agrees with {trusted}, yet the suspect gets "
              f"call {untraced_wrong} wrong against the reference")
  return Localization(finding.kind, finding=finding, detail=detail, **common)


_BLAMES = (Kind.DISPATCH, Kind.OUTSIDE)


def _blamed(result: Localization) -> str:
  """What a blaming verdict blames, in a few words."""
  culprit = result.finding.culprit if result.finding else None
  if culprit is None:
    return "a step outside any dispatch"
  where = f"{culprit.key} (occurrence {culprit.occurrence}, call {culprit.call})"
  return (f"dispatch {where}" if result.kind is Kind.DISPATCH
          else f"a step outside any dispatch before {where}")


def _as_tested(result: Localization, suspect_run: Run, untraced: Run,
               untraced_wrong: Optional[int], policy: tolerances.TolerancePolicy,
               names: Sequence[str]) -> Localization:
  """`result`, unless the run as tested (untraced) contradicts it: tracing changes scheduling,
  buffers and the copies that feed the trace, so traced values are evidence only while the
  traced module computes what the tested one does. A traced call's results that differ from
  the untraced ones, or a blame while the module as tested gets every call right, is no
  verdict: masked by tracing (right when traced, wrong as tested) or not traceable."""
  if result.kind in (Kind.MASKED, Kind.NOT_TRACEABLE):
    return result
  call = result.call
  for index, (traced, tested) in enumerate(zip(suspect_run.outputs, untraced.outputs)):
    if index > call:
      break
    error = events.outputs_error(traced, tested, policy, names)
    if error.error <= 1:
      continue
    if untraced_wrong == index:
      return dataclasses.replace(result, kind=Kind.MASKED, repro=None, detail=(
          f"{result.suspect} gets call {index} wrong as compiled for the test, but its "
          f"results differ when traced ({error.describe()}, traced vs as tested) and agree "
          "with the reference: tracing changes scheduling, buffer offsets and aliasing, which "
          "hid the bug; suspect those, not a dispatch's code"))
    return dataclasses.replace(result, kind=Kind.NOT_TRACEABLE, repro=None, detail=(
        f"the traced module's results of call {index} differ from the module's as compiled "
        f"for the test ({error.describe()}, traced vs as tested): tracing changed what "
        f"{result.suspect} computes, so its traced values are no evidence"))
  if result.kind in _BLAMES and (untraced_wrong is None or untraced_wrong > call) \
      and not untraced.error:
    return dataclasses.replace(result, kind=Kind.NOT_TRACEABLE, repro=None, detail=(
        f"{result.suspect} gets calls 0..{call} right as compiled for the test, yet the traced "
        f"values blame {_blamed(result)}: they contradict the run as tested (tracing changes "
        "scheduling and the copies that feed the trace), so nothing is blamed"))
  return result


def _dispatch_repro(formed: formation.Formation, culprit: events.DispatchRow, trusted_run: Run,
                    sides, policy: tolerances.TolerancePolicy,
                    work_dir: str) -> dispatch_repro.Repro:
  """The culprit dispatch alone, fed the inputs the trusted backend traced for it."""
  label = (culprit.call, culprit.key, "inputs", culprit.occurrence)
  event = next((e for e in trusted_run.events if e.label == label), None)
  if event is None:
    return dispatch_repro.Repro(None, "its inputs were not traced")
  if any(events.is_digest(array) for array in event.arrays):
    return dispatch_repro.Repro(None, "its inputs were kept as digests only (over the traced "
                                "run's memory budget)")
  return dispatch_repro.write(
      os.path.join(work_dir, "repro"), formed.flow_bytecode, culprit.key, event.arrays, sides,
      formation.compiler_tool(), call_repro.iree_run_module_binary(), policy)


def _results_outside(finding: events.Finding, suspect_run: Run, trusted_run: Run,
                     policy: tolerances.TolerancePolicy, names: Sequence[str],
                     floor: float = 1.0) -> Optional[str]:
  """Why a call's results differ though no dispatch output did (a copy, a fill, a global
  returned without a dispatch), or None."""
  worst_output = max((row.output_error for row in finding.rows), default=0.0)
  for index, (s, t) in enumerate(zip(suspect_run.outputs, trusted_run.outputs)):
    error = events.outputs_error(s, t, policy, names)
    if error.error > floor and error.error > events.AMPLIFICATION * worst_output:
      return (f"call {index}'s results differ ({error.describe()}) though no traced dispatch "
              f"output did (worst {worst_output:.3g}x tolerance): a copy, fill, transfer or a "
              "global read without a dispatch changed them")
  return None
