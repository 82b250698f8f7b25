"""The localizer's memory is a small multiple of the largest tensor, in the parent and in every
child run.

A real mismatch scaled up: vmvx rounds an f32 -> i32 convert that TensorFlow truncates
(localize_test's Truncating), here inside an elementwise chain over one [4096, 4096] f32 input
(64 MiB) followed by a row sum; both the chain and the sum are returned, so the largest tensor
(T) is in the trace's inputs, its outputs and the traced dispatches' tensors alike. The same
module at [64, 64] gives each process's baseline (the interpreter, IREE's runtime and compiler
bindings, the loaded module: no tensor worth counting), and each peak RSS is bounded by its
baseline plus a multiple of T. Before the comparisons were made chunk-wise and the traced run
stopped copying tensors, the parent peaked at 1537 MiB (baseline 137 MiB, about 22 T above it)
and the suspect's traced run at 1323 MiB (baseline 43 MiB, 20 T); before the reference trace was
read mapped (never whole, never copied) the parent still peaked 3.4 T above its baseline:
docs/localizing.md, Cost.

The parent's peak is its own VmHWM, read by a wrapper that runs the localize command's `main`
in-process and writes it before exiting (tests/support/memory_peaks.py, which also holds the
module); each child run records its own in result.json.
"""

import glob
import json
import os

from absl.testing import absltest

from tests.support import memory_peaks
from tests.support import recorded_traces

BIG, SMALL = memory_peaks.BIG, memory_peaks.SMALL
TENSOR_BYTES = memory_peaks.TENSOR_BYTES
# Peak RSS above the baseline, in units of the largest tensor (the floors: docs/localizing.md).
PARENT_MULTIPLE = 2  # 3.4 before the trace was loaded mapped (its arrays were read and copied).
CHILD_MULTIPLE = 6


class LocalizeMemoryTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = tuple((memory_peaks.module_class(n), memory_peaks.trace_function(n), ("iree_vmvx",),
                 False)
                for n in (SMALL, BIG))

  def _localize(self, n: int):
    """(the parent's peak RSS, {run dir name: the child's peak RSS}, stdout) of one run."""
    trace_dir = self.trace_dirs[f"Chain{n}"]
    out = os.path.join(self.artifacts_dir, f"parent_{n}.json")
    parent, completed = memory_peaks.run_measured(
        "localize", [trace_dir, "--target_backends=iree_vmvx", "--trusted_backend=iree_llvmcpu"],
        out)
    self.assertEqual(parent["code"], 0, completed.stderr[-3000:])
    self.assertIn(": dispatch chain_dispatch_0::", completed.stdout.splitlines()[0])
    children = {}
    module_dir = os.path.dirname(os.path.dirname(trace_dir))
    for result in glob.glob(os.path.join(module_dir, "localize", "*", "**", "result.json"),
                            recursive=True):
      with open(result) as f:
        document = json.load(f)
      name = os.path.relpath(os.path.dirname(result), os.path.join(module_dir, "localize"))
      children[name.split(os.sep, 1)[1]] = document.get("peak_rss")
    return parent["peak_rss"], children, completed.stdout

  def test_peak_rss_is_a_small_multiple_of_the_largest_tensor(self):
    small_parent, small_children, _ = self._localize(SMALL)
    big_parent, big_children, stdout = self._localize(BIG)
    mib = 1 << 20
    # The figures docs/localizing.md quotes (pytest -s shows them).
    print(f"peak RSS, T = {TENSOR_BYTES / mib:.0f} MiB: process, peak MiB, baseline MiB, "
          "(peak - baseline) / T")
    for name, peak, base in [("parent", big_parent, small_parent)] + [
        (name, big_children[name], small_children.get(name)) for name in sorted(big_children)]:
      if peak is not None and base is not None:
        print(f"  {name:<26} {peak / mib:6.0f} {base / mib:6.0f} "
              f"{(peak - base) / TENSOR_BYTES:5.2f}")
    bound = small_parent + PARENT_MULTIPLE * TENSOR_BYTES
    self.assertLessEqual(
        big_parent, bound,
        f"the parent peaked at {big_parent / mib:.0f} MiB, over its baseline "
        f"{small_parent / mib:.0f} MiB + {PARENT_MULTIPLE} x {TENSOR_BYTES / mib:.0f} MiB; "
        f"{stdout[:2000]}")
    self.assertEqual(sorted(big_children), sorted(small_children))
    self.assertIn("iree_llvmcpu/suspect_run", big_children)
    for name, peak in big_children.items():
      self.assertIsNotNone(peak, f"{name}/result.json records no peak RSS")
      self.assertIsNotNone(small_children[name], f"{name}/result.json records no peak RSS")
      bound = small_children[name] + CHILD_MULTIPLE * TENSOR_BYTES
      self.assertLessEqual(
          peak, bound, f"{name} peaked at {peak / mib:.0f} MiB, over its baseline "
          f"{small_children[name] / mib:.0f} MiB + {CHILD_MULTIPLE} x {TENSOR_BYTES / mib:.0f} "
          "MiB")


if __name__ == "__main__":
  absltest.main()
