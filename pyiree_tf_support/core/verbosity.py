"""How much a run prints: quiet by default, everything with --verbose.

Quiet: TensorFlow's C++ INFO/WARNING lines (TF_CPP_MIN_LOG_LEVEL=2), its Python INFO lines
("Assets written", sharding callbacks, test timings), IREE's tool invocations and the library's
own details (compile times, cache hits) are not shown; warnings and errors are. Everything is
still on disk (report.txt, traces, repros).

TensorFlow reads TF_CPP_MIN_LOG_LEVEL once, when it is imported, before absl has parsed any flag;
so the public modules call `import_tensorflow()` before their own `import tensorflow`, and it
decides from argv and $PYIREE_TF_SUPPORT_FLAGS. A TF_CPP_MIN_LOG_LEVEL the user set is kept, and a
test file that imports TensorFlow before this library keeps TensorFlow's import lines.
`--verbose`, or absl's own `-v`/`--verbosity` at 1 (debug) or more, turns quiet mode off.
"""

import contextlib
import importlib
import logging as std_logging
import os
import re
import shlex
import sys
import tempfile
from typing import Iterator, Mapping, MutableMapping, Optional, Sequence, Tuple

from absl import logging

from pyiree_tf_support.core import collector

TF_CPP_ENV = "TF_CPP_MIN_LOG_LEVEL"
QUIET_TF_CPP_LEVEL = "2"  # INFO and WARNING off, errors shown.
FLAGS_ENV = "PYIREE_TF_SUPPORT_FLAGS"

# Lines TensorFlow's import prints whatever TF_CPP_MIN_LOG_LEVEL says: its oneDNN notice is logged
# through absl before absl's logging is initialized (tensorflow/core/util/port.cc), once per copy
# of the library. Dropped in quiet mode; any other line of the import is passed on.
IMPORT_NOTICES = (
    re.compile(r"^WARNING: All log messages before absl::InitializeLog\(\) is called are written "
               r"to STDERR\s*$"),
    re.compile(r"^I\d{4} [\d:.]+\s+\d+ port\.cc:\d+\] oneDNN custom operations are on\. "),
)

# Python loggers of other libraries whose INFO lines are noise on a passing run.
NOISY_LOGGERS = ("tensorflow", "iree")

_BOOL_VALUES = {"1": True, "true": True, "t": True, "0": False, "false": False, "f": False}


def verbose_in_args(args: Sequence[str]) -> bool:
  """Whether command-line `args` ask for verbose output, read before absl parses them.

  The last of --verbose / --noverbose / --verbose=<bool> wins; absl's -v / --verbosity at 1 or
  more (debug) also counts. Stops at "--", as absl does.
  """
  verbose = False
  tokens = list(args)
  for i, token in enumerate(tokens):
    if token == "--":
      break
    name, has_value, text = token.lstrip("-").partition("=")
    if not token.startswith("-"):
      continue
    if name in ("verbose", "noverbose") and not has_value:
      verbose = name == "verbose"
    elif name == "verbose":
      verbose = _BOOL_VALUES.get(text.lower(), verbose)
    elif name in ("v", "verbosity"):
      if not has_value:
        text = tokens[i + 1] if i + 1 < len(tokens) else ""
      try:
        verbose = verbose or int(text) >= 1
      except ValueError:
        pass  # absl reports the bad value itself.
  return verbose


def verbose_requested(argv: Optional[Sequence[str]] = None,
                      environ: Optional[Mapping[str, str]] = None) -> bool:
  """--verbose in argv or in $PYIREE_TF_SUPPORT_FLAGS (how pytest passes the library's flags)."""
  argv = sys.argv if argv is None else argv
  environ = os.environ if environ is None else environ
  try:
    from_env = shlex.split(environ.get(FLAGS_ENV, ""))
  except ValueError:
    from_env = []  # cli_flags reports the malformed variable.
  return verbose_in_args(list(argv[1:]) + from_env)


@contextlib.contextmanager
def _stderr_without(patterns: Sequence["re.Pattern[str]"]) -> Iterator[None]:
  """Collects what is written to file descriptor 2 (C++ logs included) and passes on every line
  that matches none of `patterns`."""
  sys.stderr.flush()
  saved = os.dup(2)
  with tempfile.TemporaryFile() as capture:
    os.dup2(capture.fileno(), 2)
    try:
      yield
    finally:
      sys.stderr.flush()
      os.dup2(saved, 2)
      os.close(saved)
      capture.seek(0)
      lines = capture.read().decode("utf-8", "replace").splitlines(keepends=True)
      kept = [line for line in lines if not any(p.search(line) for p in patterns)]
      if kept:
        sys.stderr.write("".join(kept))
        sys.stderr.flush()


_EVERY_LINE = (re.compile(""),)


@contextlib.contextmanager
def quiet_native_stderr() -> Iterator[None]:
  """Drops what C++ writes to file descriptor 2 inside the block, unless verbose output is asked
  for: TFLite's converter prints every failure's MLIR locations there (~20 kB for one op), and
  its first cause is reported anyway."""
  if verbose_requested():
    yield
    return
  with _stderr_without(_EVERY_LINE):
    yield


def import_tensorflow(argv: Optional[Sequence[str]] = None,
                      environ: Optional[MutableMapping[str, str]] = None) -> None:
  """Imports TensorFlow quietly unless verbose output is asked for (see the module docstring).

  Does nothing when TensorFlow is already imported: its logging is configured by then. The
  import runs with Python's garbage collector paused and freezes what it built (`collector`).
  """
  if "tensorflow" in sys.modules:
    return
  environ = os.environ if environ is None else environ
  with collector.paused_for_import():  # the run's biggest import: see collector.
    if verbose_requested(argv, environ):
      importlib.import_module("tensorflow")
      return
    environ.setdefault(TF_CPP_ENV, QUIET_TF_CPP_LEVEL)
    with _stderr_without(IMPORT_NOTICES):
      importlib.import_module("tensorflow")


class _QuietThirdParty(std_logging.Filter):
  """Drops INFO and DEBUG records logged from inside the packages of NOISY_LOGGERS: parts of
  TensorFlow log through absl's logger, not "tensorflow" (SavedModel sharding, fingerprints)."""

  def filter(self, record: std_logging.LogRecord) -> bool:
    return record.levelno >= std_logging.WARNING or not any(
        record.pathname.startswith(d) for d in _package_dirs())


def _package_dirs() -> Tuple[str, ...]:
  dirs = []
  for name in NOISY_LOGGERS:
    module = sys.modules.get(name)
    dirs += [os.path.join(d, "") for d in getattr(module, "__path__", ())]
  return tuple(dirs)


_FILTER = _QuietThirdParty()


def apply(verbose: bool) -> None:
  """Sets this run's Python logging once flags are parsed (TF's test main resets its logger's
  level, so this runs when a test class is set up): TensorFlow's and IREE's INFO lines only when
  verbose; verbose also shows the library's details, logged at DEBUG (absl's -v 1)."""
  level = std_logging.INFO if verbose else std_logging.WARNING
  for name in NOISY_LOGGERS:
    std_logging.getLogger(name).setLevel(level)
  absl_logger = logging.get_absl_logger()  # a logger's filter sees only records logged through it.
  if verbose:
    absl_logger.removeFilter(_FILTER)
    if logging.get_verbosity() < logging.DEBUG:
      logging.set_verbosity(logging.DEBUG)
  else:
    absl_logger.addFilter(_FILTER)
