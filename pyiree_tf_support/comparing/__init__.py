"""Internal. Compare: traces (the calls a trace function made and their results), trace files,
the per-dtype tolerance policy and the comparison of two traces into mismatch records.

Import rule: numpy only (no TensorFlow, no IREE); imports only `core` of the package.
"""
