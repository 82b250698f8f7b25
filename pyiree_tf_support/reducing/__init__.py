"""Internal. Reducing a failure to the smallest program that shows it (`python -m
pyiree_tf_support.reduce`, docs/reducing.md): `failures` (the predicate "the same failure",
written once), `search` (delta debugging over a list of parts, kept only while the predicate
holds), `ops` (one function's StableHLO as a list of ops and candidates rebuilt from a subset,
through IREE's MLIR bindings), `op_level` (the op level: the cut after the first diverging value,
operands turned into inputs fed a trusted backend's values, splats, smaller dynamic dims,
simpler input values; the reduced program's files and script), `state` (a stateful module's
globals threaded as inputs and results, read from a trusted backend, or started from a given
state: the earlier calls of a stateful trace replaced by the state they leave),
`in_child` (--reduce_failures' child process).

Import rule: never TensorFlow; the levels above the op level replay each candidate with
`replay`; the op level compiles with `compiling.compiler` and runs each candidate with
iree-run-module in a child process (no device in this process).
"""
