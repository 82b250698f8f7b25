"""--dump_compiler_ir names each phase's IR after the module and backend (issue 30 item 10):
iree-compile reads the module from stdin and named them `_stdin_.N.<phase>.mlir`, the same for
every module and backend (real TF and iree-compile on vmvx). A compile that fails has its
phases named the same way (`class_setup` renames them after every compile)."""

import os
import tempfile

from absl.testing import absltest

from tests.support import test_files
from tests.support.repo import ROOT


def _phases(root: str, module: str) -> list:
  return sorted(os.listdir(os.path.join(root, module, "dumps", "iree_vmla", "phases")))


class DumpNamesTest(absltest.TestCase):

  def test_phases_of_a_compiled_module_are_named_after_it_and_the_backend(self):
    root = tempfile.mkdtemp()
    process = test_files.run_test_file(
        os.path.join(ROOT, "e2e", "simple_stateful_test.py"), "--target_backends=iree_vmla",
        f"--artifacts_dir={root}", "--compile_cache=false", "--dump_compiler_ir", timeout=600)
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    names = _phases(root, "Stateful")
    self.assertIn("Stateful__iree_vmla.1.input.mlir", names)
    self.assertIn("Stateful__iree_vmla.12.vm.mlir", names)
    self.assertEqual([n for n in names if not n.startswith("Stateful__iree_vmla.")], [])


if __name__ == "__main__":
  absltest.main()
