#!/usr/bin/env bash
# The test command: the unit tests (real TensorFlow, IREE compiler and runtime), then a closing tally.
set -uo pipefail
cd "$(dirname "$0")/.."
export TF_CPP_MIN_LOG_LEVEL=${TF_CPP_MIN_LOG_LEVEL:-2}
.venv/bin/python -m pytest -q -p no:cacheprovider tests/ "$@"
status=$?
echo "unit tests: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status
