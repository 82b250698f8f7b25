"""The dispatch localizer: which IREE dispatch of a mismatching call diverges first (TF-free).

formation (one dispatch formation, traced compiles), traced_run (a traced vmfb in a child
process), events (alignment and verdict rules), engine (the steps), report, dispatch_repro,
in_child (--localize_mismatches); the oracle outside IREE: oracle_module (iree_input.mlir
rewritten for the StableHLO reference interpreter), oracle_run (its child process),
oracle_sites (each traced tensor's StableHLO value), oracle (running it, judging against it).
"""
