#!/usr/bin/env bash
# The test command (what CI runs): the unit tests with pytest (real TensorFlow, IREE compiler and
# runtime), then the Bazel e2e suites on all four backends - the files expected to pass, and the
# known failures, which pass while they still fail as listed in e2e/BUILD.bazel (an unexpected
# pass fails them). Ends with the counts of each part, then one line: N passed, N failed; a pytest
# that crashed is named with its exit status, never counted as "0 failed"
# (pyiree_tf_support/tools/test_summary.py).
set -uo pipefail
cd "$(dirname "$0")/.."
export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-2}

unit_log=$(mktemp)
.venv/bin/python -m pytest -q -p no:cacheprovider tests/ 2>&1 | tee "$unit_log"
unit_status=${PIPESTATUS[0]}

e2e_log=$(mktemp)
bazel test //e2e:e2e_tests //e2e:e2e_tests_failing //e2e/keras:all //e2e/keras:keras_tests_failing \
  //e2e/generated:generated_tests //e2e/generated:generated_tests_failing \
  --keep_going 2>&1 | tee "$e2e_log"
e2e_status=${PIPESTATUS[0]}
bazel shutdown >/dev/null 2>&1

# Counts only what pytest and Bazel printed: a crashed pytest is its exit status, not "0 failed".
.venv/bin/python -m pyiree_tf_support.tools.test_summary "$unit_log" "$unit_status" "$e2e_log"
rm -f "$unit_log" "$e2e_log"
[ "$unit_status" = 0 ] && [ "$e2e_status" = 0 ]
