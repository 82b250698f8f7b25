"""The iree-run-module command a report prints, and the repro.sh flags `make_repros` writes, pass
on a correct backend for every dtype a function's signature allows: both spell each input's and
expected output's element type as iree-run-module does (ui8 for uint8, i1 for bool, bf16, cf64 for
complex64, ...), with the one mapping of `reporting.repro`.

Real TensorFlow, a real llvm-cpu compile and the real iree-run-module; the repro files are those
the test case (or make_repros) writes for a failing call, written here for passing calls.
"""

import os
import shlex
import subprocess
import tempfile

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.tools import repro_values

DTYPES = (tf.bool, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32,
          tf.uint64, tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.complex64, tf.complex128)
# Values past the signed range of 8 bits once doubled: 200 read as i8 is -56.
VALUES = [1.5, 0, 3, 100, 120, 127]


def _double(self, x):
  return tf.logical_not(x) if x.dtype == tf.bool else x + x


class EveryDtype(tf.Module):
  """One function per dtype: `double_<dtype>` maps a [6] tensor to one of the same dtype."""


for _dtype in DTYPES:
  setattr(EveryDtype, f"double_{_dtype.name}",
          tf.function(_double, input_signature=[tf.TensorSpec([6], _dtype)]))


def every_dtype(module):
  for dtype in DTYPES:
    values = [1, 0, 1, 1, 0, 0] if dtype == tf.bool else VALUES
    getattr(module, f"double_{dtype.name}")(np.array(values).astype(dtype.as_numpy_dtype))


class EveryDtypeRoundTripsTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cli_flags.ensure_parsed()
    cls.directory = tempfile.mkdtemp()
    reference = tf_utils.BackendInfo("tf").compile(EveryDtype, artifacts_dir=cls.directory)
    cls.target = tf_utils.BackendInfo("iree_llvmjit").compile(EveryDtype,
                                                              artifacts_dir=cls.directory)
    cls.ref_trace, ref_error = traces.run_trace(reference, every_dtype)
    cls.tar_trace, tar_error = traces.run_trace(cls.target, every_dtype, reference=cls.ref_trace)
    assert ref_error is None and tar_error is None, (ref_error, tar_error)
    with open(os.path.join(cls.directory, "iree_input.mlir"), encoding="utf-8") as f:
      cls.iree_input = f.read()
    cls.vmfb = artifacts.compiled_path(cls.directory, "iree_llvmjit")

  def run_command(self, command: str) -> None:
    run = subprocess.run(command, shell=True, cwd="/", text=True, capture_output=True,
                         check=False, timeout=120)
    self.assertEqual(run.returncode, 0, run.stdout[-1500:] + run.stderr[-1500:])
    self.assertIn("[SUCCESS]", run.stdout)

  def test_the_printed_command_passes_on_a_correct_backend_for_every_dtype(self):
    repros = repro.CallRepros(self.directory, self.ref_trace, self.tar_trace, self.vmfb,
                              self.target.backend_info.driver, self.target.signatures,
                              self.iree_input)
    self.assertLen(repros, len(DTYPES))
    for index, dtype in enumerate(DTYPES):
      with self.subTest(dtype=dtype.name):
        call = repros.call(index)
        self.assertEqual(call.method, f"double_{dtype.name}")
        self.assertIsNotNone(call.run_module_command, call.no_run_module_reason)
        # The command exactly as the report prints it, pasted into a shell from /.
        printed = repros[index].splitlines()[-1]
        self.assertEqual(printed, f"re-run call {index} alone: {call.run_module_command}")
        self.run_command(printed.split(": ", 1)[1])

  def test_make_repros_values_pass_on_a_correct_backend_for_every_dtype(self):
    # make_repros reads the traces and signatures a run saved in the module directory.
    for trace, reference in ((self.ref_trace, True), (self.tar_trace, False)):
      trace_io.save_trace(trace, artifacts.trace_path(self.directory, trace.function_name,
                                                      trace.backend, suffix=""), reference)
    trace_record = {"trace": self.ref_trace.function_name, "reference": self.ref_trace.backend}
    for index, dtype in enumerate(DTYPES):
      with self.subTest(dtype=dtype.name):
        out = tempfile.mkdtemp(dir=self.directory)
        record = {"backend": self.tar_trace.backend,
                  "call": {"index": index, "method": f"double_{dtype.name}"}}
        plan = repro_values.plan_run(self.directory, trace_record, record, self.iree_input, out)
        self.assertEqual(plan.function, f"double_{dtype.name}")
        self.assertIsNone(plan.driver)
        binary = repro.iree_run_module_binary()
        self.run_command(" ".join(map(shlex.quote, [
            binary, f"--module={self.vmfb}", "--device=local-task",
            f"--function={plan.function}"] + [f.replace("=@", f"=@{out}/") for f in plan.flags])))


if __name__ == "__main__":
  absltest.main()
