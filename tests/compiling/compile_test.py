"""compile_tf_module and the import pipeline: artifacts, clear errors, reproducers."""

import os
import subprocess
import tempfile

from absl.testing import absltest
from absl.testing import flagsaver
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_utils
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.importing import importer


class MulModule(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32), tf.TensorSpec([4], tf.float32)])
  def simple_mul(self, a, b):
    return a * b

  @tf.function
  def no_signature(self, a):
    return a


class PrintingModule(tf.Module):
  """Uses tf.print, which the TF->StableHLO lowering leaves as tf.PrintV2."""

  @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
  def noisy(self, x):
    tf.print(x)
    return x


class CompileTfModuleTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()
    self.artifacts_dir = tempfile.mkdtemp()

  def test_saves_both_mlir_texts_and_the_vmfb_named_after_the_backends(self):
    infos = [tf_utils.BackendInfo("iree_vmla"), tf_utils.BackendInfo("iree_llvmjit")]
    vmfb = tf_utils.compile_tf_module(MulModule(), infos, artifacts_dir=self.artifacts_dir)
    self.assertGreater(len(vmfb), 1000)
    files = sorted(os.listdir(self.artifacts_dir))
    self.assertEqual(files, ["compiled__iree_vmla__iree_llvmjit.vmfb", "iree_input.mlir",
                             "signatures.json", "tf_input.mlir"])
    with open(os.path.join(self.artifacts_dir, "tf_input.mlir")) as f:
      self.assertIn("tf_saved_model", f.read())
    with open(os.path.join(self.artifacts_dir, "iree_input.mlir")) as f:
      text = f.read()
    self.assertIn("func.func @simple_mul(", text)
    self.assertIn("stablehlo.multiply", text)

  @flagsaver.flagsaver(keep_saved_model=True)
  def test_keep_saved_model_keeps_it_named_after_the_backends(self):
    tf_utils.compile_tf_module(MulModule(), [tf_utils.BackendInfo("iree_vmla")],
                               artifacts_dir=self.artifacts_dir)
    self.assertTrue(os.path.exists(
        os.path.join(self.artifacts_dir, "saved_model__iree_vmla", "saved_model.pb")))

  def test_no_saved_model_by_default(self):
    tf_utils.compile_tf_module(MulModule(), [tf_utils.BackendInfo("iree_vmla")],
                               artifacts_dir=self.artifacts_dir)
    self.assertFalse(any(name.startswith("saved_model") for name in os.listdir(self.artifacts_dir)))

  def test_misspelled_exported_name_is_a_clear_error(self):
    with self.assertRaisesRegex(importer.ModuleImportError,
                                "Module 'MulModule' has no tf.function named 'simple_mull'; "
                                "exportable functions are: simple_mul"):
      tf_utils.compile_tf_module(MulModule(), exported_names=["simple_mull"])

  def test_function_without_input_signature_is_a_clear_error(self):
    with self.assertRaisesRegex(importer.ModuleImportError, "'no_signature'.*no input_signature"):
      tf_utils.compile_tf_module(MulModule(), exported_names=["no_signature"])

  def test_unconverted_tf_ops_are_named_before_the_compiler_runs(self):
    with self.assertRaisesRegex(importer.ModuleImportError, r"'PrintingModule'.*tf\.PrintV2"):
      tf_utils.compile_tf_module(PrintingModule(), artifacts_dir=self.artifacts_dir)
    # The texts are saved for inspection, and no compiler output or reproducer exists.
    self.assertEqual(sorted(os.listdir(self.artifacts_dir)),
                     ["iree_input.mlir", "signatures.json", "tf_input.mlir"])

  def test_tf_is_not_an_iree_backend(self):
    with self.assertRaisesRegex(ValueError, "IREE backends only, got tf"):
      tf_utils.compile_tf_module(MulModule(), [tf_utils.BackendInfo("tf")])


# An unknown custom call fails inside a pass pipeline (not the parser).
_UNKNOWN_CUSTOM_CALL = """
  func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.custom_call"(%arg0) {call_target_name = "no_such_target"}
         : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }"""


class CompilerFailureTest(absltest.TestCase):
  """Real iree-compile failures: the message has the compiler's error and a reproducer path."""

  def test_invalid_input_writes_a_reproducer_with_the_command(self):
    artifacts_dir = tempfile.mkdtemp()
    reproducer = os.path.join(artifacts_dir, "reproducer__iree_vmla.mlir")
    request = compiler.CompileRequest("func.func @f( -> {", ("vmvx",))
    with self.assertRaises(compiler.CompileError) as raised:
      compiler.compile_request(request, "module 'Broken' for backend(s) iree_vmla", reproducer)
    message = str(raised.exception)
    self.assertIn("Compiling module 'Broken' for backend(s) iree_vmla failed in method f: "
                  "iree_input.mlir:1:14: error:", message)
    self.assertIn("error:", message)
    self.assertIn(reproducer, message)
    with open(reproducer) as f:
      text = f.read()
    self.assertIn("iree-compile", text)
    self.assertIn("--iree-hal-target-backends=vmvx", text)
    self.assertIn("func.func @f( -> {", text)
    self.assertEqual(os.listdir(artifacts_dir), ["reproducer__iree_vmla.mlir"])

  def test_pass_failure_keeps_the_compilers_crash_reproducer(self):
    # An unknown element type for the vmvx target fails inside a pass pipeline (not the parser).
    text = """
      func.func @f(%arg0: tensor<4xf32>) -> tensor<4xf32> {
        %0 = "stablehlo.custom_call"(%arg0) {call_target_name = "no_such_target"}
             : (tensor<4xf32>) -> tensor<4xf32>
        return %0 : tensor<4xf32>
      }"""
    artifacts_dir = tempfile.mkdtemp()
    reproducer = os.path.join(artifacts_dir, "reproducer__iree_vmla.mlir")
    with self.assertRaises(compiler.CompileError) as raised:
      compiler.compile_request(compiler.CompileRequest(text, ("vmvx",)), "module 'M'", reproducer)
    self.assertEqual(raised.exception.reproducer_path, reproducer)
    with open(reproducer) as f:
      self.assertIn("mlir_reproducer", f.read())  # written by iree-compile itself.
    self.assertEqual(os.listdir(artifacts_dir), ["reproducer__iree_vmla.mlir"])

  def test_pass_failure_names_the_pass_and_a_command_that_reproduces_it(self):
    artifacts_dir = tempfile.mkdtemp()
    reproducer = os.path.join(artifacts_dir, "reproducer__iree_vmla.mlir")
    request = compiler.CompileRequest(_UNKNOWN_CUSTOM_CALL, ("vmvx",),
                                      ("--iree-input-demote-f64-to-f32=false",))
    with self.assertRaises(compiler.CompileError) as raised:
      compiler.compile_request(request, "module 'M'", reproducer)
    message = str(raised.exception)
    self.assertIn("[failing pass: ConvertStableHloToIreeInputDialects on 'builtin.module']",
                  message)
    command = raised.exception.rerun_command
    self.assertIn(f"(compile it again with: {command})", message)
    self.assertIn("--iree-input-demote-f64-to-f32=false", command)  # the flags the library used.
    rerun = subprocess.run(["sh", "-c", command], capture_output=True, text=True, check=False)
    self.assertNotEqual(rerun.returncode, 0)
    self.assertIn("failed to legalize operation 'stablehlo.custom_call'", rerun.stderr)
    self.assertEqual(os.listdir(artifacts_dir), ["reproducer__iree_vmla.mlir"])


if __name__ == "__main__":
  absltest.main()
