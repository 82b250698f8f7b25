"""Internal. After the comparison: each backend's verdict (`verdicts`), report.txt/report.json
(`report_files`), repro files and commands (`repro`), the checks on a replay's input
(`replay_input`) and the expected-failure lists (`expected_failures`).

Import rule: no TensorFlow and no IREE; imports `comparing` and `core` of the package.
"""
