"""Splits a traced model into one standalone numerical test per IREE dispatch, without TensorFlow.

  python -m pyiree_tf_support.split_dispatches <artifacts>/<Module>[/traces/<trace>__tf_ref] \\
      [--target_backends=iree_vmvx,iree_llvmcpu,iree_vulkan] [--expected_from=iree_llvmcpu]

The dispatches are formed once with the `--expected_from` backend's flags (as the localizer
forms them, `localizing.formation`), its traced module replays every call of the reference trace
in a child process, and each traced dispatch (per call and occurrence) becomes a directory of
`<Module>/dispatches/<trace>/`: `dispatch.mlir` (its executable from the flow IR, called by a
one-function module `dispatch`), the inputs it was traced with (`input_N.npy`, and the raw bytes
iree-run-module reads) and the outputs the expected-from backend computed (`expected_N.npy`).
`test_dispatches.py` beside them runs each dispatch on each `--target_backends` backend with
IREE's tools alone (absolute paths, each backend's flags; pytest and numpy, no TensorFlow, no
model) and compares under the dtype's tolerance. Why: a model's divergence is then one failing
(dispatch, backend) item, and a dispatch suite is a regression test of the compiler that needs
nothing of the model. Dynamic shapes, workloads and results written in place are cut out as the
localizer's dispatch repro cuts them (`localizing/dispatch_repro.py`, the traced outputs' shapes
given for the results' dims); a dispatch whose workload is computed from values at run time is
not (`manifest.json` says why).
The suite is written beside the last complete one and replaces it whole once complete (a split
stopped half-way leaves the last one as it was); a second split of the same trace waits for the
first (it says so) and then splits afresh.
Exit status: 0 written, 2 bad input or a formation or run that failed (one line on stderr), 130
Ctrl-C, 143 SIGTERM (one line saying what was kept).
"""

import json
import os
import shlex
import sys
from typing import Dict, List, Sequence, Tuple

from absl import app
from absl import flags
import numpy as np

from pyiree_tf_support import cli_flags
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.compiling import mlir_files
from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.fuzzing import stopping
from pyiree_tf_support.localizing import dispatch_repro
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing import formation
from pyiree_tf_support.reporting import replay_input
from pyiree_tf_support.reporting import repro

__all__ = ["SplitError", "main", "split"]

USAGE = ("python -m pyiree_tf_support.split_dispatches <module dir or trace dir> "
         "[--target_backends=B,...] [--expected_from=B]")
SPLIT_DIR = "dispatches"
TEST_FILE = "test_dispatches.py"

_EXPECTED_FROM = flags.DEFINE_string(
    "expected_from", "iree_llvmcpu", "The IREE backend whose traced outputs are each dispatch's "
    "expected outputs (its flags form the dispatches).")
for _name in ("target_backends", "tolerances", "iree_compile_flags", "compile_timeout",
              "load_timeout", "call_timeout", "verbose"):
  flags.declare_key_flag(_name)


class SplitError(ValueError):
  """The split could not be made; the message says why in one line."""


def _iree_spec(name: str, flag: str) -> backends.BackendSpec:
  spec = backends.lookup(name)
  if not spec.is_iree:
    raise SplitError(f"{flag}={name} is not an IREE backend; valid: " + ", ".join(
        n for n in backends.valid_names() if backends.lookup(n).is_iree) + ".")
  return spec


def _flags(spec: backends.BackendSpec, extra: compile_flags.Entries) -> Tuple[str, ...]:
  return spec.compiler_flags + compile_flags.for_backend(extra, (spec.name,) + spec.aliases)


def split(path: str, targets: Sequence[str], expected_from: str = "iree_llvmcpu",
          policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
          extra_flags: compile_flags.Entries = (),
          limits: timeouts.Timeouts = timeouts.DEFAULT) -> Dict:
  """Writes the dispatch suite of the reference trace at `path` (a trace dir, or a module dir
  holding one); returns the manifest (what was cut out, what was not and why)."""
  loaded = replay_input.load(replay_input.reference_trace_dir(path), mlir_files.text)
  source = _iree_spec(expected_from, "--expected_from")
  specs = [_iree_spec(name, "--target_backends") for name in targets]
  reference = loaded.reference
  if not reference.calls:
    raise SplitError(f"{loaded.trace_dir} records no call: no dispatch to split.")
  module_dir = os.path.dirname(os.path.dirname(loaded.trace_dir))
  safe_files.open_root(module_dir, "The module's artifacts dir")
  directory = _output_dir(loaded.trace_dir)
  with safe_files.published_dir(directory, lambda lock: print(
      f"split_dispatches: another split_dispatches of this trace holds {lock}; waiting for it "
      "to end", file=sys.stderr, flush=True)) as into:
    manifest = _split(loaded, source, specs, policy, extra_flags, limits, directory, into)
  return dict(manifest, directory=directory, test_file=os.path.join(directory, TEST_FILE))


def _output_dir(trace_dir: str) -> str:
  """Where the suite of the reference trace at `trace_dir` is published:
  `<Module>/dispatches/<trace dir's name>`."""
  module_dir = os.path.dirname(os.path.dirname(os.path.abspath(trace_dir)))
  return os.path.join(module_dir, SPLIT_DIR, os.path.basename(trace_dir))


def _split(loaded: replay_input.ReplayInput, source: backends.BackendSpec,
           specs: Sequence[backends.BackendSpec], policy: tolerances.TolerancePolicy,
           extra_flags: compile_flags.Entries, limits: timeouts.Timeouts, directory: str,
           into: str) -> Dict:
  """The suite written into `into`, published as `directory` (the paths it names); its
  manifest."""
  reference = loaded.reference
  work_dir = os.path.join(into, ".formation")
  safe_files.make_dirs(work_dir)
  source_path = os.path.join(work_dir, "iree_input.mlir")
  safe_files.write_text(source_path, mlir_functions.only_exporting(
      loaded.iree_input, sorted({call.method for call in reference.calls})))
  source_flags = _flags(source, extra_flags)
  try:
    formed = formation.form(source_path, work_dir, source, source_flags, source, source_flags,
                            limits.compile)
  except (formation.NotTraceable, formation.FormationError) as e:
    raise SplitError(f"the dispatches cannot be formed and traced: {e}") from None
  if formed.trusted is None:  # form() compiles a trusted side whenever it is given a backend.
    raise SplitError(f"the formation has no traced {source.name} module")
  calls, inputs = traces.flat_calls(reference, loaded.signatures, len(reference.calls))
  run = engine.run_child(formed.trusted.vmfb_path, source.driver,
                         os.path.join(work_dir, "run"), calls, inputs, limits)
  if run.error:
    raise SplitError(f"{source.name}'s traced run failed: {run.error}")
  by_label = {event.label: event for event in run.events}
  cut, skipped = [], []
  for event in run.events:
    if event.kind != "inputs":
      continue
    outputs = by_label.get((event.call, event.key, "outputs", event.occurrence))
    where = {"call": event.call, "dispatch": event.key, "occurrence": event.occurrence}
    if outputs is None or any(events.is_digest(a) for a in event.arrays + outputs.arrays):
      skipped.append(dict(where, reason="its tensors were not all traced as arrays"))
      continue
    text, reason, count = dispatch_repro.cut(formed.flow_path, event.key,
                                             [np.shape(a) for a in outputs.arrays])
    if text is None or count != len(outputs.arrays):
      skipped.append(dict(where, reason=reason or "its traced outputs are not its results"))
      continue
    name = (f"c{event.call}_{len(cut):03d}_{event.key.split('::')[1].split()[0]}"
            f"_{event.occurrence}")
    cut.append(dict(where, name=name, inputs=_write_case(
        os.path.join(into, name), text, event.arrays, outputs.arrays),
                    results=count))
  manifest = {"trace": loaded.trace_dir, "expected_from": source.name,
              "backends": [spec.name for spec in specs], "dispatches": cut, "skipped": skipped}
  safe_files.write_text(os.path.join(into, "manifest.json"), json.dumps(manifest, indent=1))
  _write_test_file(directory, cut, source.name, specs, extra_flags, policy, into)
  safe_files.remove_tree(work_dir)
  return manifest


def _write_case(case_dir: str, text: str, inputs: Sequence[np.ndarray],
                expected: Sequence[np.ndarray]) -> List[Tuple[str, str]]:
  """One dispatch's files; returns (raw bytes file, shape and element type) per input."""
  safe_files.make_dirs(case_dir)
  safe_files.write_text(os.path.join(case_dir, "dispatch.mlir"), text)
  values = []
  for index, array in enumerate(inputs):
    safe_files.write_with(os.path.join(case_dir, f"input_{index}.npy"),
                         lambda f, a=array: np.save(f, a, allow_pickle=False))
    kind, name = repro.save_value(case_dir, f"input_{index}", np.asarray(array)).split("=@")
    values.append((name, kind))
  for index, array in enumerate(expected):
    safe_files.write_with(os.path.join(case_dir, f"expected_{index}.npy"),
                         lambda f, a=array: np.save(f, np.asarray(a), allow_pickle=False))
  return values


TEST_TEMPLATE = '''{docstring}
import os
import subprocess

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
COMPILE = {compile_tool!r}
RUN = {run_tool!r}
BACKENDS = {backends!r}  # (name, driver, compile flags)
DISPATCHES = {dispatches!r}  # (directory, inputs: (raw bytes file, type), result count)
TOLERANCES = {tolerances!r}  # backend: {{dtype name: (rtol, atol)}}, the library's table


@pytest.mark.parametrize("backend", BACKENDS, ids=[b[0] for b in BACKENDS])
@pytest.mark.parametrize("case", DISPATCHES, ids=[d[0] for d in DISPATCHES])
def test_dispatch(case, backend, tmp_path):
  name, inputs, results = case
  backend_name, driver, flags = backend
  folder = os.path.join(HERE, name)
  vmfb = str(tmp_path / "dispatch.vmfb")
  subprocess.run([COMPILE, os.path.join(folder, "dispatch.mlir"), "--iree-input-type=none",
                  *flags, "-o", vmfb], check=True, capture_output=True)
  files = [str(tmp_path / f"got_{{i}}.npy") for i in range(results)]
  subprocess.run([RUN, f"--device={{driver}}", f"--module={{vmfb}}", "--function=dispatch",
                  *[f"--input={{kind}}=@{{os.path.join(folder, file)}}" for file, kind in inputs],
                  *[f"--output=@{{f}}" for f in files]], check=True, capture_output=True)
  for i, path in enumerate(files):
    got = np.load(path)
    want = np.load(os.path.join(folder, f"expected_{{i}}.npy"))
    assert (got.dtype, got.shape) == (want.dtype, want.shape), f"result {{i}}"
    if want.dtype.name in TOLERANCES[backend_name]:
      rtol, atol = TOLERANCES[backend_name][want.dtype.name]
      np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"result {{i}}")
    else:
      np.testing.assert_array_equal(got, want, err_msg=f"result {{i}}")
'''


def run_command(test_file: str) -> str:
  """The shell command running the suite `test_file`, its paths quoted (a `$(...)` in one is
  data when it is pasted)."""
  return shlex.join([sys.executable, "-m", "pytest", test_file])


def _write_test_file(directory: str, cut: Sequence[dict], source: str,
                     specs: Sequence[backends.BackendSpec], extra_flags: compile_flags.Entries,
                     policy: tolerances.TolerancePolicy, into: str) -> None:
  """The suite's pytest file, written into `into`, naming itself in `directory`."""
  table = {}
  for spec in specs:
    names = (spec.name,) + spec.aliases
    table[spec.name] = {}
    for dtype in tolerances.DEFAULT_TOLERANCES:
      if dtype != "bfloat16":
        tolerance = policy.for_dtype(np.dtype(dtype), names)
        table[spec.name][dtype] = (tolerance.rtol, tolerance.atol)
  path = os.path.join(directory, TEST_FILE)
  text = TEST_TEMPLATE.format(
      docstring=quoting.docstring(
          f"Each dispatch of {os.path.basename(directory)} alone on each backend, against "
          f"{source}'s outputs.\n\nWritten by pyiree_tf_support.split_dispatches; needs pytest, "
          f"numpy and IREE's tools only:\n  {run_command(path)}\n"),
      compile_tool=formation.compiler_tool(),
      run_tool=repro.iree_run_module_binary() or "iree-run-module",
      backends=[(spec.name, spec.driver,
                 [f"--iree-hal-target-backends={t}" for t in spec.compiler_targets]
                 + list(_flags(spec, extra_flags))) for spec in specs],
      dispatches=[(case["name"], [tuple(v) for v in case["inputs"]], case["results"])
                  for case in cut],
      tolerances=table)
  safe_files.write_text(os.path.join(into, TEST_FILE), text)


def main(argv: Sequence[str]) -> int:
  stopping.stop_on_sigterm()
  verbosity.apply(cli_flags.verbose())
  directory = None
  try:
    if len(argv) != 2:
      raise SplitError(f"one module dir or trace dir is needed; usage: {USAGE}")
    directory = _output_dir(replay_input.reference_trace_dir(argv[1]))
    targets = cli_flags.target_backend_names() or ["iree_vmvx", "iree_llvmcpu", "iree_vulkan"]
    result = split(argv[1], targets, _EXPECTED_FROM.value, cli_flags.tolerance_policy(),
                   compile_flags.parse(cli_flags.value("iree_compile_flags")),
                   cli_flags.timeouts_from_flags())
  except (ValueError, KeyError, engine.LocalizeError, faults.OwnFault, OSError) as e:
    message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
    print("split_dispatches: " + str(message).replace("\n", " "), file=sys.stderr)
    return 2
  except KeyboardInterrupt:
    kept = (f"the last complete split is kept in {directory}"
            if directory and os.path.isdir(directory) else "no split was written")
    print(f"split_dispatches: {stopping.stopped_how()}; {kept}", file=sys.stderr)
    return stopping.exit_status()
  print(f"split {len(result['dispatches'])} dispatches of {result['trace']} into "
        f"{result['directory']}" + (f" ({len(result['skipped'])} not cut out: "
                                    + "; ".join(sorted({s['reason'] for s in result['skipped']}))
                                    + ")" if result["skipped"] else ""))
  print(f"run: {run_command(result['test_file'])}")
  return 0


if __name__ == "__main__":
  app.run(main, flags_parser=cli_flags.command_line_parser("split_dispatches"))
