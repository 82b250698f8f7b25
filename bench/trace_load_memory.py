"""Peak RSS of loading a saved reference trace, and of replaying it, per [n, n] f32 input.

  .venv/bin/python bench/trace_load_memory.py [--n 4096] [--backend iree_llvmcpu]

Records one reference trace the way a test run does (tests/localizing/localize_memory_test.py's
module: an elementwise chain over one [n, n] f32 input, the chain and its row sum returned, so
the trace holds two tensors of T = 4 n^2 bytes), then, each in a fresh process, reads the process's
VmHWM after loading it as replay, the localizer and the reducer do (`replay_input.load`), and
after the replay command on `--backend`; the same at [64, 64] is each one's baseline. Prints one
line per figure: MiB, and T above the baseline. A peak, not a time: it does not need a quiet
machine (docs/localizing.md, Cost, quotes it).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from pyiree_tf_support import tf_utils  # noqa: F401  before TensorFlow: see docs/driving.md
import tensorflow as tf

SMALL = 64

# Runs in a fresh process: argv[1] what, argv[2] the trace dir; prints VmHWM in bytes.
MEASURE = """
import sys
what, trace_dir = sys.argv[1], sys.argv[2]
if what == "load":
  from pyiree_tf_support.compiling import mlir_files
  from pyiree_tf_support.reporting import replay_input
  loaded = replay_input.load(trace_dir, mlir_files.text)
else:
  from absl import app
  from pyiree_tf_support import replay
  try:
    app.run(replay.main, argv=["replay", trace_dir] + sys.argv[3:])
  except SystemExit as e:
    if e.code:
      raise
with open("/proc/self/status") as f:
  print(next(int(line.split()[1]) for line in f if line.startswith("VmHWM:")) * 1024)
"""


def chain_module(n: int) -> type:

  class Chain(tf.Module):

    @tf.function(input_signature=[tf.TensorSpec([n, n], tf.float32)])
    def chain(self, x):
      z = tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32) * 0.25 + 0.5  # quarters: sums exact.
      return tf.reduce_sum(z, axis=1), z

  return Chain


def record(artifacts_dir: str, n: int) -> str:
  """The reference trace dir of one call of the chain, recorded as a test run records it."""
  import io
  import unittest

  from absl.testing import flagsaver
  from pyiree_tf_support import cli_flags
  from pyiree_tf_support import tf_test_utils

  def chain_once(module):
    module.chain(np.random.default_rng(0).uniform(-2, 2, (n, n)).astype(np.float32))

  @tf_test_utils.compile_module(chain_module(n))
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(chain_once)

  cli_flags.ensure_parsed()
  with flagsaver.flagsaver(artifacts_dir=artifacts_dir, target_backends=["iree_llvmcpu"]):
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Case)
    result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
  if not result.wasSuccessful():
    raise SystemExit(f"recording failed: {result.failures + result.errors}")
  return os.path.join(artifacts_dir, "Chain", "traces", "chain_once__tf_ref")


def peak(what: str, trace_dir: str, *args: str) -> int:
  completed = subprocess.run([sys.executable, "-c", MEASURE, what, trace_dir, *args],
                             capture_output=True, text=True, check=False)
  if completed.returncode:
    raise SystemExit(f"{what} failed: {completed.stderr[-2000:]}")
  return int(completed.stdout.split()[-1])


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--n", type=int, default=4096)
  parser.add_argument("--backend", default="iree_llvmcpu")
  args = parser.parse_args()
  artifacts_dir = tempfile.mkdtemp(prefix="trace_load_memory_")
  try:
    # The same trace at [64, 64] is each process's baseline (imports, the module: no tensor).
    small, big = (record(os.path.join(artifacts_dir, str(n)), n) for n in (SMALL, args.n))
    tensor, mib = 4 * args.n * args.n, 1 << 20
    print(f"peak RSS, T = {tensor / mib:.0f} MiB ([{args.n}, {args.n}] f32; the trace holds "
          f"2 T): peak MiB, baseline MiB ([{SMALL}, {SMALL}]), (peak - baseline) / T")
    figures = {}
    for name, what, extra in (("replay_input.load", "load", ()),
                              (f"replay on {args.backend}", "replay",
                               (f"--target_backends={args.backend}",))):
      value, base = peak(what, big, *extra), peak(what, small, *extra)
      figures[name] = {"peak": value, "baseline": base}
      print(f"  {name:<26} {value / mib:6.0f} {base / mib:6.0f} {(value - base) / tensor:6.2f}")
    print(json.dumps(figures))
  finally:
    shutil.rmtree(artifacts_dir, ignore_errors=True)


if __name__ == "__main__":
  main()
