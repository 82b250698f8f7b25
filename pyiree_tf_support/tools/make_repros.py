"""Writes e2e/repros/: a standalone reproduction of every listed IREE failure.

    .venv/bin/python -m pytest e2e/ --artifacts_dir=/tmp/art     # a real run (and e2e/keras)
    .venv/bin/python -m pyiree_tf_support.tools.make_repros --artifacts_dir=/tmp/art  # writes
    .venv/bin/python -m pyiree_tf_support.tools.make_repros --check  # runs every repro

For each (backend, entry) of the `FAILING` lists of e2e/BUILD.bazel and e2e/keras/BUILD.bazel (an
entry: a file, or one class or test method of it, `file_test.py::Class::test_method`) it finds a
failing test the entry covers in the artifacts (report.json), and writes what reproduces the
failure with IREE's tools alone, by phase:
  import    repro.py: TensorFlow only, the module source inlined, convert_saved_model +
            run_pass_pipeline, printing the error or the TF ops left unconverted;
  compile   iree_input.mlir + repro.sh running iree-compile with the flags the library passes;
  runtime,  iree_input.mlir, the failing call's inputs and the reference's outputs, repro.sh
  mismatch  compiling and running iree-run-module --expected_output; a module keeping state gets a
            driver.mlir calling the earlier calls first, across the module boundary.
An import failure is written once, to import/<file stem>/, for every backend listing it (the import
happens before any backend); the others to <backend>/<file stem>/ (a method's entry to
<backend>/<file stem>.<Class>.<test_method>/: a repro per listed method); each backend's
README.txt names its failures and their directories (`repro_layout`). Each repro is run once and
its first error line recorded (expected.txt, README.txt). Directories of failures no longer
listed are removed; e2e/repros/findings/ (hand-reduced cases) is kept. The file texts are in
repro_templates, the values and the driver module in repro_values.
"""

import argparse
import ast
import dataclasses
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling import mlir_files
from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import quoting
from pyiree_tf_support.reporting import replay_input
from pyiree_tf_support.tools import repro_layout
from pyiree_tf_support.tools import repro_templates
from pyiree_tf_support.tools import repro_values
from pyiree_tf_support.tools import source_tree
from pyiree_tf_support.tools.repro_layout import Listed

TOOL = "python -m pyiree_tf_support.tools.make_repros"
ROOT = source_tree.ROOT
PHASES = ("import", "compile", "runtime", "mismatch")
EXPECTED_NAME = "expected.txt"


# ---------------------------------------------------------------------------------------------
# Finding the failure in a run's artifacts.

@dataclasses.dataclass(frozen=True)
class Found:
  """Where a listed failure happened in a run."""
  module_dir: str
  test_id: str
  trace: Dict[str, Any]  # the trace record of report.json
  record: Dict[str, Any]  # the backend's record in it
  phase: str


def module_classes(source: str) -> List[str]:
  """The module classes a test file compiles: first argument of each compile_module(...)."""
  with open(source, encoding="utf-8") as f:
    tree = ast.parse(f.read(), source)
  names = []
  for node in ast.walk(tree):
    if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", ""))
        == "compile_module" and node.args and isinstance(node.args[0], ast.Name)):
      names.append(node.args[0].id)
  return names


def in_scope(entry: Listed, test_id: str) -> bool:
  """Whether the test `test_id` (`__main__.Class.test_x`, or pytest's `...::Class::test_x`) is
  one the entry lists: any test of its file, or of its class, or its one test method."""
  parts = test_id.replace("::", ".").split(".")
  if entry.method is not None:
    return parts[-2:] == [entry.test_class, entry.method]
  return entry.test_class is None or entry.test_class in parts[:-1]


def find_failure(entry: Listed, artifacts_dirs: Sequence[str]) -> Found:
  """The first failing test of `entry` (its file, class or test method) on its backend in the
  artifacts (ValueError: none)."""
  stem = entry.file[:-len(".py")]
  classes = module_classes(entry.source)
  for artifacts_dir in artifacts_dirs:
    for module in classes:
      report_path = os.path.join(artifacts_dir, module, "report.json")
      if not os.path.exists(report_path):
        continue
      with open(report_path) as f:
        tests = json.load(f).get("tests", {})
      for test_id in sorted(t for t in tests if in_scope(entry, t)):
        for trace in tests[test_id]["traces"]:
          for record in trace["backends"]:
            file = tests[test_id].get("file")
            mine = (file == entry.file if file
                    else test_id.startswith(stem + ".") or len(classes) == 1)
            phase = record.get("phase")
            if record["backend"] == entry.backend and mine and phase:
              return Found(os.path.dirname(report_path), test_id, trace, record, phase)
  raise ValueError(f"{entry.suite}/{entry.key} on {entry.backend}: no failing test of modules "
                   f"{', '.join(classes) or '(none found)'} in {', '.join(artifacts_dirs)}; run "
                   "the file with --artifacts_dir first.")


# ---------------------------------------------------------------------------------------------
# Writing one repro.

def _compile_flags(backend: str) -> List[str]:
  spec = backends.lookup(backend)
  return ([f"--iree-input-type={compiler.INPUT_TYPE}"]
          + [f"--iree-hal-target-backends={t}" for t in spec.compiler_targets]
          + list(spec.compiler_flags))


def _write(path: str, text: str, executable: bool = False) -> None:
  with open(path, "w", encoding="utf-8") as f:
    f.write(text)
  if executable:
    os.chmod(path, 0o755)


def _title(entry: Listed, phase: str) -> str:
  """The title line of a repro.sh: a comment, so one printable line whatever the names hold."""
  return quoting.comment(f"{entry.suite}/{entry.key} on {entry.backend}: {phase} failure")


def write_import(entry: Listed, found: Found, out: str) -> None:
  """The import happens before any backend: the files are the same in every backend's dir."""
  os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
  # Only writing an import repro needs TensorFlow (for the pipeline the library runs).
  from pyiree_tf_support.importing import pass_pipelines
  module_class = os.path.basename(found.module_dir)
  keras = entry.suite.endswith("keras")
  title = f"{entry.suite}/{entry.file}: import failure (before any backend)"
  script = repro_values.import_script(entry.source, module_class, pass_pipelines.LOWERING_PIPELINE,
                                      title, keras)
  _write(os.path.join(out, "repro.py"), script)
  env = "TF_USE_LEGACY_KERAS=1 " if keras else ""
  _write(os.path.join(out, "repro.sh"),
         repro_templates.IMPORT.format(title=quoting.comment(title), env=env), executable=True)


# The library's detail when a method failed to compile alone (the module failed as a whole).
_METHOD_NOT_COMPILED = re.compile(r"method '([^']+)' did not compile for ")


def _iree_input(module_dir: str) -> str:
  """The module's iree_input.mlir as text (a big module's is saved as MLIR bytecode): repros
  hold text, which a person reads and edits, and `--check` compiles and runs. ReplayError when
  it holds code the import never writes (an artifacts dir someone else made)."""
  path = os.path.join(module_dir, "iree_input.mlir")
  with open(path, "rb") as f:
    text = mlir_files.text(f.read())
  replay_input.refuse_hand_written_code(text, path)
  return text


def write_compile(entry: Listed, found: Found, out: str) -> None:
  """The module's iree_input.mlir, reduced to the failing method when the run compiled it alone
  (so the repro shows that method's error, not the first error of the whole module)."""
  iree_input = _iree_input(found.module_dir)
  method = _METHOD_NOT_COMPILED.search(found.record.get("detail") or "")
  if method:
    iree_input = mlir_functions.only_exporting(iree_input, [method.group(1)])
  _write(os.path.join(out, "iree_input.mlir"), iree_input)
  _write(os.path.join(out, "repro.sh"), repro_templates.COMPILE.format(
      title=_title(entry, "compile"),
      compile_flags=" ".join(map(shlex.quote, _compile_flags(entry.backend)))), executable=True)


def write_run(entry: Listed, found: Found, out: str) -> None:
  """runtime / mismatch: the failing call (after the earlier ones when the module keeps state)."""
  spec = backends.lookup(entry.backend)
  iree_input = _iree_input(found.module_dir)
  _write(os.path.join(out, "iree_input.mlir"), iree_input)
  plan = repro_values.plan_run(found.module_dir, found.trace, found.record, iree_input, out)
  driver_compile = driver_module = ""
  if plan.driver:
    _write(os.path.join(out, "driver.mlir"), plan.driver)
    target_flags = " ".join(f"--iree-hal-target-backends={t}" for t in spec.compiler_targets)
    driver_compile = repro_templates.DRIVER_COMPILE.format(target_flags=target_flags)
    driver_module = '--module="$work/driver.vmfb" '
  run_flags = "".join(f"  {shlex.quote(flag)} \\\n" for flag in plan.flags)
  _write(os.path.join(out, "repro.sh"), repro_templates.RUN.format(
      title=_title(entry, found.phase),
      compile_flags=" ".join(map(shlex.quote, _compile_flags(entry.backend))),
      driver_compile=driver_compile, device=spec.driver, driver_module=driver_module,
      function=shlex.quote(plan.function), run_flags=run_flags,
      attempts=repro_templates.RUN_ATTEMPTS),
      executable=True)


_WRITERS = {"import": write_import, "compile": write_compile, "runtime": write_run,
            "mismatch": write_run}
_HOW = {
    "import": "repro.py imports the module with TensorFlow alone (convert_saved_model + "
              "run_pass_pipeline).",
    "compile": "repro.sh compiles iree_input.mlir with iree-compile and the library's flags.",
    "runtime": "repro.sh compiles iree_input.mlir and runs the failing call with iree-run-module.",
    "mismatch": "repro.sh compiles iree_input.mlir and runs the failing call with iree-run-module "
                "--expected_output (the reference's outputs).",
}


def run_repro(directory: str, timeout: float = 600) -> Tuple[int, Optional[str], str]:
  """(exit status, the FIRST_ERROR line or None, output) of the directory's repro.sh."""
  env = dict(os.environ)
  env.setdefault("IREE_TOOLS_DIR", os.path.dirname(sys.executable))
  env.setdefault("PYTHON", sys.executable)
  completed = subprocess.run([os.path.join(directory, "repro.sh")], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=env, timeout=timeout, check=False)
  output = completed.stdout.decode("utf-8", errors="replace")
  lines = [line for line in output.splitlines() if line.startswith("FIRST_ERROR: ")]
  return completed.returncode, (lines[-1][len("FIRST_ERROR: "):].strip() if lines else None), output


def check_repro(directory: str) -> Optional[str]:
  """None when the repro still fails with its recorded first error line; else what differs."""
  with open(os.path.join(directory, EXPECTED_NAME), encoding="utf-8") as f:
    expected = f.read().strip()
  status, line, output = run_repro(directory)
  if status == 1 and line == expected:
    return None
  if status == 0:
    return f"{directory}: no longer fails (expected: {expected})"
  tail = "\n".join(output.splitlines()[-5:])
  return f"{directory}: fails differently:\n  expected: {expected}\n  got:      {line}\n{tail}"


def _diagnostic_core(line: str) -> str:
  """A compiler diagnostic without the op it quotes (value numbers differ once reduced)."""
  return line.split(" %")[0].split(' "')[0].split(" loc(")[0].strip().rstrip(":")


def _find_any(entries: Sequence[Listed], artifacts_dirs: Sequence[str]) -> Tuple[Listed, Found]:
  """The first of `entries` (those of one repro directory) whose failure the artifacts hold."""
  errors = []
  for entry in entries:
    try:
      return entry, find_failure(entry, artifacts_dirs)
    except ValueError as e:
      errors.append(str(e))
  raise ValueError("; ".join(errors))


def make_repro(entries: Sequence[Listed], artifacts_dirs: Sequence[str]) -> str:
  """Writes and runs the repro of `entries`, the listed failures of one repro directory (an
  import failure: every backend listing it); returns its first error line (ValueError if it
  passes)."""
  entry, found = _find_any(entries, artifacts_dirs)
  if entry.phase and entry.phase != found.phase:
    raise ValueError(f"{entry.key} on {entry.backend} is listed as a {entry.phase} failure but "
                     f"failed in the {found.phase} phase in the run; update the list first.")
  phase = entry.phase or found.phase
  if phase not in _WRITERS:
    raise ValueError(f"{entry.key} on {entry.backend}: unknown phase {phase!r}; one of {PHASES}")
  out = entry.repro_dir
  shutil.rmtree(out, ignore_errors=True)
  os.makedirs(out)
  _WRITERS[phase](entry, dataclasses.replace(found, phase=phase), out)
  status, line, output = run_repro(out)
  if status != 1 or line is None:
    shutil.rmtree(out)
    raise ValueError(f"{entry.key} on {entry.backend}: the {phase} repro did not fail "
                     f"(exit {status}):\n{output[-2000:]}")
  if phase == "compile" and _diagnostic_core(line) != _diagnostic_core(
      found.record.get("first_error") or ""):
    shutil.rmtree(out)
    raise ValueError(f"{entry.key} on {entry.backend}: the compile repro fails with {line!r} but "
                     f"the run failed with {found.record.get('first_error')!r}; a repro must "
                     "reproduce the failure the run saw.")
  _write(os.path.join(out, EXPECTED_NAME), line + "\n")
  if phase in ("import", "compile"):
    what = "Importing the module" if phase == "import" else "Compiling the module"
  else:
    index, method = repro_values.failing_call(found.record)
    what = f"Call {index} ({method}) of trace '{found.trace['trace']}'"
  _write(os.path.join(out, "README.txt"), repro_templates.README.format(
      what=what, where="before any backend" if phase == "import" else f"on {entry.backend}",
      phase=phase, source=f"{entry.suite}/{entry.key}", test=found.test_id, how=_HOW[phase],
      python=", and a Python with TensorFlow from $PYTHON" if phase == "import" else "",
      first_error=line, reasons=_reasons(entries, phase)))
  return line


def _reasons(entries: Sequence[Listed], phase: str) -> str:
  """The listed reasons; an import repro's name the backends listing each."""
  if phase != "import":
    return f"Listed reason: {entries[0].reason}"
  by_reason: Dict[str, List[str]] = {}
  for e in entries:
    by_reason.setdefault(e.reason, []).append(e.backend)
  return "\n".join(f"Listed reason ({', '.join(names)}): {reason}"
                   for reason, names in by_reason.items())


def _selected(only: Sequence[str], relative_dir: str, entries: Sequence[Listed]) -> bool:
  return not only or any(o in [relative_dir] + [f"{e.backend}/{e.key}" for e in entries]
                         for o in only)


def main(argv: Optional[Sequence[str]] = None) -> int:
  parser = argparse.ArgumentParser(prog=TOOL, description=(__doc__ or "").splitlines()[0])
  parser.add_argument("--artifacts_dir", action="append", default=[],
                      help="artifacts of a real run (repeatable: e2e/ and e2e/keras runs)")
  parser.add_argument("--only", action="append", default=[],
                      help="a repro to (re)write alone, as its directory under e2e/repros "
                      "(import/strings_test) or backend/file_test.py (repeatable)")
  parser.add_argument("--check", action="store_true",
                      help="run every repro and compare; check the backends' indexes")
  args = parser.parse_args(argv)
  source_tree.checkout_root(TOOL)
  listed = repro_layout.iree_failures()
  if args.check:
    findings = glob.glob(os.path.join(repro_layout.REPROS_DIR, repro_layout.FINDINGS, "*"))
    problems = repro_layout.stale_indexes(listed) + [
        p for d in repro_layout.repro_dirs() + findings for p in [check_repro(d)] if p]
    print("\n".join(problems) or "every repro reproduces its recorded failure")
    return 1 if problems else 0
  if not args.artifacts_dir:
    parser.error("--artifacts_dir is required (the artifacts of a run of the listed files)")
  groups = repro_layout.by_repro_dir(listed)
  for path in repro_layout.remove_stale(list(groups)):  # no longer listed, whatever --only says.
    print(f"removed {os.path.relpath(path, ROOT)}")
  repro_layout.write_indexes(listed)
  failures = 0
  for directory, entries in groups.items():
    relative = os.path.relpath(directory, repro_layout.REPROS_DIR)
    if not _selected(args.only, relative, entries):
      continue
    try:
      print(f"{os.path.relpath(directory, ROOT)}: {make_repro(entries, args.artifacts_dir)}")
    except (ValueError, OSError) as e:
      failures += 1
      print(f"FAILED {relative}: {e}", file=sys.stderr)
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
