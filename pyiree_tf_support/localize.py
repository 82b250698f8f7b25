"""Names the first IREE dispatch whose outputs diverge in a mismatching call, without TensorFlow.

  python -m pyiree_tf_support.localize <artifacts>/<Module>[/traces/<trace>__tf_ref] \\
      --target_backends=iree_vulkan [--trusted_backend=iree_llvmcpu] [--call=K]

Reads the saved reference trace and iree_input.mlir (checked as replay checks them), forms the
dispatches once with the suspect's flags, compiles the suspect and a trusted backend from them
with a trace at every dispatch boundary, replays calls 0..K on both (each in a child process)
and prints the verdict: the dispatch, outside any dispatch, accumulated drift, structure
differs, no divergence, masked by tracing, not traceable, or target-independent
(docs/localizing.md). When every IREE backend is wrong too, or with --trusted_backend=oracle,
the dispatches are judged against the StableHLO reference interpreter instead. Files go to
<Module>/localize/. --help lists its flags.
Exit status: 0 a verdict was printed, 2 bad input or the localization could not run (no trusted
backend could be used, or our own fault such as a full disk), 130 Ctrl-C, 143 SIGTERM (one line).
"""

import json
import os
import sys
from typing import List, Optional, Sequence

from absl import app
from absl import flags

from pyiree_tf_support import cli_flags
from pyiree_tf_support.compiling import mlir_files
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.fuzzing import stopping
from pyiree_tf_support.localizing import engine
from pyiree_tf_support.localizing import report
from pyiree_tf_support.localizing.engine import Localization
from pyiree_tf_support.localizing.engine import LocalizeError
from pyiree_tf_support.reporting import replay_input

__all__ = ["Localization", "LocalizeError", "localize", "main"]

USAGE = ("python -m pyiree_tf_support.localize <module dir or trace dir> --target_backends=B "
         "[--trusted_backend=T] [--call=K]")

_TRUSTED = flags.DEFINE_string(
    "trusted_backend", None, "The IREE backend to diff against (default: iree_llvmcpu for "
    "iree_vulkan and iree_vmvx, iree_vmvx for iree_llvmcpu; then the others while it cannot "
    "be trusted: neither within tolerance nor 10x closer to the reference than the suspect; "
    "when every one is wrong too, the oracle). Its own flags: "
    "--iree_compile_flags=<backend>:<flag>. `oracle`: the StableHLO reference interpreter "
    "outside IREE (the `oracle` extra).")
_CALL = flags.DEFINE_integer(
    "call", None, "The call to localize (default: the suspect's first mismatching call).")
_REPORT_JSON = cli_flags.report_json_flag(__name__, "under `localization`")
for _name in ("target_backends", "tolerances", "iree_compile_flags", "compile_timeout",
              "load_timeout", "call_timeout", "compile_cache", "compile_cache_dir", "verbose"):
  flags.declare_key_flag(_name)


def _trace_dir(path: str) -> str:
  """A reference trace dir: `path` itself, or the only one below a module dir's traces/."""
  try:
    return replay_input.reference_trace_dir(path)
  except replay_input.ReplayError as e:
    raise LocalizeError(str(e)) from None


def localize(path: str, suspect: str, trusted: Optional[str] = None,
             call: Optional[int] = None, **options) -> Localization:
  """Localizes a mismatching call of the reference trace at `path` (a trace dir, or a module
  dir holding one) on `suspect`; see localizing.engine.localize for `options`."""
  loaded = replay_input.load(_trace_dir(path), mlir_files.text)
  return engine.localize(loaded, suspect, trusted, call, **options)


def _suspect(names: Optional[List[str]]) -> str:
  if not names or len(names) != 1:
    raise LocalizeError("--target_backends names the one suspect IREE backend, e.g. "
                        "--target_backends=iree_vulkan.")
  spec = backends.lookup(names[0])
  if not spec.is_iree:
    raise LocalizeError(f"--target_backends={names[0]} is not an IREE backend; valid: "
                        + ", ".join(engine.TRUSTED_ORDER) + ".")
  return names[0]


def main(argv: Sequence[str]) -> int:
  stopping.stop_on_sigterm()
  verbosity.apply(cli_flags.verbose())
  if len(argv) != 2:
    print(f"usage: {USAGE} (--help for its flags)", file=sys.stderr)
    return 2
  try:
    problem = cli_flags.unwritable_report_json(_REPORT_JSON)
    if problem:  # before the work: a typo costs a line, not a localization.
      raise LocalizeError(problem)
    suspect = _suspect(cli_flags.target_backend_names())
    trusted = _TRUSTED.value
    if trusted is not None and trusted != engine.ORACLE:
      spec = backends.lookup(trusted)
      if not spec.is_iree:
        raise LocalizeError(f"--trusted_backend={trusted} is not an IREE backend; valid: "
                            + ", ".join(engine.TRUSTED_ORDER) + f", {engine.ORACLE}.")
    trace_dir = _trace_dir(argv[1])
    loaded = replay_input.load(trace_dir, mlir_files.text)
    result = engine.localize(
        loaded, suspect, trusted, _CALL.value, policy=cli_flags.tolerance_policy(),
        extra_flags=compile_flags.parse(cli_flags.value("iree_compile_flags")),
        limits=cli_flags.timeouts_from_flags(), cache=cli_flags.compile_cache_from_flags())
  except (ValueError, KeyError, LocalizeError, faults.OwnFault, OSError) as e:
    # ReplayError is a ValueError; an OwnFault (a write that failed) or an OSError is ours.
    message = e.args[0] if isinstance(e, KeyError) and e.args else str(e)
    print("localize: " + str(message).replace("\n", " "), file=sys.stderr)
    return 2
  except KeyboardInterrupt:
    print(f"localize: {stopping.stopped_how()}; no verdict", file=sys.stderr)
    return stopping.exit_status()
  source = os.path.join(os.path.dirname(os.path.dirname(trace_dir)), "iree_input.mlir")
  if artifacts.is_mlir_bytecode(loaded.saved_iree_input) and result.work_dir:
    source = os.path.join(result.work_dir, "iree_input.mlir")  # its text, which loc()s name.
  print(report.format_report(result, source))
  if _REPORT_JSON.value:
    safe_files.write_text(_REPORT_JSON.value, json.dumps(report.to_json(result), indent=1))
  return 0


if __name__ == "__main__":
  app.run(main, flags_parser=cli_flags.command_line_parser("localize"))
