"""Reduces a failing trace to the smallest program that shows the same failure, without TensorFlow.

  python -m pyiree_tf_support.reduce <artifacts>/<Module>[/traces/<trace>__tf_ref] \\
      --target_backends=iree_vmla [--reduce_timeout=600]

The reference trace (with its module's iree_input.mlir and signatures.json, checked as replay
checks them) is replayed on the backend to find its failure; then each level is reduced while
the failure stays the same (`reducing.failures`: the same phase, method and kind of difference,
or the same normalised first error and failing pass):
1. functions: those no call of the trace needs are removed (`mlir_functions.only_exporting`);
   for a compile error, the first method failing the same way compiled alone, with one call;
2. calls: only the failing call when the functions left keep no state between calls; with
   state, the calls after the failing one are dropped, and the earlier ones replaced by the
   state they leave (`reducing.state`: run with the globals threaded on a trusted backend whose
   outputs of them agree with the reference's; the globals' initial values set to it) when
   the failing call alone then fails the same way;
3. functions again: those the kept calls do not need;
4. ops (`reducing.op_level`), for a mismatch left in one call or a compile error: the
   function's StableHLO (a stateful one with its globals as inputs fed the state it starts
   from) cut after the first diverging value, its operands turned into inputs fed a trusted
   backend's values, ops nothing needs deleted, constants to splats, dynamic dims to the
   smallest that fail, input values to simpler ones; a stateful call that fails only with its
   globals is kept whole, one call from its state, judged against the reference's outputs;
   written as `reduced.mlir`, `input_N.npy`, the trusted
   outputs `expected_N.npy` and `reduced.py` (IREE's tools alone: DIVERGES/same, or the
   compile error).
Every candidate is compiled (through the compile cache) and run as replay runs it. The result is
itself a module dir, `<Module>/reduce/<trace>__<backend>/`: the reduced `iree_input.mlir`,
`signatures.json`, the reduced reference trace under `traces/` (so replay and localize take it
as they take the original), `repro.sh` (the TF-free replay of it, failing as the original did,
and for a compile error the iree-compile command alone) and `report.md`, a bug report to paste
upstream: IREE's version, the backend's flags, the command, expected vs got, and what was
removed. `--reduce_timeout` bounds the search; when it ends, the smallest program so far is kept.
The reduction is written beside the last complete one, which it replaces whole once complete
(a reduction stopped half-way leaves the last one as it was); a second reduction of the same
trace and backend waits for the first (it says so) and then reduces afresh.
Exit status: 0 reduced, 2 nothing to reduce or input that cannot be trusted (one line on stderr),
130 Ctrl-C, 143 SIGTERM (one line saying what was kept).
"""

import copy
import dataclasses
import importlib.metadata
import json
import os
import re
import shlex
import sys
import time
from typing import List, Optional, Sequence, Tuple

from absl import app
from absl import flags
import numpy as np

from pyiree_tf_support import cli_flags
from pyiree_tf_support import replay
from pyiree_tf_support.comparing import mapped_arrays
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.compiling import mlir_files
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.compiling.vmfb_cache import CompileCacheError
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import phases
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.fuzzing import stopping
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.reducing import failures
from pyiree_tf_support.reducing import op_level
from pyiree_tf_support.reducing import search
from pyiree_tf_support.reducing import state
from pyiree_tf_support.reporting import replay_input
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.replay_input import ReplayInput
from pyiree_tf_support.runtime import drivers

__all__ = ["ReduceError", "Reduction", "main", "reduce_failure", "summary", "to_json"]

USAGE = ("python -m pyiree_tf_support.reduce <module dir or trace dir> --target_backends=B "
         "[--reduce_timeout=S]")
REDUCE_DIR = "reduce"

_TIMEOUT = cli_flags.duration(flags.DEFINE_float(
    "reduce_timeout", 600.0, "Seconds the search may take; past them the smallest program found "
    "so far is kept; 0 = no limit.", lower_bound=0.0))
_REPORT_JSON = cli_flags.report_json_flag(__name__, "under `reduction` with --reduce_failures")
for _name in ("target_backends", "tolerances", "iree_compile_flags", "compile_cache",
              "compile_cache_dir", "compile_timeout", "load_timeout", "call_timeout", "verbose"):
  flags.declare_key_flag(_name)

_STABLEHLO_OP = re.compile(r"^\s*(?:%[\w#:, ]+=\s*)?\"?(stablehlo|chlo|mhlo)\.[\w.]+",
                           re.MULTILINE)
_BLANK_RUN = re.compile(r"\n(?:[ \t]*\n){2,}")  # removed functions' lines, in the report
_FUNCTION = re.compile(r"^\s*func\.func (?:public |private )?@", re.MULTILINE)


class ReduceError(ValueError):
  """Nothing to reduce, or a request that cannot be met; the message says why in one line."""


@dataclasses.dataclass(frozen=True)
class Reduction:
  """What a reduction found and where it wrote the reduced module dir."""
  failure: failures.Failure
  outcome: verdicts.Outcome  # the reduced program's (the same failure)
  calls_before: int
  calls: int
  functions_before: int
  functions: int
  ops_before: int
  ops: int
  tried: int  # candidates compiled and run
  seconds: float
  timed_out: bool
  directory: str
  op_result: Optional[op_level.OpReduction] = None


def to_json(result: Reduction) -> dict:
  """The reduction as data: its one-line summary, the sizes, and where its files are."""
  return {"summary": summary(result), "failure": result.failure.describe(),
          "calls": [result.calls_before, result.calls],
          "functions": [result.functions_before, result.functions],
          "ops": [result.ops_before, result.ops], "candidates": result.tried,
          "seconds": round(result.seconds, 2), "timed_out": result.timed_out,
          "directory": result.directory,
          "op_level": _op_json(result.op_result),
          "repro": shlex.quote(os.path.join(result.directory, "repro.sh")),
          "report": os.path.join(result.directory, "report.md")}


def _op_json(result: Optional[op_level.OpReduction]) -> Optional[dict]:
  if result is None:
    return None
  if not result.program:
    return {"note": result.note}
  return {"ops": [result.ops_before, result.ops], "trusted": result.trusted or None,
          "program": os.path.join(os.path.dirname(result.script), op_level.PROGRAM_NAME),
          "script": shlex.join([sys.executable, result.script]),
          "candidates": result.tried, "state": result.state or None}


def _op_summary(result: Optional[op_level.OpReduction]) -> str:
  if result is None:
    return ""
  if not result.program:
    return f"; {result.note}"
  against = f" against {result.trusted}" if result.trusted else ""
  return f"; op level{against}: {result.function} ops {result.ops_before} -> {result.ops}"


def summary(result: Reduction) -> str:
  """The reduction in one line (a test failure's report carries it)."""
  return (f"{result.failure.describe()}: calls {result.calls_before} -> "
          f"{result.calls}, functions {result.functions_before} -> {result.functions}, "
          f"StableHLO ops {result.ops_before} -> {result.ops}{_op_summary(result.op_result)} "
          f"({result.tried} candidates, "
          f"{result.seconds:.1f} s{', time budget reached' if result.timed_out else ''})")


def count_ops(iree_input: str) -> int:
  """StableHLO (and CHLO/MHLO) ops in a module's text: the size a reduction reports."""
  return len(_STABLEHLO_OP.findall(iree_input))


def _functions(iree_input: str) -> int:
  return len(_FUNCTION.findall(iree_input))


def _drop_pages(trace: Trace) -> None:
  """Drops the resident pages of the trace's arrays (mapped from its arrays.npz): each replay
  and the reduced trace's save read them, and kept, they added 2 T (its input and output) to
  the next replay's own 3 T on the [4096, 4096] memory test (docs/reducing.md, Memory)."""
  for call in trace.calls:
    mapped_arrays.release_pages(*structure.flatten((call.inputs, call.kwargs, call.outputs)))


def _with_calls(trace: Trace, indices: Sequence[int]) -> Trace:
  reduced = copy.copy(trace)
  reduced.calls = [trace.calls[i] for i in indices]
  return reduced


class _Search:
  """Asks the predicate of candidates (each one compiled and run), within the time budget."""

  def __init__(self, loaded: ReplayInput, spec: backends.BackendSpec, name: str,
               cache: Optional[CompileCache], policy: tolerances.TolerancePolicy,
               limits: timeouts.Timeouts, started: float, seconds: float):
    self.loaded, self.spec, self.name = loaded, spec, name
    self.cache, self.policy, self.limits = cache, policy, limits
    self.started, self.deadline = started, started + seconds
    self.tried = 0
    self.timed_out = False

  def outcome(self, trace: Trace, iree_input: str) -> verdicts.Outcome:
    self.tried += 1
    try:
      return replay.replay_trace(trace, self.spec, self.name, (self.name,), iree_input,
                                 self.loaded.signatures, self.cache, self.policy,
                                 limits=self.limits)
    finally:
      _drop_pages(trace)

  def holds(self, failure: failures.Failure, trace: Trace, iree_input: str) -> bool:
    if time.monotonic() > self.deadline:
      self.timed_out = True
      return False  # past the budget: keep what is known to fail.
    return failures.same_failure(failure, self.outcome(trace, iree_input))


def _reduce_calls(searching: _Search, failure: failures.Failure, outcome: verdicts.Outcome,
                  trace: Trace, iree_input: str) -> List[int]:
  """The calls kept: the failing one alone without state, else the ones up to it."""
  count = len(trace.calls)
  failing = outcome.call_index
  if failing is None:  # a compile error: the calls of the method it names, or the first call.
    failing = next((i for i, c in enumerate(trace.calls) if c.method == failure.method), 0)
  failing = min(failing, count - 1)
  if repro.has_state(iree_input):
    # Earlier calls make the state the failing call sees, and the recorded outputs of a
    # shorter prefix would not be the reference's: only the calls after it go.
    return list(range(failing + 1))
  if searching.holds(failure, _with_calls(trace, [failing]), iree_input):
    return [failing]
  return search.minimize(list(range(failing + 1)),
                         lambda kept: searching.holds(failure, _with_calls(trace, kept),
                                                      iree_input), keep_last=True)


def _exporting(iree_input: str, methods: Sequence[str]) -> Optional[str]:
  from pyiree_tf_support.compiling import mlir_functions
  try:
    return mlir_functions.only_exporting(iree_input, sorted(set(methods)))
  except ValueError:
    return None


def _reduce_functions(searching: _Search, failure: failures.Failure, trace: Trace,
                      iree_input: str) -> str:
  """The module exporting only the kept calls' methods, when it still fails the same way."""
  candidate = _exporting(iree_input, [call.method for call in trace.calls])
  if candidate is not None and candidate != iree_input and searching.holds(failure, trace,
                                                                           candidate):
    return candidate
  return iree_input


def _failing_method(searching: _Search, failure: failures.Failure, trace: Trace,
                    iree_input: str) -> Optional[Tuple[List[int], str]]:
  """For a compile error, which calls do not matter: the first method that fails the same way
  compiled alone, with its first call, and the module exporting only it; None if none does."""
  for method in dict.fromkeys(call.method for call in trace.calls):
    first = next(i for i, call in enumerate(trace.calls) if call.method == method)
    alone = _exporting(iree_input, [method])
    if alone is not None and searching.holds(failure, _with_calls(trace, [first]), alone):
      return [first], alone
  return None


def reduce_failure(loaded: ReplayInput, backend: str,
                   cache: Optional[CompileCache] = None,
                   policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
                   limits: timeouts.Timeouts = timeouts.DEFAULT,
                   extra_flags: compile_flags.Entries = (),
                   seconds: float = 600.0,
                   directory: Optional[str] = None) -> Reduction:
  """Reduces the failure of `loaded`'s reference trace on `backend`; writes the reduced module
  dir (default `_output_dir`) beside it and publishes it whole once complete
  (`safe_files.published_dir`): until then the last complete reduction stays, also when this
  one is stopped, and another reduction of the same directory waits for this one to end."""
  started = time.monotonic()
  spec = _iree_spec(backend)
  spec = dataclasses.replace(spec, compiler_flags=spec.compiler_flags + compile_flags.for_backend(
      extra_flags, (backend, spec.name)))
  reference, iree_input = loaded.reference, loaded.iree_input
  if not reference.calls:
    raise ReduceError(f"{loaded.trace_dir} records no call: nothing to reduce.")
  directory = directory or _output_dir(loaded, backend)
  safe_files.open_root(os.path.dirname(os.path.dirname(directory)), "The module's artifacts dir")
  searching = _Search(loaded, spec, backend, cache, policy, limits, started, seconds)
  original = searching.outcome(reference, iree_input)
  failure = failures.failure_of(original)
  if failure is None:
    raise ReduceError(f"{backend}: {original.status.value} on the whole trace "
                      f"({loaded.trace_dir}): nothing to reduce.")
  with safe_files.published_dir(directory, lambda lock: print(
      f"reduce: another reduce of this trace on {spec.name} holds {lock}; waiting for it to end",
      file=sys.stderr, flush=True)) as work:
    return _reduce(loaded, backend, spec, searching, original, failure, extra_flags,
                   directory, work)


def _reduce(loaded: ReplayInput, backend: str, spec: backends.BackendSpec, searching: _Search,
            original: verdicts.Outcome, failure: failures.Failure,
            extra_flags: compile_flags.Entries, directory: str, work: str) -> Reduction:
  """The levels of `reduce_failure` after the failure is known: written into `work`, which is
  then published as `directory` (the paths the files and the result name)."""
  reference, iree_input = loaded.reference, loaded.iree_input
  cache, policy, limits = searching.cache, searching.policy, searching.limits
  side = op_level.Side(spec, backend, spec.compiler_flags)
  trusted = _trusted(side, extra_flags)
  # The functions the trace calls first: whether calls share state is then a question about
  # those functions only. Then the calls, then the functions the kept calls need.
  reduced_input = _reduce_functions(searching, failure, reference, iree_input)
  alone = (_failing_method(searching, failure, reference, reduced_input)
           if failure.status is verdicts.Status.COMPILE_ERROR else None)
  origin = "the initial values"
  if alone is not None:
    kept, reduced_input = alone
  else:
    kept = _reduce_calls(searching, failure, original, reference, reduced_input)
    if len(kept) > 1 and failure.status is verdicts.Status.MISMATCH:
      started_from = _started(searching, failure, loaded, _with_calls(reference, kept),
                              reduced_input, trusted, work, cache, policy, limits)
      if started_from is not None:
        kept, reduced_input, origin = [kept[-1]], started_from[0], started_from[1]
  trace = _with_calls(reference, kept)
  reduced_input = _reduce_functions(searching, failure, trace, reduced_input)
  outcome = original if (len(kept) == len(reference.calls) and reduced_input == iree_input) \
      else searching.outcome(trace, reduced_input)
  if not failures.same_failure(failure, outcome):  # the budget ended between two steps.
    trace, reduced_input, outcome = reference, iree_input, original
  ops_result = _op_level(loaded, trace, reduced_input, failure, side, trusted, origin,
                         work, cache, policy, limits, searching.deadline)
  if ops_result is not None and ops_result.program:
    ops_result = op_level.write(ops_result, work, side, policy, named=directory)
  timed_out = searching.timed_out or bool(ops_result and ops_result.timed_out)
  tried = searching.tried + (ops_result.tried if ops_result else 0)
  result = Reduction(failure, outcome, len(reference.calls), len(trace.calls),
                     _functions(iree_input), _functions(reduced_input), count_ops(iree_input),
                     count_ops(reduced_input), tried, time.monotonic() - searching.started,
                     timed_out, directory, ops_result)
  _write(result, loaded, trace, reduced_input, spec, backend, work)
  return result


def _iree_spec(backend: str) -> backends.BackendSpec:
  spec = backends.lookup(backend)
  if not spec.is_iree:
    raise ReduceError(f"--target_backends={backend} is not an IREE backend; reduce one of: "
                      + ", ".join(n for n in backends.valid_names()
                                  if backends.lookup(n).is_iree) + ".")
  return spec


def _output_dir(loaded: ReplayInput, backend: str) -> str:
  """Where the reduction of `loaded`'s reference trace on `backend` is published by default:
  `<Module>/reduce/<trace>__<backend's canonical name>`."""
  module_dir = os.path.dirname(os.path.dirname(loaded.trace_dir))
  return os.path.join(module_dir, REDUCE_DIR, artifacts.safe_name(
      f"{loaded.reference.function_name}__{_iree_spec(backend).name}"))


def _trusted(side: op_level.Side, extra_flags: compile_flags.Entries) -> List[op_level.Side]:
  """The backends to take right values from, in the localizer's order (those available)."""
  trusted = []
  for name in engine.TRUSTED_ORDER[side.spec.name]:
    spec = backends.lookup(name)
    if drivers.driver_available(spec.driver)[0]:
      trusted.append(op_level.Side(spec, name, spec.compiler_flags + compile_flags.for_backend(
          extra_flags, (name,) + spec.aliases)))
  return trusted


def _flat_call(loaded: ReplayInput, trace: Trace, index: int
               ) -> Tuple[str, List[np.ndarray], List[np.ndarray]]:
  call = trace.calls[index]
  signature = loaded.signatures[call.method]
  return (signature.name, signature.flatten_inputs(trace.module_name, call.inputs, call.kwargs),
          [np.asarray(v) for v in structure.flatten(call.outputs, drop_none=True)])


def _started(searching: _Search, failure: failures.Failure, loaded: ReplayInput, trace: Trace,
             iree_input: str, trusted: Sequence[op_level.Side], directory: str,
             cache: Optional[CompileCache], policy: tolerances.TolerancePolicy,
             limits: timeouts.Timeouts) -> Optional[Tuple[str, str]]:
  """The earlier calls of a stateful trace replaced by the state they leave: (the module with
  its globals started there, where that state came from) when its last call alone fails the
  same way; None when not (or no trusted backend agrees with the reference on them)."""
  work_dir = os.path.join(directory, ".candidates")
  try:
    runner = op_level.Runner(work_dir, cache, limits, searching.deadline)
    earlier = [_flat_call(loaded, trace, i) for i in range(len(trace.calls) - 1)]
    start = state.starting_state(iree_input, earlier, trusted, runner, policy)
  finally:
    safe_files.remove_tree(work_dir)
  searching.tried += runner.tried
  if start.values is None:
    return None
  candidate = state.initialized(iree_input, start.values)
  if not searching.holds(failure, _with_calls(trace, [len(trace.calls) - 1]), candidate):
    return None
  last = len(trace.calls) - 2
  calls = "call 0" if last == 0 else f"calls 0-{last}"
  return candidate, f"what {start.trusted} holds after {calls}"


def _op_level(loaded: ReplayInput, trace: Trace, iree_input: str, failure: failures.Failure,
              side: op_level.Side, trusted: Sequence[op_level.Side], origin: str,
              directory: str, cache: Optional[CompileCache],
              policy: tolerances.TolerancePolicy, limits: timeouts.Timeouts,
              deadline: float) -> Optional[op_level.OpReduction]:
  """The op level of the one call left (None when the failure is of another kind); its
  candidates' files go to a scratch dir inside `directory`, removed after."""
  if failure.status not in (verdicts.Status.MISMATCH, verdicts.Status.COMPILE_ERROR):
    return None
  call = trace.calls[0]
  signature = loaded.signatures[call.method]
  work_dir = os.path.join(directory, ".candidates")
  try:
    if failure.status is verdicts.Status.COMPILE_ERROR:  # compiled only: state is no matter.
      return op_level.reduce_compile_error(iree_input, signature.name, failure, side,
                                           work_dir, cache, limits, deadline)
    if len(trace.calls) != 1:
      return op_level.OpReduction("not at the op level: the failure needs the earlier calls "
                                  "(their last call alone, its globals started from the state "
                                  "they leave, does not fail the same way)")
    _, arguments, expected = _flat_call(loaded, trace, 0)
    if repro.has_state(iree_input):
      return state.reduce_mismatch(iree_input, signature.name, failure, side, trusted,
                                   arguments, expected, origin, work_dir, cache, policy,
                                   limits, deadline)
    return op_level.reduce_mismatch(iree_input, signature.name, failure, side, trusted,
                                    arguments, expected, work_dir, cache, policy, limits,
                                    deadline)
  finally:
    safe_files.remove_tree(work_dir)


def _iree_version() -> str:
  versions = []
  for package in ("iree-base-compiler", "iree-base-runtime"):
    try:
      versions.append(f"{package} {importlib.metadata.version(package)}")
    except importlib.metadata.PackageNotFoundError:
      continue
  return ", ".join(versions) or "unknown"


def _write(result: Reduction, loaded: ReplayInput, trace: Trace, iree_input: str,
           spec: backends.BackendSpec, backend: str, into: str) -> None:
  """The reduced module dir, written into `into` (published as `result.directory`, the paths
  its files name): itself replayable and localizable, with its repro and report."""
  directory = result.directory
  safe_files.write_text(os.path.join(into, "iree_input.mlir"), iree_input)
  module_dir = os.path.dirname(os.path.dirname(loaded.trace_dir))
  safe_files.write_bytes(artifacts.signatures_path(into),
                        safe_files.read_bytes(artifacts.signatures_path(module_dir)))
  trace_io.save_trace(trace, artifacts.trace_path(into, trace.function_name, trace.backend,
                                                  suffix=""),
                      reference=True, iree_input=iree_input)
  _drop_pages(trace)
  trace_dir = artifacts.trace_path(directory, trace.function_name, trace.backend, suffix="")
  replay_command = shlex.join([sys.executable, "-m", "pyiree_tf_support.replay", trace_dir,
                               f"--target_backends={backend}"])
  flags_line = [f"--iree-hal-target-backends={t}" for t in spec.compiler_targets] + list(
      spec.compiler_flags)
  compile_command = shlex.join([_compile_tool(), os.path.join(directory, "iree_input.mlir"),
                                "--iree-input-type=stablehlo_xla", *flags_line,
                                "-o", os.path.join(directory, "reduced.vmfb")])
  lines = ["#!/bin/sh",
           f"# Reproduces {quoting.comment(result.failure.describe())} (exit 1 while it does).",
           "# Needs no TensorFlow: the reduced trace replayed on the reduced module."]
  if result.failure.status is verdicts.Status.COMPILE_ERROR:
    lines += [compile_command + " && exit 0", "exit 1"]
  else:
    lines += [replay_command]
  script = os.path.join(directory, "repro.sh")

  def executable(f) -> None:
    f.write(("\n".join(lines) + "\n").encode("utf-8"))
    os.fchmod(f.fileno(), 0o755)

  safe_files.write_with(os.path.join(into, "repro.sh"), executable)
  safe_files.write_text(os.path.join(into, "report.md"),
                       _report(result, loaded, trace, iree_input, backend, script,
                               compile_command))


def _compile_tool() -> str:
  try:
    from iree.compiler.tools import binaries
    return binaries.find_tool("iree-compile")
  except Exception:  # a runtime-only machine: the name.
    return "iree-compile"


def _report(result: Reduction, loaded: ReplayInput, trace: Trace, iree_input: str,
            backend: str, script: str, compile_command: str) -> str:
  outcome = result.outcome
  text = [f"# {result.failure.describe()}", "",
          f"IREE: {_iree_version()}.", "",
          f"Reduced from `{loaded.trace_dir}`: calls {result.calls_before} -> {result.calls}, "
          f"functions {result.functions_before} -> {result.functions}, StableHLO ops "
          f"{result.ops_before} -> {result.ops} ({result.tried} candidates, "
          f"{result.seconds:.1f} s"
          f"{'; the time budget ended the search' if result.timed_out else ''}).", "",
          "## Reproduce", "", "```sh", shlex.quote(script), "```", "",
          "## Compile", "", "```sh", compile_command, "```", "",
          "## Expected vs got", "", "```", verdicts.format_outcome(outcome), "```", "",
          "## The reduced program", "", "```mlir", _BLANK_RUN.sub("\n\n", iree_input.strip()),
          "```", ""]
  if trace.calls:
    text[-1:-1] = ["## Calls (the reference's inputs and outputs)", "", "```",
                   trace.format(summarize=True).strip(), "```", ""]
  return "\n".join(text + _op_report(result.op_result))


def _op_report(result: Optional[op_level.OpReduction]) -> List[str]:
  """The op level's part of the report: the smallest program, how to run it, what it gives."""
  if result is None:
    return []
  if not result.program:
    return ["## The op level", "", result.note[0].upper() + result.note[1:] + ".", ""]
  whole = result.trusted == op_level.REFERENCE
  text = ["## The op level", "",
          (f"`{result.function}` as it is ({result.ops} top-level ops), one call: its inputs "
           "are the call's, the expected outputs the reference's (input_N.npy, "
           "expected_N.npy)." if whole else
           f"`{result.function}` cut to its fewest StableHLO ops that fail the same way: "
           f"{result.ops_before} -> {result.ops} top-level ops ({result.tried} candidates"
           f"{'; the time budget ended the search' if result.timed_out else ''})"
           + (f"; its inputs and the expected outputs are what {result.trusted} computes for "
              "them (input_N.npy, expected_N.npy)." if result.trusted else ".")), "",
          "```sh", shlex.join([sys.executable, result.script]), "```", ""]
  if result.state:
    text += ["A stateful call, " + result.state + ".", ""]
  text += ["Compiled with:", "", "```sh", result.command, "```", ""]
  if result.error:
    text += ["Fails with:", "", "```", phases.first_error_line(result.error, diagnostics=True)
             or result.error.splitlines()[0], "```", ""]
  else:
    text += [f"Expected ({result.trusted}) vs got:", "", "```", result.difference, "```", ""]
    for index, array in enumerate(result.inputs):
      text.append(f"- input {index}: {array.dtype}{list(array.shape)} "
                  f"{np.array2string(array, threshold=16, max_line_width=90)}")
    text.append("")
  return text + ["```mlir", result.program.strip(), "```", ""]


def main(argv: Sequence[str]) -> int:
  stopping.stop_on_sigterm()
  verbosity.apply(cli_flags.verbose())
  if len(argv) != 2:
    print(f"usage: {USAGE} (--help for its flags)", file=sys.stderr)
    return 2
  directory = None
  try:
    names = cli_flags.target_backend_names()
    if not names or len(names) != 1:
      raise ReduceError("--target_backends names the one backend whose failure to reduce, e.g. "
                        "--target_backends=iree_vmla.")
    seconds = _TIMEOUT.value or float("inf")  # a finite duration: the flag's own check.
    problem = cli_flags.unwritable_report_json(_REPORT_JSON)
    if problem:  # said now, not after the whole reduction.
      raise ReduceError(problem)
    loaded = replay_input.load(replay_input.reference_trace_dir(argv[1]), mlir_files.text)
    directory = _output_dir(loaded, names[0])
    result = reduce_failure(
        loaded, names[0], cli_flags.compile_cache_from_flags(), cli_flags.tolerance_policy(),
        cli_flags.timeouts_from_flags(),
        compile_flags.parse(cli_flags.value("iree_compile_flags")), seconds, directory)
    data = to_json(result)
    print("reduced " + data["summary"])
    print(f"reproduce: {data['repro']}")
    if data["op_level"] and "script" in data["op_level"]:
      print(f"reduced program: {data['op_level']['script']}")
    print(f"report: {data['report']}")
    if _REPORT_JSON.value:
      safe_files.write_text(_REPORT_JSON.value, json.dumps(data, indent=1))
  except (ValueError, KeyError, CompileCacheError, faults.OwnFault) as e:
    message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
    print("reduce: " + str(message).replace("\n", " "), file=sys.stderr)
    return 2
  except KeyboardInterrupt:
    kept = (f"the last complete reduction is kept in {directory}"
            if directory and os.path.isdir(directory) else "no reduction was written")
    print(f"reduce: {stopping.stopped_how()}; {kept}", file=sys.stderr)
    return stopping.exit_status()
  return 0


if __name__ == "__main__":
  app.run(main, flags_parser=cli_flags.command_line_parser("reduce"))
