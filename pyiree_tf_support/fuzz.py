"""Finds miscompiles nobody wrote a test for: generated TensorFlow modules, compared on IREE.

  python -m pyiree_tf_support.fuzz --target_backends=iree_vmla,iree_llvmjit --minutes=10 \\
      --seed=1 --out=DIR [--ops=cast_f32_to_i32,tanh,...] [--jobs=N | --shard=I/N] [--resume]
  python -m pyiree_tf_support.fuzz merge --out=DIR SHARD_DIR...

Each round generates a module of `--functions_per_module` functions (`fuzzing.programs`: chains
of ops from the table of `fuzzing.ops`, with shapes, `None` dims, state and special values drawn
from the seed), written out as a test file in the corpus' format, and compares every function on
the reference and every target through a `harness.session.ModuleSession`. A failing (function,
backend) is a hit unless the float policy (`fuzzing.judging`) sets it aside; each hit is:
1. reduced: steps of the function's chain are deleted while the failure stays the same
   (`reducing.failures`), each candidate a module of its own compiled for that backend;
2. deduplicated by signature (`fuzzing.signatures`): phase, backend, the normalised first error
   and, for a mismatch, the localized dispatch's op kinds and dtypes (the localizer run on the
   reduced function) or else the reduced chain's ops: a hundred hits of one bug are one finding;
3. confirmed: the finding's test file run as a user runs it, in a fresh process, must fail on
   that backend the same way; one that does not is kept as unconfirmed, never a bug.

DIR/findings/<signature>/<name>_test.py is each finding's test, DIR/findings.json and
DIR/findings.md one row per signature (`fuzzing.findings`). `--jobs=N` runs N worker processes,
each a shard (`--shard=I/N`: the modules whose index is I modulo N) in DIR/jobs/I, merged into
DIR as they go; shards run elsewhere (Bazel test shards, pytest-xdist) merge with `merge`.
Progress goes to stderr after each module; Ctrl-C keeps everything found so far; `--resume`
goes on from DIR's state with the seed it was started with, and SIGTERM (`kill`, `timeout`)
stops it the same way (`fuzzing.stopping`). One campaign or merge at a time holds a dir
(`fuzzing.campaign_lock`). Exit status: 0 (findings or not), 1 a write failed (a full disk:
the state saved before is kept) or a `--jobs` worker died, 2 bad input (a hand-edited state,
a dir in use), 130 interrupted, 143 terminated.
"""

import contextlib
import dataclasses
import errno
import hashlib
import logging as std_logging
import os
import shlex
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from absl import app
from absl import flags
from absl import logging
import numpy as np

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import module_dirs
from pyiree_tf_support.core import progress
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.fuzzing import campaign_lock
from pyiree_tf_support.fuzzing import findings as findings_lib
from pyiree_tf_support.fuzzing import judging
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.fuzzing import shards
from pyiree_tf_support.fuzzing import signatures
from pyiree_tf_support.fuzzing import stopping
from pyiree_tf_support.fuzzing.findings import Campaign
from pyiree_tf_support.fuzzing.findings import Finding
from pyiree_tf_support.fuzzing.findings import FuzzError
from pyiree_tf_support.harness import session as session_lib
from pyiree_tf_support.reducing import failures
from pyiree_tf_support.reducing import search
from pyiree_tf_support.reporting.verdicts import Outcome
from pyiree_tf_support.reporting.verdicts import Status

__all__ = ["Campaign", "main"]

_MINUTES = cli_flags.finite(flags.DEFINE_float(
    "minutes", 10.0, "How long the campaign runs (new modules start until then).",
    lower_bound=0.0))
_MAX_MODULES = flags.DEFINE_integer("max_modules", None, "Stop after this many modules (of the "
                                    "whole campaign, shared out among --jobs).", lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "The campaign's seed: the same seed, op table and "
                             "versions generate the same modules.")
_OUT = flags.DEFINE_string("out", None, "The campaign's directory (findings, state, artifacts).")
_OPS = flags.DEFINE_string("ops", None, "Comma-separated ops of the table to draw from "
                           "(default: all the targets run).")
_PER_MODULE = flags.DEFINE_integer("functions_per_module", 8, "Functions in each generated "
                                   "module (compile cost is per module).", lower_bound=1)
_SPECIAL = cli_flags.finite(flags.DEFINE_float(
    "special_values", 0.05, "The fraction of input elements that are special values (NaN, "
    "+-Inf, -0.0, subnormals, extremes).", lower_bound=0.0, upper_bound=1.0))
_SHAPES = flags.DEFINE_string("shapes", programs.DEFAULT_SHAPES, "Comma-separated input shapes "
                              "to draw from: scalar, or 1-4 sizes joined by x (0 or >= 2; a "
                              "first ? is a None dim, its size drawn per call).")
_SIZES = flags.DEFINE_list("dynamic_sizes", [str(s) for s in programs.DYNAMIC_SIZES], "The "
                           "sizes a None dim is drawn from, per call (0: a size-0 input).")
_STATEFUL = cli_flags.finite(flags.DEFINE_float(
    "stateful", 0.2, "The fraction of functions that update a variable (called 3 times in "
    "their trace).", lower_bound=0.0, upper_bound=1.0))
_STATES = flags.DEFINE_list("states", ["assign", "cond"], "The kinds of state update a stateful "
                            "function draws from: assign, or cond (inside a tf.cond).")
_LOCALIZE = flags.DEFINE_bool("localize_findings", True, "Localize each new mismatch to its "
                              "first diverging dispatch: its op kinds and dtypes are the "
                              "signature.")
_JOBS = flags.DEFINE_integer("jobs", 1, "Worker processes, each a shard in DIR/jobs/I.",
                             lower_bound=1)
_SHARD = flags.DEFINE_string("shard", None, "I/N: run only the modules whose index is I modulo "
                             "N (merge the shards' directories with the merge command).")
_RESUME = flags.DEFINE_bool("resume", False, "Go on from --out's state.")
_RTOL = cli_flags.finite(flags.DEFINE_float("fuzz_rtol", 1e-4, "rtol every float comparison uses.",
                                            lower_bound=0))
_ATOL = cli_flags.finite(flags.DEFINE_float("fuzz_atol", 1e-4, "atol every float comparison uses.",
                                            lower_bound=0))
for _name in ("target_backends", "reference_backend", "iree_compile_flags", "compile_cache",
              "compile_cache_dir", "verbose"):
  flags.declare_key_flag(_name)

Calls = List[Tuple[np.ndarray, ...]]  # one function's calls' inputs


class _Runner:
  """Writes, imports and compares generated modules through sessions."""

  def __init__(self, campaign: Campaign, settings: RunSettings,
               options: session_lib.SessionOptions, rtol: float, atol: float):
    self.campaign, self.settings, self.options = campaign, settings, options
    self.rtol, self.atol = rtol, atol
    self.work = os.path.join(campaign.directory, "work")
    self._candidates: Dict[Tuple, Tuple[str, Optional[Outcome]]] = {}

  def compare(self, class_name: str, functions: Sequence[programs.Program],
              arrays: Sequence[Calls],
              targets: Optional[Tuple[str, ...]] = None) -> Dict[str, Tuple[Outcome, ...]]:
    """Each function's outcomes on the targets (all, or `targets`): one trace per function,
    making its calls in order."""
    calls = [(p.name, inputs) for p, call_list in zip(functions, arrays) for inputs in call_list]
    path = os.path.join(self.work, f"{class_name}.py")
    safe_files.write_text(path, programs.module_source(class_name, functions, calls, self.rtol,
                                                      self.atol))
    settings = self.settings if targets is None else dataclasses.replace(
        self.settings, target_backends=targets)
    session = session_lib.ModuleSession.open(judging.load_module_class(path, class_name), (),
                                             settings, self.options, test_file=path,
                                             class_name=class_name, progress=_progress())
    try:
      results = {}
      for program, call_list in zip(functions, arrays):
        rtol, atol = program.tolerances(self.rtol, self.atol)

        def trace(module, name=program.name, values=call_list, rtol=rtol, atol=atol):
          for inputs in values:
            getattr(module, name)(*inputs, rtol=rtol, atol=atol)
        trace.__name__ = program.name
        results[program.name] = session.start(program.name).compare(trace).outcomes
      return results
    finally:
      session.close()

  def reduced(self, program: programs.Program, calls: Calls, failure: failures.Failure,
              backend: str) -> Tuple[programs.Program, Optional[str], Optional[Outcome]]:
    """`program` with the steps deleted that the same failure does not need, the module dir of
    its own compare and its outcome there (None, None when it was not compared alone): its first
    failing call may be another than the unreduced program's."""
    def key_of(steps: Sequence[str]) -> Tuple:
      candidate = program.with_steps(steps)
      digest = hashlib.sha256(b"".join(a.tobytes() for c in calls for a in c)).hexdigest()
      return (",".join(candidate.ops()), backend, program.name, program.state, program.shape,
              program.dynamic, digest)

    def holds(steps: List[str]) -> bool:
      # The function keeps its name: "the same failure" of a mismatch is in the same method.
      candidate = program.with_steps(steps)
      candidate_calls = [programs.inputs_for(candidate, program, c) for c in calls]
      key = key_of(steps)
      if key not in self._candidates:
        name = "Reduce_" + hashlib.sha256(repr(key).encode()).hexdigest()[:10]
        outcome = None
        try:
          outcome = self.compare(name, [candidate], [candidate_calls],
                                 (backend,))[program.name][0]
        except (faults.OwnFault, KeyboardInterrupt):
          raise
        except Exception:  # e.g. TF refuses the candidate.
          pass
        self._candidates[key] = (name, outcome)
      outcome = self._candidates[key][1]
      # A smaller program whose difference is only float32 precision has lost the bug.
      return (outcome is not None and failures.same_failure(failure, outcome)
              and judging.precision_artefact(candidate, candidate_calls, outcome, self.work,
                                             self.rtol, self.atol) is None)
    steps = search.minimize(list(program.steps), holds)
    reduced = program.with_steps(steps)
    module, outcome = None, None
    if holds(list(steps)):
      # The root the session put the module dir under (harness.class_setup's).
      root = self.settings.artifacts_dir or module_dirs.default_root()
      name, outcome = self._candidates[key_of(steps)]
      module = os.path.join(root, name)
    return reduced, module, outcome


def _confirm(test_file: str, backend: str, artifact_name: str, status: Status,
             artifacts_dir: str) -> bool:
  """Whether the finding's test file fails as found, run by hand in a fresh process."""
  completed = subprocess.run(
      [sys.executable, test_file, f"--target_backends={backend}",
       f"--artifacts_dir={artifacts_dir}"],
      capture_output=True, text=True, check=False, timeout=900,
      env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
  return completed.returncode != 0 and f"{artifact_name}: {status.value}" in (
      completed.stdout + completed.stderr)


def _localized(module_dir: Optional[str], backend: str, outcome: Outcome, state: str) -> str:
  """The op kinds and dtypes of the dispatch the localizer blames for the reduced function's
  mismatch, or outside every dispatch with the function's `state` kind
  (`signatures.localized_kinds`; "" when it names neither: drift, no divergence, an error)."""
  if module_dir is None or not os.path.isdir(module_dir):
    return ""
  from pyiree_tf_support.localizing import in_child
  verdict = in_child.localize(module_dir, backends.lookup(backend).name,
                              outcome.call_index or 0)
  logging.info("fuzz: localized %s: %s", module_dir, verdict.get("summary"))
  return signatures.localized_kinds(verdict, state)


def _triage(runner: _Runner, campaign: Campaign, index: int, program: programs.Program,
            calls: Calls, outcomes: Sequence[Outcome], localize: bool) -> None:
  """Each failing backend's hit: reduced, deduplicated, written and confirmed when new."""
  passed = tuple(o.backend for o in outcomes if o.status is Status.PASS)
  for target, outcome in zip(campaign.targets, outcomes):
    failure = failures.failure_of(outcome)
    if failure is None:
      continue
    artefact = judging.precision_artefact(program, calls, outcome, runner.work, runner.rtol,
                                          runner.atol)
    if artefact is not None:
      campaign.precision += 1
      logging.info("fuzz: %s on %s set aside by the float policy: %s", program.name, target,
                   artefact)
      continue
    campaign.hits += 1
    reduced, module_dir, reduced_outcome = runner.reduced(program, calls, failure, target)
    ops = reduced.ops()
    name = backends.lookup(target).name
    by_ops = signatures.signature(failure.status, failure.key, name, ops)
    signature = campaign.aliases.get(by_ops, by_ops)
    if signature in campaign.findings:
      campaign.findings[signature] = dataclasses.replace(
          campaign.findings[signature], hits=campaign.findings[signature].hits + 1)
      continue
    dispatch = ""
    if localize and failure.status is Status.MISMATCH:
      # At the reduced function's own first failing call (measured: the state's update alone
      # failed from call 1 on where its unreduced chain failed at call 0, which it passes).
      dispatch = _localized(module_dir, target, reduced_outcome or outcome, reduced.state)
      signature = signatures.signature(failure.status, failure.key, name, ops, dispatch)
      campaign.aliases[by_ops] = signature
      if signature in campaign.findings:
        findings_lib.merge_findings(campaign.findings, dataclasses.replace(
            campaign.findings[signature], hits=1, ops=ops, variants=(),
            first_module=index))
        continue
    directory = os.path.join(campaign.directory, "findings", signature)
    class_name = "Finding" + signature.split("_")[-1]
    test_file = os.path.join(directory, f"{signature.lower()}_test.py")
    run = shlex.join(["python", os.path.basename(test_file), f"--target_backends={target}"])
    header = (f"Fuzzer finding {signature}: {failure.describe()}.\n\nFirst hit: module {index} "
              f"of the campaign with seed {campaign.seed}; reduced to {len(ops)} op(s). Run:\n"
              f"  {run}")
    safe_files.write_text(test_file, programs.module_source(
        class_name, [reduced],
        [(reduced.name, programs.inputs_for(reduced, program, c)) for c in calls], runner.rtol,
        runner.atol, header))
    try:
      confirmed = _confirm(test_file, target, outcome.backend, failure.status,
                           os.path.join(directory, "artifacts"))
    except BaseException:  # Ctrl-C mid-confirm: no finding dir that findings.json does not list.
      safe_files.remove_tree(directory)
      raise
    campaign.findings[signature] = Finding(
        signature, failure.status.value, target, failure.key, tuple(ops), 1, index,
        campaign.seed, test_file, confirmed, passed, dispatch)
    print(f"fuzz: new finding {signature} ({failure.describe()})"
          f"{'' if confirmed else ' NOT confirmed in a fresh process'}: {test_file}",
          file=sys.stderr, flush=True)


def _progress() -> Optional[progress.Progress]:
  """The sessions' progress lines for slow steps (a module's import, a compile): the library's
  own with --verbose, else none - the campaign's line after each module is its progress."""
  return None if cli_flags.verbose() else progress.Progress(write=lambda line: None)


def run_campaign(campaign: Campaign, settings: RunSettings,
                 options: session_lib.SessionOptions, per_module: int, minutes: float,
                 max_modules: Optional[int], rtol: float, atol: float,
                 localize: bool = True) -> None:
  """Generates and compares modules until the time or module budget ends (or Ctrl-C)."""
  runner = _Runner(campaign, settings, options, rtol, atol)
  started = time.monotonic()
  before = campaign.seconds
  campaign.restart_unfinished()  # an interrupted module runs again from its start's counts.
  last = campaign.modules + (max_modules if max_modules is not None else 1 << 30)
  try:
    # Before the first module: a disk that fills up during it (artifacts are large) leaves a
    # state to `--resume` once space is freed, not none at all.
    campaign.save()
    while campaign.modules < last and time.monotonic() - started < minutes * 60:
      index = campaign.module_index(campaign.modules)
      campaign.unfinished = campaign.counts()
      functions, arrays = programs.module_functions(campaign.seed, index, campaign.ops,
                                                    campaign.generation, per_module)
      results = runner.compare(f"Fuzz{campaign.seed}_{index}", functions, arrays)
      for program, calls in zip(functions, arrays):
        _triage(runner, campaign, index, program, calls, results[program.name], localize)
      campaign.modules += 1
      campaign.functions += len(functions)
      campaign.seconds = before + time.monotonic() - started
      campaign.unfinished = {}
      campaign.save()
      print(campaign.progress(), file=sys.stderr, flush=True)
  except BaseException:  # Ctrl-C, a full disk: what was found is saved (with `unfinished`).
    campaign.seconds = before + time.monotonic() - started
    with contextlib.suppress(faults.ArtifactWriteError):  # the first fault is the one said.
      campaign.save()
    raise
  campaign.seconds = before + time.monotonic() - started
  campaign.save()


def _campaign(directory: str, targets: Tuple[str, ...]) -> Campaign:
  if _RESUME.value:
    campaign = Campaign.load(directory)
    shards.check_resumable(campaign, _JOBS.value)
    return campaign
  if findings_lib.existing(directory):
    raise FuzzError(f"{directory} holds a campaign already: add --resume to go on with it, "
                    "or name another --out.")
  programs.parse_shapes(_SHAPES.value)
  sizes = programs.parse_sizes(_SIZES.value)
  bad = [s for s in _STATES.value if s not in programs.STATES[1:]]
  if bad or not _STATES.value:
    raise FuzzError(f"--states names {', '.join(bad) or 'nothing'}; valid: assign, cond.")
  campaign = Campaign(directory, _SEED.value, programs.op_names(
      _OPS.value, [backends.lookup(t).name for t in targets]), targets,
      generation={"shapes": _SHAPES.value, "special_values": _SPECIAL.value,
                  "stateful": _STATEFUL.value, "states": list(_STATES.value),
                  "functions_per_module": _PER_MODULE.value, "dynamic_sizes": list(sizes)})
  if _SHARD.value:
    shards.parse_shard(_SHARD.value)
    campaign.shard = _SHARD.value
  return campaign


def _usage() -> int:
  print("usage: python -m pyiree_tf_support.fuzz --target_backends=... --out=DIR "
        "[--minutes=M] [--seed=S] [--ops=...] [--jobs=N] [--resume], or "
        "python -m pyiree_tf_support.fuzz merge --out=DIR SHARD_DIR... (--help for its flags)",
        file=sys.stderr)
  return 2


def _merge(directory: str, shard_dirs: Sequence[str]) -> int:
  merged = findings_lib.merge(directory, [os.path.abspath(d) for d in shard_dirs])
  print(f"fuzz: merged {len(shard_dirs)} shards: {merged.progress()[len('fuzz: '):]}: "
        f"{os.path.join(directory, 'findings.md')}")
  return 0


Run = Callable[[], Optional[int]]  # a campaign's run: its exit status, or None when it ended


def _prepared(directory: str) -> Tuple[Campaign, Run]:
  """The campaign of the command line in `directory` and what runs it (its input checked:
  FuzzError and the like for bad input, before any module)."""
  targets = tuple(n for n in cli_flags.target_backend_names() or ()
                  if backends.lookup(n).is_iree)
  if not targets:
    raise FuzzError("--target_backends names the IREE backends to fuzz, e.g. "
                    "--target_backends=iree_vmla,iree_llvmjit.")
  if _JOBS.value > 1 and _SHARD.value:
    raise FuzzError("--jobs and --shard exclude each other: --jobs=N runs shards 0/N..N-1/N.")
  campaign = _campaign(directory, targets)
  if _JOBS.value > 1:
    return campaign, lambda: shards.run_jobs(campaign, _JOBS.value, _MAX_MODULES.value,
                                             _RESUME.value, sys.argv[1:])
  settings = dataclasses.replace(cli_flags.run_settings(), target_backends=campaign.targets,
                                 artifacts_dir=os.path.join(directory, "artifacts"),
                                 examples=0, localize_mismatches=False)
  options = dataclasses.replace(tf_test_utils.session_options(),
                                tolerance_policy=tolerances.DEFAULT_POLICY)
  return campaign, lambda: run_campaign(
      campaign, settings, options, _PER_MODULE.value, _MINUTES.value, _MAX_MODULES.value,
      _RTOL.value, _ATOL.value, _LOCALIZE.value)


def _finished(directory: str, campaign: Campaign, run: Run) -> int:
  """Runs the campaign; its exit status. A write failing in it (ENOSPC) is one line saying
  what was saved before (every write is atomic, so it stays) and whether `--resume` can go on
  from it: exit 1."""
  try:
    status = run()
  except KeyboardInterrupt:
    print(f"fuzz: {stopping.stopped_how()}; {len(campaign.findings)} findings kept in "
          f"{shlex.quote(os.path.join(directory, 'findings.md'))}", file=sys.stderr)
    return stopping.exit_status()
  except faults.ArtifactWriteError as e:
    code = errno.errorcode.get(e.errno, "?") if e.errno is not None else "?"
    state = os.path.join(directory, "findings.json")
    kept = (f"the campaign's state saved before is kept in {state}: free space, then --resume "
            "goes on from it" if os.path.exists(state) else "no state was saved (free space "
            "and start it again)")
    print(f"fuzz: writing {e.path} failed: {code} ({e.strerror}); {kept}.", file=sys.stderr)
    return 1
  if status is not None:  # the --jobs parent said how its workers ended.
    return status
  print(f"fuzz: {campaign.modules} modules, {campaign.functions} functions, {campaign.hits} "
        f"hits, {len(campaign.findings)} findings: {os.path.join(directory, 'findings.md')}")
  return 0


def main(argv: Sequence[str]) -> int:
  stopping.stop_on_sigterm()
  verbosity.apply(cli_flags.verbose())
  if not cli_flags.verbose():  # progress lines and findings only: no per-trace reports, no
    # per-method compile lists (a generated function that does not compile is a hit, its row
    # in findings.md), and not TF's retracing warnings (new functions each module, by design).
    logging.set_verbosity(logging.ERROR)
    std_logging.getLogger("tensorflow").setLevel(std_logging.ERROR)
  merging = len(argv) > 1 and argv[1] == "merge"
  if len(argv) != 1 and not merging:
    return _usage()
  with contextlib.ExitStack() as lock:
    try:
      if not _OUT.value:
        raise FuzzError("--out names the campaign's directory (it is created if missing).")
      directory = os.path.abspath(_OUT.value)
      safe_files.open_root(directory, "The campaign dir")
      # Held to the end: a second campaign or merge into DIR is refused, never interleaved.
      lock.enter_context(campaign_lock.held(directory, "merge --out" if merging else "--out"))
      if merging:
        return _merge(directory, argv[2:])
      campaign, run = _prepared(directory)
      if _JOBS.value > 1:  # the parent's own faults (a shard it cannot merge): one line too.
        return _finished(directory, campaign, run)
    except (ValueError, KeyError, faults.OwnFault) as e:
      message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
      print("fuzz: " + str(message).replace("\n", " "), file=sys.stderr)
      return 2
    return _finished(directory, campaign, run)


if __name__ == "__main__":
  app.run(main, flags_parser=cli_flags.command_line_parser("fuzz"))
