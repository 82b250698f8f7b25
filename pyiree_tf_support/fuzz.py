"""Finds miscompiles nobody wrote a test for: generated TensorFlow modules, compared on IREE.

  python -m pyiree_tf_support.fuzz --target_backends=iree_vmla,iree_llvmjit --minutes=10 \\
      --seed=1 --out=DIR [--ops=cast_f32_to_i32,tanh,...] [--resume]

Each round generates a module of `--functions_per_module` functions (`fuzzing.programs`: chains
of ops from a table with dtype rules, inputs drawn from the seed), written out as a test file in
the corpus' format, and compares every function on the reference and every target through a
`harness.session.ModuleSession`. A failing (function, backend) is a hit; each hit is triaged:
1. reduced: steps of the function's chain are deleted while the failure stays the same
   (`reducing.failures`), each candidate a module of its own compiled for that backend;
2. deduplicated by signature: phase, backend and the normalised first error (and, for a
   mismatch or a runtime error, the reduced function's ops): a hundred hits of one bug are one
   finding with a count;
3. confirmed: the finding's test file (the reduced function, its inputs, the tolerances it was
   judged with) run as a user runs it, in a fresh process, must fail on that backend the same
   way; one that does not is kept as unconfirmed, never reported as a bug.
Floats are compared with `--fuzz_rtol`/`--fuzz_atol` (1e-4: past the ulps transcendental ops
legitimately differ by), recorded in each test file.

DIR/findings/<signature>/<name>_test.py is each finding's test (runnable by hand, by pytest and
under Bazel like any e2e file), DIR/findings.json and DIR/findings.md one row per signature
(phase, backend, first error, ops, hits, the module and seed of the first hit, whether
confirmed, which other backends agreed with TensorFlow). Progress goes to stderr after each
module; Ctrl-C keeps everything found so far; `--resume` goes on from DIR's state with the seed
it was started with. Exit status: 0 (findings or not), 2 bad input, 130 interrupted.
"""

import dataclasses
import hashlib
import importlib.util
import json
import logging as std_logging
import os
import re
import shlex
import subprocess
import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from absl import app
from absl import flags
from absl import logging
import numpy as np

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.harness import session as session_lib
from pyiree_tf_support.reducing import failures
from pyiree_tf_support.reducing import search
from pyiree_tf_support.reporting.verdicts import Outcome, Status

__all__ = ["Campaign", "main"]

FORMAT = "pyiree_tf_support.fuzz/1"

_MINUTES = flags.DEFINE_float("minutes", 10.0, "How long the campaign runs (new modules start "
                              "until then).", lower_bound=0.0)
_MAX_MODULES = flags.DEFINE_integer("max_modules", None, "Stop after this many modules.",
                                    lower_bound=1)
_SEED = flags.DEFINE_integer("seed", 0, "The campaign's seed: the same seed, op table and "
                             "versions generate the same modules.")
_OUT = flags.DEFINE_string("out", None, "The campaign's directory (findings, state, artifacts).")
_OPS = flags.DEFINE_string("ops", None, "Comma-separated ops of the table to draw from "
                           "(default: all).")
_PER_MODULE = flags.DEFINE_integer("functions_per_module", 8, "Functions in each generated "
                                   "module (compile cost is per module).", lower_bound=1)
_RESUME = flags.DEFINE_bool("resume", False, "Go on from --out's state.")
_RTOL = flags.DEFINE_float("fuzz_rtol", 1e-4, "rtol every float comparison uses.", lower_bound=0)
_ATOL = flags.DEFINE_float("fuzz_atol", 1e-4, "atol every float comparison uses.", lower_bound=0)
for _name in ("target_backends", "reference_backend", "iree_compile_flags", "compile_cache",
              "compile_cache_dir", "verbose"):
  flags.declare_key_flag(_name)


class FuzzError(ValueError):
  """Bad input to the fuzzer: the message says what and what is valid."""


@dataclasses.dataclass
class Finding:
  """One signature: the first hit's reduced test and how many hits it has."""
  signature: str
  status: str
  backend: str
  key: str
  ops: Tuple[str, ...]
  hits: int
  first_module: int
  seed: int
  test_file: str
  confirmed: bool
  agrees: Tuple[str, ...]  # the other targets that matched TensorFlow on the first hit


@dataclasses.dataclass
class Campaign:
  """A campaign's state, kept in DIR/findings.json after every module."""
  directory: str
  seed: int
  ops: Tuple[str, ...]
  targets: Tuple[str, ...]
  modules: int = 0
  functions: int = 0
  hits: int = 0
  precision: int = 0  # mismatches set aside as float32 precision (`precision_artefact`)
  seconds: float = 0.0
  findings: Dict[str, Finding] = dataclasses.field(default_factory=dict)

  def to_json(self) -> Dict[str, Any]:
    return {"format": FORMAT, "seed": self.seed, "ops": list(self.ops),
            "targets": list(self.targets), "modules": self.modules, "functions": self.functions,
            "hits": self.hits, "precision": self.precision,
            "seconds": round(self.seconds, 1),
            "findings": [dataclasses.asdict(f) for f in self.findings.values()]}

  @classmethod
  def load(cls, directory: str) -> "Campaign":
    path = os.path.join(directory, "findings.json")
    try:
      with open(path) as f:
        data = json.load(f)
    except (OSError, ValueError) as e:
      raise FuzzError(f"--resume: {path} cannot be read ({e}); start a campaign without "
                      "--resume.") from None
    if data.get("format") != FORMAT:
      raise FuzzError(f"--resume: {path} is not a campaign of this version ({FORMAT}).")
    campaign = cls(directory, data["seed"], tuple(data["ops"]), tuple(data["targets"]),
                   data["modules"], data["functions"], data["hits"], data["precision"],
                   data["seconds"])
    for entry in data["findings"]:
      entry["ops"], entry["agrees"] = tuple(entry["ops"]), tuple(entry["agrees"])
      campaign.findings[entry["signature"]] = Finding(**entry)
    return campaign

  def save(self) -> None:
    safe_files.write_text(os.path.join(self.directory, "findings.json"),
                         json.dumps(self.to_json(), indent=1) + "\n")
    safe_files.write_text(os.path.join(self.directory, "findings.md"), self.table())

  def table(self) -> str:
    rate = self.functions / (self.seconds / 60) if self.seconds else 0.0
    lines = [f"# Fuzzing campaign, seed {self.seed}", "",
             f"{self.modules} modules, {self.functions} functions compared on "
             f"{', '.join(self.targets)} ({rate:.1f} per minute), {self.hits} hits "
             f"({self.precision} more set aside as float32 precision: the backend as close to "
             "a float64 run as TensorFlow), "
             f"{len(self.findings)} distinct findings "
             f"({sum(f.confirmed for f in self.findings.values())} confirmed in a fresh "
             "process).", "",
             "| signature | phase | backend | first error or difference | ops | hits | first "
             "hit | confirmed | TF agreed by |", "|---|---|---|---|---|---|---|---|---|"]
    for f in sorted(self.findings.values(), key=lambda f: -f.hits):
      key = f.key.replace("|", "\\|")[:120]
      lines.append(f"| `{f.signature}` | {f.status} | {f.backend} | {key} | "
                   f"{', '.join(f.ops) or '-'} | {f.hits} | module {f.first_module} (seed "
                   f"{f.seed}) | {'yes' if f.confirmed else 'NO'} | "
                   f"{', '.join(f.agrees) or '-'} |")
    return "\n".join(lines) + "\n"


def _load_module_class(path: str, class_name: str, module_name: Optional[str] = None):
  """The generated module's class, from its file (a module of its own name)."""
  spec = importlib.util.spec_from_file_location(f"pyiree_fuzz_{module_name or class_name}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return getattr(module, class_name)


class _Runner:
  """Writes, imports and compares generated modules through sessions."""

  def __init__(self, campaign: Campaign, settings: RunSettings,
               options: session_lib.SessionOptions, rtol: float, atol: float):
    self.campaign, self.settings, self.options = campaign, settings, options
    self.rtol, self.atol = rtol, atol
    self.work = os.path.join(campaign.directory, "work")
    self._candidates: Dict[Tuple[str, str], Optional[Outcome]] = {}

  def compare(self, class_name: str, functions: Sequence[programs.Program],
              arrays: Sequence[Tuple[np.ndarray, ...]],
              targets: Optional[Tuple[str, ...]] = None) -> Dict[str, Tuple[Outcome, ...]]:
    """Each function's outcomes on the targets (all, or `targets`)."""
    calls = [(p.name, a) for p, a in zip(functions, arrays)]
    path = os.path.join(self.work, f"{class_name}.py")
    safe_files.write_text(path, programs.module_source(class_name, functions, calls, self.rtol,
                                                      self.atol))
    settings = self.settings if targets is None else dataclasses.replace(
        self.settings, target_backends=targets)
    session = session_lib.ModuleSession.open(_load_module_class(path, class_name), (), settings,
                                             self.options, test_file=path, class_name=class_name)
    try:
      results = {}
      for program, inputs in calls:
        def trace(module, name=program, values=inputs):
          getattr(module, name)(*values, rtol=self.rtol, atol=self.atol)
        trace.__name__ = program
        results[program] = session.start(program).compare(trace).outcomes
      return results
    finally:
      session.close()

  def reduced(self, program: programs.Program, inputs: Tuple[np.ndarray, ...],
              failure: failures.Failure, backend: str) -> programs.Program:
    """`program` with the steps deleted that the same failure does not need."""
    def holds(steps: List[str]) -> bool:
      # The function keeps its name: "the same failure" of a mismatch is in the same method.
      candidate = programs.Program(program.name, tuple(steps))
      key = (",".join(candidate.ops()), backend, program.name, inputs[0].tobytes())
      if key not in self._candidates:
        name = "Reduce_" + hashlib.sha256(repr(key).encode()).hexdigest()[:10]
        try:
          outcomes = self.compare(name, [candidate], [inputs], (backend,))[program.name]
          self._candidates[key] = outcomes[0]
        except (faults.OwnFault, KeyboardInterrupt):
          raise
        except Exception:  # pylint: disable=broad-except  # e.g. TF refuses the candidate.
          self._candidates[key] = None
      outcome = self._candidates[key]
      # A smaller program whose difference is only float32 precision has lost the bug.
      return (outcome is not None and failures.same_failure(failure, outcome)
              and precision_artefact(candidate, inputs, outcome, self.work) is None)
    return programs.Program(program.name, tuple(search.minimize(list(program.steps), holds)))


def _signature(failure: failures.Failure, backend: str, ops: Sequence[str]) -> str:
  parts = [backend, failure.status.name, failure.key]
  if failure.status is not Status.COMPILE_ERROR:
    parts.append(",".join(ops))
  slug = re.sub(r"[^0-9a-zA-Z]+", "_", f"{backend}_{failure.status.name}_{'_'.join(ops)}")
  return f"{slug[:60].strip('_')}_{hashlib.sha256(repr(parts).encode()).hexdigest()[:8]}"


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


def _float64_result(program: programs.Program, inputs: Tuple[np.ndarray, ...],
                    work: str) -> np.ndarray:
  """The function run by TensorFlow with float64 floats (in this process; its source written
  to `work` as every generated module is)."""
  source = ("import tensorflow as tf\n\n\nclass Module(tf.Module):\n\n"
            + programs.function_source(program, "float64") + "\n")
  name = "Float64_" + hashlib.sha256(source.encode()).hexdigest()[:10]
  path = os.path.join(work, f"{name}.py")
  safe_files.write_text(path, source)
  x, y, n, b = inputs
  result = getattr(_load_module_class(path, "Module", name)(), program.name)(
      x.astype(np.float64), y.astype(np.float64), n, b)
  return np.asarray(result)


def precision_artefact(program: programs.Program, inputs: Tuple[np.ndarray, ...],
                       outcome: Outcome, work: str) -> Optional[str]:
  """Why a mismatch is float32 precision, not a bug (None: it may be one). The policy: at the
  element where the backend differs most from TensorFlow, the same function computed in
  float64 is the judge; when the backend is at least as close to it as TensorFlow's float32
  result, the difference is TensorFlow's rounding as much as the backend's (an ulp of exp
  amplified by a sin of a large argument, a floor at a product's rounding), and set aside."""
  if outcome.status is not Status.MISMATCH:
    return None
  for mismatch in outcome.mismatches:
    element = getattr(mismatch, "greatest_abs", None) or getattr(mismatch, "first", None)
    if element is None:
      continue
    try:
      exact = float(_float64_result(program, inputs, work)[tuple(element.index)])
    except Exception as e:  # pylint: disable=broad-except  # no float64 run: no judge, keep it.
      logging.info("fuzz: no float64 run of %s: %s", program.name, e)
      return None
    backend_error = abs(float(element.got) - exact)
    tensorflow_error = abs(float(element.expected) - exact)
    if backend_error <= 2.0 * tensorflow_error:
      return (f"at {list(element.index)} the backend is {backend_error:.3g} from float64, "
              f"TensorFlow {tensorflow_error:.3g}")
  return None


def _triage(runner: _Runner, campaign: Campaign, index: int, program: programs.Program,
            inputs: Tuple[np.ndarray, ...], outcomes: Sequence[Outcome]) -> None:
  """Each failing backend's hit: reduced, deduplicated, written and confirmed when new."""
  passed = tuple(o.backend for o in outcomes if o.status is Status.PASS)
  for target, outcome in zip(campaign.targets, outcomes):
    failure = failures.failure_of(outcome)
    if failure is None:
      continue
    artefact = precision_artefact(program, inputs, outcome, runner.work)
    if artefact is not None:
      campaign.precision += 1
      logging.info("fuzz: %s on %s set aside as float32 precision: %s", program.name, target,
                   artefact)
      continue
    campaign.hits += 1
    reduced = runner.reduced(program, inputs, failure, target)
    ops = reduced.ops()
    signature = _signature(failure, backends.lookup(target).name, ops)
    if signature in campaign.findings:
      campaign.findings[signature].hits += 1
      continue
    directory = os.path.join(campaign.directory, "findings", signature)
    class_name = "Finding" + signature.split("_")[-1]
    test_file = os.path.join(directory, f"{signature.lower()}_test.py")
    header = (f"Fuzzer finding {signature}: {failure.describe()}.\n\nFirst hit: module {index} "
              f"of the campaign with seed {campaign.seed}; reduced to {len(ops)} op(s). Run:\n"
              f"  python {os.path.basename(test_file)} --target_backends={target}")
    safe_files.write_text(test_file, programs.module_source(
        class_name, [reduced], [(reduced.name, inputs)], runner.rtol, runner.atol, header))
    confirmed = _confirm(test_file, target, outcome.backend, failure.status,
                         os.path.join(directory, "artifacts"))
    campaign.findings[signature] = Finding(
        signature, failure.status.value, target, failure.key, tuple(ops), 1, index,
        campaign.seed, test_file, confirmed, passed)
    logging.warning("fuzz: new finding %s (%s)%s: %s", signature, failure.describe(),
                    "" if confirmed else " NOT confirmed in a fresh process", test_file)


def run_campaign(campaign: Campaign, settings: RunSettings,
                 options: session_lib.SessionOptions, per_module: int, minutes: float,
                 max_modules: Optional[int], rtol: float, atol: float) -> None:
  """Generates and compares modules until the time or module budget ends (or Ctrl-C)."""
  runner = _Runner(campaign, settings, options, rtol, atol)
  started = time.monotonic()
  before = campaign.seconds
  last = campaign.modules + (max_modules if max_modules is not None else 1 << 30)
  try:
    while campaign.modules < last and time.monotonic() - started < minutes * 60:
      index = campaign.modules
      rng = np.random.default_rng([campaign.seed, index])
      functions = [programs.generate(rng, f"f{i}", campaign.ops) for i in range(per_module)]
      arrays = [programs.inputs(rng) for _ in functions]
      results = runner.compare(f"Fuzz{campaign.seed}_{index}", functions, arrays)
      for program, inputs in zip(functions, arrays):
        _triage(runner, campaign, index, program, inputs, results[program.name])
      campaign.modules += 1
      campaign.functions += len(functions)
      campaign.seconds = before + time.monotonic() - started
      campaign.save()
      rate = campaign.functions / (campaign.seconds / 60) if campaign.seconds else 0.0
      print(f"fuzz: {campaign.modules} modules, {campaign.functions} functions, "
            f"{campaign.hits} hits, {len(campaign.findings)} findings, {rate:.1f} functions/min",
            file=sys.stderr, flush=True)
  finally:
    campaign.seconds = before + time.monotonic() - started
    campaign.save()


def main(argv: Sequence[str]) -> int:
  verbosity.apply(cli_flags.verbose())
  if not cli_flags.verbose():  # progress lines and findings only: no per-trace reports, and
    logging.set_verbosity(logging.WARNING)  # not TF's retracing warnings (new functions each
    std_logging.getLogger("tensorflow").setLevel(std_logging.ERROR)  # module, by design).
  if len(argv) != 1:
    print("usage: python -m pyiree_tf_support.fuzz --target_backends=... --out=DIR "
          "[--minutes=M] [--seed=S] [--ops=...] [--resume] (--help for its flags)",
          file=sys.stderr)
    return 2
  try:
    if not _OUT.value:
      raise FuzzError("--out names the campaign's directory (it is created if missing).")
    directory = os.path.abspath(_OUT.value)
    safe_files.open_root(directory, "The campaign dir")
    targets = tuple(n for n in cli_flags.target_backend_names() or ()
                    if backends.lookup(n).is_iree)
    if not targets:
      raise FuzzError("--target_backends names the IREE backends to fuzz, e.g. "
                      "--target_backends=iree_vmla,iree_llvmjit.")
    if _RESUME.value:
      campaign = Campaign.load(directory)
    else:
      if os.path.exists(os.path.join(directory, "findings.json")):
        raise FuzzError(f"{directory} holds a campaign already: add --resume to go on with it, "
                        "or name another --out.")
      campaign = Campaign(directory, _SEED.value, programs.op_names(_OPS.value), targets)
    settings = dataclasses.replace(cli_flags.run_settings(), target_backends=campaign.targets,
                                   artifacts_dir=os.path.join(directory, "artifacts"),
                                   examples=0, localize_mismatches=False)
    options = dataclasses.replace(tf_test_utils.session_options(),
                                  tolerance_policy=tolerances.DEFAULT_POLICY)
  except (ValueError, KeyError, faults.OwnFault) as e:
    message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
    print("fuzz: " + str(message).replace("\n", " "), file=sys.stderr)
    return 2
  try:
    run_campaign(campaign, settings, options, _PER_MODULE.value, _MINUTES.value,
                 _MAX_MODULES.value, _RTOL.value, _ATOL.value)
  except KeyboardInterrupt:
    print(f"fuzz: interrupted; {len(campaign.findings)} findings kept in "
          f"{shlex.quote(os.path.join(directory, 'findings.md'))}", file=sys.stderr)
    return 130
  print(f"fuzz: {campaign.modules} modules, {campaign.functions} functions, {campaign.hits} "
        f"hits, {len(campaign.findings)} findings: {os.path.join(directory, 'findings.md')}")
  return 0


if __name__ == "__main__":
  app.run(main)
