"""Hostile paths below a module dir the localizer and the examples write into: nothing outside is
written, emptied or read through a planted symlink, and two localizers on one trace agree.

The same guarantee as hostile_paths_test (whose victim and module this reuses) for what it does
not cover: `<Module>/localize/` (by `python -m pyiree_tf_support.localize` and by
`--localize_mismatches`) and `<Module>/examples/` (hypothesis writes its own caches there).
Everything is real: TensorFlow, IREE's compiler and runtime, the links.
"""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup
from tests.behaviour import hostile_paths_test as hostile

WORK = "trace__tf_ref__iree_vmvx"  # the localizer's work dir for the failing trace on vmvx.


def localize(module_dir: str, *extra: str) -> subprocess.CompletedProcess:
  return subprocess.run(
      [sys.executable, "-m", "pyiree_tf_support.localize",
       os.path.join(module_dir, "traces", "trace__tf_ref"), "--target_backends=iree_vmla",
       "--nocompile_cache", *extra],
      capture_output=True, text=True, check=False, timeout=600,
      env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))


def failed_run() -> str:
  """A fresh artifacts root after the failing trace ran on vmvx: its module dir."""
  root = tempfile.mkdtemp()
  result = hostile.run_case(hostile.make_case(hostile.failing), root)
  assert "iree_vmla: MISMATCH" in hostile.messages(result), hostile.messages(result)
  return class_setup.claim_artifacts_dir(hostile.Hostile, RunSettings(artifacts_dir=root))


def changed(victim: hostile.Victim) -> str:
  """What differs in the victim's files: the names, not the contents."""
  now = hostile.snapshot(victim.home)
  return ", ".join(sorted(n for n in set(now) | set(victim.before)
                          if now.get(n) != victim.before.get(n)))


def plant(link: str, target: str) -> None:
  os.makedirs(os.path.dirname(link), exist_ok=True)
  if os.path.lexists(link):
    safe_files.remove_tree(link)
  os.symlink(target, link)


class LocalizerLinksTest(absltest.TestCase):
  """Guarantee: the localizer writes and removes below the module dir without following links;
  a link where it works is replaced (its target untouched) and the verdict is unchanged."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.module_dir = failed_run()

  def assert_localized_and_untouched(self, victim: hostile.Victim, link: str,
                                     completed: subprocess.CompletedProcess) -> None:
    self.assertTrue(victim.untouched(), changed(victim))
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    self.assertIn(": dispatch ", completed.stdout)
    self.assertFalse(os.path.islink(link), link)

  def test_a_link_at_the_localize_dir(self):
    victim = hostile.Victim()
    # What a rerun would empty and refill: a directory of the work dir's name in the target.
    os.makedirs(os.path.join(victim.documents, WORK))
    with open(os.path.join(victim.documents, WORK, "thesis.tex"), "w") as f:
      f.write("years of work")
    victim.before = hostile.snapshot(victim.home)
    link = os.path.join(self.module_dir, "localize")
    plant(link, victim.documents)
    self.assert_localized_and_untouched(victim, link, localize(self.module_dir))

  def test_a_link_at_the_work_dir(self):
    victim = hostile.Victim()
    link = os.path.join(self.module_dir, "localize", WORK)
    plant(link, victim.documents)
    self.assert_localized_and_untouched(victim, link, localize(self.module_dir))

  def test_links_below_the_work_dir_of_an_earlier_run(self):
    self.assertEqual(localize(self.module_dir).returncode, 0)
    work = os.path.join(self.module_dir, "localize", WORK)
    victim = hostile.Victim()
    planted = {"iree_input.mlir": victim.key, "suspect_untraced.vmfb": victim.absent,
               "untraced": victim.documents, "iree_llvmcpu/trusted_run/tensors": victim.documents,
               "iree_llvmcpu/flow.mlir": victim.key, "repro": victim.documents}
    for relative, target in planted.items():
      self.assertTrue(os.path.lexists(os.path.join(work, relative)), relative)
      plant(os.path.join(work, relative), target)
    completed = localize(self.module_dir)
    self.assertTrue(victim.untouched(), changed(victim))
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    self.assertIn(": dispatch ", completed.stdout)

  def test_a_module_dir_every_user_may_write_is_refused_with_one_line(self):
    module_dir = tempfile.mkdtemp()
    for name in ("traces", "iree_input.mlir", "signatures.json"):
      source = os.path.join(self.module_dir, name)
      subprocess.run(["cp", "-r", source, module_dir], check=True)
    os.chmod(module_dir, 0o777)
    completed = localize(module_dir)
    self.assertEqual(completed.returncode, 2, completed.stdout)
    lines = completed.stderr.strip().splitlines()
    self.assertLen(lines, 1, completed.stderr)
    self.assertIn(f"'{module_dir}' is writable by every user", lines[0])
    self.assertFalse(os.path.exists(os.path.join(module_dir, "localize")))

  def test_two_localizers_on_one_trace_agree(self):
    report = [os.path.join(tempfile.mkdtemp(), f"{i}.json") for i in range(2)]
    processes = [subprocess.Popen(
        [sys.executable, "-m", "pyiree_tf_support.localize",
         os.path.join(self.module_dir, "traces", "trace__tf_ref"), "--target_backends=iree_vmla",
         "--nocompile_cache", f"--report_json={path}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")) for path in report]
    outputs = [p.communicate(timeout=900) for p in processes]
    for process, (out, err) in zip(processes, outputs):
      self.assertEqual(process.returncode, 0, err[-3000:])
      self.assertIn(": dispatch ", out)
    verdicts = []
    for path in report:
      with open(path) as f:
        data = json.load(f)
      verdicts.append((data["verdict"], data["dispatch"]["key"]))
    self.assertEqual(verdicts[0], verdicts[1])


class QuotedCommandTest(absltest.TestCase):

  def test_the_printed_repro_command_runs_as_pasted_and_nothing_else(self):
    base = tempfile.mkdtemp()
    root = os.path.join(base, "my runs $(touch pwned) 'x'")
    result = hostile.run_case(hostile.make_case(hostile.failing), root)
    self.assertIn("iree_vmla: MISMATCH", hostile.messages(result))
    module_dir = class_setup.claim_artifacts_dir(hostile.Hostile, RunSettings(artifacts_dir=root))
    completed = localize(module_dir)
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    prefix = "the dispatch alone, on both backends: "
    command = [line[len(prefix):] for line in completed.stdout.splitlines()
               if line.startswith(prefix)]
    self.assertLen(command, 1, completed.stdout)
    pasted = subprocess.run(["bash", "-c", command[0]], cwd=base, capture_output=True,
                            text=True, check=False, timeout=300)
    self.assertEqual(pasted.returncode, 1, pasted.stderr[-3000:])
    self.assertIn("DIVERGES", pasted.stdout)
    self.assertFalse(os.path.exists(os.path.join(base, "pwned")))


class LocalizeMismatchesLinkTest(absltest.TestCase):

  def test_a_link_at_the_localize_dir_under_localize_mismatches(self):
    victim, root = hostile.Victim(), tempfile.mkdtemp()
    module_dir = class_setup.claim_artifacts_dir(hostile.Hostile,
                                                RunSettings(artifacts_dir=root))
    link = os.path.join(module_dir, "localize")
    plant(link, victim.documents)
    result = hostile.run_case(hostile.make_case(hostile.failing), root,
                              localize_mismatches=True)
    self.assertIn("iree_vmla: MISMATCH", hostile.messages(result))
    self.assertIn(": dispatch ", hostile.messages(result))
    self.assertTrue(victim.untouched(), changed(victim))
    self.assertFalse(os.path.islink(link), link)


class Doubling(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([3], tf.float32)])
  def double(self, x):
    return x * 2.0


class ExamplesLinksTest(absltest.TestCase):
  """Guarantee: hypothesis' storage under `<Module>/examples/` is a directory the run made
  itself; links planted in it by an earlier run's hand-over are removed, never written through."""

  def test_a_link_in_hypothesis_storage(self):
    victim, root = hostile.Victim(), tempfile.mkdtemp()

    @tf_test_utils.compile_module(Doubling)
    class Case(tf_test_utils.TracedModuleTestCase):

      def test_double(self):
        self.check_examples("double", examples=5)

    module_dir = class_setup.claim_artifacts_dir(Doubling, RunSettings(artifacts_dir=root))
    storage = os.path.join(artifacts.examples_dir(module_dir, "double.examples"),
                           "hypothesis")
    os.makedirs(storage)
    for name in ("constants", "tmp", "unicode_data", "examples"):
      os.symlink(victim.documents, os.path.join(storage, name))
    result = hostile.run_case(Case, root)
    self.assertTrue(victim.untouched(), changed(victim))
    self.assertTrue(result.wasSuccessful(), hostile.messages(result))
    for name in ("constants", "tmp", "unicode_data", "examples"):
      self.assertFalse(os.path.islink(os.path.join(storage, name)), name)


if __name__ == "__main__":
  np.set_printoptions(precision=3)
  absltest.main()
