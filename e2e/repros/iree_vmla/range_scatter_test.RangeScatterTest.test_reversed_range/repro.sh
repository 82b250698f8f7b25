#!/bin/sh
# e2e/range_scatter_test.py::RangeScatterTest::test_reversed_range on iree_vmla: compile failure
# Standalone: IREE's (or TensorFlow's) tools only. Tools come from $IREE_TOOLS_DIR, else PATH,
# else the repository's .venv/bin. Ends with "FIRST_ERROR: <line>" (exit 1) while it fails.
set -u
cd "$(dirname "$0")"
tool() {  # prints the path of IREE tool $1
  if [ -n "${IREE_TOOLS_DIR:-}" ] && [ -x "$IREE_TOOLS_DIR/$1" ]; then echo "$IREE_TOOLS_DIR/$1"; return 0; fi
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  if [ -x "../../../../.venv/bin/$1" ]; then echo "$PWD/../../../../.venv/bin/$1"; return 0; fi
  echo "repro.sh: $1 not found (set IREE_TOOLS_DIR to the directory holding it)" >&2
  return 2
}
first_error() {  # the first error line of file $1, without a file:line:col: prefix nor
  # the runtime's "; while invoking native function ..." tail (which varies for a race)
  grep -m1 -E 'error:|^\[FAILED\]|^[^ ]*: [A-Z_]+; ' "$1" \
    | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/^[^ ]+\.(c|cc|h):[0-9]+: //' \
      -e 's/; while (invoking|calling) .*$//' -e 's/[[:space:]]+$//'
}
finish() {  # $1: exit status of the failing step, $2: its log
  line=$(first_error "$2")
  if [ "$1" -eq 0 ] && [ -z "$line" ]; then echo "NO FAILURE"; exit 0; fi
  [ -n "$line" ] || line="exit status $1 without an error line"
  echo "FIRST_ERROR: $line"
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

iree_compile=$(tool iree-compile) || exit 2
"$iree_compile" iree_input.mlir --iree-input-type=stablehlo_xla --iree-hal-target-backends=vmvx --iree-input-demote-f64-to-f32=false -o "$work/module.vmfb" >"$work/log" 2>&1
status=$?
cat "$work/log"
finish "$status" "$work/log"
