"""`python -m pyiree_tf_support.split_dispatches`: a model's dispatch suite, run by pytest with
IREE's tools alone, fails on exactly the dispatch the localizer names (vmvx's rounding convert)
and passes on a backend pair that agrees (a three-dispatch model on vmvx and llvm-cpu). Real
TensorFlow (to record the traces), IREE compiler and runtime."""

import json
import os
import re
import subprocess
import sys

from absl.testing import absltest

from tests.localizing import localize_test
from tests.reducing import op_level_test
from tests.support import recorded_traces


def split(trace_dir: str, *args: str) -> subprocess.CompletedProcess:
  return subprocess.run([sys.executable, "-m", "pyiree_tf_support.split_dispatches", trace_dir,
                         *args], capture_output=True, text=True, check=False, timeout=900)


class SplitDispatchesTest(recorded_traces.RecordedTraces, absltest.TestCase):

  CASES = ((localize_test.Mlp, op_level_test.predict_once, ("iree_llvmcpu",), True),
           (op_level_test.Casting, op_level_test.cast_once, ("iree_vmvx",), False))

  def suite(self, name: str, *args: str) -> subprocess.CompletedProcess:
    """Splits the trace, then runs its test file from / with no venv on PATH."""
    completed = split(self.trace_dirs[name], "--target_backends=iree_vmvx,iree_llvmcpu", *args)
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    command = re.search(r"^run: (\S+) -m pytest (\S+)$", completed.stdout, re.MULTILINE)
    self.assertIsNotNone(command, completed.stdout)
    return subprocess.run([command.group(1), "-m", "pytest", command.group(2), "-q",
                           "-p", "no:cacheprovider", "-rf"], cwd="/", capture_output=True,
                          text=True, check=False, env={"PATH": "/usr/bin:/bin"}, timeout=900)

  def test_an_agreeing_pair_passes_every_dispatch(self):
    ran = self.suite("Mlp")
    self.assertEqual(ran.returncode, 0, ran.stdout[-3000:])
    self.assertIn("6 passed", ran.stdout)  # three dispatches on two backends
    manifest = os.path.join(os.path.dirname(os.path.dirname(self.trace_dirs["Mlp"])),
                            "dispatches", "predict_once__tf_ref", "manifest.json")
    with open(manifest) as f:
      self.assertLen(json.load(f)["dispatches"], 3)

  def test_the_failing_item_is_the_dispatch_the_localizer_names(self):
    ran = self.suite("Casting")
    failed = re.findall(r"^FAILED \S+::test_dispatch\[(\S+)\]", ran.stdout, re.MULTILINE)
    self.assertLen(failed, 1, ran.stdout[-3000:])
    self.assertTrue(failed[0].endswith("-iree_vmvx"), failed)
    localized = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.localize", self.trace_dirs["Casting"],
         "--target_backends=iree_vmvx"], capture_output=True, text=True, check=False,
        timeout=900)
    executable = re.search(r": dispatch (\w+)::(\w+) ", localized.stdout)
    self.assertIsNotNone(executable, localized.stdout + localized.stderr[-2000:])
    self.assertIn(f"_{executable.group(2)}_", failed[0])

  def test_a_backend_that_is_not_iree_is_one_line(self):
    completed = split(self.trace_dirs["Mlp"], "--target_backends=tf")
    self.assertEqual(completed.returncode, 2)
    self.assertRegex(completed.stderr.strip(),
                     r"^split_dispatches: --target_backends=tf is not an IREE backend; valid: ")


if __name__ == "__main__":
  absltest.main()
