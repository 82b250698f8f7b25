"""The readable text of calls and traces: the trace files (`<trace>__<backend>.txt`) and logs.

Text is for people. Summarized (the default, as 2020's `save_plaintext(summarize=True)`), an
array over 64 elements shows numpy's summary (its first and last elements, its dtype and shape),
so a trace file stays a few KiB whatever the data; a summarized trace file says where the complete
values are (the loadable trace beside it, which replay reads). Whole (`--full_text_traces`), every
element is written, large arrays one row per line with a round-trip precision; the text is then
written as it is formatted, piece by piece, so that its size (~5x the array's bytes) is never held
in memory.
"""

import io
import sys
from typing import Any, BinaryIO, Callable, List, Optional, Sequence

import numpy as np

from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import structure

NUMPY_LINEWIDTH = 120  # 2020's width for arrays in traces (tf_test_utils.NUMPY_LINEWIDTH).
SUMMARY_THRESHOLD = 64  # more elements than this are summarized (numpy's `threshold`).
SUMMARY_EDGE_ITEMS = 3
# A summarized trace of more calls than this shows the first and last SUMMARY_EDGE_CALLS (and the
# first failing call): formatting is ~0.3 ms per array, seconds for a 3000-call trace per backend.
SUMMARY_CALLS = 100
SUMMARY_EDGE_CALLS = 10

# Above this many elements a whole array is written one row (of its last axis) per line with a
# fixed round-trip precision: numpy's aligned shortest printing costs ~7 µs per element (seconds
# per trace file for a 128x3072 matmul input), this ~0.3 µs.
_FAST_TEXT_ELEMENTS = 4096
_ROUND_TRIP_FORMATS = {"float16": "%.5g", "float32": "%.9g", "float64": "%.17g"}
_CHUNK_ELEMENTS = 1 << 16  # elements formatted at a time: ~1 MB of text.

Write = Callable[[str], Any]


class _Indented:
  """Writes text through `write` with `prefix` before every line (as nested values are shown)."""

  def __init__(self, write: Write, prefix: str = "  "):
    self._write = write
    self._prefix = prefix
    self._line_start = True

  def __call__(self, text: str) -> None:
    for i, line in enumerate(text.split("\n")):
      if i:
        if self._line_start:  # an empty line keeps its indentation, as every other line.
          self._write(self._prefix)
        self._write("\n")
        self._line_start = True
      if line:
        if self._line_start:
          self._write(self._prefix)
        self._write(line)
        self._line_start = False


def _is_summarized(value: Any) -> bool:
  return isinstance(value, np.ndarray) and value.size > SUMMARY_THRESHOLD


def summarizes(trace: Any, shown: Optional[Sequence[int]] = None) -> bool:
  """Whether the summarized text of `trace` (its calls `shown`, all by default) leaves out
  elements of any of its arrays."""
  calls = trace.calls if shown is None else [trace.calls[i] for i in shown]
  return any(_is_summarized(leaf) for call in calls
             for value in (call.inputs, call.kwargs, call.result)
             for _, leaf in structure.flatten_with_paths(value))


def _round_trip_format(value: np.ndarray) -> Optional[str]:
  """The %-format that writes each element of `value` exactly, where there is a cheap one."""
  if value.dtype.kind in "iu":
    return "%d"
  return _ROUND_TRIP_FORMATS.get(value.dtype.name)


def _write_rows(value: np.ndarray, fmt: str, write: Write) -> None:
  """Every element of `value`, one row of its last axis per line, ~1 MB of text at a time."""
  write("(whole, one row of the last axis per line)\n")
  rows = value.reshape(-1, value.shape[-1])
  width = rows.shape[1]
  if width > _CHUNK_ELEMENTS:  # a long row goes out in pieces.
    for r, row in enumerate(rows):
      for start in range(0, width, _CHUNK_ELEMENTS):
        piece = row[start:start + _CHUNK_ELEMENTS].tolist()
        write(("\n" if r and not start else ", " if start else "")
              + ", ".join([fmt] * len(piece)) % tuple(piece))
    return
  row_format = ", ".join([fmt] * width)
  per_block = _CHUNK_ELEMENTS // width
  for start in range(0, rows.shape[0], per_block):
    block = rows[start:start + per_block].tolist()
    write(("\n" if start else "") + "\n".join(row_format % tuple(row) for row in block))


def _write_array(value: np.ndarray, summarize: bool, write: Write) -> None:
  write(f"{value.dtype}{list(value.shape)}: ")
  fmt = _round_trip_format(value)
  if not summarize and value.size > _FAST_TEXT_ELEMENTS and value.ndim and fmt:
    _write_rows(value, fmt, write)
  else:
    write(np.array2string(value, separator=", ", max_line_width=NUMPY_LINEWIDTH,
                          threshold=SUMMARY_THRESHOLD if summarize else sys.maxsize,
                          edgeitems=SUMMARY_EDGE_ITEMS))


def _write_value(value: Any, summarize: bool, write: Write) -> None:
  """Nested values one per line, walked by `structure` (tf.nest order: dict keys sorted)."""
  items = structure.children(value)
  if items is None:
    if isinstance(value, np.ndarray):
      _write_array(value, summarize, write)
    else:
      write(repr(value))
    return
  if isinstance(value, dict):
    open_, close = "{", "}"
  else:
    open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
  write(open_ + "\n")
  inner = _Indented(write)
  for i, (key, child) in enumerate(items):
    inner((",\n" if i else "") + (f"{key!r}: " if isinstance(value, dict) else ""))
    _write_value(child, summarize, inner)
  write("\n" + close)


def write_call(call: Any, summarize: bool, write: Write) -> None:
  """A `ModuleCall`: its method, inputs, outputs and tolerances."""
  write(f"Method: {call.method}\nInputs:")
  for value in call.inputs:
    write("\n")
    _write_value(value, summarize, _Indented(write))
  for key, value in call.kwargs.items():
    write("\n")
    indented = _Indented(write)
    indented(f"{key}=")
    _write_value(value, summarize, indented)
  write("\nOutputs:" if call.outputs else "\nOutputs: none")
  for value in call.outputs:
    write("\n")
    _write_value(value, summarize, _Indented(write))
  given = call.given_rtol is not None or call.given_atol is not None
  write(f"\nTolerances: rtol={call.rtol}, atol={call.atol}"
        + ("" if given else " (defaults; exact dtypes and float16/bfloat16 follow the per-dtype "
                            "table)"))


def shown_calls(count: int, summarize: bool, keep: Sequence[int] = ()) -> List[int]:
  """The calls a text shows: all, or summarized over SUMMARY_CALLS, the first and last
  SUMMARY_EDGE_CALLS and those in `keep` (e.g. the first failing call) with one on each side."""
  if not summarize or count <= SUMMARY_CALLS:
    return list(range(count))
  shown = set(range(SUMMARY_EDGE_CALLS)) | set(range(count - SUMMARY_EDGE_CALLS, count))
  for index in keep:
    shown |= {i for i in (index - 1, index, index + 1) if 0 <= i < count}
  return sorted(shown)


def write_trace(trace: Any, summarize: bool, write: Write,
                complete_values: Optional[str] = None, keep: Sequence[int] = ()) -> None:
  """A `Trace`: a header line, then each call (summarized: over SUMMARY_CALLS calls, the first
  and last few and `keep`). `complete_values` names where the whole arrays are; a summarized
  text that leaves elements or calls out says so after its header."""
  count = len(trace.calls)
  write(f"Trace of '{trace.function_name}' on module '{trace.module_name}', "
        f"backend '{trace.backend}': {count} call(s)\n")
  shown = shown_calls(count, summarize, keep)
  where = (f"in {complete_values} (replay reads it; --full_text_traces writes them here)"
           if complete_values else "in the loadable trace (--full_text_traces writes them here)")
  if len(shown) < count:
    write(f"{count - len(shown)} of the {count} calls are left out here; every call is {where}."
          "\n")
  if summarize and complete_values and summarizes(trace, shown):
    write(f"Arrays over {SUMMARY_THRESHOLD} elements are summarized here; their complete values "
          f"are {where}.\n")
  previous = -1
  for i in shown:
    if i > previous + 1:
      write(f"\n\n... calls {previous + 1} to {i - 1} left out ...")
    write(f"{chr(10) if previous >= 0 or i else ''}\nCall {i}:\n")
    write_call(trace.calls[i], summarize, _Indented(write))
    previous = i
  write("\n")


def format_call(call: Any, summarize: bool = True) -> str:
  text = io.StringIO()
  write_call(call, summarize, text.write)
  return text.getvalue()


def format_trace(trace: Any, summarize: bool = True, complete_values: Optional[str] = None,
                 keep: Sequence[int] = ()) -> str:
  text = io.StringIO()
  write_trace(trace, summarize, text.write, complete_values, keep)
  return text.getvalue()


def save(trace: Any, path: str, summarize: bool = True,
         complete_values: Optional[str] = None, keep: Sequence[int] = ()) -> None:
  """Writes the text of `trace` to `path` atomically, as it is formatted."""

  def fill(binary: BinaryIO) -> None:
    text = io.TextIOWrapper(binary, encoding="utf-8", newline="")
    write_trace(trace, summarize, text.write, complete_values, keep)
    text.flush()
    text.detach()  # `binary` is closed by its owner.

  safe_files.write_with(path, fill)
