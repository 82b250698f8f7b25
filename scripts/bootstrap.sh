#!/usr/bin/env bash
# Idempotent set-up: Debian packages (lavapipe Vulkan, Bazel) when run as root, then .venv/ at the
# repo root with the library installed in editable mode and its test dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

debian_packages=(mesa-vulkan-drivers libvulkan1 bazel-bootstrap)
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  for pkg in "${debian_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bootstrap: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
else
  echo "bootstrap: not root; assuming Debian packages are present: ${debian_packages[*]}"
fi

python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$python" -m venv .venv
fi
stamp=.venv/.pyiree_tf_support_installed
if [ ! -f "$stamp" ] || [ setup.py -nt "$stamp" ]; then
  echo "bootstrap: installing Python packages into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test]"
  touch "$stamp"
fi
