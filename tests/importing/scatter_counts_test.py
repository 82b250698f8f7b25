"""A scatter whose indices count is dynamic while its updates' is static (a ring buffer written
at `floormod(range(head, head + count))`, issue 35 item 7) gets indices of the updates' static
count behind a cf.assert: IREE's verifier rejected the mixed shapes ("'iree_linalg_ext.scatter'
op mismatch in shape of indices and update value at dim#0"). Text checks, then the real TF and
IREE (llvm-cpu): the e2e file compares with TF, and a count that differs fails the call."""

import os
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.importing.rewrites import scatter_counts
from tests.support import test_files
from tests.support.repo import ROOT

SCATTER = "\n".join([
    "module {",
    "  func.func @put(%arg0: tensor<3x2xf32>, %arg1: tensor<?x1xi32>, %arg2: tensor<1x2xf32>)"
    " -> tensor<3x2xf32> {",
    '    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, '
    "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
    "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
    "unique_indices = false}> ({",
    "    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):",
    "      stablehlo.return %arg4 : tensor<f32>",
    "    }) : (tensor<3x2xf32>, tensor<?x1xi32>, tensor<1x2xf32>) -> tensor<3x2xf32>",
    "    return %0 : tensor<3x2xf32>",
    "  }",
    "}", ""])


class TextTest(absltest.TestCase):

  def test_dynamic_indices_take_the_updates_static_count_behind_an_assert(self):
    rewritten = scatter_counts.rewrite_scatter_counts(SCATTER)
    self.assertRegex(rewritten, r"tensor\.dim %arg1, %\w+ : tensor<\?x1xi32>")
    self.assertRegex(rewritten, r'cf\.assert %\w+, "put: a scatter\'s indices dim 0 must be '
                     r'its updates\' dim 0 \(1\)"')
    self.assertRegex(rewritten, r"= tensor\.cast %arg1 : tensor<\?x1xi32> to tensor<1x1xi32>")
    self.assertIn(") : (tensor<3x2xf32>, tensor<1x1xi32>, tensor<1x2xf32>) -> tensor<3x2xf32>",
                  rewritten)

  def test_matching_or_unknown_counts_stay(self):
    for indices, updates in (("tensor<?x1xi32>", "tensor<?x2xf32>"),
                             ("tensor<1x1xi32>", "tensor<1x2xf32>")):
      text = SCATTER.replace("tensor<?x1xi32>", indices).replace("tensor<1x2xf32>", updates)
      self.assertEqual(scatter_counts.rewrite_scatter_counts(text), text)


class CompiledTest(absltest.TestCase):

  def test_a_count_that_differs_fails_the_call(self):
    from iree import compiler
    from iree import runtime
    vmfb = compiler.compile_str(scatter_counts.rewrite_scatter_counts(SCATTER),
                                target_backends=["llvm-cpu"], input_type="stablehlo_xla",
                                extra_args=["--iree-llvmcpu-target-cpu=generic"])
    config = runtime.Config("local-sync")
    context = runtime.SystemContext(config=config)
    module = runtime.VmModule.copy_buffer(context.instance, vmfb)
    context.add_vm_module(module)
    put = context.modules[module.name]["put"]
    buffer, row = np.zeros([3, 2], np.float32), np.array([[1., -1.]], np.float32)
    np.testing.assert_array_equal(np.asarray(put(buffer, np.array([[2]], np.int32), row)),
                                  [[0, 0], [0, 0], [1, -1]])
    # IREE checks the argument against the static count first (its own assert, at the call's
    # boundary); indices computed inside a function reach the cf.assert.
    with self.assertRaisesRegex(Exception, "indices dim 0 must be its updates' dim 0|"
                                "shape dimension 0 mismatch; expected 1 but have 2"):
      put(buffer, np.array([[0], [1]], np.int32), row)

  def test_the_ring_buffer_e2e_file_passes(self):
    process = test_files.run_test_file(os.path.join(ROOT, "e2e", "ring_slice_update_test.py"),
                                       "--target_backends=iree_llvmjit", "--compile_cache=false",
                                       f"--artifacts_dir={tempfile.mkdtemp()}",
                                       timeout=600)
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])


if __name__ == "__main__":
  absltest.main()
