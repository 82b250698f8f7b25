"""Internal. StableHLO rewrites run after TensorFlow's lowering, on IREE's MLIR Python bindings:
dynamic broadcasts (`dynamic_broadcasts`, with `shape_sources`; `dynamic_ops` names the ops they
look for, so that a static module never imports the bindings), dynamic reshapes
(`dynamic_reshapes`; to shapes computed at run time: `runtime_reshapes`), strided slices
(`dynamic_strided_slices`) and scatters whose indices count is dynamic while their updates' is
static (`scatter_counts`), all reading types and constants with `tensor_text`, unit dims
(`unit_dim_reshapes`), while carries grown from empty (`growing_carries`) and the length of a
runtime range with a negative step (`range_lengths`). Each module's
docstring says which TF output it repairs and why (docs/import_pipeline.md has the
measurements).

Import rule: no TensorFlow; text in, text out.
"""
