"""Test files that tests write to disk and run as a user would (absltest, pytest, Bazel).

One home for what many tests repeated: running a test file in a child Python as a user does
(`run_test_file`), and the template of a one-method module whose method returns `body` (an
expression of its float32[4] argument `a`) with a TracedModuleTestCase calling it once.
"""

import os
import subprocess
import sys
from typing import Mapping, Optional

from tests.support.repo import ROOT

ONE_METHOD_TEST = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class {name}Module(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def f(self, a):
    return {body}

@tf_test_utils.compile_module({name}Module)
class {name}Test(tf_test_utils.TracedModuleTestCase):
  def test_f(self):
    self.compare_backends(lambda module: module.f(np.arange(4, dtype=np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''


def one_method_test(name: str, body: str) -> str:
  """The text of a test file named for `name` whose module's method returns `body`."""
  return ONE_METHOD_TEST.format(name=name, body=body)


def run_test_file(path: str, *args: str, env: Optional[Mapping[str, str]] = None,
                  cwd: Optional[str] = None, timeout: float = 300) -> subprocess.CompletedProcess:
  """Runs `python path args...` as a user runs a test file, its output captured as text.

  The child imports this checkout (PYTHONPATH=ROOT: the venv's editable install may point at
  another one) with TensorFlow's C++ logging quiet, and without the caller's
  PYIREE_TF_SUPPORT_FLAGS unless `env` passes one: flags the test run was given are not the
  child's."""
  environment = {k: v for k, v in os.environ.items() if k != "PYIREE_TF_SUPPORT_FLAGS"}
  environment.update(PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2", **(env or {}))
  return subprocess.run([sys.executable, path, *args], capture_output=True, text=True,
                        env=environment, cwd=cwd, timeout=timeout, check=False)
