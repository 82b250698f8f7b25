"""The backend table, BackendInfo names, indexing of duplicates and the reference's `_ref`."""

from absl.testing import absltest
from absl.testing import flagsaver

from pyiree_tf_support import backends
from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils


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
    for name in ("tf", "iree_vmvx", "iree_vmla", "iree_llvmcpu", "iree_llvmjit", "iree_vulkan"):
      self.assertIn(name, message)


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
                     ["tf", "iree_vmla", "iree_llvmjit", "iree_vulkan"])

  def test_backends_to_str_normalizes_and_joins(self):
    infos = [tf_utils.BackendInfo("tf", "_tf-ref_"), tf_utils.BackendInfo("iree_vmla", "iree vmla 0")]
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
    self.assertEqual([info.backend_name for info in infos], ["iree_vmla", "iree_vmla", "iree_llvmjit"])

  @flagsaver.flagsaver(reference_backend="iree_vmla")
  def test_reference_is_named_with_ref(self):
    self.assertEqual(tf_test_utils.get_reference_backend_info().name, "iree_vmla_ref")

  @flagsaver.flagsaver(target_backends=None)
  def test_default_targets_are_the_available_backends(self):
    names = [info.name for info in tf_test_utils.get_target_backends()]
    self.assertEqual(names[:3], ["tf", "iree_vmla", "iree_llvmjit"])
    available, _ = tf_utils.BackendInfo("iree_vulkan").available()
    self.assertEqual("iree_vulkan" in names, available)

  def test_unknown_backend_in_the_flag_is_rejected_with_the_valid_names(self):
    with flagsaver.flagsaver(), self.assertRaises(Exception) as raised:
      cli_flags.FLAGS["target_backends"].parse("tf,iree_bogus")
      cli_flags.FLAGS.validate_all_flags()
    self.assertIn("Unknown backend 'iree_bogus'", str(raised.exception))
    self.assertIn("iree_llvmjit", str(raised.exception))


if __name__ == "__main__":
  absltest.main()
