"""The iree-run-module command a report prints passes on a correct backend for every dtype a
function's signature allows: the flagfile spells each input's and expected output's element type
as iree-run-module does (ui8 for uint8, i1 for bool, bf16, cf64 for complex64, ...).

Real TensorFlow, a real llvm-cpu compile and the real iree-run-module; the repro files are those
the test case writes for a failing call, written here for passing calls.
"""

import os
import subprocess
import tempfile

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_utils
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.reporting import repro

DTYPES = (tf.bool, tf.int8, tf.int16, tf.int32, tf.int64, tf.uint8, tf.uint16, tf.uint32,
          tf.uint64, tf.float16, tf.bfloat16, tf.float32, tf.float64, tf.complex64, tf.complex128)
# Values past the signed range of 8 bits once doubled: 200 read as i8 is -56.
VALUES = [1.5, 0, 3, 100, 120, 127]


def _double(self, x):  # pylint: disable=unused-argument
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

  def test_the_printed_command_passes_on_a_correct_backend_for_every_dtype(self):
    cli_flags.ensure_parsed()
    directory = tempfile.mkdtemp()
    reference = tf_utils.BackendInfo("tf").compile(EveryDtype, artifacts_dir=directory)
    target = tf_utils.BackendInfo("iree_llvmjit").compile(EveryDtype, artifacts_dir=directory)
    ref_trace, error = traces.run_trace(reference, every_dtype)
    self.assertIsNone(error)
    tar_trace, error = traces.run_trace(target, every_dtype, reference=ref_trace)
    self.assertIsNone(error)
    with open(os.path.join(directory, "iree_input.mlir"), encoding="utf-8") as f:
      iree_input = f.read()
    repros = repro.CallRepros(directory, ref_trace, tar_trace,
                              artifacts.compiled_path(directory, "iree_llvmjit"),
                              target.backend_info.driver, target.signatures, iree_input)
    self.assertLen(repros, len(DTYPES))
    for index, dtype in enumerate(DTYPES):
      with self.subTest(dtype=dtype.name):
        call = repros.call(index)
        self.assertEqual(call.method, f"double_{dtype.name}")
        self.assertIsNotNone(call.run_module_command, call.no_run_module_reason)
        # The command exactly as the report prints it, pasted into a shell from /.
        printed = repros[index].splitlines()[-1]
        self.assertEqual(printed, f"re-run call {index} alone: {call.run_module_command}")
        run = subprocess.run(printed.split(": ", 1)[1], shell=True, cwd="/", text=True,
                             capture_output=True, check=False, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout[-1500:] + run.stderr[-1500:])
        self.assertIn("[SUCCESS]", run.stdout)


if __name__ == "__main__":
  absltest.main()
