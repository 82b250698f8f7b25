"""The text of the files a standalone reproduction consists of (shell scripts, an MLIR driver
module), as data: `make_repros` fills them in (the TF-only import script is the library's
`reporting.import_repro`, which a failing test writes too).

Every repro.sh has the same contract, which tests/tooling/repros_test.py checks: it runs IREE's (or
TensorFlow's) own tools, prints their output, and ends with one line `FIRST_ERROR: <line>` and exit
status 1 while the failure persists, or `NO FAILURE` and exit status 0 once it is gone (status 2:
the tools were not found). The first error line drops the `file:line:col: ` prefix of compiler
diagnostics, so it does not change when a line moves, and the runtime's `; while invoking native
function ...` tail, which for a race names a different function from run to run (a transient
buffer used before its queue_alloca surfaces in hal.fence.await or hal.device.queue.alloca).
A run repro runs the failing call up to RUN_ATTEMPTS times and stops at the first failure, so
that a race (a failure some runs escape) reproduces as reliably as a deterministic one.
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
first_error() {{  # the first error line of file $1, without a file:line:col: prefix nor
  # the runtime's "; while invoking native function ..." tail (which varies for a race)
  grep -m1 -E 'error:|^\[FAILED\]|^[^ ]*: [A-Z_]+; ' "$1" \
    | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/^[^ ]+\.(c|cc|h):[0-9]+: //' \
      -e 's/; while (invoking|calling) .*$//' -e 's/[[:space:]]+$//'
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
{driver_compile}run=0
while :; do  # a failure that escapes some runs (a race) is caught on one of RUN_ATTEMPTS
  run=$((run + 1))
  "$iree_run_module" --device={device} --module="$work/module.vmfb" {driver_module}\
  --function={function} \
{run_flags}  >"$work/log" 2>&1
  status=$?
  if [ "$status" -ne 0 ] || [ "$run" -ge {attempts} ]; then break; fi
done
cat "$work/log"
[ "$status" -eq 0 ] || [ "$run" -eq 1 ] || echo "(failed on run $run of up to {attempts})"
finish "$status" "$work/log"
"""
# Runs of the failing call before a repro says NO FAILURE: measured, Vulkan's transient-buffer
# race (e2e/repros/findings/scf_if_transient_buffer) let 5 of 10 single runs pass; a
# deterministic failure fails the first run, as before, and a fixed one costs 10 runs.
RUN_ATTEMPTS = 10

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


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
