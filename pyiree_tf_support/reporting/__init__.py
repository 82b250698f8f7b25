"""Internal. After the comparison: each backend's verdict (`verdicts`), report.txt/report.json
written (`report_files`, from the frozen trace and backend records of `records`) and read back
(`run_results`), repro files and commands (`repro`), the TF-only script reproducing an import
failure (`import_repro`), the checks on a replay's input (`replay_input`), a trace whose inputs
change between runs (`determinism`), what to rewrite for a known first error line (`hints`) and
the expected-failure policy: the typed lists, --xfail_backends entries and the per-class verdict
(`expected_failures`).

Import rule: no TensorFlow and no IREE; imports `comparing` and `core` of the package.
"""
