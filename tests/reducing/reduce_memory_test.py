"""The reducer's memory is a small multiple of the largest tensor, in the command and in the
processes it starts.

The localizer's memory test's mismatch (tests/support/memory_peaks.py): vmvx rounds an
f32 -> i32 convert inside an elementwise chain over one [4096, 4096] f32 input (T = 64 MiB) and a
row sum, both returned; the same module at [64, 64] gives the baselines. The reducer replays the
trace (in this process for vmvx), then at the op level runs the function on llvm-cpu
returning every op's result (the probe) and each candidate on both backends with
iree-run-module. Before the outputs were read memory-mapped, the candidates' results dropped
once judged and the probe's results returned a few at a time, the command peaked at 1365 MiB
(baseline 132 MiB, 19 T above it: every output read whole, every judged candidate's arrays
kept) and the probe's iree-run-module at 1030 MiB (baseline 12 MiB, 16 T: all nine results of
the chain returned by one run); now 2.7 T and 2.9 T (docs/reducing.md, Memory).

The command's peak is its own VmHWM; iree-run-module's is the greatest VmHWM any of its runs
reached (sampled while they run), both written by the wrapper that runs the reduce command's
`main` in-process (tests/support/memory_peaks.py).
"""

import os

from absl.testing import absltest

from tests.support import memory_peaks
from tests.support import recorded_traces

BIG, SMALL = memory_peaks.BIG, memory_peaks.SMALL
T = memory_peaks.TENSOR_BYTES
MIB = memory_peaks.MIB
# Peak RSS above the baseline, in units of the largest tensor (docs/reducing.md, Memory).
PARENT_MULTIPLE = 4
RUN_MULTIPLE = 4


class ReduceMemoryTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = tuple((memory_peaks.module_class(n), memory_peaks.trace_function(n), ("iree_vmvx",),
                 False) for n in (SMALL, BIG))

  def _reduce(self, n: int) -> dict:
    trace_dir = self.trace_dirs[f"Chain{n}"]
    peaks, completed = memory_peaks.run_measured(
        "reduce", [trace_dir, "--target_backends=iree_vmvx", "--reduce_timeout=1200",
                   f"--compile_cache_dir={os.path.join(self.artifacts_dir, 'cache')}"],
        os.path.join(self.artifacts_dir, f"reduce_{n}.json"))
    self.assertEqual(peaks["code"], 0, completed.stderr[-3000:])
    self.assertIn("op level against iree_llvmcpu", completed.stdout)
    peaks["stdout"] = completed.stdout
    return peaks

  def test_peak_rss_is_a_small_multiple_of_the_largest_tensor(self):
    small, big = self._reduce(SMALL), self._reduce(BIG)
    rows = [("the reduce command", big["peak_rss"], small["peak_rss"], PARENT_MULTIPLE)] + [
        (tool, big["children"].get(tool), small["children"].get(tool), multiple)
        for tool, multiple in (("iree-run-module", RUN_MULTIPLE), ("iree-compile", None))]
    # The figures docs/reducing.md quotes (pytest -s shows them).
    print(f"peak RSS, T = {T / MIB:.0f} MiB: process, peak MiB, baseline MiB, "
          "(peak - baseline) / T")
    for name, peak, base, _ in rows:
      if peak and base:
        print(f"  {name:<20} {peak / MIB:6.0f} {base / MIB:6.0f} "
              f"{memory_peaks.above(peak, base):5.2f}")
    for name, peak, base, multiple in rows:
      if multiple is None:  # iree-compile: no tensor's data, the same program at both sizes.
        continue
      self.assertTrue(peak and base, f"no peak of {name} was seen: {big}, {small}")
      self.assertLessEqual(
          peak, base + multiple * T,
          f"{name} peaked at {peak / MIB:.0f} MiB, over its baseline {base / MIB:.0f} MiB + "
          f"{multiple} x {T / MIB:.0f} MiB; {big['stdout'][:2000]}")


if __name__ == "__main__":
  absltest.main()
