"""Helpers of the fuzzer's tests: a campaign run as a user runs it, and its findings.json."""

import json
import os
import subprocess
import sys


def fuzz(*args: str, timeout: float = 1500) -> subprocess.CompletedProcess:
  """`python -m pyiree_tf_support.fuzz ARGS` in a fresh interpreter, its output captured."""
  return subprocess.run([sys.executable, "-m", "pyiree_tf_support.fuzz", *args],
                        capture_output=True, text=True, check=False, timeout=timeout,
                        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))


def findings(directory: str) -> dict:
  with open(os.path.join(directory, "findings.json")) as f:
    return json.load(f)
