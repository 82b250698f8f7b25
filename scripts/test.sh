#!/usr/bin/env bash
# The test command (what CI runs): the unit tests with pytest in two tiers (real TensorFlow, IREE
# compiler and runtime) - the fast tier first (tests/conftest.py: no TensorFlow import, no
# process, no Bazel; about a minute), stopping there when it fails, then the slow tier - then the
# Bazel e2e suites on all four backends: the files expected to pass, and the known failures,
# which pass while they still fail as listed in e2e/BUILD.bazel (an unexpected pass fails them).
# Every test runs once. Ends with the counts of each part, then one line: N passed, N failed; a
# pytest that crashed is named with its exit status, never counted as "0 failed"
# (pyiree_tf_support/tools/test_summary.py).
#
# `scripts/test.sh --models` also runs the keras.applications tier (e2e/keras/applications: 14
# models on every IREE backend, 15-30 more minutes on 2 cores), with the other Bazel suites.
set -uo pipefail
cd "$(dirname "$0")/.."
models=()
for arg in "$@"; do
  case "$arg" in
    --models) models=(//e2e/keras/applications:keras_applications_tests
                      //e2e/keras/applications:keras_applications_tests_failing) ;;
    *) echo "scripts/test.sh: unknown argument '$arg' (valid: --models)" >&2; exit 2 ;;
  esac
done
export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-2}

fast_log=$(mktemp)
.venv/bin/python -m pytest -q -p no:cacheprovider tests/ --tier=fast 2>&1 | tee "$fast_log"
fast_status=${PIPESTATUS[0]}
summary=(--unit "fast tier" "$fast_log" "$fast_status")
slow_log=$(mktemp)
e2e_log=$(mktemp)
slow_status=0
e2e_status=0

if [ "$fast_status" = 0 ]; then
  .venv/bin/python -m pytest -q -p no:cacheprovider tests/ --tier=slow 2>&1 | tee "$slow_log"
  slow_status=${PIPESTATUS[0]}

  bazel test //e2e:e2e_tests //e2e:e2e_tests_failing //e2e/keras:all \
    //e2e/keras:keras_tests_failing //e2e/generated:generated_tests \
    //e2e/generated:generated_tests_failing "${models[@]}" --keep_going 2>&1 | tee "$e2e_log"
  e2e_status=${PIPESTATUS[0]}
  bazel shutdown >/dev/null 2>&1
  summary+=(--unit "slow tier" "$slow_log" "$slow_status" --e2e "$e2e_log")
else
  summary+=(--not_run "slow tier" --not_run "e2e (Bazel)")
fi

# Counts only what pytest and Bazel printed: a crashed pytest is its exit status, not "0 failed".
.venv/bin/python -m pyiree_tf_support.tools.test_summary "${summary[@]}"
rm -f "$fast_log" "$slow_log" "$e2e_log"
[ "$fast_status" = 0 ] && [ "$slow_status" = 0 ] && [ "$e2e_status" = 0 ]
