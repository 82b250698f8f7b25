#!/bin/sh
# Vulkan (lavapipe): an idle device keeps two threads polling, ~2 cores, until it is destroyed
# Standalone: IREE's Python runtime and compiler only. Python comes from $PYTHON, else the
# repository's .venv/bin/python, else python3. Ends with "FIRST_ERROR: <line>" (exit 1) while it
# spins.
set -u
cd "$(dirname "$0")"
python=${PYTHON:-}
[ -n "$python" ] || { [ -x ../../../../.venv/bin/python ] && python=../../../../.venv/bin/python; }
[ -n "$python" ] || python=python3
exec "$python" idle_spin.py --device=vulkan
