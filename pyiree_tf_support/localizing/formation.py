"""One dispatch formation for two backends: traced vmfbs whose dispatches are the same.

Dispatch names and boundaries depend on the compile flags (f64 kept on the CPU targets, demoted
on Vulkan, gives different dispatches), so the suspect's flags form the dispatches once
(`--compile-to=flow`, with a trace op around every dispatch), the trusted backend's device
target is swapped into that flow IR, and both are compiled from it (`--compile-from=flow`) with
each executable's source dumped. Trace ops inside loops and branches need the regex form of
tracing (`-tensors` visits top-level dispatches only); when the flow IR has more dispatches than
traced boundaries the formation is redone with it, and when that cannot be (data-tiled
encodings) the module is not traceable. No device is touched here.

A big module (over SHARED_FRONTEND_ABOVE characters of text) is compiled up to dispatch creation
once (`compile_as_tested`): the module as tested is compiled from there, and so is the traced
formation (the trace ops are inserted after dispatch creation), so the input is parsed and
optimized once instead of twice (a ResNet50's 188 MB of text).
"""

import concurrent.futures
import dataclasses
import json
import os
import re
import threading
from typing import Dict, Optional, Sequence, Tuple, TYPE_CHECKING

from iree.compiler.tools import binaries as iree_binaries

from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import timeouts

if TYPE_CHECKING:  # for annotations only: the functions import it where they use it.
  from iree.compiler import ir

INPUT_TYPE = "stablehlo_xla"
TRACE_ALL_TOP_LEVEL = "--iree-flow-trace-dispatch-tensors"
TRACE_EVERY_REGION = "--iree-flow-trace-dispatch=.*"
# Keeps loc()s in the flow IR and the dumped sources: they lead back to iree_input.mlir lines.
DEBUG_INFO = "--mlir-print-debuginfo"
# The flow IR goes between compiles as bytecode: its text form does not always parse back in
# 3.13 (a trace of no tensors prints `= []`; a trace of dynamically shaped tensors with their
# dims fails with "expected 1 operands").
BYTECODE = "--emit-mlir-bytecode"
# Both traced modules record each call's buffers into its command buffers directly. With the
# default indirect (binding-table) command buffers, IREE 3.13's Vulkan HAL replays a reused
# command buffer with the buffers of the execution it was first recorded for in its copy
# commands, and the copies that hand a dispatch's inputs to the trace are such commands: at
# call 1 and later the trace read stale or reused buffers (false verdicts) while the results
# were right (e2e/repros/findings/vulkan_stale_command_buffer_copies). It changes no dispatch.
TRACED_MODULE_FLAGS: Tuple[str, ...] = ("--iree-hal-indirect-command-buffers=false",)
DEVICE = "__device_0"
# What the device target is read from (see form).
DEVICE_PROBE = """func.func @probe(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
# Up to this phase the module's compile for its backend and its traced formation run the same
# passes with the same flags (the trace ops come after it); each compiles on from its output.
FRONTEND_PHASE = "dispatch-creation"
# Text of more characters than this (a big module, saved as bytecode) shares its frontend:
# below it a further iree-compile start (0.3-0.5 s) costs more than parsing the input again.
SHARED_FRONTEND_ABOVE = artifacts.BYTECODE_ABOVE
FRONTEND_FILE = "frontend.mlirbc"
_DISPATCH_OP = re.compile(r"\bflow\.dispatch @")
_TRACE_OP = re.compile(r"\bflow\.tensor\.trace \"")


class NotTraceable(Exception):
  """The module's dispatches cannot all be traced with the flags in use; says why."""


class NoDispatch(NotTraceable):
  """The module has no dispatch: everything it does on the device is copies, fills, transfers."""


class FormationError(Exception):
  """iree-compile failed on a step of the formation: the message names the step and the error.
  `trusted_side`: the step was the trusted backend's own (its device target or its traced
  compile), so another trusted backend may do; otherwise no trusted backend can."""

  def __init__(self, message: str, trusted_side: bool = False):
    super().__init__(message)
    self.trusted_side = trusted_side


@dataclasses.dataclass(frozen=True)
class Side:
  """One backend's traced module: its vmfb and the directory of its executables' sources."""
  backend: str
  driver: str
  vmfb_path: str
  sources_dir: str
  compile_command: Tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Formation:
  """The shared flow IR and the two traced modules compiled from it."""
  flow_path: str
  trace_flag: str
  dispatches: int
  suspect: Side
  trusted: Optional[Side]  # None against the oracle (no IREE backend).

  @property
  def flow_bytecode(self) -> str:
    """The flow IR as bytecode (`flow_path` is its readable text), beside it."""
    return os.path.join(os.path.dirname(self.flow_path), "flow.mlirbc")


def compiler_tool() -> str:
  return os.path.normpath(iree_binaries.find_tool("iree-compile"))


def _targets(spec: backends.BackendSpec) -> Tuple[str, ...]:
  return tuple(f"--iree-hal-target-backends={target}" for target in spec.compiler_targets)


def _compile(args: Sequence[str], step: str, limit: Optional[float],
             trusted_side: bool = False) -> None:
  command = [compiler_tool(), *args]
  try:
    completed = iree_compile.run(command, b"", limit)
  except iree_compile.CompileTimeout:
    raise FormationError(f"{step}: iree-compile did not finish in {limit:g} s",
                         trusted_side) from None
  if completed.returncode != 0:
    lines = completed.stderr.decode("utf-8", "replace").splitlines()
    first = next((line for line in lines if "error:" in line), lines[0] if lines else "")
    raise FormationError(f"{step} failed: {first.strip()}", trusted_side)


# Constants of more elements than this are elided from the flow IR's text: it is for reading
# and counting ops, and a model's weights (100 MB of hex on a ResNet50) made both slow.
TEXT_ELEMENTS_LIMIT = 16


def _read_flow(path: str) -> str:
  """The flow IR in `path` (bytecode) as text with its locations, large constants elided, for
  reading and counting."""
  from iree.compiler import ir
  with ir.Context():
    with open(path, "rb") as f:
      module = ir.Module.parse(f.read())
    return module.operation.get_asm(enable_debug_info=True,
                                    large_elements_limit=TEXT_ELEMENTS_LIMIT,
                                    large_resource_limit=TEXT_ELEMENTS_LIMIT)


def _device_global(module: "ir.Module") -> "ir.OpView":
  from iree.compiler import ir
  for op in module.body.operations:
    if (op.operation.name == "util.global" and "sym_name" in op.attributes
        and ir.StringAttr(op.attributes["sym_name"]).value == DEVICE):
      return op
  raise FormationError(f"the flow IR has no @{DEVICE} target to swap")


def _swap_device(flow_path: str, device_path: str, out_path: str) -> None:
  """Writes `flow_path`'s IR with the @__device_0 target of `device_path`'s to `out_path`."""
  from iree.compiler import ir
  with ir.Context():
    with open(flow_path, "rb") as f:
      flow = ir.Module.parse(f.read())
    with open(device_path, "rb") as f:
      device = ir.Module.parse(f.read())
    _device_global(flow).attributes["initial_value"] = (
        _device_global(device).attributes["initial_value"])
    safe_files.write_with(out_path, flow.operation.write_bytecode)


def count_traces(flow: str) -> Tuple[int, int]:
  """(flow.dispatch ops, flow.tensor.trace ops) in a flow IR text."""
  return len(_DISPATCH_OP.findall(flow)), len(_TRACE_OP.findall(flow))


def _frontend_record(source_path: str, spec: backends.BackendSpec,
                     flags: Sequence[str]) -> dict:
  """What the shared frontend was compiled from and with: a rewritten source (another size,
  time or inode) or other flags make it stale."""
  status = os.stat(source_path)
  return {"source": [status.st_size, status.st_mtime_ns, status.st_ino],
          "targets": list(spec.compiler_targets), "flags": list(flags)}


def compile_as_tested(source_path: str, spec: backends.BackendSpec, flags: Sequence[str],
                      vmfb_path: str, limit: timeouts.Limit = timeouts.DEFAULT.compile) -> None:
  """Compiles the module in `source_path` for `spec` as a test does, into `vmfb_path`, in two
  steps: up to FRONTEND_PHASE into FRONTEND_FILE beside it (kept for `form`), then on from
  there. The vmfb is byte-identical to a one-step compile of the file (checked on llvm-cpu);
  FormationError says why not."""
  seconds = limit.seconds(os.path.getsize(source_path))
  shared = os.path.join(os.path.dirname(source_path), FRONTEND_FILE)
  safe_files.remove_tree(shared + ".json")
  _compile([source_path, f"--iree-input-type={INPUT_TYPE}", BYTECODE, *_targets(spec), *flags,
            f"--compile-to={FRONTEND_PHASE}", "-o", shared],
           f"compiling the module for {spec.name} up to {FRONTEND_PHASE}", seconds)
  _compile([shared, f"--compile-from={FRONTEND_PHASE}", f"--iree-input-type={INPUT_TYPE}",
            *_targets(spec), *flags, "-o", vmfb_path],
           f"compiling the module for {spec.name} from {FRONTEND_PHASE}", seconds)
  safe_files.write_text(shared + ".json", json.dumps(_frontend_record(source_path, spec, flags)))


def shared_frontend(source_path: str, spec: backends.BackendSpec,
                    flags: Sequence[str]) -> Optional[str]:
  """The frontend `compile_as_tested` left for this very source, backend and flags, or None."""
  shared = os.path.join(os.path.dirname(source_path), FRONTEND_FILE)
  try:
    with open(shared + ".json") as f:
      record = json.load(f)
  except (OSError, ValueError):
    return None
  return shared if record == _frontend_record(source_path, spec, flags) else None


def form_flow(iree_input_path: str, work_dir: str, suspect: backends.BackendSpec,
              suspect_flags: Sequence[str], seconds: Optional[float]) -> Tuple[str, str, int]:
  """The suspect's flow IR with a trace at every dispatch boundary in `work_dir`: (its
  readable text's path, the trace flag used, the dispatch count); NotTraceable says why not.
  From the shared frontend when `compile_as_tested` left one for this source and flags."""
  flow_path = os.path.join(work_dir, "flow.mlirbc")
  shared = shared_frontend(iree_input_path, suspect, suspect_flags)
  common = ([shared, f"--compile-from={FRONTEND_PHASE}"] if shared else [iree_input_path]) + [
      f"--iree-input-type={INPUT_TYPE}", BYTECODE]
  trace_flag = TRACE_ALL_TOP_LEVEL
  _compile(common + list(_targets(suspect)) + list(suspect_flags)
           + [trace_flag, "--compile-to=flow", "-o", flow_path],
           f"forming dispatches with {suspect.name}'s flags", seconds)
  flow = _read_flow(flow_path)
  dispatches, traces = count_traces(flow)
  if dispatches == 0:
    raise NoDispatch("the module has no dispatch to trace (no computation on the device)")
  if traces < 2 * dispatches:  # some dispatches sit inside loops or branches.
    if "#iree_encoding" in flow:
      raise NotTraceable(
          f"{dispatches - traces // 2} of {dispatches} dispatches sit inside control flow, "
          "where only --iree-flow-trace-dispatch=<regex> traces, and it cannot trace the "
          "data-tiled encodings these flags produce")
    trace_flag = TRACE_EVERY_REGION
    _compile(common + list(_targets(suspect)) + list(suspect_flags)
             + [trace_flag, "--compile-to=flow", "-o", flow_path],
             f"forming dispatches with {suspect.name}'s flags, tracing inside control flow",
             seconds)
    flow = _read_flow(flow_path)
  readable_path = os.path.join(work_dir, "flow.mlir")
  safe_files.write_text(readable_path, flow)
  return readable_path, trace_flag, dispatches


def compile_side(role: str, spec: backends.BackendSpec, flags: Sequence[str], flow_path: str,
                 work_dir: str, seconds: Optional[float]) -> Side:
  """One backend's traced module compiled from the flow IR at `flow_path` (bytecode)."""
  vmfb_path = os.path.join(work_dir, f"{role}.vmfb")
  sources = os.path.join(work_dir, f"sources_{role}")
  args = [flow_path, "--compile-from=flow", DEBUG_INFO, *_targets(spec), *flags,
          *TRACED_MODULE_FLAGS, f"--iree-hal-dump-executable-sources-to={sources}",
          "-o", vmfb_path]
  _compile(args, f"compiling the traced module for {spec.name} ({role})", seconds,
           trusted_side=role == "trusted")
  return Side(spec.name, spec.driver, vmfb_path, sources, (compiler_tool(), *args))


# Formations started ahead of their `form` call (`start_early`), by their arguments.
_early: Dict[tuple, "concurrent.futures.Future[Formation]"] = {}
_early_lock = threading.Lock()


def _early_key(iree_input_path: str, work_dir: str, suspect: backends.BackendSpec,
               suspect_flags: Sequence[str], trusted: Optional[backends.BackendSpec],
               trusted_flags: Sequence[str]) -> tuple:
  return (os.path.abspath(iree_input_path), os.path.abspath(work_dir), suspect.name,
          tuple(suspect_flags), trusted.name if trusted else None, tuple(trusted_flags))


def start_early(iree_input_path: str, work_dir: str, suspect: backends.BackendSpec,
                suspect_flags: Sequence[str], trusted: backends.BackendSpec,
                trusted_flags: Sequence[str],
                limit: timeouts.Limit = timeouts.DEFAULT.compile) -> None:
  """Starts `form` with these arguments on a thread of its own; the `form` call with the same
  arguments then takes its result (or its exception). Why: the formation does not depend on
  the run of the module as tested, which can take seconds on a big model (a child process
  loading 94 MB of vmfb), so the two overlap. `settle_early` waits for one never taken."""
  key = _early_key(iree_input_path, work_dir, suspect, suspect_flags, trusted, trusted_flags)
  pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
  future = pool.submit(form, iree_input_path, work_dir, suspect, suspect_flags, trusted,
                       trusted_flags, limit)
  pool.shutdown(wait=False)
  with _early_lock:
    _early[key] = future


def settle_early() -> None:
  """Waits for the formations started early and never taken, and forgets them (their files
  stay in their work dir, as a finished `form`'s do)."""
  with _early_lock:
    futures = list(_early.values())
    _early.clear()
  concurrent.futures.wait(futures)


def form(iree_input_path: str, work_dir: str, suspect: backends.BackendSpec,
         suspect_flags: Sequence[str], trusted: Optional[backends.BackendSpec],
         trusted_flags: Sequence[str],
         limit: timeouts.Limit = timeouts.DEFAULT.compile,
         suspect_from: Optional[Formation] = None) -> Formation:
  """Forms the dispatches with the suspect's flags and compiles both traced modules into
  `work_dir` (only the suspect's when `trusted` is None: the oracle is no IREE backend);
  NotTraceable or FormationError say why not. Started early (`start_early`), its result.
  `suspect_from`: a formation of the same source with the same suspect and flags (another
  trusted backend's), whose flow IR and traced suspect are taken as they are: only `trusted`'s
  side is compiled (a localization that tries every backend and then the oracle formed the
  suspect three times: 2.0 of bench 7o's 5.0 s)."""
  with _early_lock:
    future = _early.pop(_early_key(iree_input_path, work_dir, suspect, suspect_flags, trusted,
                                   trusted_flags), None) if suspect_from is None else None
  if future is not None:
    return future.result()
  seconds = limit.seconds(os.path.getsize(iree_input_path))
  if suspect_from is not None:
    if trusted is None:
      return dataclasses.replace(suspect_from, trusted=None)
    return dataclasses.replace(suspect_from, trusted=_trusted_side(
        iree_input_path, work_dir, suspect_from.flow_bytecode, trusted, trusted_flags, seconds))
  readable_path, trace_flag, dispatches = form_flow(iree_input_path, work_dir, suspect,
                                                    suspect_flags, seconds)
  flow_path = os.path.join(work_dir, "flow.mlirbc")
  if trusted is None:
    return Formation(readable_path, trace_flag, dispatches,
                     compile_side("suspect", suspect, suspect_flags, flow_path, work_dir,
                                  seconds), None)
  # The two traced compiles are independent: side by side, the slower one sets the time.
  with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
    trusted_side = pool.submit(_trusted_side, iree_input_path, work_dir, flow_path, trusted,
                               trusted_flags, seconds)
    suspect_side = compile_side("suspect", suspect, suspect_flags, flow_path, work_dir,
                                seconds)
    return Formation(readable_path, trace_flag, dispatches, suspect_side, trusted_side.result())


def _trusted_side(iree_input_path: str, work_dir: str, flow_path: str,
                  trusted: backends.BackendSpec, trusted_flags: Sequence[str],
                  seconds: Optional[float]) -> Side:
  """`trusted`'s traced module in `work_dir`, compiled from the suspect's flow IR at
  `flow_path` with the device target swapped for the trusted backend's."""
  common = [iree_input_path, f"--iree-input-type={INPUT_TYPE}", BYTECODE]
  device_path = os.path.join(work_dir, "trusted_device.mlirbc")
  # The device target comes from the backend and its flags, not from the module: a one-op
  # module gives it in a fraction of the module's compile (2.5 s of a ResNet50's); the module
  # itself is the fallback should the flags refuse the probe.
  probe_path = os.path.join(work_dir, "device_probe.mlir")
  safe_files.write_text(probe_path, DEVICE_PROBE)
  for source in (probe_path, iree_input_path):
    try:
      _compile([source, *common[1:], *_targets(trusted), *trusted_flags,
                "--compile-to=flow", "-o", device_path],
               f"finding {trusted.name}'s device target", seconds, trusted_side=True)
      break
    except FormationError:
      if source == iree_input_path:
        raise
  trusted_flow_path = os.path.join(work_dir, "flow_trusted.mlirbc")
  _swap_device(flow_path, device_path, trusted_flow_path)
  return compile_side("trusted", trusted, trusted_flags, trusted_flow_path, work_dir, seconds)
