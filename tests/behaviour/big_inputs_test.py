"""A big input costs a small multiple of its bytes, in memory and on disk (one
200 MB float32 input once peaked at 5.1 GB RSS and wrote 1.4 GB, two 315 MB text traces among it).

A real test file runs in a child process on tf and iree_llvmjit, once with a 50 MB input and once
with a small one: the small run's peak RSS is the baseline (TensorFlow, IREE, the compile), the
difference is what the data cost. Peak RSS is the child's own (`os.wait4`), not this process's.
"""

import dataclasses
import os
import subprocess
import sys
import tempfile
import time

from absl.testing import absltest

from tests.support.repo import ROOT

BIG = 12_500_000  # float32 elements: 50 MB in, 50 MB out.
SMALL = 100  # over 64 elements, so summarized too.
DATA_BYTES = 2 * 4 * BIG  # what one trace holds: the input and the output.
MiB = 1 << 20
BACKENDS = ("tf_ref", "iree_llvmjit")

TEST_FILE = '''
import numpy as np
from pyiree_tf_support import tf_test_utils
import tensorflow as tf

class BigModule(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([{n}], tf.float32)])
  def double(self, x):
    return x * 2.0

@tf_test_utils.compile_module(BigModule)
class BigTest(tf_test_utils.TracedModuleTestCase):
  def test_double(self):
    def double(module):
      module.double(np.arange({n}, dtype=np.float32))
    self.compare_backends(double)

if __name__ == "__main__":
  tf.test.main()
'''


@dataclasses.dataclass(frozen=True)
class Run:
  """One run of the test file in a child process."""
  exit_code: int
  output: str
  peak_rss: int  # bytes: the child's own peak, with its waited-for children (iree-compile).
  seconds: float
  module_dir: str

  def text_trace(self, backend: str) -> str:
    return os.path.join(self.module_dir, "traces", f"double__{backend}.txt")

  def npz(self, backend: str) -> str:
    return os.path.join(self.module_dir, "traces", f"double__{backend}", "arrays.npz")

  def bytes_written(self) -> int:
    return sum(os.path.getsize(os.path.join(d, name))
               for d, _, names in os.walk(self.module_dir) for name in names)


def environment() -> dict:
  env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
  env.pop("PYIREE_TF_SUPPORT_FLAGS", None)
  return env


def run_file(elements: int, *flags: str) -> Run:
  """Runs the test file on arrays of `elements` float32 values, as a user would."""
  directory = tempfile.mkdtemp()
  path = os.path.join(directory, "big_test.py")
  with open(path, "w") as f:
    f.write(TEST_FILE.format(n=elements))
  artifacts_dir = os.path.join(directory, "artifacts")
  started = time.monotonic()
  with open(os.path.join(directory, "output.txt"), "w+") as output:
    process = subprocess.Popen(
        [sys.executable, path, "--target_backends=iree_llvmjit", "--nocompile_cache",
         f"--artifacts_dir={artifacts_dir}", *flags],
        stdout=output, stderr=subprocess.STDOUT, env=environment(), cwd=directory)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    output.seek(0)
    text = output.read()
  return Run(process.returncode, text, usage.ru_maxrss * 1024,  # Linux counts KiB.
             time.monotonic() - started, os.path.join(artifacts_dir, "BigModule"))


class BigInputTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.small = run_file(SMALL)
    cls.big = run_file(BIG)
    print(f"\nsmall run: peak RSS {cls.small.peak_rss / MiB:.0f} MiB, {cls.small.seconds:.1f} s;"
          f" {DATA_BYTES / MiB:.0f} MiB run: peak RSS {cls.big.peak_rss / MiB:.0f} MiB,"
          f" {cls.big.seconds:.1f} s, {cls.big.bytes_written() / MiB:.1f} MiB written",
          file=sys.stderr)

  def test_both_runs_pass(self):
    for run in (self.small, self.big):
      self.assertEqual(run.exit_code, 0, run.output[-3000:])

  def test_text_traces_are_a_few_kib_and_name_the_complete_values(self):
    for backend in BACKENDS:
      path = self.big.text_trace(backend)
      self.assertLessEqual(os.path.getsize(path), 4096, path)
      with open(path) as f:
        text = f.read()
      self.assertIn("float32[12500000]", text)
      self.assertIn(f"double__{backend}/arrays.npz", text)

  def test_loadable_traces_hold_the_data_once_per_backend(self):
    for backend in BACKENDS:
      self.assertLessEqual(os.path.getsize(self.big.npz(backend)), DATA_BYTES + 4096)
    # The input once (the target's names the reference's), outputs at most once per backend,
    # two text traces, the module's small files (MLIR, vmfb, reports).
    self.assertLessEqual(self.big.bytes_written(), DATA_BYTES + DATA_BYTES // 2 + MiB)

  def test_peak_memory_grows_by_at_most_four_times_the_data(self):
    growth = self.big.peak_rss - self.small.peak_rss
    self.assertLessEqual(growth, 4 * DATA_BYTES,
                         f"peak RSS grew by {growth / MiB:.0f} MiB for {DATA_BYTES / MiB:.0f} MiB "
                         "of data")


class TextTraceFlagTest(absltest.TestCase):

  def test_full_text_traces_writes_every_element_and_replay_needs_no_text(self):
    run = run_file(SMALL, "--full_text_traces")
    self.assertEqual(run.exit_code, 0, run.output[-3000:])
    for backend in BACKENDS:
      with open(run.text_trace(backend)) as f:
        text = f.read()
      self.assertNotIn("...", text)
      self.assertNotIn("summarized", text)
      self.assertIn("96., 97., 98., 99.]", text)
      os.remove(run.text_trace(backend))
    replay = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.replay",
         os.path.join(run.module_dir, "traces", "double__tf_ref"), "--target_backends=iree_llvmjit",
         "--nocompile_cache"], capture_output=True, text=True, env=environment(), timeout=300,
        check=False)
    self.assertEqual(replay.returncode, 0, replay.stdout + replay.stderr)
    self.assertIn("iree_llvmjit", replay.stdout + replay.stderr)


if __name__ == "__main__":
  absltest.main()
