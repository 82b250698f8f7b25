"""Peak memory of the TF-free commands against the largest tensor, for their memory tests.

One home for what the localizer's and the reducer's memory tests share: a real mismatch scaled
up (vmvx rounds an f32 -> i32 convert that TensorFlow truncates, inside an elementwise chain
over one [n, n] f32 input, followed by a row sum; both returned, so the largest tensor is in the
trace's inputs, its outputs and every intermediate alike), its trace function, and a command's
`main` run in a fresh interpreter that writes its own peak RSS (VmHWM) and the greatest peak of
each IREE tool it started before exiting. The same module at a small n gives each
process's baseline (the interpreter, IREE's bindings, the loaded module: no tensor worth
counting).
"""

import json
import os
import subprocess
import sys
from typing import Sequence, Tuple

import numpy as np
import tensorflow as tf

BIG, SMALL = 4096, 64
TENSOR_BYTES = BIG * BIG * 4
MIB = 1 << 20

# Runs a command's absl main in this process, then writes its peak RSS (bytes) and each child
# tool's (iree-compile, iree-run-module: the greatest VmHWM any process of that name reached).
# A child's peak is sampled from /proc every few ms while it runs: the kernel's rusage of a child
# would not do, as it starts from this process's peak (a vfork child shares this process's memory
# until it execs, and exec keeps that high-water mark in the child's maximum RSS).
WRAPPER = """
import importlib, json, os, sys, threading, time
from absl import app
out, command, argv = sys.argv[1], sys.argv[2], sys.argv[3:]
TOOLS = ("iree-run-module", "iree-compile")
children = {}
done = threading.Event()


def read(path):
  try:
    with open(path) as f:
      return f.read()
  except OSError:
    return ""


def descendants(pid):
  for tid in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else ():
    for child in read(f"/proc/{pid}/task/{tid}/children").split():
      yield child
      yield from descendants(child)


def sample():
  while not done.wait(0.005):
    for pid in set(descendants(os.getpid())):
      name = read(f"/proc/{pid}/comm").strip()
      if name in TOOLS:  # execed: its own memory, not this process's
        kib = [int(line.split()[1]) for line in read(f"/proc/{pid}/status").splitlines()
               if line.startswith("VmHWM:")]
        if kib:
          children[name] = max(children.get(name, 0), kib[0] * 1024)


threading.Thread(target=sample, daemon=True).start()
main = importlib.import_module("pyiree_tf_support." + command).main
try:
  app.run(main, argv=[command] + argv)
except SystemExit as e:
  code = e.code
done.set()
with open("/proc/self/status") as f:
  kib = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
with open(out, "w") as f:
  json.dump({"code": code, "peak_rss": kib * 1024, "children": children}, f)
"""


def module_class(n: int) -> type:
  """The chain over an [n, n] input, named Chain<n>."""

  class Chain(tf.Module):

    @tf.function(input_signature=[tf.TensorSpec([n, n], tf.float32)])
    def chain(self, x):
      y = tf.cast(tf.cast(x * 3.0, tf.int32), tf.float32)
      z = y * 0.25 + 0.5
      return tf.reduce_sum(z, axis=1), z

  Chain.__name__ = f"Chain{n}"
  return Chain


def trace_function(n: int):
  """One call of the chain on uniform values in [-2, 2)."""

  def chain_once(module):
    module.chain(np.random.default_rng(0).uniform(-2, 2, (n, n)).astype(np.float32))

  chain_once.__name__ = f"chain_once_{n}"
  return chain_once


def run_measured(command: str, argv: Sequence[str], out: str,
                 timeout: float = 1200) -> Tuple[dict, subprocess.CompletedProcess]:
  """`python -m pyiree_tf_support.<command> argv...` as its `main` in a fresh interpreter:
  ({"code", "peak_rss", "children": {tool: peak}}, the finished process)."""
  completed = subprocess.run([sys.executable, "-c", WRAPPER, out, command, *argv],
                             capture_output=True, text=True, check=False, timeout=timeout)
  if not os.path.exists(out):
    raise AssertionError(f"{command} wrote no peaks ({completed.returncode}): "
                         f"{completed.stderr[-3000:]}")
  with open(out) as f:
    return json.load(f), completed


def above(peak: float, baseline: float) -> float:
  """A peak's excess over its baseline in units of the largest tensor."""
  return (peak - baseline) / TENSOR_BYTES
