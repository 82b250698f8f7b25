#!/bin/sh
# Vulkan: an f16 round trip broadcast over a runtime dim asks for 2^57 bytes of shared memory
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
  grep -m1 -E 'error:' "$1" | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/[[:space:]]+$//'
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
compile=$(find_tool iree-compile) || exit 2
vulkan() {  # compiles $1 for IREE's default Vulkan target into $tmp/$2.vmfb, log $tmp/$2.log
  "$compile" "$1" --iree-input-type=stablehlo --iree-hal-target-backends=vulkan-spirv \
    -o "$tmp/$2.vmfb" >"$tmp/$2.log" 2>&1
}
# Controls: the same broadcast of abs(x), and the round trip without the scf.if, compile.
for control in control plain_control; do
  vulkan "$control.mlir" "$control"
  status=$?
  echo "== control $control.mlir, vulkan-spirv: exit $status"; cat "$tmp/$control.log"
  [ "$status" -eq 0 ] || { echo "FIRST_ERROR: control: $(error_line "$tmp/$control.log")"; exit 1; }
done
vulkan iree_input.mlir module
status=$?
echo "== iree_input.mlir, vulkan-spirv: exit $status"; cat "$tmp/module.log"
[ "$status" -eq 0 ] && { echo "NO FAILURE"; exit 0; }
echo "FIRST_ERROR: $(error_line "$tmp/module.log")"
exit 1
