"""--iree_compile_flags and --dump_compiler_ir: validated, reach the real iree-compile, keyed."""

import glob
import os
import tempfile

from absl.testing import absltest

from pyiree_tf_support.compiling import module_compiles
from pyiree_tf_support.core import compile_flags
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup
from tests.support import test_files
from tests.support.repo import ROOT

E2E_FILE = os.path.join(ROOT, "e2e", "simple_stateful_test.py")


def run_e2e(*args):
  return test_files.run_test_file(E2E_FILE, *args, timeout=600)


class ParseTest(absltest.TestCase):

  def test_flag_is_taken_verbatim_after_the_first_colon(self):
    self.assertEqual(compile_flags.parse(["iree_llvmjit:--a=b,c:d"]),
                     (("iree_llvmjit", "--a=b,c:d"),))

  def test_unknown_or_non_iree_backend_is_one_line_naming_the_valid_ones(self):
    for value in ("iree_bogus:--x", "tf:--x"):
      with self.assertRaisesRegex(ValueError, "names no IREE backend .*valid backends are: "
                                  "iree_vmvx, iree_llvmcpu, iree_vulkan, iree_vmla"):
        compile_flags.parse([value])

  def test_a_value_without_backend_or_flag_says_the_form(self):
    for value in ("--iree-foo", "iree_vmla:", "iree_vmla:x"):
      with self.assertRaisesRegex(ValueError, "is not backend:flag, e.g. iree_llvmjit:--"):
        compile_flags.parse([value])

  def test_bad_value_on_the_command_line_is_a_one_line_flag_error(self):
    process = run_e2e("--iree_compile_flags=iree_bogus:--x")
    self.assertNotEqual(process.returncode, 0)
    errors = [line for line in process.stderr.splitlines() if "Flags parsing error" in line]
    self.assertLen(errors, 1, process.stderr[-2000:])
    self.assertIn("names no IREE backend 'iree_bogus'", errors[0])


class RequestTest(absltest.TestCase):

  def test_flags_reach_the_request_its_key_and_its_command_only_for_their_backend(self):
    settings = RunSettings(target_backends=("iree_vmla", "iree_llvmjit"),
                           iree_compile_flags=(("iree_vmla", "--iree-opt-level=O0"),),
                           dump_compiler_ir=True)
    vmla, llvm = class_setup.plan_backends(settings, artifacts_dir="/m").targets
    plain = class_setup.plan_backends(RunSettings(target_backends=("iree_vmla",))).targets[0]
    text = "func.func @f() { return }"
    request = module_compiles.request_for(text, [vmla.spec])
    self.assertIn("--iree-opt-level=O0", request.flags)
    self.assertIn("--dump-compilation-phases-to=/m/dumps/iree_vmla/phases", request.flags)
    self.assertNotIn("--iree-opt-level=O0", llvm.spec.compiler_flags)
    self.assertNotEqual(request.key(), module_compiles.request_for(text, [plain.spec]).key())
    self.assertIn("--iree-opt-level=O0", request.command_line("r.mlir", "o.vmfb"))


class RealCompileTest(absltest.TestCase):

  def test_user_flag_with_commas_and_ir_dumps_reach_iree_compile(self):
    root = tempfile.mkdtemp()
    binaries = os.path.join(root, "user,dir=1")
    process = run_e2e("--target_backends=iree_vmla", f"--artifacts_dir={root}",
                      "--compile_cache=false", "--dump_compiler_ir",
                      f"--iree_compile_flags=iree_vmla:--iree-hal-dump-executable-binaries-to="
                      f"{binaries}")
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertNotEmpty(glob.glob(os.path.join(binaries, "*")))
    phases = glob.glob(os.path.join(root, "*", "dumps", "iree_vmla", "phases", "*.mlir"))
    self.assertNotEmpty(phases)
    self.assertNotEmpty(glob.glob(os.path.join(root, "*", "dumps", "iree_vmla", "sources", "*")))


if __name__ == "__main__":
  absltest.main()
