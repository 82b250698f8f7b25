"""The backend table, BackendInfo names, indexing of duplicates and the reference's `_ref`."""

import os
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
from pyiree_tf_support.core import backends
from pyiree_tf_support.tools import generate_backends_bzl
from tests.support.repo import ROOT


class BackendTableTest(absltest.TestCase):

  def test_canonical_names_and_seed_aliases_resolve_to_the_same_row(self):
    self.assertIs(backends.lookup("iree_vmla"), backends.lookup("iree_vmvx"))
    self.assertIs(backends.lookup("iree_llvmjit"), backends.lookup("iree_llvmcpu"))

  def test_rows_name_targets_and_drivers(self):
    self.assertEqual(backends.lookup("iree_vmvx").compiler_targets, ("vmvx",))
    self.assertEqual(backends.lookup("iree_vmvx").driver, "local-task")
    self.assertEqual(backends.lookup("iree_llvmcpu").compiler_targets, ("llvm-cpu",))
    self.assertEqual(backends.lookup("iree_vulkan").compiler_targets, ("vulkan-spirv",))
    self.assertEqual(backends.lookup("iree_vulkan").driver, "vulkan")
    self.assertTrue(backends.lookup("iree_vulkan").isolated)
    self.assertFalse(backends.lookup("tf").is_iree)

  def test_unknown_backend_is_a_key_error_listing_valid_names(self):
    with self.assertRaises(KeyError) as raised:
      tf_utils.BackendInfo("iree_bogus")
    message = str(raised.exception)
    self.assertIn("'iree_bogus'", message)
    for name in backends.valid_names():
      self.assertIn(name, message)


class BazelNamesTest(parameterized.TestCase):
  """What Bazel's e2e suites take from each row: the 2020 name and the 2020 driver tag first."""

  @parameterized.named_parameters(
      ("tf", "tf", "tf", ("tf",)),
      ("vmvx", "iree_vmvx", "iree_vmla", ("vmla", "vmvx")),
      ("llvmcpu", "iree_llvmcpu", "iree_llvmjit", ("llvm", "llvm-cpu")),
      ("vulkan", "iree_vulkan", "iree_vulkan", ("vulkan",)),
      ("tflite", "tflite", "tflite", ("tflite",)),
  )
  def test_e2e_name_and_driver_tags(self, name, e2e_name, driver_tags):
    spec = backends.lookup(name)
    self.assertEqual(spec.e2e_name, e2e_name)
    self.assertEqual(spec.bazel_driver_tags, driver_tags)

  def test_tflite_runs_in_the_e2e_suite_only_as_an_opt_in_variant(self):
    text = generate_backends_bzl.render()
    self.assertIn('E2E_BACKENDS = ["tf", "iree_vmla", "iree_llvmjit", "iree_vulkan"]', text)
    self.assertIn('OPT_IN_BACKENDS = ["tflite"]', text)

  def test_a_row_without_driver_tags_is_tagged_with_its_name_without_iree(self):
    spec = backends.BackendSpec(name="iree_new", description="", driver="local-task")
    self.assertEqual((spec.e2e_name, spec.bazel_driver_tags), ("iree_new", ("new",)))


@unittest.skipIf("TEST_SRCDIR" in os.environ, "build_tools/ is not in a Bazel test's runfiles")
class GeneratedBzlTest(absltest.TestCase):

  def test_backends_bzl_is_what_the_generator_writes_from_the_table(self):
    with open(os.path.join(ROOT, "build_tools", "bazel", "backends.bzl")) as f:
      self.assertEqual(f.read(), generate_backends_bzl.render(),
                       f"build_tools/bazel/backends.bzl is stale: run {generate_backends_bzl.TOOL}")


class BackendInfoTest(absltest.TestCase):

  def test_artifact_name_defaults_to_the_name_typed(self):
    info = tf_utils.BackendInfo("iree_vmla")
    self.assertEqual(info.name, "iree_vmla")
    self.assertEqual(info.driver, "local-task")
    self.assertEqual(info.compiler_targets, ["vmvx"])

  def test_artifact_name_can_be_given(self):
    self.assertEqual(tf_utils.BackendInfo("tf", "tf_ref").name, "tf_ref")

  def test_get_all_backends_lists_each_row_once_by_its_2020_name(self):
    self.assertEqual([info.name for info in tf_utils.BackendInfo.get_all_backends()],
                     [spec.e2e_name for spec in backends.BACKENDS])

  def test_backends_to_str_normalizes_and_joins(self):
    infos = [tf_utils.BackendInfo("tf", "_tf-ref_"),
             tf_utils.BackendInfo("iree_vmla", "iree vmla 0")]
    self.assertEqual(tf_utils.backends_to_str(infos), "tf_ref__iree_vmla_0")


class TargetBackendFlagTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    cli_flags.ensure_parsed()

  @flagsaver.flagsaver(target_backends=["tf", "iree_vmla", "tf"])
  def test_duplicates_are_indexed_in_order(self):
    self.assertEqual([info.name for info in tf_test_utils.get_target_backends()],
                     ["tf_0", "iree_vmla", "tf_1"])

  @flagsaver.flagsaver(target_backends=["iree_vmla", "iree_vmla", "iree_llvmjit"])
  def test_duplicates_keep_the_name_typed(self):
    infos = tf_test_utils.get_target_backends()
    self.assertEqual([info.name for info in infos], ["iree_vmla_0", "iree_vmla_1", "iree_llvmjit"])
    self.assertEqual([info.backend_name for info in infos],
                     ["iree_vmla", "iree_vmla", "iree_llvmjit"])

  @flagsaver.flagsaver(reference_backend="iree_vmla")
  def test_reference_is_named_with_ref(self):
    self.assertEqual(tf_test_utils.get_reference_backend_info().name, "iree_vmla_ref")

  @flagsaver.flagsaver(target_backends=None)
  def test_default_targets_are_the_available_backends(self):
    names = [info.name for info in tf_test_utils.get_target_backends()]
    expected = [spec.e2e_name for spec in backends.BACKENDS if spec.default_target
                and tf_utils.BackendInfo(spec.name).available()[0]]
    self.assertEqual(names, expected)

  def test_unknown_backend_in_the_flag_is_rejected_with_the_valid_names(self):
    with flagsaver.flagsaver(), self.assertRaises(Exception) as raised:
      cli_flags.FLAGS["target_backends"].parse("tf,iree_bogus")
      cli_flags.FLAGS.validate_all_flags()
    self.assertIn("Unknown backend 'iree_bogus'", str(raised.exception))
    self.assertIn("iree_llvmjit", str(raised.exception))


class ArtifactNameTest(parameterized.TestCase):
  """Per-backend tolerance overrides may name a backend as its artifacts do."""

  @parameterized.named_parameters(
      ("canonical", "iree_vmvx", "iree_vmvx"),
      ("alias", "iree_llvmjit", "iree_llvmcpu"),
      ("indexed_duplicate", "iree_vmla_1", "iree_vmvx"),
      ("reference", "tf_ref", "tf"),
      ("unknown", "iree_bogus", None),
      ("unknown_indexed", "iree_bogus_0", None),
  )
  def test_find_by_artifact_name(self, name, expected):
    spec = backends.find_by_artifact_name(name)
    self.assertEqual(spec and spec.name, expected)

  def test_tolerances_flag_accepts_artifact_names_and_rejects_unknown_backends(self):
    cli_flags.ensure_parsed()
    with flagsaver.flagsaver():
      cli_flags.FLAGS["tolerances"].parse("iree_vmla_0:float32:1e-5:1e-5,tf_ref:float64:0:0")
      cli_flags.FLAGS.validate_all_flags()
      cli_flags.FLAGS["tolerances"].parse("iree_bogus:float32:1e-5:1e-5")
      with self.assertRaisesRegex(Exception, "unknown backend 'iree_bogus'"):
        cli_flags.FLAGS.validate_all_flags()


if __name__ == "__main__":
  absltest.main()
