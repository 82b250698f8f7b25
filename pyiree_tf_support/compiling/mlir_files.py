"""iree_input.mlir as saved: MLIR text, or MLIR bytecode for a big module (`importing` writes
bytecode above `artifacts.BYTECODE_ABOVE` bytes of text: a weight is 4 bytes there instead of 8
hex digits). iree-compile reads either file as it is; `text` gives what replay, bundles and the
localizer compile and rewrite. A person prints a bytecode file with IREE's own tool:
`iree-opt iree_input.mlir` (or `iree-ir-tool copy iree_input.mlir -o iree_input.txt.mlir`).
"""

from pyiree_tf_support.core import artifacts


def text(data: bytes) -> str:
  """The MLIR text of a saved iree_input.mlir (UnicodeDecodeError if text that is not UTF-8;
  ValueError if bytecode MLIR's parser rejects)."""
  if not artifacts.is_mlir_bytecode(data):
    return data.decode("utf-8")
  from iree.compiler import ir  # (~0.2 s: only here)
  with ir.Context():
    try:
      return str(ir.Module.parse(data))
    except ir.MLIRError as e:
      raise ValueError(f"MLIR's parser rejects the bytecode: {' '.join(str(e).split())}") from None
