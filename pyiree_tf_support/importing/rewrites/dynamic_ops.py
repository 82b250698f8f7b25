"""What the dynamic-shape rewrites look for, without IREE's MLIR bindings: a text with none of
these ops skips the rewrites and never imports the bindings (~0.2 s; most modules are static)."""

# The step's name as listed in iree_input.mlir's header among the import pipeline's steps.
REWRITE_STEP = ("pyiree_tf_support.importing.rewrites.dynamic_broadcasts: "
                "dynamic_broadcast_in_dim dims proven "
                "non-expanding, decided at run time (scf.if on size 1) or asserted (cf.assert); "
                "shape.cstr_broadcastable -> cf.assert; unit-dim dynamic_reshape -> "
                "tensor.expand_shape")

BROADCAST = "stablehlo.dynamic_broadcast_in_dim"
CSTR_BROADCASTABLE = "shape.cstr_broadcastable"
DYNAMIC_RESHAPE = "stablehlo.dynamic_reshape"
HANDLED = (BROADCAST, CSTR_BROADCASTABLE, DYNAMIC_RESHAPE)


def may_rewrite(mlir_text: str) -> bool:
  """False when the text has none of the ops the rewrites handle (it comes back unchanged)."""
  return any(name in mlir_text for name in HANDLED)
