#!/usr/bin/env bash
# Runs every e2e/*_test.py on the default backends (or the flags given), printing a closing tally.
set -uo pipefail
cd "$(dirname "$0")/.."
export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-2}
passed=0; failed=0; failed_files=()
for test_file in e2e/*_test.py; do
  echo "=== $test_file $*"
  if .venv/bin/python "$test_file" "$@" > /tmp/pyiree_e2e_$$.log 2>&1; then
    passed=$((passed + 1)); tail -n 3 /tmp/pyiree_e2e_$$.log
  else
    failed=$((failed + 1)); failed_files+=("$test_file"); tail -n 60 /tmp/pyiree_e2e_$$.log
  fi
done
rm -f /tmp/pyiree_e2e_$$.log
echo "e2e: $passed files passed, $failed failed${failed_files:+: ${failed_files[*]}}"
[ "$failed" = 0 ]
