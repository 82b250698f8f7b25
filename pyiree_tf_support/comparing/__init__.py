"""Internal. Compare: `traces` (2020's `ModuleCall`, `Trace`, `TracedModule`: the calls a trace
function made and their results), `recorded_values` (copies, or arrays shared with the reference's
record), `trace_text` (the readable trace, summarized or streamed whole), `trace_io` (trace files:
JSON + npz), `mapped_npz` (an arrays.npz checked a chunk at a time, its arrays memory-mapped,
never read whole), `mapped_arrays` (saved arrays memory-mapped, written and walked a block at a
time, their pages dropped: the localizer's and the reducer's), `comparison` (one record per
kind of difference between two traces, one message builder), `tolerances` (the per-dtype table
and the policy of overrides) and `reference_error` (a float mismatch judged by TensorFlow's own
error against float64).

Import rule: numpy only (no TensorFlow, no IREE); imports only `core` of the package.
"""
