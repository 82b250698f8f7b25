"""The fuzz command on a campaign dir it must not trust or cannot write, run as a user runs it:
a shard naming a path out of --out, a hand-edited state, a `--resume` with other --jobs, a dir
another process holds, and a disk that fills up before the first module is saved. Each is one
line and an exit status, with nothing written outside --out and the state saved before kept."""

import json
import os
import shutil
import subprocess
import tempfile

from absl.testing import absltest

from pyiree_tf_support.fuzzing import campaign_lock
from pyiree_tf_support.fuzzing import findings
from tests.fuzzing.campaigns import findings as read_findings
from tests.fuzzing.campaigns import fuzz

QUIET = ("--target_backends=iree_llvmjit", "--seed=5", "--ops=add,multiply",
         "--functions_per_module=2", "--nolocalize_findings", "--special_values=0",
         "--shapes=3x4", "--stateful=0")


def _state(directory: str, **fields) -> str:
  """A campaign's state as the fuzzer saves it, with `fields` changed as by a hand edit."""
  findings.Campaign(directory, 5, ("add",), ("iree_llvmjit",), shard="0/2").save()
  path = os.path.join(directory, "findings.json")
  with open(path) as f:
    data = json.load(f)
  data.update(fields)
  with open(path, "w") as f:
    json.dump(data, f)
  return directory


class OneLineTest(absltest.TestCase):

  def assert_one_line(self, done: subprocess.CompletedProcess, *expected: str) -> None:
    self.assertEqual(done.returncode, 2, done.stdout + done.stderr[-3000:])
    lines = done.stderr.strip().splitlines()
    self.assertLen(lines, 1, done.stderr)
    for text in expected:
      self.assertIn(text, lines[0])

  def test_merge_of_a_shard_naming_a_path_out_of_out_writes_nothing(self):
    root = tempfile.mkdtemp()
    shard = _state(os.path.join(root, "shard"), findings=[{
        "signature": "../../home", "status": "MISMATCH", "backend": "iree_llvmjit",
        "key": "values", "ops": ["add"], "hits": 1, "first_module": 0, "seed": 5,
        "test_file": "/etc/shadow", "confirmed": True, "agrees": []}])
    out = os.path.join(root, "out")
    self.assert_one_line(fuzz("merge", f"--out={out}", shard),
                         f"merge: {shard}/findings.json: findings[0].signature")
    self.assertEqual(sorted(os.listdir(root)), ["out", "shard"])
    self.assertEqual(sorted(os.listdir(out)), [campaign_lock.LOCK_NAME])

  def test_resume_of_a_hand_edited_state_names_the_file_and_the_field(self):
    directory = _state(os.path.join(tempfile.mkdtemp(), "c"), modules="1", shard="")
    self.assert_one_line(fuzz("--target_backends=iree_llvmjit", f"--out={directory}",
                              "--resume"),
                         f"--resume: {directory}/findings.json: modules is str '1'")

  def test_resume_with_other_jobs_says_what_the_campaign_ran_with(self):
    directory = _state(os.path.join(tempfile.mkdtemp(), "c"), shard="")
    self.assert_one_line(fuzz("--target_backends=iree_llvmjit", f"--out={directory}",
                              "--resume", "--jobs=2"),
                         "ran with one job (no --jobs); resume it without --jobs")

  def test_a_campaign_or_merge_into_a_dir_in_use_is_refused_naming_its_holder(self):
    root = tempfile.mkdtemp()
    shard = _state(os.path.join(root, "shard"))
    out = os.path.join(root, "out")
    os.makedirs(out)
    with campaign_lock.held(out, "--out"):  # as a running campaign holds it
      self.assert_one_line(fuzz(*QUIET, f"--out={out}", "--max_modules=1"),
                           f"--out: {out} is in use", f"pid {os.getpid()}")
      self.assert_one_line(fuzz("merge", f"--out={out}", shard),
                           f"merge --out: {out} is in use", f"pid {os.getpid()}")
    self.assertEqual(os.listdir(out), [campaign_lock.LOCK_NAME])


class FullDiskTest(absltest.TestCase):
  """On a real small file system (tmpfs), filled up to a few pages before the campaign starts."""

  def mounted(self, kilobytes: int) -> str:
    mount = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, mount, True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={kilobytes}k", "tmpfs", mount],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
      self.skipTest(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    self.addCleanup(subprocess.run, ["umount", mount], check=False)
    return mount

  def test_a_disk_full_in_the_first_module_keeps_a_state_to_resume(self):
    mount = self.mounted(256)
    filler = os.path.join(mount, "filler")
    with open(filler, "wb") as f:  # 24 KB left: the state, the module's source, not its artifacts
      f.write(b"\0" * (232 * 1024))
    out = os.path.join(mount, "c")
    done = fuzz(*QUIET, f"--out={out}", "--max_modules=1")
    self.assertEqual(done.returncode, 1, done.stderr[-3000:])
    lines = done.stderr.strip().splitlines()
    self.assertLen(lines, 1, done.stderr[-3000:])
    self.assertIn("ENOSPC (No space left on device); the campaign's state saved before is kept "
                  f"in {out}/findings.json: free space, then --resume goes on from it", lines[0])
    self.assertNotIn("findings.json failed", lines[0])  # the first failing write is said
    self.assertEqual(read_findings(out)["modules"], 0)
    os.remove(filler)
    again = fuzz("--target_backends=iree_llvmjit", f"--out={out}", "--resume", "--max_modules=1")
    self.assertEqual(again.returncode, 0, again.stderr[-3000:])
    self.assertEqual((read_findings(out)["modules"], read_findings(out)["functions"]), (1, 2))


if __name__ == "__main__":
  absltest.main()
