"""A standalone repro of one diverging dispatch: its inputs as .npy and a script, no library.

The dispatch's executable is taken from the shared flow IR and called from a one-function module
(`dispatch`, taking the dispatch's operands, returning its results); `repro.py` compiles it for
the suspect and the trusted backend with IREE's tools (absolute paths, the backends' own flags),
runs it on the recorded inputs with iree-run-module, and compares the two results under the
dtype's tolerance: it prints DIVERGES and exits 1 while the bug is there, `same` and 0 when not.
Dynamic shapes are taken from the traced inputs (each dynamic dim a `tensor.dim` of the
function's argument), the workload and index operands from those dims or the caller's
constants, and a result written in place (tied to an operand) is returned as that argument.
A dispatch whose workload is computed at run time from values (not shapes), or with operands
that are neither tensors nor integers, is not cut out, and the reason is given.
"""

import dataclasses
import os
import re
import shlex
import sys
from typing import List, Optional, Sequence, Tuple

import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.localizing import tensors

SCRIPT = '''#!{python}
{docstring}
import os, subprocess, sys
import numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
COMPILE = {compile_tool!r}
RUN = {run_tool!r}
SIDES = {sides!r}  # (name, driver, compile flags)
INPUTS = {inputs!r}
RESULTS = {results}
TOLERANCES = {tolerances!r}  # dtype name: (rtol, atol), the library's table
out = {{}}
for name, driver, flags in SIDES:
  vmfb = os.path.join(HERE, name + ".vmfb")
  subprocess.run([COMPILE, os.path.join(HERE, "dispatch.mlir"), "--iree-input-type=none",
                  *flags, "-o", vmfb], check=True)
  files = [os.path.join(HERE, f"out_{{name}}_{{i}}.npy") for i in range(RESULTS)]
  subprocess.run([RUN, f"--device={{driver}}", f"--module={{vmfb}}", "--function=dispatch",
                  *[f"--input=@{{os.path.join(HERE, i)}}" for i in INPUTS],
                  *[f"--output=@{{f}}" for f in files]], check=True, stdout=subprocess.DEVNULL)
  out[name] = [np.load(f) for f in files]
(suspect, _, _), (trusted, _, _) = SIDES
diverges = False
for i, (s, t) in enumerate(zip(out[suspect], out[trusted])):
  if s.dtype.name in TOLERANCES:
    rtol, atol = TOLERANCES[s.dtype.name]
    bad = ~np.isclose(s, t, rtol=rtol, atol=atol, equal_nan=True)
  else:
    bad = s != t
  if bad.any():
    at = np.unravel_index(int(np.argmax(bad)), bad.shape)
    print(f"result {{i}}: {{int(bad.sum())}} of {{bad.size}} elements differ, e.g. at "
          f"{{[int(j) for j in at]}}: {{suspect}} {{s[at].item()!r}} vs {{trusted}} "
          f"{{t[at].item()!r}}")
    diverges = True
print("DIVERGES" if diverges else "same")
sys.exit(1 if diverges else 0)
'''


@dataclasses.dataclass(frozen=True)
class Repro:
  """Where the repro is (`directory`, with repro.py), or why there is none (`reason`)."""
  directory: Optional[str]
  reason: str = ""

  @property
  def command(self) -> str:
    """The shell command that runs it, every path quoted (a space or `$(...)` in one is data)."""
    if not self.directory:
      return ""
    return shlex.join([sys.executable, os.path.join(self.directory, "repro.py")])


def _walk(operation, found: List) -> List:
  for region in operation.regions:
    for block in region.blocks:
      for op in block.operations:
        found.append(op)
        _walk(op.operation, found)
  return found


def _split(text: str) -> List[str]:
  """`text`'s comma-separated parts at the top level (not inside <>, (), [] or {})."""
  parts, depth, current = [], 0, ""
  for char in text:
    depth += char in "<([{"
    depth -= char in ">)]}"
    if char == "," and depth == 0:
      parts.append(current.strip())
      current = ""
    else:
      current += char
  return parts + ([current.strip()] if current.strip() else [])


class _Uncut(Exception):
  """Why the dispatch is not cut out."""


class _Names:
  """The standalone function's values for the dispatch's: its tensor operands become arguments,
  their dynamic dims `tensor.dim`s of them, index constants of the caller constants again."""

  def __init__(self, caller: str):
    self.caller = caller
    self.names: dict = {}
    self.lines: List[str] = []
    self.shapes: dict = {}  # a result dim's name: its traced size

  def argument(self, name: str, index: int, type_text: str, dims: Sequence[str]) -> None:
    self.names.setdefault(name, f"%arg{index}")
    for position, dim in enumerate(_dynamic_positions(type_text)):
      if position < len(dims) and dims[position] not in self.names:
        self.lines.append(f"%c{index}_{position} = arith.constant {dim} : index")
        self.lines.append(f"%d{index}_{position} = tensor.dim %arg{index}, %c{index}_{position} "
                          f": {type_text}")
        self.names[dims[position]] = f"%d{index}_{position}"

  def value(self, name: str) -> str:
    """The standalone function's name for the caller's `name` (an index value)."""
    if name in self.names:
      return self.names[name]
    found = re.search(rf"^\s*{re.escape(name)} = arith.constant (-?\d+) : (\w+)\s*$",
                      self.caller, re.MULTILINE)
    new = f"%k{len(self.names)}"
    if found is not None:
      self.lines.append(f"{new} = arith.constant {found.group(1)} : {found.group(2)}")
    elif name in self.shapes:  # a result's dim, as the trace saw it.
      self.lines.append(f"{new} = arith.constant {self.shapes[name]} : index")
    else:
      # Shape arithmetic of the caller (a broadcast's extent), made again from what it reads.
      found = re.search(rf"^\s*{re.escape(name)} = (arith\.(?!constant)\w+ .*)$", self.caller,
                        re.MULTILINE)
      if found is None:
        raise _Uncut(f"its workload or an index operand ({name}) is computed at run time from "
                     "values that are not its operands' shapes (they are not traced)")
      self.names[name] = None  # a cycle is not resolved
      self.lines.append(f"{new} = {self.renamed(found.group(1))}")
    self.names[name] = new
    return new

  def renamed(self, text: str) -> str:
    def one(match) -> str:
      name = self.value(match.group(0))
      if name is None:
        raise _Uncut(f"its index operand {match.group(0)} is defined by itself")
      return name
    return _SSA.sub(one, text)


_SSA = re.compile(r"%[\w#.$-]+")
_TYPED = re.compile(r"^(tensor<[^>]*>)(?:\{([^}]*)\})?$")
_TIED = re.compile(r"^(%[\w#.$-]+)(?:\{([^}]*)\})?$")
_DISPATCH = re.compile(r"^\s*(%[\w#.$-]+)(?::(\d+))? = flow\.dispatch (@[\w.$-]+::@[\w.$-]+)"
                       r"(?:\[([^\]]*)\])?\(([^)]*)\) : \((.*)\) -> (.*?)\s*$")


def _dynamic_positions(type_text: str) -> List[int]:
  dims = type_text[len("tensor<"):-1].split("x")[:-1]
  return [i for i, d in enumerate(dims) if d == "?"]


def _dims(braces: Optional[str]) -> List[str]:
  return [d.strip() for d in braces.split(",")] if braces else []


def _standalone(caller: str, line: str, shapes: Optional[Sequence[Sequence[int]]]
                ) -> Tuple[str, int]:
  """The one-function module's `@dispatch` calling the dispatch of `line` (a flow.dispatch in
  the function `caller`; `shapes`: its results' traced shapes, if known): (its text, its
  result count); _Uncut says why not."""
  match = _DISPATCH.match(line)
  if match is None:
    raise _Uncut("its flow.dispatch is not of a form this cut reads")
  _, _, target, workload, operand_text, type_text, result_text = match.groups()
  operands, types = _split(operand_text), _split(type_text)
  if len(operands) != len(types):
    raise _Uncut("its flow.dispatch is not of a form this cut reads")
  names = _Names(caller)
  arguments, tensor_types = [], {}
  for name, typed in zip(operands, types):
    tensor = _TYPED.match(typed)
    if tensor:
      names.argument(name, len(arguments), tensor.group(1), _dims(tensor.group(2)))
      tensor_types.setdefault(name, tensor.group(1))
      arguments.append(tensor.group(1))
    elif not re.match(r"^(index|i\d+)$", typed):
      raise _Uncut(f"an operand is of type {typed}, not a tensor or an integer")
  results = _split(result_text[1:-1] if result_text.startswith("(") else result_text)
  returned = []
  for index, result in enumerate(results):
    tensor, tied = _TYPED.match(result), _TIED.match(result)
    if tensor and shapes is not None and index < len(shapes):
      for axis, dim in zip(_dynamic_positions(tensor.group(1)), _dims(tensor.group(2))):
        if axis < len(shapes[index]):
          names.shapes.setdefault(dim, int(shapes[index][axis]))
    if tensor:
      returned.append(tensor.group(1))
    elif tied and tied.group(1) in tensor_types:  # written in place: the result is the operand.
      returned.append(tensor_types[tied.group(1)])
    else:
      raise _Uncut(f"a result is of type {result}, not a tensor")
  call = (f"{target}[{names.renamed(workload)}]" if workload else target) + \
      f"({names.renamed(operand_text)}) : ({names.renamed(type_text)}) -> " + \
      names.renamed(result_text)
  count = len(returned)
  values = ", ".join(f"%r#{i}" for i in range(count)) if count > 1 else "%r"
  head = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(arguments))
  body = "".join(f"    {line}\n" for line in names.lines)
  return (f"  func.func @dispatch({head}) -> ({', '.join(returned)}) {{\n{body}"
          f"    {'%r:' + str(count) if count > 1 else '%r'} = flow.dispatch {call}\n"
          f"    return {values} : {', '.join(returned)}\n  }}\n"), count


def cut(flow_path: str, key: str, shapes: Optional[Sequence[Sequence[int]]] = None
        ) -> Tuple[Optional[str], str, int]:
  """(the one-function module calling the dispatch `key`, '', result count), or (None, why, 0).

  Dynamic dims of its operands are read from the standalone function's arguments (the traced
  inputs' shapes); its workload and index operands are those dims, the caller's constants,
  its results' dims as traced (`shapes`, the traced outputs' shapes, when given) or the
  caller's integer arithmetic of these; a result written in place is returned as the operand
  it is tied to (the function's argument)."""
  from iree.compiler import ir
  executable, export = key.split("::")[0], key.split("::")[1].split()[0]
  # The bytecode beside a readable flow.mlir, when there is one: IREE 3.13 prints a trace of
  # several dynamically shaped tensors in a form its own parser rejects ("custom op
  # 'flow.tensor.trace' expected 1 operands"); bytecode does not go through that parser.
  bytecode = os.path.splitext(flow_path)[0] + ".mlirbc"
  with ir.Context():
    with open(bytecode if os.path.isfile(bytecode) else flow_path, "rb") as f:
      module = ir.Module.parse(f.read())
    operations = _walk(module.operation, [])
    source = next((op for op in operations if op.operation.name == "flow.executable"
                   and f"@{executable} " in op.operation.get_asm(enable_debug_info=False)
                   .split("\n", 1)[0]), None)
    printed = module.operation.get_asm(enable_debug_info=False)
    lines = printed.splitlines()
    at = next((i for i, line in enumerate(lines) if " flow.dispatch " in line and (
        f"@{executable}::@{export}(" in line or f"@{executable}::@{export}[" in line)), None)
    if source is None or at is None:
      return None, f"the flow IR has no dispatch of {executable}::{export}", 0
    begin = next((i for i in range(at, -1, -1) if re.match(r"^\s*(util|func)\.func ", lines[i])),
                 0)
    try:
      function, count = _standalone("\n".join(lines[begin:at]), lines[at], shapes)
    except _Uncut as e:
      return None, str(e), 0
    text = ("module {\n" + source.operation.get_asm(enable_debug_info=False) + "\n" + function
            + "}\n")
    try:
      ir.Module.parse(text)
    except ir.MLIRError as e:
      return None, f"its standalone module does not parse ({str(e).splitlines()[0]})", 0
    return text, "", count


def script_text(key: str, sides: Sequence[Tuple[backends.BackendSpec, Sequence[str]]],
                compile_tool: str, run_tool: str, inputs: Sequence[str], results: int,
                policy: tolerances.TolerancePolicy) -> str:
  """repro.py of dispatch `key`: `inputs` (.npy files beside it) in, `results` results out, on
  `sides` (suspect, trusted); every value in it a Python literal (`key` is the flow IR's, whose
  names come from the module dir)."""
  table = {}
  for name in tolerances.DEFAULT_TOLERANCES:
    tolerance = policy.for_dtype(np.dtype("float32") if name == "bfloat16" else np.dtype(name),
                                 (sides[0][0].name,))
    table[name] = (tolerance.rtol, tolerance.atol)
  return SCRIPT.format(
      python=sys.executable, docstring=quoting.docstring(
          f"Runs dispatch {key} alone on {sides[0][0].name} and {sides[1][0].name}; prints "
          "DIVERGES (exit 1) or same."),
      compile_tool=compile_tool, run_tool=run_tool, inputs=list(inputs), results=int(results),
      tolerances=table,
      sides=[(spec.name, spec.driver,
              [f"--iree-hal-target-backends={t}" for t in spec.compiler_targets] + list(flags))
             for spec, flags in sides])


def write(directory: str, flow_path: str, key: str, inputs: Sequence[np.ndarray],
          sides: Sequence[Tuple[backends.BackendSpec, Sequence[str]]], compile_tool: str,
          run_tool: Optional[str], policy: tolerances.TolerancePolicy,
          shapes: Optional[Sequence[Sequence[int]]] = None) -> Repro:
  """Writes the repro of dispatch `key` fed `inputs` into `directory`; `sides`: (suspect,
  trusted) with each one's compile flags; `shapes`: its traced outputs' shapes, when known
  (a result's dynamic dims that its inputs do not give)."""
  if run_tool is None:
    return Repro(None, "iree-run-module was not found next to this Python")
  if any(a.dtype.kind in "US" for a in inputs):
    return Repro(None, "an input was too large to keep (recorded as a digest only)")
  module, reason, count = cut(flow_path, key, shapes)
  if module is None:
    return Repro(None, reason)
  safe_files.make_dirs(directory)
  safe_files.write_text(os.path.join(directory, "dispatch.mlir"), module)
  names = []
  for index, array in enumerate(inputs):
    names.append(f"input_{index}.npy")
    safe_files.write_with(os.path.join(directory, names[-1]),
                         lambda f, a=array: np.save(f, a, allow_pickle=False))
    tensors.release_pages(array)  # a mapped trusted tensor: its pages were read whole.
  script = script_text(key, sides, compile_tool, run_tool, names, count, policy)

  def executable(f) -> None:
    f.write(script.encode("utf-8"))
    os.fchmod(f.fileno(), 0o755)  # the file, never what a name might link to.

  safe_files.write_with(os.path.join(directory, "repro.py"), executable)
  return Repro(directory)
