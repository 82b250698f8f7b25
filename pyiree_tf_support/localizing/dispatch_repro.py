"""A standalone repro of one diverging dispatch: its inputs as .npy and a script, no library.

The dispatch's executable is taken from the shared flow IR and called from a one-function module
(`dispatch`, taking the dispatch's operands, returning its results); `repro.py` compiles it for
the suspect and the trusted backend with IREE's tools (absolute paths, the backends' own flags),
runs it on the recorded inputs with iree-run-module, and compares the two results under the
dtype's tolerance: it prints DIVERGES and exits 1 while the bug is there, `same` and 0 when not.
Only a dispatch whose operands and results are statically shaped tensors, with no workload
operands and no result tied to an operand, is cut out this way; otherwise the reason is given.
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
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.localizing import tensors

_STATIC_TENSOR = re.compile(r"^tensor<(?:\d+x)*[a-z]+\d*>$")

SCRIPT = '''#!{python}
"""Runs dispatch {key} alone on {suspect} and {trusted}; prints DIVERGES (exit 1) or same."""
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


def cut(flow_path: str, key: str) -> Tuple[Optional[str], str, int]:
  """(the one-function module calling the dispatch `key`, '', result count), or (None, why, 0)."""
  from iree.compiler import ir
  executable, export = key.split("::")[0], key.split("::")[1].split()[0]
  with ir.Context():
    with open(flow_path, "rb") as f:
      module = ir.Module.parse(f.read())
    operations = _walk(module.operation, [])
    source = next((op for op in operations if op.operation.name == "flow.executable"
                   and f"@{executable} " in op.operation.get_asm(enable_debug_info=False)
                   .split("\n", 1)[0]), None)
    call = next((op for op in operations if op.operation.name == "flow.dispatch"
                 and f"@{executable}::@{export}(" in op.operation.get_asm(
                     enable_debug_info=False)), None)
    if source is None or call is None:
      return None, f"the flow IR has no dispatch of {executable}::{export}", 0
    text = call.operation.get_asm(enable_debug_info=False)
    operand_types = [str(v.type) for v in call.operation.operands]
    result_types = [str(r.type) for r in call.operation.results]
    if "[" in text.split("(", 1)[0] or "-> %" in text or "-> (%" in text or not all(
        _STATIC_TENSOR.match(t) for t in operand_types + result_types):
      return None, ("its operands or results are not all statically shaped tensors (or it "
                    "has a workload, or writes in place)"), 0
    arguments = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(operand_types))
    operands = ", ".join(f"%arg{i}" for i in range(len(operand_types)))
    results = ", ".join(result_types)
    count = len(result_types)
    values = ", ".join(f"%r#{i}" for i in range(count)) if count > 1 else "%r"
    name = "%r:" + str(count) if count > 1 else "%r"
    body = (f"  func.func @dispatch({arguments}) -> ({results}) {{\n"
            f"    {name} = flow.dispatch @{executable}::@{export}({operands}) : "
            f"({', '.join(operand_types)}) -> ({results})\n"
            f"    return {values} : {results}\n  }}\n")
    return ("module {\n" + source.operation.get_asm(enable_debug_info=False) + "\n" + body
            + "}\n"), "", count


def write(directory: str, flow_path: str, key: str, inputs: Sequence[np.ndarray],
          sides: Sequence[Tuple[backends.BackendSpec, Sequence[str]]], compile_tool: str,
          run_tool: Optional[str], policy: tolerances.TolerancePolicy) -> Repro:
  """Writes the repro of dispatch `key` fed `inputs` into `directory`; `sides`: (suspect,
  trusted) with each one's compile flags."""
  if run_tool is None:
    return Repro(None, "iree-run-module was not found next to this Python")
  if any(a.dtype.kind in "US" for a in inputs):
    return Repro(None, "an input was too large to keep (recorded as a digest only)")
  module, reason, count = cut(flow_path, key)
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
  table = {}
  for name in tolerances.DEFAULT_TOLERANCES:
    tolerance = policy.for_dtype(np.dtype("float32") if name == "bfloat16" else np.dtype(name),
                                 (sides[0][0].name,))
    table[name] = (tolerance.rtol, tolerance.atol)
  script = SCRIPT.format(
      python=sys.executable, key=key, suspect=sides[0][0].name, trusted=sides[1][0].name,
      compile_tool=compile_tool, run_tool=run_tool, inputs=names, results=count,
      tolerances=table,
      sides=[(spec.name, spec.driver,
              [f"--iree-hal-target-backends={t}" for t in spec.compiler_targets] + list(flags))
             for spec, flags in sides])
  def executable(f) -> None:
    f.write(script.encode("utf-8"))
    os.fchmod(f.fileno(), 0o755)  # the file, never what a name might link to.

  safe_files.write_with(os.path.join(directory, "repro.py"), executable)
  return Repro(directory)
