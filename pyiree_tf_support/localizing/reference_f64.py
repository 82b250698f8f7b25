"""A mismatching call evaluated in float64 on the oracle, and both sides' error against it.

The float64 result is what judges a float mismatch by the reference's own error
(comparing/reference_error): TensorFlow's float32 (or float16) result is not exact either, and
a backend no further from float64 than K x TensorFlow is within the reference's own error.

Why the oracle and not IREE's llvm-cpu on the promoted module (which keeps f64 with
--iree-input-demote-f64-to-f32=false): a bug in IREE's target-independent pipeline would be
in the float64 module too, and could make a wrong backend look as close to "float64" as it is
to itself; the StableHLO reference interpreter shares none of IREE's code (localizing/oracle).

`promote` rewrites iree_input.mlir's text with every float16, bfloat16 and float32 type as
float64: each type spelled in the text, and each constant's elements (a hex constant's bytes
are re-encoded at 8 bytes an element); an op whose meaning depends on the float width
(`bitcast_convert`, `reduce_precision`) or a constant it cannot re-encode (a resource blob,
complex hex) is refused, never guessed. The calls 0..K are evaluated (a stateful trace's
globals carried, as the oracle always does) with every float input widened.
Never TensorFlow; the oracle runs in its own child process.
"""

import os
import re
import struct
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import reference_error
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.compiling import mlir_files
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure
from pyiree_tf_support.localizing import oracle
from pyiree_tf_support.reporting import replay_input

_NARROW = {"f16": np.float16, "bf16": None, "f32": np.float32}
# A float type's name, alone or as a tensor's element type (`tensor<4x?xf32>`).
_TYPE = re.compile(r"(?:(?<=[\d?]x)|(?<!\w))(bf16|f16|f32)\b")
_DENSE = re.compile(r'dense<(?P<body>"0x[0-9A-Fa-f]*"|[^<>]*)>(?P<colon>\s*:\s*)'
                    r"(?P<type>tensor<(?P<shape>[0-9x?]*?)(?P<element>bf16|f16|f32)>)")
_HEX_TOKEN = re.compile(r"\b0x[0-9A-Fa-f]+\b")
_WIDTH_DEPENDENT = ("stablehlo.bitcast_convert", "stablehlo.reduce_precision",
                    "dense_resource<", "complex<")


class PromotionError(Exception):
  """The module cannot be evaluated in float64 faithfully; says why."""


# A result's tolerance, given the reference's array of it.
ToleranceOf = Callable[[np.ndarray], tolerances.Tolerance]


def _bf16_to_f64(raw: bytes) -> np.ndarray:
  halves = np.frombuffer(raw, "<u2").astype(np.uint32) << 16
  return halves.view(np.float32).astype(np.float64)


def _decode(raw: bytes, element: str) -> np.ndarray:
  if element == "bf16":
    return _bf16_to_f64(raw)
  return np.frombuffer(raw, np.dtype(_NARROW[element]).newbyteorder("<")).astype(np.float64)


def _hex_constant(match: "re.Match[str]") -> str:
  body, element = match.group("body"), match.group("element")
  if body.startswith('"0x'):
    wide = _decode(bytes.fromhex(body[3:-1]), element)
    body = '"0x' + wide.astype("<f8").tobytes().hex().upper() + '"'
  else:
    width = {"f32": 4, "f16": 2, "bf16": 2}[element]

    def token(found: "re.Match[str]") -> str:
      digits = found.group(0)[2:]
      if len(digits) != 2 * width:
        raise PromotionError(f"the hex float {found.group(0)} is not a {element}")
      value = _decode(bytes.fromhex(digits)[::-1], element)[0]
      return "0x" + struct.pack(">d", float(value)).hex().upper()  # the bits, as MLIR prints

    body = _HEX_TOKEN.sub(token, body)
  return f"dense<{body}>{match.group('colon')}tensor<{match.group('shape')}f64>"


def promote(text: str) -> str:
  """iree_input.mlir's `text` with every f16/bf16/f32 as f64 (see the module docstring)."""
  for refused in _WIDTH_DEPENDENT:
    if refused in text:
      raise PromotionError(f"the module uses {refused.rstrip('<')}, whose meaning depends on "
                           "the float width: it is not evaluated in float64")
  return _TYPE.sub("f64", _DENSE.sub(_hex_constant, text))


def widen(array: np.ndarray) -> np.ndarray:
  """A float input as float64 (others unchanged)."""
  array = np.asarray(array)
  return array.astype(np.float64) if array.dtype.kind == "f" else array


def evaluate(source: str, calls: Sequence[dict], inputs: Dict[str, np.ndarray], run_dir: str,
             limit: Optional[float] = None) -> Tuple[Tuple[np.ndarray, ...], ...]:
  """Each call's flat results in float64 (calls and inputs as oracle.run takes them);
  oracle.OracleError or PromotionError say why not."""
  result = oracle.run(promote(source), calls, {k: widen(v) for k, v in inputs.items()},
                      run_dir, limit)
  if result.error or len(result.calls) < len(calls):
    raise oracle.OracleError(f"the oracle failed on the float64 module: {result.error}")
  return tuple(call.results for call in result.calls)


def judge(source: str, calls: Sequence[dict], inputs: Dict[str, np.ndarray],
          reference_outputs: Sequence[np.ndarray], outputs: Sequence[np.ndarray],
          tolerance_of: ToleranceOf, run_dir: str,
          limit: Optional[float] = None) -> reference_error.CallJudgement:
  """The last of `calls` (the mismatching one) judged: TensorFlow's flat results
  (`reference_outputs`) and the backend's (`outputs`) against float64; `tolerance_of(array)`
  is a result's tolerance. Raises as `evaluate`."""
  exact = evaluate(source, calls, inputs, os.path.join(run_dir, "oracle_f64"), limit)[-1]
  references = [np.asarray(r) for r in reference_outputs]
  return reference_error.judge_call(len(calls) - 1, references,
                                    [np.asarray(o) for o in outputs], list(exact),
                                    [tolerance_of(r) for r in references])


def default_tolerance(policy: tolerances.TolerancePolicy, names: Sequence[str],
                      rtol: Optional[float] = None,
                      atol: Optional[float] = None) -> ToleranceOf:
  """`tolerance_of` for `judge`: the table's (under `policy` and a call's own tolerances)."""
  def tolerance_of(array: np.ndarray) -> tolerances.Tolerance:
    return policy.for_dtype(array.dtype, names, rtol, atol)
  return tolerance_of


# Past this size of iree_input.mlir the float64 judge does not run: the reference interpreter
# is written for clarity, not speed (about 1.3 us a multiply-add: docs/localizing.md).
SOURCE_LIMIT = 4 << 20
# And it is given this long for calls 0..K (a 128x3072x256 matmul took 134 s).
TIME_LIMIT = 60.0


def _flat(outputs: Any) -> List[np.ndarray]:
  return [np.asarray(v) for v in structure.flatten(outputs, drop_none=True)]


def judge_trace(reference_dir: str, target_dir: str, call: int, backend_names: Sequence[str],
                policy: tolerances.TolerancePolicy, work_dir: str
                ) -> Tuple[Optional[reference_error.CallJudgement], str]:
  """Call `call` of the target trace saved in `target_dir` against the reference trace in
  `reference_dir`, judged by the reference's own error (the module and inputs replay reads;
  files in `work_dir`, emptied first): (the judgement, "") or (None, why not judged; "" when
  the call has no float result that mismatches)."""
  loaded = replay_input.load(reference_dir, mlir_files.text)
  target = trace_io.load_trace(target_dir)
  reference_call, target_call = loaded.reference.calls[call], target.calls[call]
  references, got = _flat(reference_call.outputs), _flat(target_call.outputs)
  tolerance_of = default_tolerance(policy, backend_names, reference_call.given_rtol,
                                   reference_call.given_atol)
  if not any(r.dtype.kind == "f" and reference_error.differs(r, g, tolerance_of(r))
             for r, g in zip(references, got)):
    return None, ""
  source = loaded.iree_input
  if len(source) > SOURCE_LIMIT:
    return None, (f"iree_input.mlir is over {SOURCE_LIMIT >> 20} MiB (the reference "
                  "interpreter is written for clarity, not speed)")
  calls, inputs = traces.flat_calls(loaded.reference, loaded.signatures, call + 1)
  safe_files.remove_tree(work_dir)
  safe_files.make_dirs(work_dir)
  try:
    return judge(source, calls, inputs, references, got, tolerance_of, work_dir,
                 TIME_LIMIT), ""
  except (oracle.OracleError, PromotionError) as e:
    return None, str(e)
  except Exception as e:  # ours (a module the promotion broke): no judge, never a verdict.
    first = (str(e).strip().splitlines() or [""])[0]
    return None, f"the float64 module could not be evaluated ({type(e).__name__}: {first})"
