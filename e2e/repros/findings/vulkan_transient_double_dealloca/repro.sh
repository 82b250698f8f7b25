#!/bin/sh
# Vulkan: two scf.if'd broadcasts of computed operands; the call fails at queue_dealloca
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
x="2x4xf32=1 -2 3 -4 5 -6 7 -8"
y="2x4xf32=2 2 2 2 2 2 2 2"
right="2x4xf32=0.5 1 1.5 2 2.5 3 3.5 4"
on_vulkan() {  # $1: label, $2: file, $3: function; compiled for IREE's default Vulkan target
  "$compile" "$2" --iree-hal-target-backends=vulkan-spirv -o "$tmp/$3.vmfb" >"$tmp/$3.log" 2>&1 \
    && "$run_module" --device=vulkan --module="$tmp/$3.vmfb" --function="$3" --input="$x" \
      --input="$y" --expected_output="$right" >>"$tmp/$3.log" 2>&1
  status=$?
  echo "== $1: exit $status"; cat "$tmp/$3.log"
  return $status
}
on_vulkan control control.mlir one_branch \
  || { echo "FIRST_ERROR: control: $(error_line "$tmp/one_branch.log")"; exit 1; }
on_vulkan module iree_input.mlir ratio && { echo "NO FAILURE"; exit 0; }
echo "FIRST_ERROR: $(error_line "$tmp/ratio.log")"
exit 1
