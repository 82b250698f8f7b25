#!/usr/bin/env bash
# The test command (what CI runs): the unit tests with pytest (real TensorFlow, IREE compiler and
# runtime), then the Bazel e2e suites on all four backends - the files expected to pass, and the
# known failures, which pass while they still fail as listed in e2e/BUILD.bazel (an unexpected
# pass fails them). Ends with one line: N passed, N failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-2}

unit_log=$(mktemp)
.venv/bin/python -m pytest -q -p no:cacheprovider tests/ 2>&1 | tee "$unit_log"
unit_status=${PIPESTATUS[0]}
summary=$(tail -n 1 "$unit_log")
count() { grep -oE "[0-9]+ $1" <<<"$summary" | grep -oE '^[0-9]+' | head -n 1; }
unit_passed=$(count passed); unit_passed=${unit_passed:-0}
unit_failed=$(( $(count failed || true) + $(count error || true) + 0 ))

e2e_log=$(mktemp)
bazel test //e2e:e2e_tests //e2e:e2e_tests_failing //e2e/keras:all //e2e/keras:keras_tests_failing --keep_going 2>&1 | tee "$e2e_log"
e2e_status=${PIPESTATUS[0]}
e2e_passed=$(grep -cE '^//e2e(/keras)?:\S+\s+(\(cached\) )?PASSED' "$e2e_log")
e2e_failed=$(grep -cE '^//e2e(/keras)?:\S+\s+(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$e2e_log")
bazel shutdown >/dev/null 2>&1
rm -f "$unit_log" "$e2e_log"

echo "unit tests: $unit_passed passed, $unit_failed failed; e2e (Bazel): $e2e_passed passed, $e2e_failed failed"
echo "$((unit_passed + e2e_passed)) passed, $((unit_failed + e2e_failed)) failed"
[ "$unit_status" = 0 ] && [ "$e2e_status" = 0 ]
