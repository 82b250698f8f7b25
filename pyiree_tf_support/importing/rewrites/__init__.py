"""Internal. StableHLO rewrites run after TensorFlow's lowering, on IREE's MLIR Python bindings:
dynamic broadcasts and reshapes, unit dims, while carries grown from empty. Each module's
docstring says which TF output it repairs and why (docs/import_pipeline.md has the measurements).

Import rule: no TensorFlow; text in, text out.
"""
