#!/bin/sh
# A dim query (stablehlo.get_dimension_size, tensor.dim, shape.shape_of) of a dynamic unsigned
# tensor fails IREE's StableHLO input conversion on every target. Standalone: iree-compile only,
# from $IREE_TOOLS_DIR, else PATH, else the repository's .venv/bin. Ends with
# "FIRST_ERROR: <line>" (exit 1) while it fails, "NO FAILURE" (exit 0) once IREE compiles it.
set -u
cd "$(dirname "$0")" || exit 2
compiler="iree-compile"
[ -n "${IREE_TOOLS_DIR:-}" ] && [ -x "$IREE_TOOLS_DIR/iree-compile" ] \
  && compiler="$IREE_TOOLS_DIR/iree-compile"
command -v "$compiler" >/dev/null 2>&1 || compiler="$PWD/../../../../.venv/bin/iree-compile"
[ -x "$compiler" ] || command -v "$compiler" >/dev/null 2>&1 \
  || { echo "repro.sh: iree-compile not found (set IREE_TOOLS_DIR)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build() {  # $1: the .mlir file, $2: the target; diagnostics to $work/$1.$2.log
  "$compiler" "$1" --iree-input-type=stablehlo_xla --iree-hal-target-backends="$2" \
    -o "$work/$1.$2.vmfb" >"$work/$1.$2.log" 2>&1
}
diagnostic() {  # the first "error:" of log $1, its file:line:col: and SSA operands dropped
  grep -m1 'error:' "$1" | sed -e 's/^[^ ]*: error: /error: /' -e 's/: %.*//' \
    -e 's/[[:space:]]*$//'
}
echo "== control.mlir (vmvx): the query on i8, and ui8 ops that ask no dim"
if ! build control.mlir vmvx; then
  cat "$work/control.mlir.vmvx.log"
  echo "FIRST_ERROR: control: $(diagnostic "$work/control.mlir.vmvx.log")"
  exit 1
fi
echo "compiles"
first=""
for target in vmvx llvm-cpu vulkan-spirv; do
  echo "== iree_input.mlir ($target): get_dimension_size of a tensor<?x4xui8>"
  if build iree_input.mlir "$target"; then
    echo "compiles"
  else
    cat "$work/iree_input.mlir.$target.log"
    [ -z "$first" ] && first=$(diagnostic "$work/iree_input.mlir.$target.log")
  fi
done
if [ -z "$first" ]; then echo "NO FAILURE"; exit 0; fi
echo "FIRST_ERROR: $first"
exit 1
