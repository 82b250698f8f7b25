"""Replays a saved reference trace against IREE backends and tflite, without TensorFlow.

  python -m pyiree_tf_support.replay <artifacts>/<Module>/traces/<trace>__tf_ref \\
      --target_backends=iree_vmla,iree_llvmjit

The module's iree_input.mlir and signatures.json (saved next to traces/) are compiled for each
target (through the compile cache; in a bundle, see `bundle`, its compiled vmfbs run instead, and
neither the compiler nor TensorFlow is imported, unless --recompile) and every call of the trace
is made again, in order, on one module instance, so each call sees the state the earlier ones
left; the report is the one a live run prints. Only a reference trace whose files belong together
is replayed (see `replay_input`). In a bundle, --target_backends defaults to every bundled
backend, and a call of a method a backend's bundle lacks (it did not compile) is that backend's
COMPILE ERROR naming it, as in a test run. On tflite the models a test run wrote
(`<Module>/tflite/`) run in LiteRT's interpreter (`ai-edge-litert`, which needs no TensorFlow;
without it replay says so and exits 2); a method that did not convert is that backend's COMPILE
ERROR naming the converter's first cause. Quiet unless --verbose; --help lists replay's flags.
Exit status: 0 all passed, 1 a backend failed, 2 input replay does not trust (one line on stderr).
"""

import dataclasses
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

from absl import app
from absl import flags

from pyiree_tf_support import bundle
from pyiree_tf_support import cli_flags
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import run_trace
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.compiling import mlir_files
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.compiling.vmfb_cache import CompileCacheError
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core import tflite_layout
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.core import verbosity
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.reporting import replay_input
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.replay_input import ReplayError
from pyiree_tf_support.reporting.replay_input import ReplayInput
from pyiree_tf_support.runtime import loading
from pyiree_tf_support.runtime import tflite_modules

__all__ = ["ReplayError", "ReplayInput", "ReplayModule", "main", "replay", "replay_loaded",
           "replay_trace"]

USAGE = ("python -m pyiree_tf_support.replay <artifacts>/<Module>/traces/<trace>__tf_ref "
         "[--target_backends=a,b]")

_RECOMPILE = flags.DEFINE_bool(
    "recompile", False, "In a bundle: compile iree_input.mlir instead of running its vmfbs.")
# The library's flags replay reads: --help lists them with its own, --helpfull everything.
for _name in ("target_backends", "tolerances", "compile_cache", "compile_cache_dir",
              "compile_timeout", "load_timeout", "call_timeout", "verbose"):
  flags.declare_key_flag(_name)


class MethodNotCompiledError(RuntimeError):
  """A call of a method a bundle lacks for this backend because it did not compile there."""


def _raise(error: Exception) -> Any:
  raise error


class ReplayModule:
  """A compiled module called by method name, like the modules a live trace sees."""

  def __init__(self, loaded: loading.LoadedModule, signatures: Dict[str, FunctionSignature],
               module_name: str, backend: str, backend_names: Sequence[str],
               absent: Optional[Dict[str, str]] = None):
    self._loaded = loaded
    self._absent = dict(absent or {})
    self._signatures = signatures
    self.module_name = module_name
    self.backend = backend
    self.backend_names = tuple(backend_names)

  def __getattr__(self, name: str) -> Any:
    if name.startswith("_") or name not in self._signatures:
      raise AttributeError(f"Module '{self.module_name}' has no exported function '{name}'.")
    if name in self._absent:  # raised by the call, so the report names the call.
      return lambda *args, **kwargs: _raise(MethodNotCompiledError(self.absent_error(name)))
    signature = self._signatures[name]
    return lambda *args, **kwargs: loading.call_function(
        self._loaded, signature, self.module_name, args, kwargs)

  def absent_error(self, method: Optional[str]) -> Optional[str]:
    """Why `method` is not in this module (it did not compile for this backend), or None."""
    if method not in self._absent:
      return None
    return f"method '{method}' did not compile for {self.backend}: {self._absent[method]}"


def _target_specs(target_backends: Sequence[str]) -> List[backends.BackendSpec]:
  """The IREE backends to replay on; KeyError / ReplayError naming a name that is not one."""
  specs = [backends.lookup(name) for name in target_backends]
  for name, spec in zip(target_backends, specs):
    if not spec.is_iree and not spec.is_tflite:
      raise ReplayError(f"Replay runs IREE backends and tflite; '{name}' needs TensorFlow. "
                        f"Valid: {', '.join(n for n in backends.valid_names() if n != 'tf')}.")
  return specs


def replay(trace_dir: str, target_backends: Sequence[str],
           cache: Optional[CompileCache] = None,
           policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
           ) -> List[verdicts.Outcome]:
  """Replays the reference trace saved in `trace_dir` on each target backend, comparing under
  `policy`; their outcomes.

  ReplayError (before anything is compiled) when the saved files cannot be trusted.
  """
  return replay_loaded(replay_input.load(trace_dir, mlir_files.text), target_backends, cache,
                       policy)


def replay_loaded(loaded: ReplayInput, target_backends: Sequence[str],
                  cache: Optional[CompileCache] = None,
                  policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY,
                  recompile: bool = False,
                  limits: timeouts.Timeouts = timeouts.DEFAULT,
                  extra_flags: compile_flags.Entries = ()) -> List[verdicts.Outcome]:
  """Replays an already checked reference trace on each target backend: a bundle's compiled
  vmfbs (BundleError if one is missing or changed) unless `recompile`; `limits` bound each
  compile, load and call; `extra_flags` (--iree_compile_flags) are added to a recompile's."""
  names = backends.indexed_names(list(target_backends))
  specs = [dataclasses.replace(spec, compiler_flags=spec.compiler_flags
                               + compile_flags.for_backend(extra_flags,
                                                           (artifact, backend, spec.name)))
           for spec, artifact, backend in zip(_target_specs(target_backends), names,
                                              target_backends)]
  module_dir = os.path.dirname(os.path.dirname(loaded.trace_dir))
  bundled = [None if recompile or spec.is_tflite else bundle.compiled_vmfb(module_dir, n)
             for n, spec in zip(target_backends, specs)]
  tflite = {n: _tflite_module(module_dir, loaded.signatures,
                             trace_io.content_sha256(loaded.saved_iree_input))
            for n, spec in zip(target_backends, specs) if spec.is_tflite}
  return [replay_trace(loaded.reference, spec, artifact_name, (artifact_name, backend_name),
                     loaded.iree_input, loaded.signatures, cache, policy, vmfb, limits,
                     {} if vmfb is None else bundle.absent_methods(module_dir, backend_name))
          if not spec.is_tflite else
          _replay_on(tflite[backend_name][0], ref_trace=loaded.reference, spec=spec,
                     name=artifact_name, backend_names=(artifact_name, backend_name),
                     signatures=loaded.signatures, policy=policy,
                     absent=tflite[backend_name][1])
          for backend_name, artifact_name, spec, vmfb
          in zip(target_backends, names, specs, bundled)]


def _tflite_module(module_dir: str, signatures: Dict[str, FunctionSignature],
                   iree_input_sha256: str) -> Tuple[tflite_modules.TfLiteModule, Dict[str, str]]:
  """The tflite models a test run wrote beside the trace, and why each missing method is
  missing; ReplayError without LiteRT's interpreter (the TensorFlow-free one) or the models."""
  interpreter = tflite_modules.litert_interpreter_class()
  if interpreter is None:
    raise ReplayError("Replaying on tflite needs LiteRT's interpreter, which runs without "
                      "TensorFlow (pip install ai-edge-litert); tf.lite's needs TensorFlow, "
                      "which replay never imports.")
  conversions = tflite_layout.read_conversions(module_dir)
  if conversions is None:
    raise ReplayError(f"{tflite_layout.tflite_dir(module_dir)} holds no converted models: run "
                      "the test with --target_backends=tflite,<an IREE backend> first (it "
                      "writes them there).")
  if conversions.iree_input_sha256 != iree_input_sha256:
    raise ReplayError(f"The models in {tflite_layout.tflite_dir(module_dir)} are not of the "
                      "module the trace was recorded with (converted in another run): re-run "
                      "the test with tflite and an IREE backend to save matching artifacts.")
  models, absent = {}, {}
  for method in signatures:
    path = tflite_layout.model_path(module_dir, method)
    cause = conversions.methods.get(method)
    if cause:
      absent[method] = f"{cause} (the TFLite converter)"
    elif method not in conversions.methods or not os.path.isfile(path):
      absent[method] = f"no TFLite model of it was written ({path})"
    else:
      with open(path, "rb") as f:
        models[method] = f.read()
  return tflite_modules.TfLiteModule(models, interpreter), absent


def replay_trace(ref_trace: Trace, spec: backends.BackendSpec, name: str, backend_names,
                 iree_input: str, signatures, cache,
                 policy: tolerances.TolerancePolicy,
                 vmfb: Optional[bytes] = None,
                 limits: timeouts.Timeouts = timeouts.DEFAULT,
                 absent: Optional[Dict[str, str]] = None) -> verdicts.Outcome:
  """The outcome of `ref_trace`'s calls made again on backend `spec` (artifact name `name`) from
  `iree_input` compiled (or `vmfb`): what replay reports, and what a reduction asks of each
  smaller program it tries."""
  available, reason = loading.driver_available(spec.driver)
  if not available:
    return verdicts.Outcome(name, verdicts.Status.SKIPPED, reason)
  if vmfb is None:
    vmfb, failure = _compile(ref_trace, spec, name, iree_input, cache, limits.compile)
    if failure is not None:
      return failure
    assert vmfb is not None  # _compile gives the vmfb or the failure.
  try:
    loaded = loading.load_module(vmfb, spec.driver, isolated=spec.isolated, limits=limits)
  except Exception as e:
    # The vmfb is the one compiled or bundled for this backend: its runtime's verdict.
    return verdicts.Outcome(name, verdicts.Status.RUNTIME_ERROR,
                             f"loading the compiled module raised {type(e).__name__}: {e}")
  return _replay_on(loaded, ref_trace=ref_trace, spec=spec, name=name,
                    backend_names=backend_names, signatures=signatures, policy=policy,
                    absent=absent)


def _replay_on(loaded: loading.LoadedModule, *, ref_trace: Trace, spec: backends.BackendSpec,
               name: str, backend_names, signatures, policy: tolerances.TolerancePolicy,
               absent: Optional[Dict[str, str]]) -> verdicts.Outcome:
  """The outcome of `ref_trace`'s calls made again on `loaded` (closed at the end)."""
  try:
    module = ReplayModule(loaded, signatures, ref_trace.module_name, name,
                          backend_names + (spec.name,), absent)

    def replay_calls(traced):
      for call in ref_trace.calls:
        getattr(traced, call.method)(*call.inputs, rtol=call.given_rtol, atol=call.given_atol,
                                      **call.kwargs)

    trace, error = run_trace(module, replay_calls, function_name=ref_trace.function_name,
                             reference=ref_trace)
    not_compiled = module.absent_error(trace.pending_method) if error else None
    if not_compiled:  # as a test run reports it: that backend's compile error, naming the method.
      return verdicts.Outcome(name, verdicts.Status.COMPILE_ERROR,
                               f"call {len(trace.calls)} ({trace.pending_method}): {not_compiled}")
    return verdicts.evaluate(ref_trace, trace, error, tolerance_policy=policy)
  finally:
    loaded.close()


def _compile(ref_trace: Trace, spec: backends.BackendSpec, name: str, iree_input: str, cache,
             limit: timeouts.Limit) -> Tuple[Optional[bytes], Optional[verdicts.Outcome]]:
  """(vmfb, None), or (None, the COMPILE_ERROR outcome). Imports the compiler only here."""
  try:
    from pyiree_tf_support.compiling import compiler
    from pyiree_tf_support.compiling import mlir_functions
  except ImportError as e:  # a runtime-only machine: only a bundle's vmfbs can run there.
    raise ReplayError(f"Compiling {name} needs IREE's compiler (iree-base-compiler), which this "
                      f"Python cannot import ({e}); replay a bundle's compiled vmfbs without "
                      "--recompile, or install iree-base-compiler.") from None
  request = compiler.CompileRequest(iree_input, spec.compiler_targets, spec.compiler_flags)
  try:
    vmfb = compiler.compile_request(request, f"module '{ref_trace.module_name}' for {name}",
                                    cache=cache, timeout=limit)
  except compiler.CompileTimeoutError as e:
    return None, verdicts.Outcome(name, verdicts.Status.COMPILE_ERROR, str(e))
  except compiler.CompileError as e:
    try:  # as the test run did: the methods that compile, here the ones the trace calls.
      vmfb = compiler.compile_request(
          dataclasses.replace(request, iree_input=mlir_functions.only_exporting(
              iree_input, sorted({call.method for call in ref_trace.calls}))),
          f"the traced methods of module '{ref_trace.module_name}' for {name}", cache=cache,
          timeout=limit)
    except (compiler.CompileError, ValueError):
      return None, verdicts.Outcome(name, verdicts.Status.COMPILE_ERROR, str(e))
  return vmfb, None


def main(argv: Sequence[str]) -> int:
  verbosity.apply(cli_flags.verbose())  # IREE's tool invocations only with --verbose.
  if len(argv) != 2:
    print(f"usage: {USAGE} (--help for its flags)", file=sys.stderr)
    return 2
  try:
    policy = cli_flags.tolerance_policy()
    loaded = replay_input.load(argv[1], mlir_files.text)
    targets = cli_flags.target_backend_names() or _bundled_targets(loaded)
    _target_specs(targets)
  except (ValueError, KeyError) as e:  # ReplayError, a bad --tolerances entry, unknown backend.
    message = e.args[0] if isinstance(e, KeyError) else str(e)
    print("replay: " + str(message).replace("\n", " "), file=sys.stderr)
    return 2
  try:
    outcomes = replay_loaded(loaded, targets, cli_flags.compile_cache_from_flags(), policy,
                             recompile=_RECOMPILE.value, limits=cli_flags.timeouts_from_flags(),
                             extra_flags=compile_flags.parse(
                                 cli_flags.value("iree_compile_flags")))
  except (bundle.BundleError, ReplayError, CompileCacheError) as e:
    print(f"replay: {e}", file=sys.stderr)
    return 2
  print(verdicts.format_report(loaded.reference.function_name, loaded.reference.backend,
                                outcomes))
  return 1 if any(o.status.failed for o in outcomes) else 0


def _bundled_targets(loaded: ReplayInput) -> List[str]:
  """Without --target_backends: every backend of the trace's bundle; ReplayError outside one."""
  targets = bundle.bundled_backends(os.path.dirname(os.path.dirname(loaded.trace_dir)))
  if not targets:
    raise ReplayError("--target_backends is required outside a bundle (IREE backends, e.g. "
                      "iree_vmla,iree_llvmjit); in a bundle it defaults to the bundled ones.")
  return targets


if __name__ == "__main__":
  app.run(main, flags_parser=cli_flags.command_line_parser("replay"))
