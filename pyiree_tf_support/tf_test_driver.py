"""Compiler lit tests from tf.Modules: import a module, run passes on it, FileCheck the printed
MLIR.

The 2020 `pyiree.tf.support.tf_test_driver` contract, on today's import. A test file registers
tests and ends with `run_tests(__file__)`; the file itself is FileCheck's check file, so its
`# CHECK:` comments are matched against what the tests print:

    # CHECK-LABEL: RUN_TEST: Mul
    # CHECK: stablehlo.multiply
    # CHECK: FINISH_TEST: Mul
    tf_test_driver.add_test(test_name="Mul", tf_module_builder=MulModule,
                            passes=["iree-tf-import-pipeline"], print_input_module=True)

    if __name__ == "__main__":
      tf_test_driver.run_tests(__file__, with_filecheck=True)

Per test, on stdout: `RUN_TEST: <name>`; the module after its passes (with
`print_input_module=True`); then `FINISH_TEST: <name>`, or the traceback and
`FINISH_TEST_WITH_EXCEPTION: <name>` when building, importing or a pass raised. A pass failure
not expected (`expect_pass_failure=False`) also prints `UNEXPECTED PASS FAILURE ...` and the module
the failing pass started from on stderr. At the end, stderr gets `FINISHED: RAN <n> TESTS`. With
FileCheck, stdout is captured and piped to it, and the process exits with FileCheck's status;
with `--disable_filecheck` (or `with_filecheck=False`) stdout is printed and the exit status is 0:
the CHECK lines are the only judge, as in 2020.

The module starts as the importer's TF-dialect text (`tf_input.mlir`: exported functions already
carry the names users call them by). `passes` are run in order with TensorFlow's MLIR pass
manager; a function pass is nested under `func.func(...)` by itself. The 2020 IREE import passes
no longer exist: each one names the importer's lowering to StableHLO + ml_program
(`iree_input.mlir`), run once. Any other unknown name is a one-line ValueError from `add_test`.

FileCheck: by default the `filecheck` package from PyPI (run as `python -m filecheck` with this
interpreter): a Python port of LLVM's FileCheck (successor of FileCheck.py, used by xDSL's MLIR
tests), released regularly (1.0.6, 2026-09), passing ~96% of LLVM's own MLIR FileCheck tests
(CHECK, -NEXT, -NOT, -LABEL, -SAME, -DAG, [[VAR:regex]], --dump-input=fail). It is pure Python
with no dependencies, so tests need no LLVM install, no PATH set-up and no Bazel runfiles.
(`filecheck-ng` is a fork last released in 2024; `outputcheck` is only FileCheck-like, 2014.)
`--filecheck_binary` runs an LLVM FileCheck instead.

Differs from 2020 on purpose: `--filecheck_binary` defaults to the Python package instead of a
`filecheck` binary in Bazel's runfiles; modules are built after `set_random_seed()` (as
everywhere in this library) so weights drawn in `__init__` print the same every run; a module
needs at least one tf.function with an input_signature (the importer's rule); `add_test` takes
only the 2020 keyword arguments and rejects a test name used twice; diagnostics are TensorFlow's
(`-:3:5: error: ...`) instead of 2020's `[ERROR]: ...`.
"""

import contextlib
import dataclasses
import io
import os
import shutil
import subprocess
import sys
import traceback
from typing import Callable, List, Sequence, Tuple, Union

from absl import app
from absl import flags

from pyiree_tf_support.core import quick_exit
from pyiree_tf_support.core import verbosity

verbosity.import_tensorflow()  # before TensorFlow's logging is fixed: see verbosity.
import tensorflow as tf

from pyiree_tf_support import tf_utils
from pyiree_tf_support.importing import importer

# 2020's names (FLAGS, add_test, run_tests) and the error lit files' CHECK lines name.
__all__ = ["FLAGS", "PassFailedError", "add_test", "run_tests"]

flags.DEFINE_string("filecheck_binary", None,
                    "An LLVM FileCheck executable to check the tests' output with: absolute, on "
                    "PATH, or relative to Bazel's runfiles or the working directory. Default: the "
                    "`filecheck` Python package, run with this interpreter.")
flags.DEFINE_bool("disable_filecheck", False,
                  "Print the tests' output instead of piping it to FileCheck (for debugging).")
FLAGS = flags.FLAGS

# 2020 IREE passes (integrations/tensorflow/compiler) that turned imported TF into IREE input.
# That job is today the importer's lowering, so each of them names it.
IREE_2020_IMPORT_PASSES = frozenset({
    "iree-tf-import-pipeline",
    "iree-tf-saved-model-adopt-exports",
    "iree-tf-saved-model-lower-global-tensors",
    "iree-tf-saved-model-lower-exported-functions",
})


class PassFailedError(RuntimeError):
  """A pass of a test's pipeline failed; the message carries the pass manager's diagnostics."""


@dataclasses.dataclass(frozen=True)
class PassStep:
  """One entry of `passes`: the name as written and the pipeline text that runs it."""
  requested: str
  pipeline: str

  @property
  def is_lowering(self) -> bool:
    return self.pipeline == importer.LOWERING_PIPELINE


@dataclasses.dataclass(frozen=True)
class DriverTest:
  test_name: str
  tf_module_builder: Callable[[], tf.Module]
  passes: Tuple[PassStep, ...]
  print_input_module: bool
  expect_pass_failure: bool


ALL_TESTS: List[DriverTest] = []


def _probe(pipeline: str) -> str:
  """Runs `pipeline` on an empty module: '' if it runs there, else the pass manager's error."""
  try:
    tf.mlir.experimental.run_pass_pipeline("module {}", pipeline)
    return ""
  except tf.errors.OpError as e:
    return e.message


def resolve_pass(name: str, test_name: str = "?") -> PassStep:
  """Where `name` runs: the importer's lowering, a module pass, or nested in func.func(...)."""
  if not isinstance(name, str) or not name.strip():
    raise ValueError(f"Test '{test_name}': each pass must be a non-empty pass name, got {name!r}.")
  if name in IREE_2020_IMPORT_PASSES or name == importer.LOWERING_PIPELINE:
    return PassStep(name, importer.LOWERING_PIPELINE)
  error = _probe(name)
  if "does not refer to a registered pass" in error:
    raise ValueError(
        f"Test '{test_name}': unknown pass '{name}': neither a pass of TensorFlow "
        f"{tf.__version__}'s MLIR nor a 2020 IREE import pass "
        f"({', '.join(sorted(IREE_2020_IMPORT_PASSES))}, now '{importer.LOWERING_PIPELINE}').")
  if "Invalid pass_pipeline" in error:
    lines = [line.strip() for line in error.replace("Invalid pass_pipeline: ", "").splitlines()]
    detail = "; ".join(line.split("error: ", 1)[-1] for line in lines
                       if line and line != name and line.strip("^ "))
    raise ValueError(f"Test '{test_name}': invalid pass '{name}': {detail}")
  if "on an unsupported operation" in error and not _probe(f"func.func({name})"):
    return PassStep(name, f"func.func({name})")
  return PassStep(name, name)


def add_test(*, test_name: str, tf_module_builder: Callable[[], tf.Module],
             passes: Union[str, Sequence[str]] = (), print_input_module: bool = False,
             expect_pass_failure: bool = False) -> None:
  """Registers a test for `run_tests`; bad arguments (e.g. an unknown pass) raise here."""
  if not isinstance(test_name, str) or not test_name:
    raise ValueError(f"test_name must be a non-empty string, got {test_name!r}.")
  if any(test.test_name == test_name for test in ALL_TESTS):
    raise ValueError(f"Test '{test_name}' is added twice; test names must be unique.")
  if not callable(tf_module_builder):
    raise TypeError(f"Test '{test_name}': tf_module_builder must be a tf.Module class or a "
                    f"function returning a tf.Module, got {tf_module_builder!r}.")
  names = [passes] if isinstance(passes, str) else list(passes or ())
  steps = []
  for name in names:
    step = resolve_pass(name, test_name)
    if not (step.is_lowering and any(s.is_lowering for s in steps)):
      steps.append(step)
  ALL_TESTS.append(DriverTest(test_name, tf_module_builder, tuple(steps),
                              bool(print_input_module), bool(expect_pass_failure)))


def _run_step(step: PassStep, text: str) -> str:
  try:
    if step.is_lowering:
      return importer.lower_to_iree_input(text)
    return tf.mlir.experimental.run_pass_pipeline(text, step.pipeline)
  except tf.errors.OpError as e:
    ran_as = "" if step.pipeline == step.requested else f" (run as '{step.pipeline}')"
    raise PassFailedError(f"pass '{step.requested}'{ran_as} failed:\n{e.message}") from None


def run_test(test: DriverTest) -> None:
  """Builds, imports and runs the passes of one test, printing the module if asked to."""
  tf_utils.set_random_seed()
  module = test.tf_module_builder()
  names = importer.exported_function_names(module, test.test_name)
  text = importer.import_tf_dialect(module, names)
  for step in test.passes:
    try:
      text = _run_step(step, text)
    except PassFailedError:
      if not test.expect_pass_failure:
        print("UNEXPECTED PASS FAILURE (INTERMEDIATE ASM FOLLOWS ON STDERR):", file=sys.stderr)
        print(text, file=sys.stderr)
      raise
  if test.print_input_module:
    print(text)


def run_all_tests() -> int:
  """Runs every added test; a test that raises prints its traceback to stdout, for FileCheck."""
  for test in ALL_TESTS:
    print("RUN_TEST:", test.test_name)
    try:
      run_test(test)
      print("FINISH_TEST:", test.test_name)
    except Exception:
      traceback.print_exc(file=sys.stdout)
      print("FINISH_TEST_WITH_EXCEPTION:", test.test_name)
  print("FINISHED: RAN", len(ALL_TESTS), "TESTS", file=sys.stderr)
  return len(ALL_TESTS)


def _find_executable(value: str) -> str:
  """The FileCheck executable --filecheck_binary names, or '' if there is none."""
  if os.path.isabs(value):
    candidates = [value]
  elif os.sep not in value:
    candidates = [shutil.which(value) or ""]
  else:
    runfiles = os.environ.get("RUNFILES_DIR", "")
    workspace = os.environ.get("TEST_WORKSPACE", "")
    candidates = [os.path.join(runfiles, workspace, value), os.path.join(runfiles, value)
                  ] if runfiles else []
    candidates.append(os.path.abspath(value))
  return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), "")


def _validate_filecheck_binary(value: str) -> bool:
  if value is not None and not _find_executable(value):
    raise flags.ValidationError(
        f"no executable FileCheck at '{value}' (give an absolute path, a name on PATH, or a path "
        "relative to Bazel's runfiles or the working directory; omit the flag to use the "
        "`filecheck` Python package).")
  return True


flags.register_validator("filecheck_binary", _validate_filecheck_binary)


def filecheck_command(check_file: str) -> List[str]:
  """The FileCheck command line that checks stdin against `check_file`'s CHECK lines."""
  if FLAGS.filecheck_binary:
    command = [_find_executable(FLAGS.filecheck_binary)]
  else:
    command = [sys.executable, "-m", "filecheck"]
  return command + [check_file, "--dump-input=fail"]


def run_tests(main_file: str, with_filecheck: bool = True) -> None:
  """The test file's main: parses flags, runs every added test and (by default) FileChecks them."""

  def main(argv: Sequence[str]) -> None:
    del argv
    if not with_filecheck or FLAGS.disable_filecheck:
      run_all_tests()
      return
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured):
      run_all_tests()
    command = filecheck_command(main_file)
    print("LAUNCHING FILECHECK:", command, file=sys.stderr)
    sys.stderr.flush()
    process = subprocess.run(command, input=captured.getvalue().encode("utf-8"), check=False)
    sys.exit(process.returncode)

  def main_then_exit(argv: Sequence[str]) -> None:
    # As absltest's main under tf_test_utils: the exit skips the interpreter's teardown.
    quick_exit.run_then_exit(lambda: sys.exit(main(argv)))

  app.run(main_then_exit)
