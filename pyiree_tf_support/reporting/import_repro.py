"""The TF-only script that reproduces a module's import failure: the module's source (its test
file without the tests), saved as a SavedModel, converted and lowered by TensorFlow alone.

A failing test writes one for the user's own file (`write`, <Module>/repro/import/repro.py, named
in the IMPORT ERROR report); `tools.make_repros` writes the same script for the repository's
listed failures (e2e/repros/import/<stem>/repro.py). Text only: nothing here imports TensorFlow.
"""

import ast
import os
import shlex
import sys
from typing import Optional, Tuple

from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files

# The TF-only import script: the test file's module source, then SavedModel -> MLIR -> StableHLO.
IMPORT_SCRIPT = '''{docstring}
# pylint: skip-file
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
{env_lines}import numpy as np
import tensorflow.compat.v2 as tf
{shim}
# ---- {source_comment}, without its tests ----
{module_source}
# ---- the import ----
EXPORTED_NAMES = {exported_names!r}  # empty: every tf.function with an input_signature
PIPELINE = {pipeline!r}


def _exported(module):
  if EXPORTED_NAMES:
    return list(EXPORTED_NAMES)
  return sorted(name for name in dir(module) if not name.startswith("__")
                and isinstance(getattr(module, name, None), tf.types.experimental.PolymorphicFunction)
                and getattr(module, name).input_signature is not None)


def main():
  tf.random.set_seed(0)
  np.random.seed(0)
  module = {module_class}()
  with tempfile.TemporaryDirectory() as saved_model:
    tf.saved_model.save(module, saved_model)
    try:
      text = tf.mlir.experimental.convert_saved_model(
          saved_model, exported_names=",".join(_exported(module)), show_debug_info=False)
      lowered = tf.mlir.experimental.run_pass_pipeline(text, PIPELINE)
    except Exception as e:  # the converter's and the pipeline's errors
      lines = [line.strip() for line in str(e).splitlines() if line.strip()]
      first = lines[0] if lines else type(e).__name__
      # TF appends the MLIR diagnostic's location ("<unknown>:0: error: loc(...)") to the message.
      first = first.split("<unknown>:")[0].strip()
      located = re.match(r"^\\S+:\\d+:\\d+: (error: .*)", first)  # "-:3696:62: error: ..."
      first = located.group(1) if located else first
      print(first if first.startswith("error: ") else "error: " + first)
      return 1
  left = sorted(set(re.findall(r'"(tf(?:_executor|_device)?\\.\\w+)"\\(', lowered)))
  if left:
    print("error: TF ops left unconverted: " + ", ".join(left))
    return 1
  print("imported without TF ops left")
  return 0


if __name__ == "__main__":
  sys.exit(main())
'''

# Stand-ins for the pyiree_tf_support helpers module constructors use (same behaviour).
TF_UTILS_SHIM = '''

class tf_utils:  # stand-in for pyiree_tf_support.tf_utils: the helpers module code may call
  @staticmethod
  def set_random_seed(seed=0):
    tf.random.set_seed(seed)
    np.random.seed(seed)

  @staticmethod
  def uniform(shape, dtype=np.float32):
    return np.random.uniform(size=shape).astype(dtype)

  @staticmethod
  def ndarange(shape, dtype=np.float32):
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
'''


def _is_test_class(node: ast.AST) -> bool:
  return isinstance(node, ast.ClassDef) and any(
      "compile_module" in ast.unparse(decorator) for decorator in node.decorator_list)


def _is_dropped(node: ast.AST) -> bool:
  """Statements the import script leaves out: our imports, the tests, the main block."""
  if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("pyiree_tf_support"):
    return True
  if isinstance(node, ast.Import) and any(a.name.startswith(("pyiree_tf_support", "tensorflow",
                                                              "numpy")) for a in node.names):
    return True
  if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("tensorflow"):
    return True
  if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
    return True
  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
    return True  # the docstring
  return _is_test_class(node)


def module_source(source_path: str) -> str:
  """The test file's text without its tests, main block and imports of numpy/TF/our library."""
  with open(source_path, encoding="utf-8") as f:
    text = f.read()
  lines = text.splitlines()
  tree = ast.parse(text, source_path)
  kept = []
  for node in tree.body:
    if _is_dropped(node):
      continue
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    kept.append("\n".join(lines[start - 1:node.end_lineno]))
  return "\n\n\n".join(kept) + "\n"


def _exported_names(source_path: str, module_class: str) -> Tuple[str, ...]:
  with open(source_path, encoding="utf-8") as f:
    tree = ast.parse(f.read(), source_path)
  for node in ast.walk(tree):
    if (isinstance(node, ast.Call) and "compile_module" in ast.unparse(node.func) and node.args
        and isinstance(node.args[0], ast.Name) and node.args[0].id == module_class):
      for keyword in node.keywords:
        if keyword.arg == "exported_names":
          names = ast.literal_eval(keyword.value)
          return (names,) if isinstance(names, str) else tuple(names)
  return ()


def import_script(source_path: str, module_class: str, pipeline: str, title: str,
                  keras: bool, source_label: str) -> str:
  """repro.py for an import failure (TensorFlow only): the module source of `source_path`
  (named `source_label` in the script) and the import of `module_class`."""
  if not quoting.function_name(module_class):  # the script calls it: a name, not code.
    raise ValueError(f"the module class {quoting.shown(module_class)} is not a Python name")
  body = module_source(source_path)
  return IMPORT_SCRIPT.format(
      docstring=quoting.docstring(
          f"{title}\n\nTensorFlow only: the module source of {source_label} (its tests left "
          "out), saved as a SavedModel,\nconverted with convert_saved_model and lowered with "
          f'run_pass_pipeline("{pipeline}"), as\npyiree_tf_support does. Prints "error: ..." '
          "and exits 1 while the import fails.\n"),
      source_comment=quoting.comment(source_label), pipeline=pipeline,
      env_lines='os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # Keras 2, as the suite runs\n'
      if keras else "",
      shim=TF_UTILS_SHIM if "tf_utils." in body else "",
      module_source=body, exported_names=_exported_names(source_path, module_class),
      module_class=module_class)


def repro_path(module_dir: str) -> str:
  return os.path.join(module_dir, "repro", "import", "repro.py")


def write(module_dir: str, source_path: Optional[str], module_class: str, pipeline: str,
          keras: bool = False, python: str = sys.executable) -> Tuple[Optional[str], str]:
  """Writes <module_dir>/repro/import/repro.py for the module class `module_class` defined at the
  top level of `source_path`; returns (the command running it, "") or (None, why there is none)."""
  if not source_path or not os.path.isfile(source_path):
    return None, "its source file is unknown"
  try:
    script = import_script(source_path, module_class, pipeline,
                           f"{os.path.basename(source_path)}: the import of {module_class} fails "
                           "(before any backend)", keras, source_path)
  except (SyntaxError, UnicodeDecodeError, OSError) as e:
    return None, f"its source file {source_path} could not be read ({type(e).__name__})"
  except ValueError as e:
    return None, str(e)
  path = repro_path(module_dir)
  safe_files.make_dirs(os.path.dirname(path))
  safe_files.write_text(path, script)
  return f"{shlex.quote(python)} {shlex.quote(bazel_paths.display_path(path))}", ""
