"""The set-up starts Vulkan's probe and worker before the import, unless --compile_jobs=1
(issue 23, ratio 4): both then overlap the import, which keeps one core busy. Real processes."""

from absl.testing import absltest

from pyiree_tf_support.harness import test_setup
from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.tf_utils import BackendInfo


class SetUpStartsEarlyTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    saved = dict(drivers._probes)  # pylint: disable=protected-access
    drivers._probes.clear()  # pylint: disable=protected-access
    self.addCleanup(lambda: (drivers._probes.clear(),  # pylint: disable=protected-access
                             drivers._probes.update(saved)))  # pylint: disable=protected-access
    worker_client.discard_spares()
    self.addCleanup(worker_client.discard_spares)
    self.plan = test_setup.BackendPlan(
        BackendInfo("tf"), (BackendInfo("iree_vmvx"), BackendInfo("iree_vulkan")),
        requested=True)

  def test_by_default_the_vulkan_probe_and_worker_start_before_the_import(self):
    test_setup.start_runtimes_early(self.plan, compile_jobs=None)
    self.assertIn("vulkan", drivers._probes)  # pylint: disable=protected-access
    self.assertLen(worker_client._spares, 1)  # pylint: disable=protected-access

  def test_compile_jobs_1_starts_nothing_early(self):
    test_setup.start_runtimes_early(self.plan, compile_jobs=1)
    self.assertNotIn("vulkan", drivers._probes)  # pylint: disable=protected-access
    self.assertEmpty(worker_client._spares)  # pylint: disable=protected-access


if __name__ == "__main__":
  absltest.main()
