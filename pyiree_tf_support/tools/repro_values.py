"""The data of a standalone reproduction: the failing call's inputs and expected outputs as files
iree-run-module reads, the driver module replaying earlier calls, and the TF-only import script
with the test file's module source inlined. Used by `make_repros`. The values are written, typed
and given tolerances by `reporting.repro`, as a report's flagfile is (one copy of the dtype ->
iree-run-module type mapping).
"""

import dataclasses
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.core import mlir_symbols
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import signatures as signatures_lib
from pyiree_tf_support.core import structure
from pyiree_tf_support.reporting import import_repro
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.tools import repro_templates

# ---------------------------------------------------------------------------------------------
# The TF-only import script.

def import_script(source_path: str, module_class: str, pipeline: str, title: str,
                  keras: bool) -> str:
  """repro.py for an import failure of a listed e2e file (TensorFlow only)."""
  label = (os.path.relpath(source_path, os.path.dirname(os.path.dirname(os.path.dirname(
      source_path)))) if keras else os.path.join("e2e", os.path.basename(source_path)))
  return import_repro.import_script(source_path, module_class, pipeline, title, keras, label)


# ---------------------------------------------------------------------------------------------
# Values and the driver module.

_FUNC = re.compile(r"^\s*func\.func @([\w$.]+)\(", re.MULTILINE)  # public: no "private"


def _split_types(text: str) -> List[str]:
  """Top-level comma-separated parts (commas inside <>, (), {} or [] stay)."""
  parts, depth, current = [], 0, ""
  for char in text:
    depth += 1 if char in "<({[" else -1 if char in ">)}]" else 0
    if char == "," and depth == 0:
      parts.append(current.strip())
      current = ""
    else:
      current += char
  if current.strip():
    parts.append(current.strip())
  return parts


def function_types(iree_input: str) -> Dict[str, Tuple[List[str], List[str]]]:
  """{public function: (argument types, result types)} of an iree_input.mlir."""
  types = {}
  for match in _FUNC.finditer(iree_input):
    depth, end = 1, match.end()
    while depth:
      depth += {"(": 1, ")": -1}.get(iree_input[end], 0)
      end += 1
    arguments = iree_input[match.end():end - 1]
    rest = iree_input[end:iree_input.index("\n", end)]
    results = rest.split(" attributes ")[0].rstrip(" {").strip()
    results = results[len("->"):].strip() if results.startswith("->") else ""
    if results.startswith("(") and results.endswith(")"):
      results = results[1:-1]
    argument_types = [re.sub(r"\s*\{.*\}$", "", a.split(":", 1)[1]).strip()
                      for a in _split_types(arguments)]
    types[match.group(1)] = (argument_types, _split_types(results))
  return types


def _symbol(module_name: str, name: str) -> str:
  """The symbol of function `name` of the module `module_name` as MLIR spells it (`größe`'s
  quoted): a name is data in the driver module, as in every module."""
  return mlir_symbols.spelling(f"{module_name}.{name}")


def driver_module(module_name: str, calls: Sequence[str], iree_input: str) -> str:
  """A module calling `calls` (function names, in order) of `module_name`, returning the last's
  results; the arguments of every call are its arguments, in order."""
  types = function_types(iree_input)
  imports = [f"  func.func private @{_symbol(module_name, name)}({', '.join(types[name][0])})"
             + (f" -> ({', '.join(types[name][1])})" if types[name][1] else "")
             for name in sorted(set(calls))]
  arguments, lines, returned = [], [], []
  for index, name in enumerate(calls):
    argument_types, result_types = types[name]
    names = [f"%c{index}_{i}" for i in range(len(argument_types))]
    arguments += [f"{n}: {t}" for n, t in zip(names, argument_types)]
    results = [f"%r{index}_{i}" for i in range(len(result_types))]
    signature = f"({', '.join(argument_types)}) -> ({', '.join(result_types)})"
    prefix = f"{', '.join(results)} = " if results else ""
    lines.append(f"    {prefix}call @{_symbol(module_name, name)}({', '.join(names)}) : "
                 f"{signature}")
    returned = results
  last_types = types[calls[-1]][1]
  return repro_templates.DRIVER.format(
      module=module_name, imports="\n".join(imports), arguments=", ".join(arguments),
      results=", ".join(last_types), calls="\n".join(lines),
      returned=", ".join(returned)).replace("return  : \n", "return\n")


_RAISED = re.compile(r"^call (\d+) \((.+?)\) raised")


def failing_call(record: Dict[str, Any]) -> Tuple[int, str]:
  """(index, method) of the backend record's first failing call: its `call`, or for a call that
  raised (recorded without one) the `call N (method) raised` its detail starts with."""
  if record.get("call"):
    return record["call"]["index"], record["call"]["method"]
  match = _RAISED.match(record.get("detail", ""))
  if not match:
    raise ValueError(f"the {record['backend']} record names no failing call: "
                     f"{record.get('detail', '')[:200]}")
  return int(match.group(1)), match.group(2)


@dataclasses.dataclass(frozen=True)
class RunPlan:
  """What repro.sh runs: the function (the module's, or the driver's `repro`) and its flags."""
  function: str
  flags: Tuple[str, ...]
  driver: Optional[str] = None  # driver.mlir text, when earlier calls must run first


def plan_run(module_dir: str, trace_record: Dict[str, Any], record: Dict[str, Any],
             iree_input: str, out: str) -> RunPlan:
  """Writes the failing call's inputs (and earlier calls' when the module keeps state) and the
  reference's outputs into `out`; returns how to run them."""
  traces_dir = os.path.join(module_dir, "traces")
  function = trace_record["trace"]
  ref = trace_io.load_trace(os.path.join(traces_dir, f"{function}__{trace_record['reference']}"))
  target = trace_io.load_trace(os.path.join(traces_dir, f"{function}__{record['backend']}"))
  with open(os.path.join(module_dir, "signatures.json"), encoding="utf-8") as f:
    signatures = signatures_lib.signatures_from_json(f.read())
  index, _ = failing_call(record)
  first = 0 if index > 0 and repro.has_state(iree_input) else index
  for call in ref.calls[first:index + 1]:  # written into repro.sh and driver.mlir: names only.
    if not quoting.function_name(call.method):
      raise ValueError(f"{traces_dir}: the reference trace calls {quoting.shown(call.method)}, "
                       "which is not a name a test run gives a method (a Python identifier).")
  flags = []
  for number in range(first, index + 1):
    call = ref.calls[number]
    inputs = signatures[call.method].flatten_inputs(ref.module_name, call.inputs, call.kwargs)
    flags += [f"--input={repro.save_value(out, f'call{number}_input{i}', value)}"
              for i, value in enumerate(inputs)]
  expected = [np.asarray(v) for v in structure.flatten(ref.calls[index].outputs, drop_none=True)]
  flags += [f"--expected_output={repro.save_value(out, f'expected_output{i}', value)}"
            for i, value in enumerate(expected)]
  call = target.calls[index] if index < len(target.calls) else ref.calls[index]
  flags += repro.tolerance_flags(expected, target.backend_names, call.given_rtol,
                                 call.given_atol)
  if first == index:
    return RunPlan(ref.calls[index].method, tuple(flags))
  methods = [ref.calls[n].method for n in range(first, index + 1)]
  named = re.search(r"^module @([\w.$-]+)", iree_input, re.MULTILINE)  # the VM module's name
  return RunPlan("repro", tuple(flags),
                 driver_module(named.group(1) if named else "module", methods, iree_input))


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
