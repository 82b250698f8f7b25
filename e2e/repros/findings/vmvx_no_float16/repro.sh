#!/bin/sh
# vmvx has no float16: an f32 -> f16 convert fails to legalize arith.truncf (f16 -> f32 and
# f16 + f16 fail too, README.txt). Standalone: iree-compile only, from $IREE_TOOLS_DIR, else
# PATH, else the repository's .venv/bin. Ends with "FIRST_ERROR: <line>" (exit 1) while it
# fails, "NO FAILURE" (exit 0) once IREE compiles it.
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
compile() {  # $1: the .mlir file, $2: the target; its diagnostics go to $scratch/$1.$2.log
  "$compiler" "$1" --iree-input-type=stablehlo_xla --iree-hal-target-backends="$2" \
    --iree-llvmcpu-target-cpu=generic --iree-input-demote-f64-to-f32=false \
    -o "$scratch/$1.$2.vmfb" >"$scratch/$1.$2.log" 2>&1
}
diagnostic() {  # the first "error:" of log $1, its file:line:col: dropped
  grep -m1 'error:' "$1" | sed -e 's/^[^ ]*: error: /error: /' -e 's/ loc(.*$//' \
    -e 's/[[:space:]]*$//'
}
for control in "control.mlir vmvx" "iree_input.mlir llvm-cpu"; do
  set -- $control
  echo "== control: $1 for $2"
  if ! compile "$1" "$2"; then
    cat "$scratch/$1.$2.log"
    echo "FIRST_ERROR: control: $(diagnostic "$scratch/$1.$2.log")"
    exit 1
  fi
  echo "compiles"
done
echo "== iree_input.mlir for vmvx: f32 -> f16"
if compile iree_input.mlir vmvx; then
  echo "NO FAILURE"
  exit 0
fi
cat "$scratch/iree_input.mlir.vmvx.log"
echo "FIRST_ERROR: $(diagnostic "$scratch/iree_input.mlir.vmvx.log")"
exit 1
