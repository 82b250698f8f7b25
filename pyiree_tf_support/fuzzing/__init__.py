"""Internal. The fuzzer's generated programs (`python -m pyiree_tf_support.fuzz`,
docs/fuzzing.md): `programs` (the op table with its dtype and domain rules, seeded chains of ops,
their inputs, and the test file in the corpus' format that holds them).

Import rule: numpy only; the programs are TensorFlow source text, run by the command.
"""
