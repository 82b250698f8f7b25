"""e2e/repros/: every listed IREE failure has a standalone reproduction, none is left over, and
each still fails with exactly the first error line it recorded (a repro failing differently, or
no longer failing, fails here). The repros run IREE's real tools (and TensorFlow for import ones);
Vulkan ones need a Vulkan device."""

import hashlib
import os
import subprocess
import sys
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.tools import make_repros
from pyiree_tf_support.tools import repro_values

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UNDER_BAZEL = "TEST_SRCDIR" in os.environ
NOT_IN_BAZEL = unittest.skipIf(UNDER_BAZEL, "e2e/repros/ is not in a Bazel test's runfiles")


def _all_repro_dirs():
  if UNDER_BAZEL:
    return []
  findings = os.path.join(make_repros.REPROS_DIR, make_repros.FINDINGS)
  return make_repros.repro_dirs() + sorted(
      os.path.join(findings, name) for name in os.listdir(findings)) if os.path.isdir(
          findings) else make_repros.repro_dirs()


def _content_key(directory):
  """Identical repros (an import failure is the same on every backend) run once."""
  digest = hashlib.sha256()
  for name in sorted(os.listdir(directory)):
    if name != "README.txt":
      with open(os.path.join(directory, name), "rb") as f:
        digest.update(name.encode() + b"\0" + f.read() + b"\0")
  return digest.hexdigest()


_checked = {}


def _needs_vulkan(directory):
  with open(os.path.join(directory, "repro.sh"), encoding="utf-8") as f:
    return "--device=vulkan" in f.read()


# A compile repro whose input iree-compile rejects, and one it accepts.
_BAD_MODULE = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %b : tensor<4xf32>\n}\n"
_GOOD_MODULE = "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %a : tensor<4xf32>\n}\n"


@NOT_IN_BAZEL
class ReprosTest(parameterized.TestCase):

  def test_every_listed_iree_failure_has_a_repro_dir(self):
    missing = [f"{e.backend}/{e.file}" for e in make_repros.iree_failures()
               if not os.path.isfile(os.path.join(e.repro_dir, "repro.sh"))]
    self.assertEqual(missing, [], f"run {make_repros.TOOL} --artifacts_dir=<a run's artifacts>")

  def test_no_repro_dir_is_orphaned(self):
    wanted = {e.repro_dir for e in make_repros.iree_failures()}
    orphans = [os.path.relpath(d, REPO) for d in make_repros.repro_dirs() if d not in wanted]
    self.assertEqual(orphans, [], "not listed as failing: remove them (make_repros does)")

  @parameterized.named_parameters(
      (os.path.relpath(d, os.path.join(REPO, "e2e", "repros")).replace(os.sep, "__"), d)
      for d in _all_repro_dirs())
  def test_repro_still_fails_with_its_recorded_line(self, directory):
    if _needs_vulkan(directory):
      available, reason = drivers.driver_available("vulkan")
      if not available:
        self.skipTest(reason)
    key = _content_key(directory)
    if key not in _checked:
      _checked[key] = make_repros.check_repro(directory)
    self.assertIsNone(_checked[key])


@NOT_IN_BAZEL
class CheckReproTest(absltest.TestCase):
  """check_repro on real compile repros written by make_repros' own writer."""

  def _tempdir(self):
    return self.enterContext(tempfile.TemporaryDirectory())

  def _compile_repro(self, module_text, expected):
    directory = os.path.join(self._tempdir(), "iree_vmla", "x_test")
    module_dir = os.path.join(self._tempdir(), "XModule")
    os.makedirs(directory)
    os.makedirs(module_dir)
    with open(os.path.join(module_dir, "iree_input.mlir"), "w") as f:
      f.write(module_text)
    entry = make_repros.Listed("e2e", "iree_vmla", "x_test.py", "compile", "reason")
    make_repros.write_compile(entry, make_repros.Found(module_dir, "t", {}, {}, "compile"),
                              directory)
    with open(os.path.join(directory, make_repros.EXPECTED_NAME), "w") as f:
      f.write(expected + "\n")
    return directory

  def test_the_recorded_failure_passes_the_check(self):
    directory = self._compile_repro(_BAD_MODULE, "error: use of undeclared SSA value name")
    self.assertIsNone(make_repros.check_repro(directory))

  def test_a_different_failure_fails_the_check(self):
    directory = self._compile_repro(_BAD_MODULE, "error: some other error")
    problem = make_repros.check_repro(directory)
    self.assertIn("fails differently", problem)
    self.assertIn("error: use of undeclared SSA value name", problem)

  def test_a_repro_that_no_longer_fails_fails_the_check(self):
    directory = self._compile_repro(_GOOD_MODULE, "error: use of undeclared SSA value name")
    self.assertIn("no longer fails", make_repros.check_repro(directory))

  def test_a_method_that_failed_alone_is_reproduced_alone(self):
    directory = os.path.join(self._tempdir(), "iree_vmla", "x_test")
    module_dir = self._tempdir()
    os.makedirs(directory)
    with open(os.path.join(module_dir, "iree_input.mlir"), "w") as f:
      f.write(_BAD_MODULE + _GOOD_MODULE.replace("@f(", "@g("))
    record = {"detail": "call 0 (f): method 'f' did not compile for iree_vmla: error: x"}
    make_repros.write_compile(
        make_repros.Listed("e2e", "iree_vmla", "x_test.py", "compile", "reason"),
        make_repros.Found(module_dir, "t", {}, record, "compile"), directory)
    with open(os.path.join(directory, "iree_input.mlir")) as f:
      text = f.read()
    self.assertIn("func.func @f(", text)
    self.assertIn("func.func private @g(", text)

  def test_lists_typed_by_phase_and_untyped_are_read(self):
    root = self._tempdir()
    os.makedirs(os.path.join(root, "e2e"))
    with open(os.path.join(root, "e2e", "BUILD.bazel"), "w") as f:
      f.write('FAILING = {"tf": {}, "iree_vmla": {"a_test.py": ("compile", "error: x"),\n'
              '                                  "b_test.py": "untyped reason"}}\n')
    self.assertEqual(
        [(e.backend, e.file, e.phase, e.reason) for e in make_repros.iree_failures(root)],
        [("iree_vmla", "a_test.py", "compile", "error: x"),
         ("iree_vmla", "b_test.py", None, "untyped reason")])

  def test_stale_repro_dirs_are_removed_and_findings_kept(self):
    root = self._tempdir()
    for path in ("iree_vmla/gone_test", "iree_vmla/kept_test", "iree_vulkan/gone_test",
                 "findings/hand_made"):
      os.makedirs(os.path.join(root, path))
    removed = make_repros.remove_stale([os.path.join(root, "iree_vmla", "kept_test")], root)
    self.assertEqual(sorted(os.path.relpath(p, root) for p in removed),
                     ["iree_vmla/gone_test", "iree_vulkan/gone_test"])
    self.assertEqual(sorted(os.listdir(root)), ["findings", "iree_vmla"])
    self.assertEqual(os.listdir(os.path.join(root, "iree_vmla")), ["kept_test"])


@NOT_IN_BAZEL
class DriverModuleTest(absltest.TestCase):
  """A stateful module's earlier calls replayed by the driver module, on the real runtime."""

  COUNTER = """module {
  ml_program.global public mutable @total(dense<0.0> : tensor<2xf32>) : tensor<2xf32>
  func.func @add(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = ml_program.global_load @total : tensor<2xf32>
    %1 = stablehlo.add %0, %arg0 : tensor<2xf32>
    ml_program.global_store @total = %1 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
  func.func @scaled(%arg0: tensor<2xf32>, %arg1: tensor<f32>) -> (tensor<2xf32>, tensor<f32>) {
    %0 = ml_program.global_load @total : tensor<2xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<2xf32>
    %3 = stablehlo.add %2, %arg0 : tensor<2xf32>
    return %3, %arg1 : tensor<2xf32>, tensor<f32>
  }
}
"""

  def _tempdir(self):
    return self.enterContext(tempfile.TemporaryDirectory())

  def test_function_types(self):
    self.assertEqual(repro_values.function_types(self.COUNTER), {
        "add": (["tensor<2xf32>"], ["tensor<2xf32>"]),
        "scaled": (["tensor<2xf32>", "tensor<f32>"], ["tensor<2xf32>", "tensor<f32>"]),
    })

  def test_driver_replays_earlier_calls_in_one_context(self):
    work = self._tempdir()
    with open(os.path.join(work, "m.mlir"), "w") as f:
      f.write(self.COUNTER)
    with open(os.path.join(work, "d.mlir"), "w") as f:
      f.write(repro_values.driver_module("module", ["add", "add", "scaled"], self.COUNTER))
    tools = os.path.dirname(sys.executable)
    for name, extra in (("m", ["--iree-input-type=stablehlo_xla"]), ("d", [])):
      subprocess.run([os.path.join(tools, "iree-compile"), os.path.join(work, name + ".mlir"),
                      "--iree-hal-target-backends=vmvx", *extra, "-o",
                      os.path.join(work, name + ".vmfb")], check=True)
    # total = [1, 2] + [10, 20] = [11, 22]; scaled: total * 2 + [0.5, 0.5].
    completed = subprocess.run(
        [os.path.join(tools, "iree-run-module"), "--device=local-task",
         "--module=" + os.path.join(work, "m.vmfb"), "--module=" + os.path.join(work, "d.vmfb"),
         "--function=repro", "--input=2xf32=1 2", "--input=2xf32=10 20",
         "--input=2xf32=0.5 0.5", "--input=f32=2", "--expected_output=2xf32=22.5 44.5",
         "--expected_output=f32=2"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        check=False)
    self.assertEqual(completed.returncode, 0, completed.stdout.decode())


if __name__ == "__main__":
  absltest.main()
