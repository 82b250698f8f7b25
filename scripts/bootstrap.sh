#!/usr/bin/env bash
# Idempotent set-up: Debian packages (lavapipe Vulkan, Bazel) when run as root, then .venv/ at the
# repo root with the library installed in editable mode and its test dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."

# nginx-light: scripts/remote_cache.sh
debian_packages=(mesa-vulkan-drivers libvulkan1 bazel-bootstrap nginx-light)
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
  .venv/bin/python -m pip install -q -e ".[test,lint]"
  touch "$stamp"
fi

# Keras 2 (`tf_keras`, used when TF_USE_LEGACY_KERAS=1) for the Keras-2-era files in e2e/keras/.
# tf-keras declares a dependency on the `tensorflow` distribution; pip would install it over
# `tensorflow-cpu` (two distributions owning the same files; TF then probes CUDA). tensorflow-cpu
# provides the same `tensorflow` package at the same version, so install tf-keras without its
# dependencies and then check that its only unmet requirement is that distribution name.
tf_keras_spec="tf-keras>=2.21,<2.22"
if ! .venv/bin/python -m pip show -q tf-keras >/dev/null 2>&1; then
  echo "bootstrap: installing $tf_keras_spec (--no-deps: tensorflow-cpu provides tensorflow)"
  .venv/bin/python -m pip install -q --no-deps "$tf_keras_spec"
fi
# LiteRT's interpreter (TFLite's successor, the same API without TensorFlow): the tflite backend
# runs its models with it, and replay can run them only with it (it never imports TensorFlow).
litert_spec="ai-edge-litert>=2.3,<2.4"
if ! .venv/bin/python -m pip show -q ai-edge-litert >/dev/null 2>&1; then
  echo "bootstrap: installing $litert_spec"
  .venv/bin/python -m pip install -q "$litert_spec"
fi
if .venv/bin/python -m pip show -q tensorflow >/dev/null 2>&1; then
  echo "bootstrap: .venv has both the tensorflow and tensorflow-cpu distributions" \
       "(the same files; e.g. from 'pip install tf-keras' with its dependencies): run" \
       "'.venv/bin/pip uninstall -y tensorflow tensorflow-cpu; rm $stamp' and bootstrap again" >&2
  exit 1
fi
# The localizer's oracle (the StableHLO reference interpreter, jaxlib: 349 MB) for its tests:
# installed off the venv's path into .venv/oracle/, which only the oracle's child process puts
# on its path (localizing/oracle_run.py), so that the venv's TensorFlow import is unchanged.
# Users get it with `pip install .[oracle]` instead.
oracle_spec="jaxlib>=0.10.2,<0.11"
if [ ! -d .venv/oracle/jaxlib ]; then
  echo "bootstrap: installing $oracle_spec into .venv/oracle (the localizer's oracle)"
  .venv/bin/python -m pip install -q --no-deps --target .venv/oracle "$oracle_spec"
fi
unmet=$(.venv/bin/python -m pip check 2>&1 \
        | grep -vE '^tf-keras [0-9.]+ requires tensorflow, which is not installed\.$' \
        | grep -v '^No broken requirements found\.$' || true)
if [ -n "$unmet" ]; then
  echo "bootstrap: unmet Python requirements in .venv:" >&2
  echo "$unmet" >&2
  exit 1
fi
