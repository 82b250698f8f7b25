#!/bin/sh
# A scatter at indices from a runtime-length iota through a select whose mask passed an scf.if
# (TF's tf.range(n) % 8) fails llvm-cpu's check for unbounded stack allocations. Standalone:
# iree-compile only, from $IREE_TOOLS_DIR, else PATH, else the repository's .venv/bin. Ends with
# "FIRST_ERROR: <line>" (exit 1) while it fails, "NO FAILURE" (exit 0) once IREE compiles it.
set -u
cd "$(dirname "$0")" || exit 2
compiler="iree-compile"
[ -n "${IREE_TOOLS_DIR:-}" ] && [ -x "$IREE_TOOLS_DIR/iree-compile" ] \
  && compiler="$IREE_TOOLS_DIR/iree-compile"
command -v "$compiler" >/dev/null 2>&1 || compiler="$PWD/../../../../.venv/bin/iree-compile"
[ -x "$compiler" ] || command -v "$compiler" >/dev/null 2>&1 \
  || { echo "repro.sh: iree-compile not found (set IREE_TOOLS_DIR)" >&2; exit 2; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
compile() {  # $1: the .mlir file; its diagnostics go to $scratch/$1.log
  "$compiler" "$1" --iree-input-type=stablehlo_xla --iree-hal-target-backends=llvm-cpu \
    --iree-llvmcpu-target-cpu=generic -o "$scratch/$1.vmfb" >"$scratch/$1.log" 2>&1
}
diagnostic() {  # the first "error:" of log $1, its file:line:col: dropped
  grep -m1 'error:' "$1" | sed -e 's/^[^ ]*: error: /error: /' -e 's/[[:space:]]*$//'
}
echo "== control.mlir: no scf.if, a runtime-length input instead of the iota, or no scatter"
if ! compile control.mlir; then
  cat "$scratch/control.mlir.log"
  echo "FIRST_ERROR: control: $(diagnostic "$scratch/control.mlir.log")"
  exit 1
fi
echo "compiles"
echo "== iree_input.mlir: iota -> mask through scf.if -> select -> scatter indices"
if compile iree_input.mlir; then
  echo "NO FAILURE"
  exit 0
fi
cat "$scratch/iree_input.mlir.log"
echo "FIRST_ERROR: $(diagnostic "$scratch/iree_input.mlir.log")"
exit 1
