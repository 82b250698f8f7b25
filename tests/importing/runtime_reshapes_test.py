"""tf.Reshape to a shape computed at run time (issue 35 item 7: a shape computed inside a
tf.while_loop body), which TF's lowering leaves, becomes the input flattened and expanded to the
shape's values behind a cf.assert keeping TF's rules. Text checks, then real IREE (llvm-cpu):
valid shapes reshape as TF does, invalid ones fail the call, and the e2e file compares with TF."""

import os
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.importing.rewrites import runtime_reshapes
from tests.support import test_files
from tests.support.repo import ROOT

RESHAPE = '''module {
  func.func @fold(%arg0: tensor<12xf32>, %arg1: tensor<2xi32>) -> tensor<?x?xf32> {
    %0 = "tf.Reshape"(%arg0, %arg1) {device = ""} : (tensor<12xf32>, tensor<2xi32>) -> \
tensor<?x?xf32>
    return %0 : tensor<?x?xf32>
  }
}
'''


class TextTest(absltest.TestCase):

  def test_a_runtime_shape_is_an_expand_of_the_flattened_input_behind_an_assert(self):
    rewritten = runtime_reshapes.rewrite_runtime_reshapes(RESHAPE)
    self.assertNotIn('"tf.Reshape"(', rewritten)
    self.assertRegex(rewritten, r"tensor\.extract %arg1\[%\w+\] : tensor<2xi32>")
    self.assertRegex(rewritten, r'cf\.assert %\w+, "fold: tf\.Reshape of tensor<12xf32> to a '
                     r'shape computed at run time')
    self.assertRegex(rewritten, r"%0 = tensor\.expand_shape %\w+flat \[\[0, 1\]\] output_shape "
                     r"\[%\w+d0, %\w+d1\] : tensor<\?xf32> into tensor<\?x\?xf32>")

  def test_a_constant_shape_is_left_to_dynamic_reshapes(self):
    text = RESHAPE.replace(
        '    %0 = "tf.Reshape"',
        '    %arg1 = stablehlo.constant dense<[3, 4]> : tensor<2xi32>\n    %0 = "tf.Reshape"')
    self.assertEqual(runtime_reshapes.rewrite_runtime_reshapes(text), text)


class CompiledTest(absltest.TestCase):

  def test_valid_shapes_reshape_and_invalid_ones_fail_the_call(self):
    from iree import compiler
    from iree import runtime
    vmfb = compiler.compile_str(runtime_reshapes.rewrite_runtime_reshapes(RESHAPE),
                                target_backends=["llvm-cpu"], input_type="stablehlo_xla",
                                extra_args=["--iree-llvmcpu-target-cpu=generic"])
    context = runtime.SystemContext(config=runtime.Config("local-sync"))
    module = runtime.VmModule.copy_buffer(context.instance, vmfb)
    context.add_vm_module(module)
    fold = context.modules[module.name]["fold"]
    x = np.arange(12, dtype=np.float32)
    for shape, expected in (([3, 4], [3, 4]), ([-1, 6], [2, 6]), ([12, -1], [12, 1])):
      np.testing.assert_array_equal(np.asarray(fold(x, np.array(shape, np.int32))),
                                    x.reshape(expected))
    for shape in ([5, 3], [-2, -6], [-1, -1]):
      with self.assertRaisesRegex(Exception, "a shape computed at run time", msg=str(shape)):
        fold(x, np.array(shape, np.int32))

  def test_the_loop_reshape_e2e_file_passes(self):
    process = test_files.run_test_file(os.path.join(ROOT, "e2e", "loop_reshape_test.py"),
                                       "--target_backends=iree_llvmjit", "--compile_cache=false",
                                       f"--artifacts_dir={tempfile.mkdtemp()}", timeout=600)
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])


if __name__ == "__main__":
  absltest.main()
