"""Names planted in a handed module dir, a path or an error message never become code in a file
the package generates, nor in a command it prints for a person to paste.

Each writer of a Python or shell file is given names holding what would end a string or a
comment (`\"\"\"`, `'`, a newline, a trailing `\\`, NUL where a name can hold one) followed by a
payload that creates the file `pwned`, or a `$(...)` and backticks doing so. Every Python file
must parse to the same program as with a plain name (the payload changed only string data),
every shell file must pass `bash -n` and run without making `pwned` where running is cheap
(iree-compile of a four-element add), and every printed command must split into the words it
was made of. Writers only an expensive run reaches (the reducer's, the op level's) are driven
directly with the planted values; the loaders then refuse such names in a module dir, which
the end-to-end cases show for reduce, split_dispatches and bundle. The module dirs are made by
hand, as someone handing one over would make it (no TensorFlow); IREE's compiler and runtime
are real.
"""

import ast
import os
import re
import shlex
import subprocess
import sys
import tempfile
from typing import List, Tuple

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support import bundle
from pyiree_tf_support import reduce
from pyiree_tf_support import split_dispatches
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.comparing.traces import Trace
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import mlir_symbols
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import structure
from pyiree_tf_support.core.signatures import FunctionSignature
from pyiree_tf_support.core.signatures import InputSpec
from pyiree_tf_support.core.signatures import signatures_to_json
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.localizing import dispatch_repro
from pyiree_tf_support.reducing import failures
from pyiree_tf_support.reducing import op_level
from pyiree_tf_support.reporting import import_repro
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.reporting import verdicts
from pyiree_tf_support.reporting.replay_input import ReplayInput
from pyiree_tf_support.tools import make_repros
from pyiree_tf_support.tools import repro_values
from pyiree_tf_support.tools.repro_layout import Listed

MARKER = "pwned"
CODE = f'__import__("os").system("touch {MARKER}")'
PLANTED = {
    "triple_quotes": f'x"""\n{CODE}\n"""',
    "single_quotes": f"x'''\n{CODE}\n'''",
    "quotes": "x'\"",
    "newline": f"x\ntouch {MARKER}\n",
    "command_substitution": f"$(touch {MARKER})",
    "backticks": f"`touch {MARKER}`",
    "backslash": "x\\",
    "nul": f"x\0touch {MARKER}",
}
PLANTED["everything"] = "".join(PLANTED.values())
CASES = [(name, value) for name, value in PLANTED.items()]
PLAIN = "plain"
VMVX = backends.lookup("iree_vmvx")


def in_path(name: str) -> str:
  """`name` as a file name can hold it (no NUL, no `/`)."""
  return name.replace("\0", "").replace("/", "") or "_"


def module_text(method: str) -> str:
  return ("module @Handed {\n  func.func @" + mlir_symbols.spelling(method)
          + "(%arg0: tensor<4xf32>) -> tensor<4xf32> {\n"
          "    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>\n"
          "    return %0 : tensor<4xf32>\n  }\n}\n")


def signature_of(method: str) -> FunctionSignature:
  """The signature the import writes of `method(x)`, x a float32[4], returning one array."""
  x = np.zeros(4, np.float32)
  return FunctionSignature(method, ("x",), (InputSpec((4,), "float32"),),
                           structure.spec_of((x,)), structure.spec_of(x))


def handed_module_dir(module_dir: str, method: str = "double", trace_name: str = "trace",
                      extra_function: str = "") -> str:
  """A module dir as a run leaves it (iree_input.mlir, signatures.json, the reference trace of
  one call of `method`; `extra_function`: a function no call makes), made by hand with the
  names given; its reference trace dir."""
  os.makedirs(module_dir)
  text = module_text(method)
  with open(os.path.join(module_dir, "iree_input.mlir"), "w", encoding="utf-8") as f:
    f.write(text)
  signatures = {name: signature_of(name) for name in (method, extra_function) if name}
  with open(artifacts.signatures_path(module_dir), "w", encoding="utf-8") as f:
    f.write(signatures_to_json(signatures))
  trace = Trace(module_name="Handed", backend="tf", function_name=trace_name,
                backend_names=("tf",))
  x = np.arange(4, dtype=np.float32)
  trace.calls.append(ModuleCall(method, (x,), x * 2, None, None, {}))
  trace_dir = os.path.join(module_dir, "traces", f"{in_path(trace_name)}__tf_ref")
  trace_io.save_trace(trace, trace_dir, reference=True, iree_input=text)
  return trace_dir


class _Data(ast.NodeTransformer):
  """Every string constant made empty: what is left is the program, without its data."""

  def visit_Constant(self, node: ast.Constant) -> ast.AST:
    return ast.Constant("") if isinstance(node.value, str) else node


def program(text: str) -> str:
  return ast.dump(_Data().visit(ast.parse(text)))


def run(command: List[str], cwd: str, **kwargs) -> subprocess.CompletedProcess:
  return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False,
                        timeout=300, **kwargs)


class GeneratedFilesTest(parameterized.TestCase):
  """Guarantee: a value in a generated Python file is a literal, in a shell file a quoted word
  or a one-line comment, and a printed command splits into the words it was made of."""

  def setUp(self):
    super().setUp()
    self.cwd = tempfile.mkdtemp()  # where a payload that ran would leave `pwned`.

  def tearDown(self):
    self.assertFalse(os.path.exists(os.path.join(self.cwd, MARKER)), "the payload ran")
    super().tearDown()

  def directory(self, name: str) -> str:
    path = os.path.join(tempfile.mkdtemp(), in_path(name))
    os.makedirs(path)
    return path

  def assert_same_program(self, planted: str, plain: str) -> None:
    self.assertEqual(program(planted), program(plain))

  def assert_shell(self, path: str) -> None:
    checked = run(["bash", "-n", path], self.cwd)
    self.assertEqual(checked.returncode, 0, checked.stderr)

  def assert_command(self, command: str, words: List[str]) -> None:
    self.assertEqual(shlex.split(command), words)
    checked = run(["bash", "-n", "-c", command], self.cwd)
    self.assertEqual(checked.returncode, 0, checked.stderr)

  def reduced(self, name: str) -> Tuple[str, str]:
    """reduce's repro.sh and report.md of a compile error `name` of method `name`."""
    trace_dir = handed_module_dir(os.path.join(self.directory(name), "Handed"))
    module_dir = os.path.dirname(os.path.dirname(trace_dir))
    loaded = ReplayInput(trace_dir, trace_io.load_trace(trace_dir),
                         module_text("double").encode(), {})
    loaded.reference.function_name = name  # the writer's input, as if it had been loaded.
    failure = failures.Failure("iree_vmvx", verdicts.Status.COMPILE_ERROR, name, name)
    outcome = verdicts.Outcome("iree_vmvx", verdicts.Status.COMPILE_ERROR, "error: " + name)
    directory = os.path.join(module_dir, reduce.REDUCE_DIR, in_path(name))
    os.makedirs(directory)
    result = reduce.Reduction(failure, outcome, 1, 1, 1, 1, 1, 1, 1, 0.0, False, directory)
    reduce._write(result, loaded, loaded.reference, module_text("double"), VMVX, "iree_vmvx",
                  directory)
    return directory, os.path.join(directory, "repro.sh")

  @parameterized.named_parameters(*CASES)
  def test_reduce_repro_and_report(self, name):
    directory, script = self.reduced(name)
    self.assert_shell(script)
    ran = run([script], self.cwd)  # iree-compile of the add: compiles, so exit 0.
    self.assertEqual(ran.returncode, 0, ran.stderr[-2000:])
    with open(os.path.join(directory, "report.md"), encoding="utf-8") as f:
      fences = re.findall(r"^```sh\n(.*?)\n```$", f.read(), re.MULTILINE | re.DOTALL)
    self.assertLen(fences, 2)
    self.assert_command(fences[0], [script])
    for command in fences:
      self.assertEqual(run(["bash", "-n", "-c", command], self.cwd).returncode, 0, command)

  def op_level_script(self, name: str) -> str:
    directory = self.directory(name)
    result = op_level.OpReduction("", 1, 1, module_text("double"), name, error="error: " + name)
    written = op_level.write(result, directory, op_level.Side(VMVX, "iree_vmvx", ()),
                             tolerances.DEFAULT_POLICY)
    return written.script

  @parameterized.named_parameters(*CASES)
  def test_reduced_program_script(self, name):
    script = self.op_level_script(name)
    with open(script, encoding="utf-8") as f, open(self.op_level_script(PLAIN)) as g:
      self.assert_same_program(f.read(), g.read())
    ran = run([sys.executable, script], self.cwd)
    self.assertEqual((ran.returncode, ran.stdout.strip()), (0, "compiles"), ran.stderr[-2000:])

  def dispatch_script(self, name: str) -> str:
    sides = [(VMVX, ()), (backends.lookup("iree_llvmcpu"), ())]
    return dispatch_repro.script_text(f"{name}::{name}", sides, "iree-compile",
                                      "iree-run-module", [f"{name}.npy"], 1,
                                      tolerances.DEFAULT_POLICY)

  @parameterized.named_parameters(*CASES)
  def test_dispatch_repro_script(self, name):
    self.assert_same_program(self.dispatch_script(name), self.dispatch_script(PLAIN))

  def split_file(self, name: str) -> str:
    directory = self.directory(name)
    cases = [{"name": name, "inputs": [(f"{name}.bin", "4xf32")], "results": 1}]
    split_dispatches._write_test_file(directory, cases, name, [VMVX], (),
                                      tolerances.DEFAULT_POLICY, into=directory)
    with open(os.path.join(directory, split_dispatches.TEST_FILE), encoding="utf-8") as f:
      return f.read()

  @parameterized.named_parameters(*CASES)
  def test_split_dispatches_test_file_and_command(self, name):
    self.assert_same_program(self.split_file(name), self.split_file(PLAIN))
    path = os.path.join(self.directory(name), split_dispatches.TEST_FILE)
    self.assert_command(split_dispatches.run_command(path),
                        [sys.executable, "-m", "pytest", path])

  def import_script(self, name: str) -> Tuple[str, str]:
    module_dir = self.directory(name)
    source = os.path.join(module_dir, "source_test.py")
    with open(source, "w", encoding="utf-8") as f:
      f.write("import tensorflow as tf\n\n\nclass Planted(tf.Module):\n  pass\n")
    command, why = import_repro.write(module_dir, source, "Planted", name)
    self.assertIsNotNone(command, why)
    with open(import_repro.repro_path(module_dir), encoding="utf-8") as f:
      return f.read(), command or ""

  @parameterized.named_parameters(*CASES)
  def test_import_repro_script_and_command(self, name):
    text, command = self.import_script(name)
    self.assert_same_program(text, self.import_script(PLAIN)[0])
    module_dir = os.path.dirname(os.path.dirname(os.path.dirname(shlex.split(command)[1])))
    self.assert_command(command, [sys.executable, import_repro.repro_path(module_dir)])

  @parameterized.named_parameters(*CASES)
  def test_an_import_repro_of_a_class_that_is_no_name_is_not_written(self, name):
    module_dir = self.directory(name)
    source = os.path.join(module_dir, "source_test.py")
    with open(source, "w", encoding="utf-8") as f:
      f.write("class Planted:\n  pass\n")
    command, why = import_repro.write(module_dir, source, name, "pipeline")
    self.assertIsNone(command)
    self.assertIn("is not a Python name", why)
    self.assertFalse(os.path.exists(import_repro.repro_path(module_dir)))

  def finding_file(self, header: str) -> str:
    program_ = programs.Program("f", ("add",), (3, 4))
    return programs.module_source("Finding0", [program_],
                                  [("f", (np.zeros([3, 4], np.float32),) * 2)], 1e-4, 1e-4,
                                  f"Fuzzer finding: iree_vmvx: compile error ({header})")

  @parameterized.named_parameters(*CASES)
  def test_fuzzer_finding_file_with_a_backends_message(self, name):
    self.assert_same_program(self.finding_file(name), self.finding_file(PLAIN))

  def flagfile(self, name: str, exported: str = PLAIN) -> Tuple[str, repro.CallRepro]:
    """The flagfile of a call of method `name` (its function named `exported`) and its record."""
    trace_dir = handed_module_dir(os.path.join(self.directory(name), "Handed"))
    module_dir = os.path.dirname(os.path.dirname(trace_dir))
    reference = trace_io.load_trace(trace_dir)  # a live run's names: not loaded, not checked.
    reference.function_name = reference.calls[0].method = name
    target = Trace(module_name="Handed", backend=in_path(name), function_name=name)
    target.calls.append(reference.calls[0])
    call = repro.CallRepros(module_dir, reference, target,
                            os.path.join(module_dir, "compiled.vmfb"), "local-sync",
                            {name: signature_of(exported)}, module_text("double")).call(0)
    if exported != PLAIN:
      return "", call
    self.assertIsNotNone(call.run_module_command, call.no_run_module_reason)
    calls = artifacts.repro_dir(module_dir, name, target.backend)
    call_dir = os.path.join(calls, os.listdir(calls)[0])
    with open(os.path.join(call_dir, "flagfile"), encoding="utf-8") as f:
      return f.read(), call

  @parameterized.named_parameters(*CASES)
  def test_a_flagfile_comment_stays_one_line_and_its_commands_are_words(self, name):
    text, call = self.flagfile(name)
    lines = text.splitlines()
    self.assertLen([line for line in lines if line.startswith("#")], 2, text)
    self.assertTrue(all(line.startswith(("#", "--")) for line in lines), text)
    self.assertEqual(run(["bash", "-n", "-c", call.replay_command], self.cwd).returncode, 0)
    self.assertEqual(run(["bash", "-n", "-c", call.run_module_command or ""],
                         self.cwd).returncode, 0)

  @parameterized.named_parameters(*CASES)
  def test_no_flagfile_holds_a_function_that_is_no_name(self, name):
    _, call = self.flagfile(name, exported=name)
    self.assertIsNone(call.run_module_command)
    self.assertIn(f"its function's name {quoting.shown(name)} is not one",
                  call.no_run_module_reason)

  @parameterized.named_parameters(*CASES)
  def test_make_repros_compile_script(self, name):
    module_dir = os.path.dirname(os.path.dirname(handed_module_dir(
        os.path.join(self.directory(name), "Handed"))))
    entry = Listed("e2e", "iree_vmvx", "planted_test.py", "compile", name, test_class=name,
                   method=name)
    out = tempfile.mkdtemp()  # e2e/repros/ of the checkout: a path of the maintainers'.
    make_repros.write_compile(entry, make_repros.Found(module_dir, name, {}, {}, "compile"),
                              out)
    script = os.path.join(out, "repro.sh")
    self.assert_shell(script)
    ran = run([script], self.cwd, env=dict(os.environ, IREE_TOOLS_DIR=os.path.dirname(
        sys.executable)))
    self.assertEqual((ran.returncode, ran.stdout.splitlines()[-1]), (0, "NO FAILURE"),
                     ran.stdout[-2000:])

  @parameterized.named_parameters(*CASES)
  def test_make_repros_refuses_a_planted_method(self, name):
    trace_dir = handed_module_dir(os.path.join(self.directory(name), "Handed"), method=name)
    module_dir = os.path.dirname(os.path.dirname(trace_dir))
    with self.assertRaisesRegex(ValueError, "is not a name a test run gives a method"):
      repro_values.plan_run(module_dir, {"trace": "trace", "reference": "tf_ref"},
                            {"backend": "tf_ref", "call": {"index": 0, "method": name}},
                            module_text(name), self.directory(name))


def tool(module: str, *args: str, cwd: str) -> subprocess.CompletedProcess:
  return run([sys.executable, "-m", f"pyiree_tf_support.{module}", *args,
              "--target_backends=iree_vmvx"], cwd)


class PlantedModuleDirTest(parameterized.TestCase):
  """Guarantee: a module dir naming a method or trace by what no function can be named is
  refused where it is loaded, in one line naming the file and the name; nothing is written."""

  def setUp(self):
    super().setUp()
    self.cwd = tempfile.mkdtemp()

  def assert_refused(self, command: str, written: str, name: str, **planted: str) -> None:
    """`command` on a module dir with `planted` names is refused in one line naming its
    trace.json and `name`; its module dir gets no `written`."""
    trace_dir = handed_module_dir(os.path.join(tempfile.mkdtemp(), "Handed"), **planted)
    module_dir = os.path.dirname(os.path.dirname(trace_dir))
    completed = tool(command, trace_dir, cwd=self.cwd)
    lines = completed.stderr.strip().splitlines()
    self.assertEqual(completed.returncode, 2, completed.stderr[-2000:])
    self.assertLen(lines, 1, completed.stderr)
    file = os.path.join(trace_dir, "trace.json").replace("\n", " ")  # the message is one line.
    self.assertIn(f"{file}: ", lines[0])
    self.assertIn(quoting.shown(name), lines[0])
    self.assertIn("not a name a test run gives", lines[0])
    self.assertFalse(os.path.exists(os.path.join(module_dir, written)), written)
    self.assertFalse(os.path.exists(os.path.join(self.cwd, MARKER)))

  @parameterized.named_parameters(*CASES)
  def test_reduce_refuses_a_planted_method(self, name):
    self.assert_refused("reduce", "reduce", name, method=name)

  @parameterized.named_parameters(*CASES)
  def test_split_dispatches_refuses_a_planted_trace_name(self, name):
    self.assert_refused("split_dispatches", "dispatches", name, trace_name=name)

  def test_bundle_refuses_a_planted_function_no_call_makes(self):
    name = PLANTED["everything"]
    trace_dir = handed_module_dir(os.path.join(tempfile.mkdtemp(), "Handed"),
                                  extra_function=name)
    module_dir = os.path.dirname(os.path.dirname(trace_dir))
    out = tempfile.mkdtemp()
    with self.assertRaisesRegex(bundle.BundleError, re.escape(
        f"{artifacts.signatures_path(module_dir)}: the function {quoting.shown(name)}")):
      bundle.write(module_dir, out, ["iree_vmvx"])
    self.assertEqual(os.listdir(out), [])

  def test_a_non_ascii_method_is_a_name(self):
    trace_dir = handed_module_dir(os.path.join(tempfile.mkdtemp(), "Handed"), method="größe")
    split = tool("split_dispatches", trace_dir, cwd=self.cwd)
    self.assertEqual(split.returncode, 0, split.stderr[-2000:])

  def test_the_printed_run_line_of_split_dispatches_runs_as_pasted_and_nothing_else(self):
    root = os.path.join(tempfile.mkdtemp(), f"it's $(touch {MARKER}) `touch {MARKER}`")
    trace_dir = handed_module_dir(os.path.join(root, "Handed"))
    split = tool("split_dispatches", trace_dir, "--expected_from=iree_llvmcpu", cwd=self.cwd)
    self.assertEqual(split.returncode, 0, split.stderr[-2000:])
    command = [line[len("run: "):] for line in split.stdout.splitlines()
               if line.startswith("run: ")]
    self.assertLen(command, 1, split.stdout)
    pasted = run(["bash", "-c", command[0] + " -q -p no:cacheprovider"], self.cwd)
    self.assertEqual(pasted.returncode, 0, pasted.stdout[-2000:])
    self.assertIn("1 passed", pasted.stdout)
    self.assertFalse(os.path.exists(os.path.join(self.cwd, MARKER)))


if __name__ == "__main__":
  absltest.main()
