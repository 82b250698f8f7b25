"""A big input is written once for every backend's repro (issue 30 item 10): a 68 MB input was
copied into each failing backend's iree-run-module directory (195 MB for three); now the later
backends' files are hard links of the first's, each directory still complete on its own (real
TF and vmvx, twice: its f32 -> i32 cast rounds where TF truncates)."""

import os
import tempfile

from absl.testing import absltest

from tests.support.test_files import run_test_file

ELEMENTS = 1 << 20  # 4 MiB of float32.

TEST_FILE = f'''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class BigCastModule(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([{ELEMENTS}], tf.float32)])
  def cast(self, x):
    return tf.cast(x, tf.int32)

@tf_test_utils.compile_module(BigCastModule)
class BigCastTest(tf_test_utils.TracedModuleTestCase):
  def test_cast(self):
    self.compare_backends(lambda module: module.cast(np.full([{ELEMENTS}], 2.7, np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''


class ReproSharingTest(absltest.TestCase):

  def test_each_backend_dir_links_the_same_input_file(self):
    directory = tempfile.mkdtemp(prefix="repro_sharing_")
    path = os.path.join(directory, "big_cast_test.py")
    with open(path, "w") as f:
      f.write(TEST_FILE)
    artifacts = os.path.join(directory, "artifacts")
    result = run_test_file(path, "--target_backends=iree_vmla,iree_vmla",
                           f"--artifacts_dir={artifacts}", "--compile_cache=false", cwd=directory,
                           timeout=600)
    self.assertIn("iree_vmla_0: MISMATCH", result.stderr)
    self.assertIn("iree_vmla_1: MISMATCH", result.stderr)
    repro = os.path.join(artifacts, "BigCastModule", "repro")
    calls = [os.path.join(repro, f"_lambda___iree_vmla_{i}", "call_0_cast") for i in (0, 1)]
    for name in ("input_0.bin", "expected_output_0.bin"):
      first, second = (os.lstat(os.path.join(call, name)) for call in calls)
      self.assertEqual(first.st_size, 4 * ELEMENTS)
      self.assertEqual((first.st_ino, first.st_dev), (second.st_ino, second.st_dev), name)
    for call in calls:  # each directory's flagfile reads its own files.
      with open(os.path.join(call, "flagfile")) as f:
        self.assertIn(f"--input={ELEMENTS}xf32=@input_0.bin", f.read())


if __name__ == "__main__":
  absltest.main()
