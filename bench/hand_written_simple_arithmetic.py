"""e2e/simple_arithmetic_test.py done by hand against the raw TensorFlow and IREE APIs \
(no library).

Only the backend table (`pyiree_tf_support/core/backends.py`, pure data) is read, so both sides
compile with the same targets, flags and driver.

The baseline of bench/run_benchmark.py ratio 1: one process imports TF, builds
SimpleArithmeticModule, saves a SavedModel, converts it to TF-dialect MLIR, lowers it to StableHLO,
compiles it with iree-compile for each requested target, runs the same two traces on TensorFlow and
on IREE, compares them with numpy.allclose and writes the same kinds of files (MLIR texts, .vmfb,
trace texts).

  python bench/hand_written_simple_arithmetic.py --target_backends=iree_llvmjit --artifacts_dir=DIR
"""

import argparse
import os
import random
import re
import shutil
import sys
import tempfile
import time
from typing import Callable, Dict, List, Sequence, Tuple

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import iree.compiler
import iree.runtime
import numpy as np
from pyiree_tf_support.core import backends
import tensorflow as tf

RTOL = ATOL = 1e-6  # float32 tolerances of the library's table.


class SimpleArithmeticModule(tf.Module):
  """Element-wise multiply and a large matmul (same as e2e/simple_arithmetic_test.py)."""

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32)])
  def simple_mul(self, a, b):
    """a * b."""
    return a * b

  @tf.function(input_signature=[
      tf.TensorSpec([128, 3072], tf.float32),
      tf.TensorSpec([3072, 256], tf.float32),
  ])
  def simple_matmul(self, a, b):
    """a @ b."""
    return tf.matmul(a, b)


EXPORTED = ("simple_matmul", "simple_mul")
Call = Tuple[str, Tuple[np.ndarray, ...], np.ndarray]


def seed() -> None:
  """Seeds TF, numpy and random as the library does before every trace."""
  tf.random.set_seed(0)
  np.random.seed(0)
  random.seed(0)


def trace_simple_mul(call: Callable[..., np.ndarray]) -> None:
  """The simple_mul trace of the e2e file."""
  a = np.array([1., 2., 3., 4.], dtype=np.float32)
  b = np.array([400., 5., 6., 7.], dtype=np.float32)
  c = call("simple_mul", a, b)
  call("simple_mul", a, c)


def trace_simple_matmul(call: Callable[..., np.ndarray]) -> None:
  """The simple_matmul trace of the e2e file."""
  a = np.random.uniform(size=(128, 3072)).astype(np.float32) * 1e-3
  b = np.random.uniform(size=(3072, 256)).astype(np.float32) * 1e-3
  call("simple_matmul", a, b)


TRACES = {"simple_matmul": trace_simple_matmul, "simple_mul": trace_simple_mul}


def import_module(module: tf.Module, artifacts_dir: str) -> str:
  """SavedModel -> tf_input.mlir -> iree_input.mlir; returns the StableHLO text."""
  saved = tempfile.mkdtemp(prefix="hand_written_saved_model_")
  try:
    tf.saved_model.save(module, saved)
    tf_input = tf.mlir.experimental.convert_saved_model(
        saved, exported_names=",".join(EXPORTED), show_debug_info=False)
  finally:
    shutil.rmtree(saved, ignore_errors=True)
  for name in EXPORTED:
    tf_input = re.sub(r"@__inference_" + name + r"_\d+\b", "@" + name, tf_input)
  iree_input = tf.mlir.experimental.run_pass_pipeline(tf_input, "tf-lower-to-mlprogram-and-hlo")
  with open(os.path.join(artifacts_dir, "tf_input.mlir"), "w") as f:
    f.write(tf_input)
  with open(os.path.join(artifacts_dir, "iree_input.mlir"), "w") as f:
    f.write(iree_input)
  return iree_input


def run_trace(trace: Callable, call: Callable[..., np.ndarray]) -> List[Call]:
  """Runs one trace through `call`, recording every call's inputs and output."""
  records: List[Call] = []

  def recording_call(name: str, *args: np.ndarray) -> np.ndarray:
    out = np.asarray(call(name, *args))
    records.append((name, args, out))
    return out

  seed()
  trace(recording_call)
  return records


def save_trace(path: str, records: Sequence[Call]) -> None:
  """Writes a readable trace, summarizing large arrays like the library does."""
  with np.printoptions(threshold=64, edgeitems=3):
    with open(path, "w") as f:
      for name, args, out in records:
        f.write(f"{name}\n")
        for i, arg in enumerate(args):
          f.write(f"  input {i}: {arg.shape} {arg.dtype}\n{arg}\n")
        f.write(f"  output: {out.shape} {out.dtype}\n{out}\n")


def main() -> int:
  """Import, compile, run on TF and IREE, compare; prints phase times; exit status 1 on mismatch."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--target_backends", default="iree_llvmjit")
  parser.add_argument("--artifacts_dir",
                      default=os.path.join(tempfile.gettempdir(), "hand_written"))
  args = parser.parse_args()
  names = [n for n in args.target_backends.split(",") if n]
  module_dir = os.path.join(args.artifacts_dir, "SimpleArithmeticModule")
  os.makedirs(os.path.join(module_dir, "traces"), exist_ok=True)

  started = time.monotonic()
  iree_input = import_module(SimpleArithmeticModule(), module_dir)
  vmfbs: Dict[str, bytes] = {}
  for name in names:
    spec = backends.lookup(name)
    vmfbs[name] = iree.compiler.compile_str(iree_input, target_backends=list(spec.compiler_targets),
                                            input_type="stablehlo_xla",
                                            extra_args=list(spec.compiler_flags))
    with open(os.path.join(module_dir, f"compiled__{name}.vmfb"), "wb") as f:
      f.write(vmfbs[name])
  compiled = time.monotonic()
  print(f"hand-written: compiled for {len(names)} target(s) in {compiled - started:.2f} s",
        file=sys.stderr)

  failures = 0
  for trace_name, trace in TRACES.items():
    tf_module = SimpleArithmeticModule()  # fresh state per test, as the library does.
    ref = run_trace(trace, lambda fn, *a, m=tf_module: getattr(m, fn)(*a).numpy())
    save_trace(os.path.join(module_dir, "traces", f"{trace_name}__tf_ref.txt"), ref)
    for name in names:
      config = iree.runtime.Config(backends.lookup(name).driver)
      context = iree.runtime.SystemContext(config=config)
      vm_module = iree.runtime.VmModule.copy_buffer(context.instance, vmfbs[name])
      context.add_vm_module(vm_module)
      functions = context.modules[vm_module.name]
      tar = run_trace(trace, lambda fn, *a, fs=functions: fs[fn](*a).to_host())
      save_trace(os.path.join(module_dir, "traces", f"{trace_name}__{name}.txt"), tar)
      mismatches = 0 if len(ref) == len(tar) else 1
      for (fn, _, expected), (_, _, actual) in zip(ref, tar):
        same = (expected.shape == actual.shape and expected.dtype == actual.dtype
                and np.allclose(actual, expected, rtol=RTOL, atol=ATOL))
        if not same:
          mismatches += 1
          print(f"MISMATCH {trace_name}/{fn} on {name}", file=sys.stderr)
      failures += mismatches
      print(f"hand-written: trace {trace_name} on {name}: "
            f"{'FAIL' if mismatches else 'PASS'}", file=sys.stderr)
  print(f"hand-written: ran and compared in {time.monotonic() - compiled:.2f} s", file=sys.stderr)
  return 1 if failures else 0


if __name__ == "__main__":
  sys.exit(main())
