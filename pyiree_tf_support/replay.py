"""Replays a saved reference trace against IREE backends, without TensorFlow.

  python -m pyiree_tf_support.replay <artifacts>/<Module>/traces/<trace>__<backend> \\
      --target_backends=iree_vmla,iree_llvmjit

The module's iree_input.mlir and signatures.json (saved next to traces/) are compiled for each
target (through the compile cache) and every call of the trace is made again and compared; the
report is the one a live run prints. Exit status: 0 all passed, 1 a backend failed, 2 bad input.
"""

import os
import sys
from typing import Any, Dict, List, Optional, Sequence

from absl import app

from pyiree_tf_support import artifacts
from pyiree_tf_support import backends
from pyiree_tf_support import cli_flags
from pyiree_tf_support import compiler
from pyiree_tf_support import reporting
from pyiree_tf_support import runtime
from pyiree_tf_support import tolerances
from pyiree_tf_support import trace_io
from pyiree_tf_support.compile_cache import CompileCache
from pyiree_tf_support.signatures import FunctionSignature, signatures_from_json
from pyiree_tf_support.traces import Trace, run_trace


class ReplayError(ValueError):
  """Bad replay input: the message names what was wrong."""


class ReplayModule:
  """A compiled module called by method name, like the modules a live trace sees."""

  def __init__(self, loaded: runtime.LoadedModule, signatures: Dict[str, FunctionSignature],
               module_name: str, backend: str, backend_names: Sequence[str]):
    self._loaded = loaded
    self._signatures = signatures
    self.module_name = module_name
    self.backend = backend
    self.backend_names = tuple(backend_names)

  def __getattr__(self, name: str) -> Any:
    if name.startswith("_") or name not in self._signatures:
      raise AttributeError(f"Module '{self.module_name}' has no exported function '{name}'.")
    signature = self._signatures[name]
    return lambda *args, **kwargs: runtime.call_function(
        self._loaded, signature, self.module_name, args, kwargs)


def _read(path: str, what: str) -> str:
  try:
    with open(path) as f:
      return f.read()
  except OSError as e:
    raise ReplayError(f"Cannot read the module's {what} at {path}: {e.strerror}.") from None


def replay(trace_dir: str, target_backends: Sequence[str],
           cache: Optional[CompileCache] = None,
           policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
           ) -> List[reporting.Outcome]:
  """Replays the trace saved in `trace_dir` on each target backend, comparing under `policy`;
  returns their outcomes."""
  if not os.path.isfile(os.path.join(trace_dir, "trace.json")):
    raise ReplayError(f"No saved trace in {trace_dir}: expected trace.json and arrays.npz "
                      "(a directory under <artifacts_dir>/<Module>/traces/).")
  ref_trace = trace_io.load_trace(trace_dir)
  module_dir = os.path.dirname(os.path.dirname(os.path.abspath(trace_dir)))
  iree_input = _read(os.path.join(module_dir, "iree_input.mlir"), "iree_input.mlir")
  signatures = signatures_from_json(_read(artifacts.signatures_path(module_dir), "signatures"))
  names = backends.indexed_names(list(target_backends))
  outcomes = []
  for backend_name, artifact_name in zip(target_backends, names):
    spec = backends.lookup(backend_name)
    if not spec.is_iree:
      raise ReplayError(f"Replay runs IREE backends only; '{backend_name}' needs TensorFlow. "
                        f"Valid: {', '.join(n for n in backends.valid_names() if n != 'tf')}.")
    outcomes.append(_replay_on(ref_trace, spec, artifact_name, (artifact_name, backend_name),
                               iree_input, signatures, cache, policy))
  return outcomes


def _replay_on(ref_trace: Trace, spec: backends.BackendSpec, name: str, backend_names,
               iree_input: str, signatures, cache,
               policy: tolerances.TolerancePolicy) -> reporting.Outcome:
  available, reason = runtime.driver_available(spec.driver)
  if not available:
    return reporting.Outcome(name, reporting.Status.SKIPPED, reason)
  request = compiler.CompileRequest(iree_input, spec.compiler_targets, spec.compiler_flags)
  try:
    vmfb = compiler.compile_request(request, f"module '{ref_trace.module_name}' for {name}",
                                    cache=cache)
  except compiler.CompileError as e:
    return reporting.Outcome(name, reporting.Status.COMPILE_ERROR, str(e))
  loaded = runtime.load_module(vmfb, spec.driver, isolated=spec.isolated)
  try:
    module = ReplayModule(loaded, signatures, ref_trace.module_name, name,
                          backend_names + (spec.name,))

    def replay_calls(traced):
      for call in ref_trace.calls:
        getattr(traced, call.method)(*call.inputs, rtol=call.rtol, atol=call.atol, **call.kwargs)

    trace, error = run_trace(module, replay_calls, function_name=ref_trace.function_name)
    return reporting.evaluate(ref_trace, trace, error, tolerance_policy=policy)
  finally:
    loaded.close()


def main(argv: Sequence[str]) -> int:
  if len(argv) != 2:
    print("usage: python -m pyiree_tf_support.replay <saved trace dir> --target_backends=a,b",
          file=sys.stderr)
    return 2
  targets = cli_flags.value("target_backends")
  if not targets:
    print("replay: --target_backends is required (IREE backends, e.g. iree_vmla,iree_llvmjit).",
          file=sys.stderr)
    return 2
  try:
    outcomes = replay(argv[1], targets, cli_flags.compile_cache_from_flags(),
                      cli_flags.tolerance_policy())
  except (ReplayError, KeyError) as e:
    print(f"replay: {e.args[0] if isinstance(e, KeyError) else e}", file=sys.stderr)
    return 2
  ref = trace_io.load_trace(argv[1])
  print(reporting.format_report(ref.function_name, ref.backend, outcomes))
  return 1 if any(o.status.failed for o in outcomes) else 0


if __name__ == "__main__":
  app.run(main)
