"""The set-up starts Vulkan's probe and worker before the import, unless --compile_jobs=1,
and sets up one backend more than there are CPUs at once. Real processes."""

import os

from absl.testing import absltest

from pyiree_tf_support.harness import class_setup
from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.tf_utils import BackendInfo


class SetUpStartsEarlyTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    saved = dict(drivers._probes)
    drivers._probes.clear()
    self.addCleanup(lambda: (drivers._probes.clear(),
                             drivers._probes.update(saved)))
    worker_client.discard_spares()
    self.addCleanup(worker_client.discard_spares)
    self.plan = class_setup.BackendPlan(
        BackendInfo("tf"), (BackendInfo("iree_vmvx"), BackendInfo("iree_vulkan")),
        requested=True)

  def test_by_default_the_vulkan_probe_and_worker_start_before_the_import(self):
    class_setup.start_runtimes_early(self.plan, compile_jobs=None)
    self.assertIn("vulkan", drivers._probes)
    self.assertLen(worker_client._spares, 1)

  def test_compile_jobs_1_starts_nothing_early(self):
    class_setup.start_runtimes_early(self.plan, compile_jobs=1)
    self.assertNotIn("vulkan", drivers._probes)
    self.assertEmpty(worker_client._spares)


class PoolSizeTest(absltest.TestCase):

  def plan(self, *targets: str) -> class_setup.BackendPlan:
    return class_setup.BackendPlan(BackendInfo("tf"), tuple(BackendInfo(t) for t in targets),
                                  requested=True)

  def test_default_is_one_job_more_than_cpus_at_most_one_per_iree_backend(self):
    many = self.plan(*["iree_vmvx"] * 40)
    self.assertEqual(class_setup._pool_size(many, None),
                     os.cpu_count() + 1)
    three = self.plan("iree_vmvx", "iree_llvmcpu", "iree_vulkan")
    self.assertEqual(class_setup._pool_size(three, None),
                     min(3, os.cpu_count() + 1))
    self.assertEqual(class_setup._pool_size(three, 1), 1)
    nothing = self.plan()
    self.assertEqual(class_setup._pool_size(nothing, None), 1)


if __name__ == "__main__":
  absltest.main()
