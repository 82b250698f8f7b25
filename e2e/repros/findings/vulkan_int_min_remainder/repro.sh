#!/bin/sh
# Vulkan: the signed remainder of int32's minimum comes out positive (-2**31 % 5 gives 3, not -3)
# Standalone: IREE's tools only. Tools come from $IREE_TOOLS_DIR, else PATH, else the
# repository's .venv/bin. Ends with "FIRST_ERROR: <line>" (exit 1) while it fails.
set -u
cd "$(dirname "$0")"
find_tool() {  # the path of IREE's tool $1
  if [ -n "${IREE_TOOLS_DIR:-}" ] && [ -x "$IREE_TOOLS_DIR/$1" ]; then
    echo "$IREE_TOOLS_DIR/$1"; return 0
  fi
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  if [ -x "../../../../.venv/bin/$1" ]; then echo "$PWD/../../../../.venv/bin/$1"; return 0; fi
  echo "repro.sh: $1 not found (set IREE_TOOLS_DIR to the directory holding it)" >&2
  return 2
}
error_line() {  # the first error line of log $1, its source-file prefix dropped
  grep -m1 -E 'error:|^\[FAILED\]|^[^ ]*: [A-Z_]+; ' "$1" \
    | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/^[^ ]+\.(c|cc|h):[0-9]+: //' -e 's/[[:space:]]+$//'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compile=$(find_tool iree-compile) || exit 2
run_module=$(find_tool iree-run-module) || exit 2
ids="4xi32=-2147483648 -2147483647 -7 2147483647"
fives="4xi32=5 5 5 5"
right="4xi32=-3 -2 -2 2"
# Control: llvm-cpu on local-task gives C's remainders.
"$compile" iree_input.mlir --iree-hal-target-backends=llvm-cpu --iree-llvmcpu-target-cpu=generic \
  -o "$tmp/cpu.vmfb" >"$tmp/cpu.log" 2>&1 \
  && "$run_module" --device=local-task --module="$tmp/cpu.vmfb" --function=remainder \
    --input="$ids" --input="$fives" --expected_output="$right" >>"$tmp/cpu.log" 2>&1
status=$?
echo "== control, llvm-cpu: exit $status"; cat "$tmp/cpu.log"
[ "$status" -eq 0 ] || { echo "FIRST_ERROR: control: $(error_line "$tmp/cpu.log")"; exit 1; }
# IREE's default Vulkan target (vp_android_baseline_2022); valhall4 gives the same 3.
"$compile" iree_input.mlir --iree-hal-target-backends=vulkan-spirv -o "$tmp/vk.vmfb" \
  >"$tmp/vk.log" 2>&1 \
  || { cat "$tmp/vk.log"; echo "FIRST_ERROR: $(error_line "$tmp/vk.log")"; exit 1; }
"$run_module" --device=vulkan --module="$tmp/vk.vmfb" --function=remainder \
  --input="$ids" --input="$fives" --expected_output="$right" >>"$tmp/vk.log" 2>&1
status=$?
echo "== vulkan: exit $status"; cat "$tmp/vk.log"
[ "$status" -eq 0 ] && { echo "NO FAILURE"; exit 0; }
echo "FIRST_ERROR: $(error_line "$tmp/vk.log")"
exit 1
