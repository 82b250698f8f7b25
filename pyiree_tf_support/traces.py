"""Trace records: every call a trace function makes on one backend, its inputs and outputs.

`ModuleCall` and `Trace` are plain records; `TracedModule` wraps a compiled module and records
each call. Comparing two traces returns mismatch records from `comparison`.
"""

import copy
import dataclasses
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support import artifacts
from pyiree_tf_support import comparison
from pyiree_tf_support import tolerances


class ModuleCall:
  """One call: method name, inputs and outputs (deep copies), and per-call tolerances."""

  def __init__(self, method: str, inputs: Sequence[Any], outputs: Any,
               rtol: Optional[float] = None, atol: Optional[float] = None,
               kwargs: Optional[Dict[str, Any]] = None):
    self.method = method
    self.inputs = copy.deepcopy(tuple(inputs))
    self.kwargs = copy.deepcopy(dict(kwargs or {}))
    self.outputs = copy.deepcopy(outputs)
    self.rtol = rtol
    self.atol = atol

  def get_tolerances(self):
    """The per-call (rtol, atol); None where the dtype table applies."""
    return self.rtol, self.atol

  def tolerance_fn(self, backend_names: Sequence[str] = (),
                   policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
                   ) -> comparison.ToleranceFn:
    return lambda dtype: policy.for_dtype(dtype, backend_names, self.rtol, self.atol)

  def format(self, summarize: bool = True) -> str:
    threshold = 1000 if summarize else sys.maxsize
    with np.printoptions(threshold=threshold, edgeitems=3 if summarize else 1000):
      lines = [f"Method: {self.method}", "Inputs:"]
      lines += [_indent(_format_value(value)) for value in self.inputs]
      lines += [_indent(f"{key}=" + _format_value(value)) for key, value in self.kwargs.items()]
      lines += ["Outputs:", _indent(_format_value(self.outputs))]
      if self.rtol is not None or self.atol is not None:
        lines.append(f"Tolerances: rtol={self.rtol}, atol={self.atol}")
    return "\n".join(lines)

  def __str__(self) -> str:
    return self.format()

  def __repr__(self) -> str:
    return f"ModuleCall({self.method!r})"


def _indent(text: str, prefix: str = "  ") -> str:
  return "\n".join(prefix + line for line in text.splitlines())


def _format_value(value: Any) -> str:
  if isinstance(value, np.ndarray):
    return f"{value.dtype}{list(value.shape)}: " + np.array2string(value, separator=", ")
  if isinstance(value, dict):
    return "{\n" + ",\n".join(_indent(f"{k!r}: {_format_value(v)}") for k, v in value.items()) + "\n}"
  if isinstance(value, (list, tuple)):
    open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
    return open_ + "\n" + ",\n".join(_indent(_format_value(v)) for v in value) + "\n" + close
  return repr(value)


class Trace:
  """The calls one trace function made on one backend's module."""

  def __init__(self, module: Any = None, function: Optional[Callable] = None,
               module_name: Optional[str] = None, backend: Optional[str] = None,
               function_name: Optional[str] = None, backend_names: Sequence[str] = ()):
    self.module_name = module_name if module_name is not None else getattr(module, "module_name", "")
    self.backend = backend if backend is not None else getattr(module, "backend", "")
    self.function_name = (function_name if function_name is not None
                          else getattr(function, "__name__", ""))
    info = getattr(module, "backend_info", None)
    self.backend_names = tuple(backend_names) or (info.names() if info else (self.backend,))
    self.calls: List[ModuleCall] = []
    self.pending_method: Optional[str] = None  # the call in progress, named if it raises.

  def __str__(self) -> str:
    return self.format()

  def format(self, summarize: bool = True) -> str:
    header = (f"Trace of '{self.function_name}' on module '{self.module_name}', "
              f"backend '{self.backend}': {len(self.calls)} call(s)")
    body = [f"\nCall {i}:\n" + _indent(call.format(summarize)) for i, call in enumerate(self.calls)]
    return header + "\n" + "\n".join(body) + "\n"

  def save_plaintext(self, trace_dir: str, summarize: bool = True) -> str:
    """Writes the readable trace to <trace_dir>/<function>__<backend>.txt and returns the path."""
    path = os.path.join(trace_dir, artifacts.trace_file_name(self.function_name, self.backend))
    artifacts.write_text(path, self.format(summarize))
    return path

  @staticmethod
  def compare_traces(ref_trace: "Trace", tar_trace: "Trace") -> bool:
    """True when every call of `tar_trace` matches `ref_trace`; ValueError if their calls differ."""
    return not compare_calls(ref_trace, tar_trace)

  @staticmethod
  def _check_same(ref: Any, tar: Any, rtol: Optional[float] = None,
                  atol: Optional[float] = None) -> bool:
    """True when nested `ref` and `tar` are equal (floats within rtol/atol)."""
    return not comparison.compare(
        ref, tar, tolerance_fn=lambda dtype: tolerances.for_dtype(dtype, (), rtol, atol))


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


def compare_calls(ref_trace: Trace, tar_trace: Trace,
                  policy: tolerances.TolerancePolicy = tolerances.DEFAULT_POLICY
                  ) -> List[CallMismatch]:
  """Per-call mismatches of `tar_trace` against `ref_trace` (inputs and outputs)."""
  check_same_calls(ref_trace, tar_trace)
  result = []
  for i, (ref_call, tar_call) in enumerate(zip(ref_trace.calls, tar_trace.calls)):
    tolerance_fn = tar_call.tolerance_fn(tar_trace.backend_names, policy)
    mismatches = comparison.compare(ref_call.inputs, tar_call.inputs, "inputs", tolerance_fn)
    mismatches += comparison.compare(ref_call.outputs, tar_call.outputs, "outputs", tolerance_fn)
    if mismatches:
      result.append(CallMismatch(i, ref_call.method, tuple(mismatches)))
  return result


def run_trace(module: Any, trace_function: Callable, before: Callable[[], None] = lambda: None,
              function_name: Optional[str] = None) -> Tuple["Trace", Optional[str]]:
  """Runs `trace_function` on `module`, recording a Trace; returns it and the error, if any."""
  trace = Trace(module, trace_function, function_name=function_name)
  before()
  try:
    trace_function(TracedModule(module, trace))
  except Exception as e:  # pylint: disable=broad-except
    where = (f"call {len(trace.calls)} ({trace.pending_method})" if trace.pending_method
             else f"the trace function after call {len(trace.calls) - 1}")
    return trace, f"{where} raised {type(e).__name__}: {e}"
  return trace, None


class TracedModule:
  """Wraps a compiled module; every method call is run and recorded in the trace."""

  def __init__(self, module: Any, trace: Trace):
    self._module = module
    self._trace = trace

  def _trace_call(self, method: Callable, method_name: str) -> Callable:
    def call(*args, **kwargs):
      rtol = kwargs.pop("rtol", None)
      atol = kwargs.pop("atol", None)
      self._trace.pending_method = method_name
      outputs = method(*args, **kwargs)
      self._trace.pending_method = None
      self._trace.calls.append(ModuleCall(method_name, args, outputs, rtol, atol, kwargs))
      return outputs

    call.__name__ = method_name
    return call

  def __getattr__(self, attr: str) -> Any:
    method = getattr(self._module, attr)
    return self._trace_call(method, attr)
