#!/bin/sh
# Vulkan: 8-bit tensors lose their bytes past the last whole 32-bit word (IREE's default target)
# Standalone: IREE's tools only. Tools come from $IREE_TOOLS_DIR, else PATH, else the
# repository's .venv/bin. Ends with "FIRST_ERROR: <line>" (exit 1) while it fails.
set -u
cd "$(dirname "$0")"
tool() {  # prints the path of IREE tool $1
  if [ -n "${IREE_TOOLS_DIR:-}" ] && [ -x "$IREE_TOOLS_DIR/$1" ]; then echo "$IREE_TOOLS_DIR/$1"; return 0; fi
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  if [ -x "../../../../.venv/bin/$1" ]; then echo "$PWD/../../../../.venv/bin/$1"; return 0; fi
  echo "repro.sh: $1 not found (set IREE_TOOLS_DIR to the directory holding it)" >&2
  return 2
}
first_error() {  # the first error line of file $1, without a file:line:col: prefix
  grep -m1 -E 'error:|^\[FAILED\]|^[^ ]*: [A-Z_]+; ' "$1" \
    | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/^[^ ]+\.(c|cc|h):[0-9]+: //' -e 's/[[:space:]]+$//'
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

iree_compile=$(tool iree-compile) || exit 2
iree_run_module=$(tool iree-run-module) || exit 2
# IREE's default Vulkan target (vp_android_baseline_2022: 32-bit storage only, so 8-bit values
# are packed four to a 32-bit word).
"$iree_compile" iree_input.mlir --iree-input-type=stablehlo_xla \
  --iree-hal-target-backends=vulkan-spirv -o "$work/module.vmfb" >"$work/log" 2>&1 \
  || { cat "$work/log"; echo "FIRST_ERROR: $(first_error "$work/log")"; exit 1; }
failed=""
run() {  # $1: label, $2: function, $3: input, $4: expected output
  "$iree_run_module" --device=vulkan --module="$work/module.vmfb" --function="$2" \
    --input="$3" --expected_output="$4" >"$work/$2.log" 2>&1
  status=$?
  echo "== $1 $2($3), expected $4: exit $status"
  cat "$work/$2.log"
  if [ "$status" -ne 0 ] && [ -z "$failed" ]; then failed="$2"; fi
}
run control add_i8_4 "4xi8=1 2 3 4" "4xi8=2 4 6 8"
if [ -n "$failed" ]; then
  echo "FIRST_ERROR: control: $(first_error "$work/$failed.log")"; exit 1
fi
run "6 bytes out" add_i8_6 "6xi8=1 2 3 4 5 6" "6xi8=2 4 6 8 10 12"
run "6 bytes out, unsigned" add_ui8_6 "6xui8=1 2 3 4 5 6" "6xui8=2 4 6 8 10 12"
run "3 bytes in" widen_i8_3 "3xi8=1 2 3" "3xi32=1 2 3"
if [ -z "$failed" ]; then echo "NO FAILURE"; exit 0; fi
echo "FIRST_ERROR: $(first_error "$work/$failed.log")"
exit 1
