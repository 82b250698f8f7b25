#!/bin/sh
# Two scf.if's in a row choosing between broadcasts of a computed value: IREE's runtime uses a
# transient buffer before it is committed (llvm-cpu and vmvx on local-task; Vulkan too). Standalone:
# iree-compile and iree-run-module from $IREE_TOOLS_DIR, else PATH, else the repository's
# .venv/bin. Ends with "FIRST_ERROR: <line>" (exit 1) while it fails, "NO FAILURE" (exit 0) once
# IREE runs it right.
set -u
cd "$(dirname "$0")" || exit 2
tool() {  # prints the path of IREE tool $1
  if [ -n "${IREE_TOOLS_DIR:-}" ] && [ -x "$IREE_TOOLS_DIR/$1" ]; then echo "$IREE_TOOLS_DIR/$1"; return 0; fi
  if command -v "$1" >/dev/null 2>&1; then command -v "$1"; return 0; fi
  if [ -x "../../../../.venv/bin/$1" ]; then echo "$PWD/../../../../.venv/bin/$1"; return 0; fi
  echo "repro.sh: $1 not found (set IREE_TOOLS_DIR to the directory holding it)" >&2
  return 2
}
first_error() {  # the first error line of file $1, without its source prefix nor call tail
  grep -m1 -E 'error:|^\[FAILED\]|^[^ ]*: [A-Z_]+; ' "$1" \
    | sed -E -e 's/^[^ ]+: (error: )/\1/' -e 's/^[^ ]+\.(c|cc|h):[0-9]+: //' \
      -e 's/; while (invoking|calling) .*$//' -e 's/[[:space:]]+$//'
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
iree_compile=$(tool iree-compile) || exit 2
iree_run_module=$(tool iree-run-module) || exit 2
input="2x4xf32=1.5 2 3 4 5 6 7 8.25"
expected="2x4xf32=3 6 9 12 15 18 21 24"  # 3 * floor(x)
run() {  # $1: the .mlir file; compiles it for llvm-cpu and runs @f on the 2-row input
  "$iree_compile" "$1" --iree-input-type=stablehlo_xla --iree-hal-target-backends=llvm-cpu \
    --iree-llvmcpu-target-cpu=generic -o "$work/$1.vmfb" >"$work/$1.log" 2>&1 \
    && "$iree_run_module" --device=local-task --module="$work/$1.vmfb" --function=f \
      --input="$input" --expected_output="$expected" >>"$work/$1.log" 2>&1
}
echo "== control.mlir: one scf.if only"
if ! run control.mlir; then
  cat "$work/control.mlir.log"
  echo "FIRST_ERROR: control: $(first_error "$work/control.mlir.log")"
  exit 1
fi
echo "runs right"
echo "== iree_input.mlir: two scf.if's in a row, f($input), expected $expected"
if run iree_input.mlir; then
  echo "NO FAILURE"
  exit 0
fi
cat "$work/iree_input.mlir.log"
echo "FIRST_ERROR: $(first_error "$work/iree_input.mlir.log")"
exit 1
