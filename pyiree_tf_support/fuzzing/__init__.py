"""Internal. The fuzzer's parts (`python -m pyiree_tf_support.fuzz`, docs/fuzzing.md): `ops`
(the op table: dtype, rank, size-0, shape and domain rules), `programs` (seeded chains of ops,
each module's from (seed, index) alone, their inputs with special values, the test file in the
corpus' format that holds them, `--shapes` and `--dynamic_sizes` parsing), `judging` (the
written float policy: when a difference is float32 precision, an inexact op's allowed error or
a flushed subnormal), `signatures` (what makes two hits one finding, by localized dispatch where
there is one), `findings` (a campaign's state and table, and the merge of shards, each module
once and nothing written outside `--out`), `state_schema` (every field of a findings.json
checked when it is loaded, names that become path components plain), `campaign_lock` (one
campaign or merge at a time in a dir), `shards` (`--jobs` worker processes, each resuming the
state saved before it starts, a dead one said, and `--shard` parsing), `stopping` (SIGTERM
stops a campaign as Ctrl-C does).

Import rule: no TensorFlow at import; programs are TensorFlow source text, which `judging` runs
(a float64 twin) and the command compares.
"""
