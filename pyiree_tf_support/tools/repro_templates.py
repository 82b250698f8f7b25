"""The text of the files a standalone reproduction consists of (shell scripts, a TF-only import
script, an MLIR driver module), as data: `make_repros` fills them in.

Every repro.sh has the same contract, which tests/tooling/repros_test.py checks: it runs IREE's (or
TensorFlow's) own tools, prints their output, and ends with one line `FIRST_ERROR: <line>` and exit
status 1 while the failure persists, or `NO FAILURE` and exit status 0 once it is gone (status 2:
the tools were not found). The first error line drops the `file:line:col: ` prefix of compiler
diagnostics, so it does not change when a line moves.
"""

# Finds tools at run time (no path of the machine that generated the repro): $IREE_TOOLS_DIR,
# then PATH, then the repository's .venv/bin (repros live at e2e/repros/<backend>/<name>/).
PREAMBLE = r"""#!/bin/sh
# {title}
# Standalone: IREE's (or TensorFlow's) tools only. Tools come from $IREE_TOOLS_DIR, else PATH,
# else the repository's .venv/bin. Ends with "FIRST_ERROR: <line>" (exit 1) while it fails.
set -u
cd "$(dirname "$0")"
tool() {{  # prints the path of IREE tool $1
  if [ -n "${{IREE_TOOLS_DIR:-}}" ] && [ -x "$IREE_TOOLS_DIR/$1" ]; then echo "$IREE_TOOLS_DIR/$1"; return 0; fi
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  if [ -x "../../../../.venv/bin/$1" ]; then echo "$PWD/../../../../.venv/bin/$1"; return 0; fi
  echo "repro.sh: $1 not found (set IREE_TOOLS_DIR to the directory holding it)" >&2
  return 2
}}
first_error() {{  # the first error line of file $1, without a file:line:col: prefix
  grep -m1 -E 'error:|^\[FAILED\]|^[^ ]*: [A-Z_]+; ' "$1" \
    | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/^[^ ]+\.(c|cc|h):[0-9]+: //' -e 's/[[:space:]]+$//'
}}
finish() {{  # $1: exit status of the failing step, $2: its log
  line=$(first_error "$2")
  if [ "$1" -eq 0 ] && [ -z "$line" ]; then echo "NO FAILURE"; exit 0; fi
  [ -n "$line" ] || line="exit status $1 without an error line"
  echo "FIRST_ERROR: $line"
  exit 1
}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"""

COMPILE = PREAMBLE + r"""
iree_compile=$(tool iree-compile) || exit 2
"$iree_compile" iree_input.mlir {compile_flags} -o "$work/module.vmfb" >"$work/log" 2>&1
status=$?
cat "$work/log"
finish "$status" "$work/log"
"""

RUN = PREAMBLE + r"""
iree_compile=$(tool iree-compile) || exit 2
iree_run_module=$(tool iree-run-module) || exit 2
"$iree_compile" iree_input.mlir {compile_flags} -o "$work/module.vmfb" >"$work/log" 2>&1 \
  || {{ cat "$work/log"; finish 1 "$work/log"; }}
{driver_compile}"$iree_run_module" --device={device} --module="$work/module.vmfb" {driver_module}\
  --function={function} \
{run_flags}  >"$work/log" 2>&1
status=$?
cat "$work/log"
finish "$status" "$work/log"
"""

DRIVER_COMPILE = (
    r""""$iree_compile" driver.mlir {target_flags} -o "$work/driver.vmfb" >"$work/driver.log" 2>&1 \
  || {{ cat "$work/driver.log"; finish 1 "$work/driver.log"; }}
""")

IMPORT = PREAMBLE + r"""
python="${{PYTHON:-}}"  # a Python with TensorFlow: $PYTHON, else the repository's venv, else python3
[ -n "$python" ] || {{ [ -x ../../../../.venv/bin/python ] && python=../../../../.venv/bin/python; }} || python=python3
{env}"$python" repro.py >"$work/log" 2>"$work/stderr"  # TensorFlow's log noise goes to stderr
status=$?
cat "$work/stderr" "$work/log"
finish "$status" "$work/log"
"""

# The TF-only import script: the test file's module source, then SavedModel -> MLIR -> StableHLO.
IMPORT_SCRIPT = '''"""{title}

TensorFlow only: the module source of {source} (its tests left out), saved as a SavedModel,
converted with convert_saved_model and lowered with run_pass_pipeline("{pipeline}"), as
pyiree_tf_support does. Prints "error: ..." and exits 1 while the import fails.
"""
# pylint: skip-file
import os
import re
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
{env_lines}import numpy as np
import tensorflow.compat.v2 as tf
{shim}
# ---- {source}, without its tests ----
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

# A module that calls the failing module's functions across the module boundary (iree-run-module
# loads both; each call is one invocation of the compiled function, as in a test), so the failing
# call sees the state the earlier calls left.
DRIVER = """\
// Calls {module}'s functions in the order of the trace, one invocation each, and returns the
// results of the last (the failing call); its inputs are this function's arguments.
module @repro_driver {{
{imports}
  func.func @repro({arguments}) -> ({results}) {{
{calls}
    return {returned} : {results}
  }}
}}
"""

# The first and last lines are one line each in README.txt; `\` joins their parts here.
README = """\
{what} fails {where} ({phase} phase): {source}, test {test}. {how} Run ./repro.sh (IREE's tools \
from $IREE_TOOLS_DIR, PATH or the repository's .venv/bin{python}): while the failure persists it \
exits 1 and its last line is:
FIRST_ERROR: {first_error}
{reasons}
Generated by `python -m pyiree_tf_support.tools.make_repros` from a run's artifacts; regenerate \
rather than edit.
"""
