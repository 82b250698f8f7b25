"""Expected failures, the whole policy: which (test file, backend) is listed as failing and in
which phase, and the verdict of a listed or unlisted backend over a test class.

A backend is listed by its file's typed FAILING entry in the BUILD.bazel beside the file
(`lists`: read, validated, rewritten by the list tools) or by `--xfail_backends=backend[:phase]`
(`xfail_flag`; Bazel's failing suites pass it from FAILING). A listed backend's failing traces
are shown as XFAIL and the test passes; over the whole class it is held to the list, as Bazel's
strict failing suite holds a file (`class_verdicts.judge`, called by absltest's tearDownClass
and, at a class's last item on the backend, by the pytest plugin):

| listed / observed | passed | failed in P | failed in Q != P | skipped |
|-------------------|--------|-------------|------------------|---------|
| not listed        | PASS   | FAIL        | FAIL             | SKIPPED |
| listed, any phase | XPASS  | XFAIL       | XFAIL            | SKIPPED |
| listed in phase P | XPASS  | XFAIL       | WRONG PHASE      | SKIPPED |

Observed, per backend over every trace of the class: "passed" failed nothing (also when the
class compared nothing there); "failed in P" / "failed in Q != P": the earliest phase of its
failures (import < compile < runtime < mismatch) is the listed phase P / another one (for a row
without a phase, any phase); "skipped": it could not run on this machine (every outcome SKIPPED).
XPASS and WRONG PHASE fail the class (the list must be updated); XFAIL logs one line. A test's
own error (the reference failed, an exception in the test body) is no backend's verdict: it fails
as it is, listed or not.
"""

from pyiree_tf_support.reporting.expected_failures.class_verdicts import (  # noqa: F401
    ClassVerdict, Verdict, class_lines, judge, wrong_phase_message, xpass_message)
from pyiree_tf_support.reporting.expected_failures.lists import (  # noqa: F401
    BUILD_FILE, SHAPES, ExpectedFailure, Lists, ListsError, ListsFile, entry, failing_by_backend,
    for_test_file, one_line, read, render, rewritten, write)
from pyiree_tf_support.reporting.expected_failures.xfail_flag import (  # noqa: F401
    FLAG_REASON, expected_for, listed_by_flag, parse_xfail_entries, parse_xfail_entry)
