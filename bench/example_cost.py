"""Cost of one example once the class is compiled: a 16-float op on TensorFlow and llvm-cpu.

  .venv/bin/python bench/example_cost.py [--examples 300]

Compiles the module once, warms up, then times `examples.engine.run_examples` (hypothesis draws,
a call on each backend, the comparison) and, apart, hypothesis' draws alone and the two calls
alone. Prints one line per figure; `run_benchmark.py --only 6` reads the first.
"""

import argparse
import random
import shutil
import tempfile
import time

import hypothesis
import numpy as np
from pyiree_tf_support import tf_utils  # before TensorFlow: see docs/driving.md
from pyiree_tf_support.examples import engine
from pyiree_tf_support.examples import strategies
import tensorflow as tf


class SixteenFloats(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([16], tf.float32)])
  def scale(self, x):
    return x * 2.0 + 1.0


def main() -> None:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--examples", type=int, default=300)
  args = parser.parse_args()
  reference = tf_utils.BackendInfo("tf").compile(SixteenFloats)
  target = tf_utils.BackendInfo("iree_llvmjit").compile(SixteenFloats)
  modules = engine.ExampleModules(reference, (engine.ExampleTarget("iree_llvmjit", target),),
                                  stateful=False)
  signature = reference.signatures["scale"]

  storage = tempfile.mkdtemp(prefix="example_cost_")  # hypothesis' caches: not in the repo.
  hypothesis.configuration.set_hypothesis_home_dir(storage)

  def run(count: int) -> engine.ExamplesResult:
    return engine.run_examples(modules, "scale", signature,
                               engine.ExampleSettings(count, storage_dir=storage))

  run(20)  # warm-up: TensorFlow's first call, hypothesis' first draws.
  started, cpu_started = time.perf_counter(), time.process_time()
  result = run(args.examples)
  seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
  if result.failure or result.compared != result.run:
    raise SystemExit(f"expected every example to pass: {result}")
  calls = 1 + len(modules.targets)
  per_example = seconds / result.run * 1000
  print(f"example cost: {per_example / calls:.3f} ms per example-call ({per_example:.3f} ms per "
        f"example of {calls} calls, {result.run} examples); CPU "
        f"{cpu_seconds / result.run / calls * 1000:.3f} ms per example-call")

  drawn = []
  strategy = strategies.for_inputs(signature.inputs)
  settings = hypothesis.settings(max_examples=args.examples, database=None,
                                 phases=[hypothesis.Phase.generate],
                                 suppress_health_check=list(hypothesis.HealthCheck))
  started = time.perf_counter()
  try:
    hypothesis.find(strategy, lambda v: drawn.append(v) and False, settings=settings,
                    random=random.Random(0))
  except hypothesis.errors.NoSuchExample:
    pass
  draw_ms = (time.perf_counter() - started) / len(drawn) * 1000
  x = np.arange(16, dtype=np.float32)
  started = time.perf_counter()
  for _ in range(args.examples):
    reference.scale(x)
    target.scale(x)
  call_ms = (time.perf_counter() - started) / args.examples * 1000
  shutil.rmtree(storage, ignore_errors=True)
  print(f"hypothesis draws alone: {draw_ms:.3f} ms per example; the {calls} calls alone: "
        f"{call_ms:.3f} ms per example; the rest (traces, comparison): "
        f"{max(per_example - draw_ms - call_ms, 0):.3f} ms")


if __name__ == "__main__":
  main()
