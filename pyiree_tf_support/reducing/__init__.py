"""Internal. Reducing a failure to the smallest program that shows it (`python -m
pyiree_tf_support.reduce`, docs/reducing.md): `failures` (the predicate "the same failure",
written once), `search` (delta debugging over a list of parts, kept only while the predicate
holds) and `in_child` (--reduce_failures: the command run in a child process).

Import rule: never TensorFlow; the compiler and runtime only through what the command gives
(it replays each candidate with `replay`).
"""
