"""Trace records: every call a trace function makes on one backend, its inputs and outputs.

`ModuleCall` and `Trace` are plain records; `TracedModule` wraps a compiled module and records
each call. Comparing two traces returns mismatch records from `comparison`.
"""

import dataclasses
import inspect
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import recorded_values
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import trace_text
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import colocation
from pyiree_tf_support.core import faults
from pyiree_tf_support.core.signatures import FunctionSignature

NUMPY_LINEWIDTH = trace_text.NUMPY_LINEWIDTH  # 2020's tf_test_utils.NUMPY_LINEWIDTH.


DEFAULT_RTOL = 1e-6
DEFAULT_ATOL = 1e-6


def _as_output_tuple(result: Any) -> Tuple[Any, ...]:
  """2020's `outputs`: () for no result, the tuple itself for a tuple, else a 1-tuple."""
  if result is None:
    return ()
  return result if isinstance(result, tuple) else (result,)


class ModuleCall:
  """One call: method name, inputs and outputs (deep copies), and per-call tolerances.

  The 2020 record: `inputs` is the tuple of positional arguments, `outputs` always a tuple and
  `rtol`/`atol` default to 1e-6. `result` keeps what the method returned, unwrapped, so that
  mismatch messages can say `outputs['logits']` rather than `outputs[0]['logits']`. Whether the
  user gave a tolerance is kept too (`given_rtol`/`given_atol`, None when not): only then does it
  override the per-dtype table (float16 1e-3, ...); the 1e-6 defaults are what 2020 reported.
  Given the `reference` backend's record of the same call, arrays equal to its bit for bit are
  shared with it instead of copied (`recorded_values`). `copy_values=False` keeps the values
  given, which are the record's own already: a loaded trace's arrays, mapped from its file (a
  copy of each was 2 T of a trace of one input and one output of T bytes).
  """

  def __init__(self, method_name: str, inputs: Sequence[Any], outputs: Any,
               rtol: Optional[float] = None, atol: Optional[float] = None,
               kwargs: Optional[Dict[str, Any]] = None,
               reference: Optional["ModuleCall"] = None, copy_values: bool = True):
    self.method = method_name
    if not copy_values:  # the record's own values already (a loaded trace's: read-only, mapped).
      self.inputs, self.kwargs, self.result = tuple(inputs), dict(kwargs or {}), outputs
    else:
      ref = (reference.inputs, reference.kwargs, reference.result) if reference else (
          recorded_values.NOTHING,) * 3
      self.inputs = recorded_values.record(tuple(inputs), ref[0])
      self.kwargs = recorded_values.record(dict(kwargs or {}), ref[1])
      self.result = recorded_values.record(outputs, ref[2])
    self.outputs = _as_output_tuple(self.result)  # shares the arrays of `result`.
    self.given_rtol = rtol
    self.given_atol = atol

  @property
  def rtol(self) -> float:
    return DEFAULT_RTOL if self.given_rtol is None else self.given_rtol

  @property
  def atol(self) -> float:
    return DEFAULT_ATOL if self.given_atol is None else self.given_atol

  def get_tolerances(self) -> Tuple[float, float]:
    """(rtol, atol): the ones given to the call, else 2020's 1e-6 defaults."""
    return self.rtol, self.atol

  def tolerance_fn(self, backend_names: Sequence[str] = (),
                   policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
                   ) -> comparison.ToleranceFn:
    """Per dtype: the tolerances given to this call, else the policy's table for the backend."""
    return lambda dtype: policy.for_dtype(dtype, backend_names, self.given_rtol, self.given_atol)

  def format(self, summarize: bool = True) -> str:
    """The call as text: arrays over 64 elements summarized, or whole (see `trace_text`)."""
    return trace_text.format_call(self, summarize)

  def __str__(self) -> str:
    return self.format()

  def __repr__(self) -> str:
    return f"ModuleCall({self.method!r})"


def _indent(text: str, prefix: str = "  ") -> str:
  return "\n".join(prefix + line for line in text.splitlines())


def _source_of(function: Optional[Callable]
               ) -> Tuple[Optional[str], Optional[Tuple[int, int]], str]:
  """(file, (first line, one past the last), source) of a trace function, where Python knows it."""
  if function is None:
    return None, None, ""
  try:
    lines, first = inspect.getsourcelines(function)
    return inspect.getsourcefile(function), (first, first + len(lines)), "".join(lines)
  except (TypeError, OSError):  # built-ins, lambdas typed at a prompt, replayed traces.
    return None, None, ""


class Trace:
  """The calls one trace function made on one backend's module; iterating yields the calls."""

  def __init__(self, module: Any = None, function: Optional[Callable] = None,
               module_name: Optional[str] = None, backend: Optional[str] = None,
               function_name: Optional[str] = None, backend_names: Sequence[str] = ()):
    self.module_name = (module_name if module_name is not None
                        else getattr(module, "module_name", ""))
    self.backend = backend if backend is not None else getattr(module, "backend", "")
    self.function_name = (function_name if function_name is not None
                          else getattr(function, "__name__", ""))
    (self.function_sourcefile, self.function_line_numbers,
     self.function_source) = _source_of(function) if function is not None else (None, None, "")
    info = getattr(module, "backend_info", None)
    self.backend_names = (tuple(backend_names) or (info.names() if info else ())
                          or tuple(getattr(module, "backend_names", ())) or (self.backend,))
    self.calls: List[ModuleCall] = []
    self.pending_method: Optional[str] = None  # the call in progress, named if it raises.

  def __iter__(self) -> Iterator[ModuleCall]:
    return iter(self.calls)

  def __str__(self) -> str:
    return self.format()

  def format(self, summarize: bool = True, complete_values: Optional[str] = None,
             keep_calls: Sequence[int] = ()) -> str:
    """The trace as text; `complete_values` names where a summary's whole arrays are."""
    return trace_text.format_trace(self, summarize, complete_values, keep_calls)

  def save_plaintext(self, artifacts_dir: str, summarize: bool = True,
                     complete_values: Optional[str] = None,
                     keep_calls: Sequence[int] = ()) -> str:
    """Writes <artifacts_dir>/traces/<function>__<backend>.txt (as 2020 did); returns its path.

    Summarized (2020's default) it is a few KiB whatever the arrays hold, and a trace of over
    100 calls shows the first and last 10 and `keep_calls`; `complete_values` names the file
    with every value, which the text then points to.
    """
    path = artifacts.trace_path(artifacts_dir, self.function_name, self.backend)
    trace_text.save(self, path, summarize, complete_values, keep_calls)
    return path

  @staticmethod
  def compare_traces(ref_trace: "Trace", tar_trace: "Trace") -> bool:
    """True when every call of `tar_trace` matches `ref_trace`.

    ValueError when the traces differ in their list of (method, rtol, atol): then the trace
    function is not deterministic and comparing values would be meaningless.
    """
    ref_calls = [(call.method, call.rtol, call.atol) for call in ref_trace]
    tar_calls = [(call.method, call.rtol, call.atol) for call in tar_trace]
    if ref_calls != tar_calls:
      raise ValueError(
          f"Trace '{tar_trace.function_name}' made different calls (method, rtol, atol) on "
          f"backend '{tar_trace.backend}' ({tar_calls}) than on '{ref_trace.backend}' "
          f"({ref_calls}); trace functions must be deterministic.")
    return not compare_calls(ref_trace, tar_trace)

  @staticmethod
  def _check_same(ref: Any, tar: Any, rtol: float = DEFAULT_RTOL,
                  atol: float = DEFAULT_ATOL) -> bool:
    """2020's rules: same types and structure; floats within rtol/atol (NaN != NaN); else exact.

    `compare_backends` uses `comparison` instead, which explains every mismatch and treats NaN
    in the same place as equal; this stays for code written against 2020.
    """
    return check_same_2020(ref, tar, rtol, atol)


def check_same_2020(ref: Any, tar: Any, rtol: float, atol: float) -> bool:
  """True when `tar` equals `ref` by the 2020 rules; TypeError for a value of another kind."""
  if not isinstance(tar, type(ref)):
    return False
  if ref is None:
    return True
  if isinstance(ref, dict):
    return ref.keys() == tar.keys() and all(
        check_same_2020(ref[key], tar[key], rtol, atol) for key in ref)
  if isinstance(ref, (list, tuple)):
    return len(ref) == len(tar) and all(
        check_same_2020(r, t, rtol, atol) for r, t in zip(ref, tar))
  if isinstance(ref, (np.ndarray, np.generic)):  # numpy scalars too, a superset of 2020.
    if ref.dtype != tar.dtype or np.shape(ref) != np.shape(tar):
      return False
    if np.issubdtype(ref.dtype, np.inexact):
      return bool(np.allclose(ref, tar, rtol=rtol, atol=atol))
    return bool(np.array_equal(ref, tar))
  if isinstance(ref, (int, float, str, bytes)):
    return bool(ref == tar)
  raise TypeError(f"Cannot compare values of type {type(ref).__name__}: expected dicts, lists, "
                  "tuples, numpy arrays or Python scalars.")


@dataclasses.dataclass(frozen=True)
class CallMismatch:
  """The mismatches of one call of a target trace against the reference."""
  index: int
  method: str
  mismatches: Sequence[comparison.Mismatch]

  def describe(self, limit: int = 10) -> str:
    return (f"call {self.index} ({self.method}):\n"
            + _indent(comparison.describe_all(list(self.mismatches), limit)))


def check_same_calls(ref_trace: Trace, tar_trace: Trace) -> None:
  """ValueError when the traces did not make the same calls in the same order."""
  ref_methods = [call.method for call in ref_trace.calls]
  tar_methods = [call.method for call in tar_trace.calls]
  if ref_methods != tar_methods:
    raise ValueError(
        f"Trace '{tar_trace.function_name}' made different calls on backend '{tar_trace.backend}' "
        f"({tar_methods}) than on the reference backend '{ref_trace.backend}' ({ref_methods}); "
        "trace functions must be deterministic.")


@dataclasses.dataclass(frozen=True)
class TraceComparison:
  """The mismatching calls of a target trace, and its worst difference over every call as a
  fraction of the tolerance (`comparison.Comparison.worst_fraction`)."""
  calls: Tuple[CallMismatch, ...]
  worst_fraction: float


def compare_calls(ref_trace: Trace, tar_trace: Trace,
                  policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
                  ) -> List[CallMismatch]:
  """Per-call mismatches of `tar_trace` against `ref_trace` (inputs and outputs)."""
  return list(compare_trace_calls(ref_trace, tar_trace, policy).calls)


def compare_trace_calls(ref_trace: Trace, tar_trace: Trace,
                        policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
                        ) -> TraceComparison:
  """`compare_calls`'s mismatches and how close the closest-to-failing value came."""
  check_same_calls(ref_trace, tar_trace)
  result = []
  worst = 0.0
  for i, (ref_call, tar_call) in enumerate(zip(ref_trace.calls, tar_trace.calls)):
    tolerance_fn = tar_call.tolerance_fn(tar_trace.backend_names, policy)
    try:
      inputs = comparison.compare_closely(ref_call.inputs, tar_call.inputs, "inputs",
                                          tolerance_fn)
      outputs = comparison.compare_closely(ref_call.result, tar_call.result, "outputs",
                                           tolerance_fn)
    except Exception as e:  # e.g. rtol="abc": named with its call, then the target's outcome.
      raise ValueError(f"call {i} ({ref_call.method}): {type(e).__name__}: {e}") from e
    worst = max(worst, inputs.worst_fraction, outputs.worst_fraction)
    mismatches = inputs.mismatches + outputs.mismatches
    if mismatches:
      result.append(CallMismatch(i, ref_call.method, mismatches))
  return TraceComparison(tuple(result), worst)


def run_trace(module: Any, trace_function: Callable, before: Callable[[], None] = lambda: None,
              function_name: Optional[str] = None, reference: Optional[Trace] = None
              ) -> Tuple["Trace", Optional[str]]:
  """Runs `trace_function` on `module`, recording a Trace; returns it and the error, if any.

  `reference`: the reference backend's trace of the same function, whose arrays the new trace
  shares where they are equal (see `ModuleCall`). The short calls of a module that runs in this
  process run with its threads on one CPU (`core/colocation`).
  """
  trace = Trace(module, trace_function, function_name=function_name)
  before()
  try:
    with colocation.Colocation(module) as pin:
      trace_function(TracedModule(module, trace, reference, pin))
  except faults.OwnFault:  # not the backend's doing: the test errors (see faults).
    raise
  except Exception as e:
    if trace.pending_method:
      where = f"call {len(trace.calls)} ({trace.pending_method})"
    elif trace.calls:
      where = f"the trace function after call {len(trace.calls) - 1} ({trace.calls[-1].method})"
    else:
      where = "the trace function, before its first call,"
    return trace, f"{where} raised {type(e).__name__}: {e}"
  return trace, None


class TracedModule:
  """Wraps a compiled module; every method call is run and recorded in the trace.

  `rtol=`/`atol=` are taken out of a call's keyword arguments and recorded with it; attributes
  that are not callable (`backend`, `module_name`) are returned as they are. With the
  `reference` trace, each call is recorded against the reference's call of the same index.
  """

  def __init__(self, module: Any, trace: Trace, reference: Optional[Trace] = None,
               pin: Optional[colocation.Colocation] = None):
    self._module = module
    self._trace = trace
    self._reference = reference
    self._pin = pin

  def _reference_call(self, method_name: str) -> Optional[ModuleCall]:
    calls = self._reference.calls if self._reference is not None else []
    index = len(self._trace.calls)
    return calls[index] if index < len(calls) and calls[index].method == method_name else None

  def _trace_call(self, method: Callable, method_name: str) -> Callable:
    def call(*args, **kwargs):
      rtol = kwargs.pop("rtol", None)
      atol = kwargs.pop("atol", None)
      self._trace.pending_method = method_name
      pin = self._pin
      if pin is not None and pin.enabled:
        pin.before_call(method_name)
        start = time.perf_counter()
        try:
          outputs = method(*args, **kwargs)
        except BaseException:
          pin.release()  # the caller's code runs next, perhaps catching it: every CPU back.
          raise
        pin.after_call(method_name, time.perf_counter() - start)
      else:
        outputs = method(*args, **kwargs)
      self._trace.pending_method = None
      self._trace.calls.append(ModuleCall(method_name, args, outputs, rtol, atol, kwargs,
                                          self._reference_call(method_name)))
      return outputs

    call.__name__ = method_name
    return call

  def __getattr__(self, attr: str) -> Any:
    try:
      value = getattr(self._module, attr)
    except AttributeError as e:
      raise AttributeError(str(e) if attr in str(e) else
                           f"The compiled module has no attribute '{attr}'.") from None
    return self._trace_call(value, attr) if callable(value) else value


def flat_calls(reference: Trace, signatures: Dict[str, FunctionSignature],
               count: int) -> Tuple[List[dict], Dict[str, np.ndarray]]:
  """The first `count` calls of `reference` as a child process replays them on a compiled
  module (the localizer's runs, the oracle's float64 run, split_dispatches): [{"function",
  "inputs": how many}] and each call's flat inputs named `c<call>_<position>`."""
  calls, arrays = [], {}
  for index, call in enumerate(reference.calls[:count]):
    signature = signatures[call.method]
    flat = signature.flatten_inputs(reference.module_name, call.inputs, call.kwargs)
    for position, array in enumerate(flat):
      arrays[f"c{index}_{position}"] = np.asarray(array)
    calls.append({"function": signature.name, "inputs": len(flat)})
  return calls, arrays
