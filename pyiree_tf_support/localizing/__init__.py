"""Internal. The dispatch localizer (`python -m pyiree_tf_support.localize`, docs/localizing.md):
which IREE dispatch of a mismatching call diverges first. `formation` (one dispatch formation,
traced compiles of suspect and trusted), `traced_run` (a child process running a traced vmfb
with a debug sink), `events` (alignment and verdict rules, numpy only), `tensors` (saved tensors
memory-mapped and measured a chunk at a time), `engine` (the steps and verdicts), `report`
(the verdict's text and JSON), `dispatch_repro` (a standalone repro of the diverging dispatch)
and `in_child` (--localize_mismatches: the command run in a child process);
the oracle outside IREE: `oracle_module` (iree_input.mlir rewritten for the StableHLO reference
interpreter), `oracle_run` (its child process), `oracle_sites` (each traced tensor's StableHLO
value), `oracle` (running it, judging against it) and `reference_f64` (a failing call in
float64 on it, judged by the reference's own error).

Import rule: never TensorFlow; devices only in `traced_run`'s child process, the interpreter
only in `oracle_run`'s.
"""
