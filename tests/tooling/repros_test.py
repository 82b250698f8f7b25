"""e2e/repros/: every listed IREE failure has a standalone reproduction, an import failure stored
once for every backend listing it and found from each backend's index, none is left over, and each
still fails with exactly the first error line it recorded (a repro failing differently, or no
longer failing, fails here). The repros run IREE's real tools (and TensorFlow for import ones);
Vulkan ones need a Vulkan device."""

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.tools import make_repros
from pyiree_tf_support.tools import repro_layout
from pyiree_tf_support.tools import repro_templates
from pyiree_tf_support.tools import repro_values
from tests.support.repo import ROOT

UNDER_BAZEL = "TEST_SRCDIR" in os.environ
NOT_IN_BAZEL = unittest.skipIf(UNDER_BAZEL, "e2e/repros/ is not in a Bazel test's runfiles")


def _all_repro_dirs():
  if UNDER_BAZEL:
    return []
  findings = os.path.join(repro_layout.REPROS_DIR, repro_layout.FINDINGS)
  return repro_layout.repro_dirs() + sorted(
      os.path.join(findings, name) for name in os.listdir(findings)) if os.path.isdir(
          findings) else repro_layout.repro_dirs()


def _needs_vulkan(directory):
  with open(os.path.join(directory, "repro.sh"), encoding="utf-8") as f:
    return "--device=vulkan" in f.read()


# A compile repro whose input iree-compile rejects, and one it accepts.
_BAD_MODULE = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
               "  return %b : tensor<4xf32>\n}\n")
_GOOD_MODULE = ("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
                "  return %a : tensor<4xf32>\n}\n")


@NOT_IN_BAZEL
class ReprosTest(parameterized.TestCase):

  def test_every_listed_iree_failure_has_a_repro_dir(self):
    missing = [f"{e.backend}/{e.file}" for e in repro_layout.iree_failures()
               if not os.path.isfile(os.path.join(e.repro_dir, "repro.sh"))]
    self.assertEqual(missing, [], f"run {make_repros.TOOL} --artifacts_dir=<a run's artifacts>")

  def test_no_repro_dir_is_orphaned(self):
    wanted = {e.repro_dir for e in repro_layout.iree_failures()}
    orphans = [os.path.relpath(d, ROOT) for d in repro_layout.repro_dirs() if d not in wanted]
    self.assertEqual(orphans, [], "not listed as failing: remove them (make_repros does)")

  @parameterized.named_parameters(
      (os.path.relpath(d, os.path.join(ROOT, "e2e", "repros")).replace(os.sep, "__"), d)
      for d in _all_repro_dirs())
  def test_repro_still_fails_with_its_recorded_line(self, directory):
    if _needs_vulkan(directory):
      available, reason = drivers.driver_available("vulkan")
      if not available:
        self.skipTest(reason)
    self.assertIsNone(make_repros.check_repro(directory))

  def test_an_import_failure_is_stored_once_for_every_backend_listing_it(self):
    imports = [e for e in repro_layout.iree_failures() if e.phase == "import"]
    self.assertNotEmpty(imports)
    for entry in imports:
      stem = entry.file[:-len(".py")]
      self.assertEqual(os.path.relpath(entry.repro_dir, ROOT),
                       os.path.join("e2e", "repros", "import", stem))
      self.assertFalse(os.path.exists(os.path.join(repro_layout.REPROS_DIR, entry.backend, stem)),
                       f"{entry.backend}/{stem}: an import repro stored per backend")
      with open(os.path.join(entry.repro_dir, "README.txt"), encoding="utf-8") as f:
        readme = f.read()
      self.assertIn("Importing the module fails before any backend (import phase)", readme)
      listed_on = [line for line in readme.splitlines() if line.startswith("Listed reason (")]
      self.assertTrue(any(entry.backend in line.split(")")[0] for line in listed_on), readme)

  def test_every_generated_readme_ends_with_how_to_regenerate_it(self):
    last = repro_templates.README.strip().splitlines()[-1]
    self.assertIn("python -m pyiree_tf_support.tools.make_repros", last)
    for directory in repro_layout.repro_dirs():
      with open(os.path.join(directory, "README.txt"), encoding="utf-8") as f:
        self.assertEqual(f.read().strip().splitlines()[-1], last, directory)

  def test_each_backends_index_names_every_repro_listed_for_it(self):
    listed = repro_layout.iree_failures()
    self.assertEqual(repro_layout.stale_indexes(listed), [])
    for backend in repro_layout.indexed_backends(listed):
      backend_dir = os.path.join(repro_layout.REPROS_DIR, backend)
      with open(os.path.join(backend_dir, repro_layout.INDEX_NAME), encoding="utf-8") as f:
        lines = f.read().splitlines()[1:-1]
      mine = [e for e in listed if e.backend == backend]
      self.assertLen(lines, len(mine))
      for entry, line in zip(sorted(mine, key=lambda e: (e.suite, e.key)), lines):
        self.assertStartsWith(line, f"{entry.suite}/{entry.key} ({entry.phase}): ")
        found = os.path.normpath(os.path.join(backend_dir, line.rsplit(": ", 1)[1]))
        self.assertEqual(found, entry.repro_dir)
        self.assertTrue(os.path.isfile(os.path.join(found, "repro.sh")), line)

  def test_a_listing_within_the_references_error_needs_no_repro(self):
    root = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, root)
    for suite in repro_layout.SUITES:
      os.makedirs(os.path.join(root, suite))
      with open(os.path.join(root, suite, "BUILD.bazel"), "w") as f:
        f.write("FAILING = {}\n" if suite != "e2e" else
                'FAILING = {"iree_llvmjit": {"a_test.py": ("reference_error", "f16 cumsum"), '
                '"b_test.py": ("mismatch", "wrong")}}\n')
    self.assertEqual([e.file for e in repro_layout.iree_failures(root)], ["b_test.py"])

  def test_a_file_listed_per_method_has_a_repro_per_listed_method(self):
    # conv_unit_output_test.py: its plain and depthwise methods fail, its controls pass.
    listed = [e for e in repro_layout.iree_failures() if e.file == "conv_unit_output_test.py"]
    self.assertNotEmpty(listed)
    for entry in listed:
      self.assertIsNotNone(entry.method, f"{entry.backend}: {entry.key} is not per method")
      with open(os.path.join(entry.repro_dir, "README.txt"), encoding="utf-8") as f:
        readme = f.read()
      self.assertIn(f"e2e/{entry.key}, test __main__.{entry.test_class}.{entry.method}.", readme)
      with open(os.path.join(entry.repro_dir, "iree_input.mlir"), encoding="utf-8") as f:
        exported = repro_values.function_types(f.read())
      self.assertEqual(list(exported), [entry.method[len("test_"):]], entry.repro_dir)
    self.assertEqual(sorted({e.method for e in listed}),
                     ["test_depthwise_unread_rows", "test_unread_rows"])


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
    entry = repro_layout.Listed("e2e", "iree_vmla", "x_test.py", "compile", "reason")
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
        repro_layout.Listed("e2e", "iree_vmla", "x_test.py", "compile", "reason"),
        make_repros.Found(module_dir, "t", {}, record, "compile"), directory)
    with open(os.path.join(directory, "iree_input.mlir")) as f:
      text = f.read()
    self.assertIn("func.func @f(", text)
    self.assertNotIn("@g(", text)  # removed: IREE's input passes would still run on it.
    self.assertEqual(text.count("\n"), (_BAD_MODULE + _GOOD_MODULE).count("\n"))  # lines kept.

  def test_lists_typed_by_phase_and_untyped_are_read(self):
    root = self._tempdir()
    os.makedirs(os.path.join(root, "e2e"))
    with open(os.path.join(root, "e2e", "BUILD.bazel"), "w") as f:
      f.write('FAILING = {"tf": {}, "iree_vmla": {"a_test.py": ("compile", "error: x"),\n'
              '                                  "b_test.py": "untyped reason"}}\n')
    self.assertEqual(
        [(e.backend, e.file, e.phase, e.reason) for e in repro_layout.iree_failures(root)],
        [("iree_vmla", "a_test.py", "compile", "error: x"),
         ("iree_vmla", "b_test.py", None, "untyped reason")])

  def test_stale_repro_dirs_are_removed_and_findings_kept(self):
    root = self._tempdir()
    for path in ("iree_vmla/gone_test", "iree_vmla/kept_test", "iree_vulkan/gone_test",
                 "findings/hand_made"):
      os.makedirs(os.path.join(root, path))
    removed = repro_layout.remove_stale([os.path.join(root, "iree_vmla", "kept_test")], root)
    self.assertEqual(sorted(os.path.relpath(p, root) for p in removed),
                     ["iree_vmla/gone_test", "iree_vulkan/gone_test"])
    self.assertEqual(sorted(os.listdir(root)), ["findings", "iree_vmla"])
    self.assertEqual(os.listdir(os.path.join(root, "iree_vmla")), ["kept_test"])

  def _lists_root(self, e2e_failing, keras_failing="{}"):
    root = self._tempdir()
    for suite, failing in (("e2e", e2e_failing), ("e2e/keras", keras_failing)):
      os.makedirs(os.path.join(root, suite))
      with open(os.path.join(root, suite, "BUILD.bazel"), "w") as f:
        f.write(f"FAILING = {failing}\n")
    return root

  def test_an_import_failure_listed_on_several_backends_has_one_repro_dir(self):
    root = self._lists_root('{"tf": {}, "iree_vmla": {"a_test.py": ("import", "x"), '
                            '"b_test.py": ("compile", "y")}, '
                            '"iree_vulkan": {"a_test.py": ("import", "x")}}')
    listed = repro_layout.iree_failures(root)
    groups = {os.path.relpath(d, repro_layout.REPROS_DIR): [e.backend for e in entries]
              for d, entries in repro_layout.by_repro_dir(listed).items()}
    self.assertEqual(groups, {"import/a_test": ["iree_vmla", "iree_vulkan"],
                              "iree_vmla/b_test": ["iree_vmla"]})
    self.assertEqual(repro_layout.backend_index("iree_vulkan", listed).splitlines()[1:], [
        "e2e/a_test.py (import): ../import/a_test/", repro_layout.GENERATED])
    self.assertEqual(repro_layout.backend_index("iree_vmla", listed).splitlines()[1:3], [
        "e2e/a_test.py (import): ../import/a_test/", "e2e/b_test.py (compile): b_test/"])

  def test_an_entry_per_test_method_has_a_repro_dir_of_its_own(self):
    root = self._lists_root('{"iree_vmla": {"a_test.py::ATest::test_x": ("compile", "x"), '
                            '"a_test.py::ATest::test_y": ("mismatch", "y"), '
                            '"b_test.py::BTest": ("compile", "z")}}')
    listed = repro_layout.iree_failures(root)
    self.assertEqual([(e.key, e.file, e.test_class, e.method) for e in listed], [
        ("a_test.py::ATest::test_x", "a_test.py", "ATest", "test_x"),
        ("a_test.py::ATest::test_y", "a_test.py", "ATest", "test_y"),
        ("b_test.py::BTest", "b_test.py", "BTest", None)])
    self.assertEqual([os.path.relpath(d, repro_layout.REPROS_DIR)
                      for d in repro_layout.by_repro_dir(listed)],
                     ["iree_vmla/a_test.ATest.test_x", "iree_vmla/a_test.ATest.test_y",
                      "iree_vmla/b_test.BTest"])
    self.assertEqual(repro_layout.backend_index("iree_vmla", listed).splitlines()[1:4], [
        "e2e/a_test.py::ATest::test_x (compile): a_test.ATest.test_x/",
        "e2e/a_test.py::ATest::test_y (mismatch): a_test.ATest.test_y/",
        "e2e/b_test.py::BTest (compile): b_test.BTest/"])

  def test_a_method_entry_finds_its_own_test_in_a_run(self):
    # The artifacts a run of a file with two failing tests leaves (report.json, as written).
    artifacts = self._tempdir()
    module_dir = os.path.join(artifacts, "AModule")
    os.makedirs(module_dir)

    def failing(method):
      return {"file": "a_test.py", "traces": [{"trace": method, "backends": [
          {"backend": "iree_vmla", "phase": "compile",
           "detail": f"call 0 ({method}): method '{method}' did not compile for iree_vmla"}]}]}

    with open(os.path.join(module_dir, "report.json"), "w") as f:
      json.dump({"tests": {"__main__.ATest.test_x": failing("x"),
                           "__main__.ATest.test_y": failing("y")}}, f)
    root = self._lists_root('{"iree_vmla": {"a_test.py::ATest::test_y": ("compile", "y")}}')
    with open(os.path.join(root, "e2e", "a_test.py"), "w") as f:
      f.write("@tf_test_utils.compile_module(AModule)\nclass ATest: pass\n")
    entry = repro_layout.iree_failures(root)[0]
    found = make_repros.find_failure(
        dataclasses.replace(entry, suite=os.path.join(root, "e2e")), [artifacts])
    self.assertEqual(found.test_id, "__main__.ATest.test_y")
    with self.assertRaisesRegex(ValueError, r"a_test.py::ATest::test_z on iree_vmla: no failing"):
      make_repros.find_failure(dataclasses.replace(
          entry, suite=os.path.join(root, "e2e"), method="test_z"), [artifacts])

  def test_two_files_of_one_stem_cannot_share_an_import_repro(self):
    root = self._lists_root('{"iree_vmla": {"a_test.py": ("import", "x")}}',
                            '{"iree_vulkan": {"a_test.py": ("import", "x")}}')
    with self.assertRaisesRegex(ValueError, r"e2e/a_test.py and e2e/keras/a_test.py both need "
                                r"e2e/repros/import/a_test; rename one of them."):
      repro_layout.listed_failures(root)

  def test_indexes_are_written_from_the_lists_and_a_stale_one_is_named(self):
    repros = self._tempdir()
    listed = [repro_layout.Listed("e2e", "iree_vmla", "a_test.py", "import", "x"),
              repro_layout.Listed("e2e", "iree_vulkan", "a_test.py", "import", "x")]
    self.assertLen(repro_layout.stale_indexes(listed, repros), 2)
    repro_layout.write_indexes(listed, repros)
    self.assertEqual(repro_layout.stale_indexes(listed, repros), [])
    self.assertEqual(repro_layout.stale_indexes(listed[:1] + [dataclasses.replace(
        listed[1], phase="compile")], repros), [
            f"{os.path.join(repros, 'iree_vulkan', 'README.txt')}: stale; rerun make_repros"])

  def test_a_backend_dir_left_with_only_its_index_is_removed_and_import_repros_kept(self):
    root = self._tempdir()
    for path in ("iree_vmla/gone_test", "iree_vmla/kept_test", "iree_vulkan/gone_test",
                 "import/a_test"):
      os.makedirs(os.path.join(root, path))
    for backend in ("iree_vmla", "iree_vulkan"):
      with open(os.path.join(root, backend, "README.txt"), "w") as f:
        f.write("index\n")
    repro_layout.remove_stale([os.path.join(root, "iree_vmla", "kept_test"),
                               os.path.join(root, "import", "a_test")], root)
    self.assertEqual(sorted(os.listdir(root)), ["import", "iree_vmla"])
    self.assertEqual(sorted(os.listdir(os.path.join(root, "iree_vmla"))),
                     ["README.txt", "kept_test"])


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
