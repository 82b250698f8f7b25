"""Helpers of the fuzzer's tests: a campaign run as a user runs it, its findings.json, and a
program's result on TensorFlow (what the float policy's tests judge a backend's value by)."""

import json
import os
import subprocess
import sys
import tempfile
from typing import Tuple

import numpy as np

from pyiree_tf_support.fuzzing import judging
from pyiree_tf_support.fuzzing import programs


def fuzz(*args: str, timeout: float = 1500) -> subprocess.CompletedProcess:
  """`python -m pyiree_tf_support.fuzz ARGS` in a fresh interpreter, its output captured."""
  return subprocess.run([sys.executable, "-m", "pyiree_tf_support.fuzz", *args],
                        capture_output=True, text=True, check=False, timeout=timeout,
                        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))


def findings(directory: str) -> dict:
  with open(os.path.join(directory, "findings.json")) as f:
    return json.load(f)


def tensorflow_result(program: programs.Program, inputs: Tuple[np.ndarray, ...]
                      ) -> Tuple[np.ndarray, str]:
  """`program`'s float32 result on TensorFlow (in this process) for one call of `inputs`, and
  the new work directory its module was written to."""
  work = tempfile.mkdtemp()
  path = os.path.join(work, "f32.py")
  with open(path, "w") as f:
    f.write("import tensorflow as tf\n\n\n" + programs.class_source("M", [program]))
  module = judging.load_module_class(path, "M")()
  return np.asarray(getattr(module, program.name)(*inputs)), work
