#!/usr/bin/env bash
# The main job: the e2e suite (every e2e/*_test.py) on the default backends - tf, iree_vmla,
# iree_llvmjit and iree_vulkan - through Bazel, one test per (file, backend). Extra arguments go to
# `bazel test`, e.g. --test_tag_filters=-driver=vulkan.
set -uo pipefail
cd "$(dirname "$0")/.."
log=$(mktemp)
bazel test //e2e:e2e_tests "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^//e2e:\S+\s+(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//e2e:\S+\s+(\(cached\) )?(FAILED|TIMEOUT|NO STATUS)' "$log")
rm -f "$log"
bazel shutdown >/dev/null 2>&1
echo "e2e: $passed passed, $failed failed"
exit "$status"
