"""The absl flags users pass to test files, and their values when absl has not parsed argv
(pytest): then they come from $PYIREE_TF_SUPPORT_FLAGS, e.g. "--target_backends=iree_vmla"."""

import math
import os
import shlex
import sys
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from absl import flags
from absl import logging

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.compiling import vmfb_cache
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import phases
from pyiree_tf_support.core import run_settings as run_settings_lib
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.reporting import expected_failures

ENV_VAR = "PYIREE_TF_SUPPORT_FLAGS"

flags.DEFINE_string("reference_backend", "tf",
                    "The backend every target backend is compared against.")


class BackendNames(list):
  """--target_backends' value: the later API's list and the seed's comma-separated string.

  IREE's flag was a string until 2020-11-18 (files of that era call `.split(",")` on it), then a
  DEFINE_list (later files take `len(FLAGS.target_backends)` and `FLAGS.target_backends[0]`).
  One flag serves both: a list of the names that also splits, prints and compares equal as the
  string it was given.
  """

  def split(self, sep: Optional[str] = ",", maxsplit: int = -1) -> List[str]:
    return str(self).split(sep, maxsplit)

  def __str__(self) -> str:
    return ",".join(self)

  def __eq__(self, other: object) -> bool:
    return str(self) == other if isinstance(other, str) else list.__eq__(self, other)

  def __ne__(self, other: object) -> bool:
    return not self == other

  __hash__ = None  # type: ignore[assignment]  # a list: mutable.

  def __add__(self, other):  # "--target_backends=" + value, as with the seed's string.
    return str(self) + other if isinstance(other, str) else BackendNames(list(self) + other)

  def __radd__(self, other):
    return other + str(self) if isinstance(other, str) else BackendNames(other + list(self))


class _BackendNamesParser(flags.ListParser):

  def parse(self, argument):
    return None if argument is None else BackendNames(super().parse(argument))

  def flag_type(self) -> str:
    return "comma separated list of backends"


flags.DEFINE(_BackendNamesParser(), "target_backends", None,
             "Comma-separated backends to compare with the reference; repeats allowed. "
             "Default: every backend this machine can run.",
             serializer=flags.CsvListSerializer(","))
flags.DEFINE_string("artifacts_dir", None,
                    "Where to save MLIR, .vmfb files, traces and reproducers. Default: "
                    "$TEST_UNDECLARED_OUTPUTS_DIR under Bazel, else a directory private to "
                    "you: ~/.cache/pyiree_tf_support/modules ($XDG_CACHE_HOME if set to an "
                    "absolute path).")
flags.DEFINE_bool("summarize", True,
                  "Summarize arrays over 64 elements in logged traces (for trace files see "
                  "--full_text_traces).")
flags.DEFINE_bool("full_text_traces", False,
                  "Write every element of every array into the readable trace files "
                  "(traces/<trace>__<backend>.txt; ~5x the arrays' bytes). Default: arrays over "
                  "64 elements are summarized there, and their complete values are in the "
                  "loadable trace beside each file (<trace>__<backend>/arrays.npz).")
flags.DEFINE_bool("verbose", False,
                  "Show TensorFlow's and IREE's logs (C++ INFO lines, saved-model notices, "
                  "iree-compile commands) and the library's details (timings, cache hits), "
                  "which a run hides by default; absl's -v 1 (--verbosity=1) does the same.")
flags.DEFINE_bool("log_all_traces", False, "Log every backend's trace, not only mismatching ones.")
flags.DEFINE_bool("keep_saved_model", False,
                  "Keep the SavedModel used for the IREE import as saved_model__<backends>/.")
flags.DEFINE_string("tolerances", "",
                    "Per-backend tolerance overrides: backend:dtype:rtol:atol[,...], "
                    "e.g. iree_vulkan:float32:1e-5:1e-5.")
flags.DEFINE_list("xfail_backends", [],
                  "Target backends expected to fail, each backend[:phase][@scope] with phase "
                  f"one of {', '.join(phases.NAMES)} and scope file_test.py[::Class[::test]] "
                  "or Class[::test] (no scope: every test of the run): their failures there are "
                  "XFAIL; passing every trace of the scope's tests in a class is an XPASS error, "
                  "and failing first in another phase than the one given a wrong-phase error "
                  "(no phase: any phase).")
flags.DEFINE_multi_string(
    "iree_compile_flags", [],
    "An iree-compile flag for one IREE backend, backend:flag (repeat the flag for more; the "
    "value is taken verbatim after the first ':', commas and '=' included), e.g. "
    "--iree_compile_flags=iree_llvmjit:--iree-llvmcpu-target-cpu=generic. Part of the compile "
    "cache key and of every printed command that compiles again.")
flags.DEFINE_bool("dump_compiler_ir", False,
                  "Keep iree-compile's IR after each compilation phase and every executable's "
                  "sources in <module dir>/dumps/<backend>/ (phases/, sources/).")
flags.DEFINE_bool("localize_mismatches", False,
                  "For the first mismatching call of each failing (trace, IREE backend), name the "
                  "first IREE dispatch whose outputs diverge (python -m pyiree_tf_support.localize "
                  "in a child process) and put its verdict into the report (docs/localizing.md).")
flags.DEFINE_bool("reduce_failures", False,
                  "For each failing (trace, IREE backend), write the smallest program failing the "
                  "same way (python -m pyiree_tf_support.reduce in a child process) and put what "
                  "it reduced and its repro into the report (docs/reducing.md).")
flags.DEFINE_bool("run_in_worker", False,
                  "Run every IREE backend in a worker process without TensorFlow (Vulkan always "
                  "runs there), so a runtime crash fails that backend instead of the test process.")
flags.DEFINE_integer("compile_jobs", None,
                     "How many backends compile concurrently (iree-compile processes). "
                     "Default: one more than the number of CPUs. 1 also starts nothing before the "
                     "import (Vulkan's probe and worker).", lower_bound=1)
flags.DEFINE_bool("require_backends", False,
                  "Fail instead of skipping when a backend named by --target_backends cannot run "
                  "on this machine (e.g. no Vulkan device); for CI.")
flags.DEFINE_bool("compile_cache", True, "Reuse compiled modules from the on-disk compile cache.")
flags.DEFINE_string("compile_cache_dir", None,
                    "Compile cache location, a directory of yours no one else can write (its "
                    "entries are code). Default: $PYIREE_TF_SUPPORT_CACHE_DIR, else "
                    "~/.cache/pyiree_tf_support/compile_cache.")
class _DurationParser(flags.FloatParser):
  """Seconds of a time limit: NaN (it compares false with every bound: a compile killed at once,
  or never), infinity and negative numbers are refused as the flag's value (absl names the flag
  and the value first), so no time limit reaches a compile or a call that is not one."""

  def parse(self, argument):
    seconds = super().parse(argument)
    error = timeouts.duration_error(seconds)
    if error:
      raise ValueError(f"{error}.")
    return seconds


def _define_duration(name: str, default: float, help_text: str) -> None:
  flags.DEFINE(_DurationParser(), name, default, help_text, serializer=flags.ArgumentSerializer())


_define_duration("compile_timeout", timeouts.COMPILE_SECONDS,
                   "Seconds an iree-compile may run, plus "
                   f"{timeouts.COMPILE_SECONDS_PER_MIB:g} s per MiB of its input; past it the "
                   "compiler is killed and that backend is a COMPILE ERROR. 0: no limit.")
_define_duration("load_timeout", timeouts.LOAD_SECONDS,
                   "Seconds to start a worker process and load a module there, plus "
                   f"{timeouts.LOAD_SECONDS_PER_MIB:g} s per MiB of the module; past it the "
                   "worker is killed and that backend is a RUNTIME ERROR. 0: no limit.")
_define_duration("call_timeout", timeouts.CALL_SECONDS,
                   "Seconds one call in a worker process (Vulkan, --run_in_worker) may take, plus "
                   f"{timeouts.CALL_SECONDS_PER_MIB:g} s per MiB of the module and the inputs; "
                   "past it the worker is killed (a fresh one serves the next test) and that "
                   "backend is a RUNTIME ERROR; a TF reference call is cancelled; an IREE call "
                   "in this process, which cannot be stopped, ends the process. 0: no limit.")


def _checked(holder: "flags.FlagHolder[float]",
             error_of: Callable[[float], Optional[str]]) -> "flags.FlagHolder[float]":
  """Registers with `holder`'s flag the check `error_of` (what is wrong with a value, None:
  nothing): a bad value on the command line, in $PYIREE_TF_SUPPORT_FLAGS or set from Python is
  one flag error naming the flag and the value."""
  def check(number: Optional[float]) -> bool:
    error = None if number is None else error_of(number)
    if error:
      raise flags.ValidationError(f"{error}.")
    return True
  flags.register_validator(holder.name, check)
  return holder


def finite(holder: "flags.FlagHolder[float]") -> "flags.FlagHolder[float]":
  """`holder`, its float flag refusing NaN and infinity; every float flag of the package is one
  (tests/harness/float_flags_test.py). Why: absl's bounds compare false with NaN, so
  `--fuzz_rtol=nan` would pass `lower_bound=0` and set every mismatch aside as float precision,
  and `--minutes=nan` end a campaign before its first module."""
  valid = FLAGS[holder.name].parser.syntactic_help  # e.g. "a float in the range [0.0, 1.0]"
  return _checked(holder, lambda number: None if math.isfinite(number) else
                  f"not a finite number; valid: {valid}")


def duration(holder: "flags.FlagHolder[float]") -> "flags.FlagHolder[float]":
  """`holder`, its float flag a time limit of a command (`timeouts.duration_error`), refused as
  the duration flags above are."""
  return _checked(holder, timeouts.duration_error)


def report_json_flag(module_name: str, records: str) -> "flags.FlagHolder[Optional[str]]":
  """The `--report_json` flag of a command whose result a test's report.json `records` (e.g.
  "under `reduction`"): defined by the first command module imported, shared by the others, so
  that a process importing both reduce and localize (a test, a tool) does not stop at absl's
  DuplicateFlagError. One command's `main` runs per process, reading it. Defined as the flag of
  `module_name` (the command's), not of this module: it is no flag of a test file."""
  if "report_json" in FLAGS:
    return flags.FlagHolder(FLAGS, FLAGS["report_json"])
  return flags.DEFINE_string(
      "report_json", None, "Also write the command's result as JSON to this file (what a "
      f"test's report.json records {records}).", module_name=module_name)


def unwritable_report_json(holder: "flags.FlagHolder[Optional[str]]") -> Optional[str]:
  """The one-line refusal of a `--report_json` (`report_json_flag`) its command could not write
  (a missing directory, a directory: `safe_files.output_file_problem`), None when it can or is
  not given: asked before the work, so that a typo costs a line, not the work."""
  problem = holder.value and safe_files.output_file_problem(holder.value)
  return f"--report_json={holder.value}: {problem}." if problem else None


def command_line_parser(program: str) -> Callable[[List[str]], List[str]]:
  """The flags parser of a command's `app.run`: a bad flag is one line on stderr,
  "<program>: flag --x=v: why", and exit status 2 (bad input), as the command's other
  refusals; absl's own adds a second line and exits 1, which replay means as a failed backend."""
  def parse(argv: List[str]) -> List[str]:
    try:
      return FLAGS(argv)
    except flags.Error as e:
      print(f"{program}: " + str(e).replace("\n", " "), file=sys.stderr)
      sys.exit(2)
  return parse


flags.DEFINE_integer("examples", 0,
                     "Also check every method a test's trace calls on N inputs drawn from its "
                     "signature by hypothesis (special values, dynamic sizes 0, 1 and odd), on "
                     "the compiled modules; a failure is shrunk to the smallest input failing "
                     "the same way and saved as a trace (docs/examples.md). 0: off.",
                     lower_bound=0)
flags.DEFINE_integer("examples_seed", 0, "The seed --examples and check_examples draw from.")
_define_duration("examples_timeout", 60.0,
                   "Seconds one method's examples (and their shrinking) may take; the examples "
                   "past it are not run, and the summary says so. 0: no limit.")

__all__ = [
    "BackendNames", "ENV_VAR", "FLAGS", "FlagsError", "command_line_parser",
    "compile_cache_from_flags", "duration", "ensure_parsed", "finite", "replay_arguments",
    "report_json_flag", "run_settings", "split_backends", "target_backend_names",
    "timeouts_from_flags", "tolerance_policy", "unwritable_report_json", "value", "verbose",
    "xfail_entries",
]

FLAGS = flags.FLAGS


def split_backends(value: Union[None, str, Sequence[str]]) -> Optional[List[str]]:
  """The backend names of a --target_backends value ("a,b"; a list when set from Python)."""
  if value is None:
    return None
  return value.split(",") if isinstance(value, str) else list(value)


def _validate_known_backends(names: Optional[Sequence[str]]) -> bool:
  for name in names or ():
    if backends.find(name) is None:
      raise flags.ValidationError(backends.unknown_backend_message(name))
  return True


def _validate_target_backends(value: Union[None, str, Sequence[str]]) -> bool:
  names = split_backends(value)
  if names is not None and (not names or not all(names)):
    raise flags.ValidationError(
        f"--target_backends='{','.join(names)}' names an empty backend; give comma-separated "
        f"backends ({', '.join(backends.valid_names())}) or leave the flag out to use every "
        "available one.")
  return _validate_known_backends(names)


def _validate_backend(name: str) -> bool:
  return _validate_known_backends([name])


def _validate_xfail_backends(entries: Optional[Sequence[str]]) -> bool:
  try:
    expected_failures.parse_xfail_entries(entries or ())
  except ValueError as e:
    raise flags.ValidationError(str(e)) from None
  return True


def _validate_tolerances(text: str) -> bool:
  try:
    policy = tolerances.parse_overrides(text)  # pure: parsing changes nothing.
  except ValueError as e:
    raise flags.ValidationError(str(e)) from None
  for (backend, _), _ in policy.overrides:
    if backends.find_by_artifact_name(backend) is None:
      raise flags.ValidationError(
          f"--tolerances names an unknown backend '{backend}'; valid backends are: "
          f"{', '.join(backends.valid_names())} (or their artifact names, e.g. iree_vmla_0).")
  return True


def _validate_iree_compile_flags(values: Optional[Sequence[str]]) -> bool:
  try:
    compile_flags.parse(values or ())
  except ValueError as e:
    raise flags.ValidationError(str(e)) from None
  return True


flags.register_validator("target_backends", _validate_target_backends)
flags.register_validator("iree_compile_flags", _validate_iree_compile_flags)
flags.register_validator("reference_backend", _validate_backend)
flags.register_validator("tolerances", _validate_tolerances)
flags.register_validator("xfail_backends", _validate_xfail_backends)


class FlagsError(ValueError):
  """A flag in $PYIREE_TF_SUPPORT_FLAGS is unknown or has a bad value; one line says which."""


# Arguments of $PYIREE_TF_SUPPORT_FLAGS no flag defined so far takes (ensure_parsed with
# allow_unknown): flags a test file defines itself, read once it is imported (parse_deferred).
_deferred: List[str] = []


def ensure_parsed(allow_unknown: bool = False) -> None:
  """Parses $PYIREE_TF_SUPPORT_FLAGS when nothing parsed argv (pytest, plain unittest).

  `allow_unknown` (pytest, before the test files are imported): flags not defined yet are kept
  for `parse_deferred`; `unknown_flags` says which no file defined."""
  if not FLAGS.is_parsed():
    args = shlex.split(os.environ.get(ENV_VAR, ""))
    try:
      if allow_unknown:
        _deferred[:] = FLAGS(["pyiree_tf_support"] + args, known_only=True)[1:]
      else:
        FLAGS(["pyiree_tf_support"] + args)
    except flags.Error as e:  # a typo must not silently run with the defaults.
      raise FlagsError(f"${ENV_VAR}: {e}") from None


def parse_deferred() -> None:
  """Parses the kept arguments that flags defined since (a test file's own) now take."""
  if _deferred:
    try:
      _deferred[:] = FLAGS(["pyiree_tf_support"] + _deferred, known_only=True)[1:]
    except flags.Error as e:
      raise FlagsError(f"${ENV_VAR}: {e}") from None


def unknown_flags_error() -> Optional[str]:
  """The error for kept arguments no flag took (None: every one was taken)."""
  if not _deferred:
    return None
  try:
    FLAGS(["pyiree_tf_support"] + _deferred)
  except flags.Error as e:
    return f"${ENV_VAR}: {e}"
  return None


def value(name: str) -> Any:
  ensure_parsed()
  return getattr(FLAGS, name)


def verbose() -> bool:
  """--verbose, or absl's --verbosity at debug (1) or more."""
  return bool(value("verbose")) or (FLAGS["verbosity"].value or 0) >= 1


def target_backend_names() -> Optional[List[str]]:
  """--target_backends as a list of names, None when the flag is not given."""
  return split_backends(value("target_backends"))


def xfail_entries() -> Tuple[Tuple[str, Optional[phases.Phase], Optional[str]], ...]:
  """--xfail_backends as (backend as named, its expected phase or None for any phase, scope key
  or None for every test), one per entry."""
  return expected_failures.parse_xfail_entries(value("xfail_backends") or ())


def tolerance_policy() -> tolerances.TolerancePolicy:
  """The tolerance table with the --tolerances overrides on top."""
  return tolerances.parse_overrides(value("tolerances") or "")


def replay_arguments() -> Tuple[str, ...]:
  """The flags of this run that a printed replay command must repeat to judge the same way."""
  tolerance = (f"--tolerances={value('tolerances')}",) if value("tolerances") else ()
  return tolerance + tuple(f"--iree_compile_flags={v}" for v in value("iree_compile_flags") or ())


def localize_arguments() -> Tuple[str, ...]:
  """The flags of this run a localizer it starts (--localize_mismatches) must repeat: how to judge
  (`replay_arguments`) and which compile cache to use (none with --nocompile_cache)."""
  if not value("compile_cache"):
    cache: Tuple[str, ...] = ("--nocompile_cache",)
  else:
    cache = (f"--compile_cache_dir={value('compile_cache_dir')}",) if value(
        "compile_cache_dir") else ()
  return replay_arguments() + cache


def run_settings() -> run_settings_lib.RunSettings:
  """The flags that set up and judge test classes, read once (see core/run_settings.py)."""
  names = target_backend_names()
  cache = compile_cache_from_flags()
  return run_settings_lib.RunSettings(
      reference_backend=value("reference_backend"),
      target_backends=None if names is None else tuple(names),
      run_in_worker=bool(value("run_in_worker")),
      artifacts_dir=value("artifacts_dir"),
      compile_jobs=value("compile_jobs"),
      compile_cache_dir=None if cache is None else cache.directory,
      xfail_backends=xfail_entries(),
      keep_saved_model=bool(value("keep_saved_model")),
      full_text_traces=bool(value("full_text_traces")),
      iree_compile_flags=compile_flags.parse(value("iree_compile_flags") or ()),
      dump_compiler_ir=bool(value("dump_compiler_ir")),
      localize_mismatches=bool(value("localize_mismatches")),
      reduce_failures=bool(value("reduce_failures")),
      timeouts=timeouts_from_flags(),
      examples=int(value("examples")),
      examples_seed=int(value("examples_seed")),
      examples_seconds=float(value("examples_timeout")) or None)


def timeouts_from_flags() -> timeouts.Timeouts:
  """The limits --compile_timeout, --load_timeout and --call_timeout set."""
  return timeouts.from_flags(value("compile_timeout"), value("load_timeout"),
                             value("call_timeout"))


def compile_cache_from_flags() -> Optional[vmfb_cache.CompileCache]:
  """The cache --compile_cache / --compile_cache_dir ask for (None when off)."""
  if not value("compile_cache"):
    return None
  directory = value("compile_cache_dir") or vmfb_cache.default_cache_dir()
  if directory is None:
    logging.debug("Compile cache off under Bazel; set PYIREE_TF_SUPPORT_CACHE_DIR to share one.")
    return None
  return vmfb_cache.CompileCache(directory)
