"""Expected failures, the whole policy: which (test file, class or test method, backend) is
listed as failing and in which phase, and the verdict of a listed or unlisted backend over a test
class.

A backend is listed by a typed FAILING entry in the BUILD.bazel beside the file (`lists`: read,
validated, rewritten by the list tools) or by `--xfail_backends=backend[:phase][@scope]`
(`xfail_flag`; Bazel's failing suites pass it from FAILING). An entry covers a scope (`scopes`):
the whole file (`file_test.py`, every class of it, as before scopes), one class
(`file_test.py::Class`) or one test method (`file_test.py::Class::test_method`); a flag entry
without `@scope` covers every test of the run. A test runs under the most specific entry
covering it (FAILING first of equal ones):

| entries covering a test on a backend     | it runs under      |
|------------------------------------------|--------------------|
| none                                     | not listed         |
| the file's                               | the file's entry   |
| the file's and its class's               | the class's entry  |
| the file's, its class's and its method's | the method's entry |

A listed backend's failing traces are shown as XFAIL and the test passes; over the tests of a
class that run under one entry it is held to the entry, as Bazel's strict failing suite holds a
file (`class_verdicts.judge_listings`, called by absltest's tearDownClass and, at the last item
of those tests on the backend, by the pytest plugin); so a file entry gets one verdict per class,
and a method entry one verdict apart from the rest of its class:

| listed / observed | passed | failed in P | failed in Q != P | skipped |
|-------------------|--------|-------------|------------------|---------|
| not listed        | PASS   | FAIL        | FAIL             | SKIPPED |
| listed, any phase | XPASS  | XFAIL       | XFAIL            | SKIPPED |
| listed in phase P | XPASS  | XFAIL       | WRONG PHASE      | SKIPPED |

Observed, per backend over every trace of those tests: "passed" failed nothing (also when they
compared nothing there); "failed in P" / "failed in Q != P": the earliest phase of its
failures (import < compile < runtime < mismatch) is the listed phase P / another one (for a row
without a phase, any phase); "skipped": it could not run on this machine (every outcome SKIPPED).
XPASS and WRONG PHASE fail the class (the list must be updated); XFAIL logs one line. A test's
own error (the reference failed, an exception in the test body) is no backend's verdict: it fails
as it is, listed or not.

Import rule: as `reporting`'s (no TensorFlow, no IREE); the list tools import it, as the library
does.
"""

from pyiree_tf_support.reporting.expected_failures.class_verdicts import class_lines
from pyiree_tf_support.reporting.expected_failures.class_verdicts import ClassVerdict
from pyiree_tf_support.reporting.expected_failures.class_verdicts import judge
from pyiree_tf_support.reporting.expected_failures.class_verdicts import judge_listings
from pyiree_tf_support.reporting.expected_failures.class_verdicts import Verdict
from pyiree_tf_support.reporting.expected_failures.class_verdicts import wrong_phase_message
from pyiree_tf_support.reporting.expected_failures.class_verdicts import xpass_message
from pyiree_tf_support.reporting.expected_failures.lists import BUILD_FILE
from pyiree_tf_support.reporting.expected_failures.lists import entry
from pyiree_tf_support.reporting.expected_failures.lists import ExpectedFailure
from pyiree_tf_support.reporting.expected_failures.lists import failing_by_backend
from pyiree_tf_support.reporting.expected_failures.lists import for_test_file
from pyiree_tf_support.reporting.expected_failures.lists import Lists
from pyiree_tf_support.reporting.expected_failures.lists import ListsError
from pyiree_tf_support.reporting.expected_failures.lists import ListsFile
from pyiree_tf_support.reporting.expected_failures.lists import one_line
from pyiree_tf_support.reporting.expected_failures.lists import read
from pyiree_tf_support.reporting.expected_failures.lists import render
from pyiree_tf_support.reporting.expected_failures.lists import rewritten
from pyiree_tf_support.reporting.expected_failures.lists import SHAPES
from pyiree_tf_support.reporting.expected_failures.lists import write
from pyiree_tf_support.reporting.expected_failures.scopes import Scope
from pyiree_tf_support.reporting.expected_failures.scopes import SCOPES
from pyiree_tf_support.reporting.expected_failures.xfail_flag import expected_for
from pyiree_tf_support.reporting.expected_failures.xfail_flag import flag_entries
from pyiree_tf_support.reporting.expected_failures.xfail_flag import FLAG_REASON
from pyiree_tf_support.reporting.expected_failures.xfail_flag import Listing
from pyiree_tf_support.reporting.expected_failures.xfail_flag import parse_xfail_entries
from pyiree_tf_support.reporting.expected_failures.xfail_flag import parse_xfail_entry

# What the package gives its users (the names above).
__all__ = ["BUILD_FILE", "class_lines", "ClassVerdict", "entry", "expected_for", "ExpectedFailure",
           "failing_by_backend", "flag_entries", "FLAG_REASON", "for_test_file", "judge",
           "judge_listings", "Listing", "Lists", "ListsError", "ListsFile", "one_line",
           "parse_xfail_entries", "parse_xfail_entry", "read", "render", "rewritten", "Scope",
           "SCOPES", "SHAPES", "Verdict", "write", "wrong_phase_message", "xpass_message"]
