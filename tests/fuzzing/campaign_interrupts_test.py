"""Ctrl-C during a `--jobs=2` campaign, as a terminal sends it (SIGINT to the whole process
group), then `--resume`: everything found so far is kept (DIR/findings.json and findings.md
written, every finding dir listed whole, none half-written), no process of the campaign is left,
and the resumed campaign goes on with the seed and generation it started with, each module
generated as an uninterrupted campaign would have generated it (no seed redrawn, no module
skipped or generated twice)."""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time

from absl.testing import absltest

from pyiree_tf_support.fuzzing import campaign_lock
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.fuzzing.findings import FuzzError
from tests.fuzzing.campaigns import findings
from tests.fuzzing.campaigns import fuzz
from tests.support import child_processes
from tests.support.repo import ROOT

OLD_STREAM = ("--special_values=0", "--shapes=3x4", "--stateful=0")
# vmvx rounds f32 -> i32 (a finding in most modules of seed 3: tests/fuzzing/breadth_test.py).
CAMPAIGN = ("--target_backends=iree_vmla", "--seed=3", "--jobs=2", "--ops=cast_f32_to_i32,add",
            "--functions_per_module=3", "--nolocalize_findings", *OLD_STREAM)
_MODULE_FILE = re.compile(r"^Fuzz3_(\d+)\.py$")


class JobsInterruptTest(absltest.TestCase):

  def start(self, out: str, campaign=CAMPAIGN, **env_vars: str) -> subprocess.Popen:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT, **env_vars)
    process = subprocess.Popen(
        [sys.executable, "-m", "pyiree_tf_support.fuzz", f"--out={out}", "--max_modules=8",
         *campaign], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group and session, as a terminal gives it,
        preexec_fn=child_processes.interruptible)  # with SIGINT's default disposition.
    self.addCleanup(self.kill_left, process)
    return process

  def kill_left(self, process: subprocess.Popen) -> None:
    for pid in child_processes.in_session(process.pid):
      os.kill(pid, signal.SIGKILL)
    process.wait()

  def interrupt(self, process: subprocess.Popen, terminate: bool = False) -> str:
    """Ctrl-C to the campaign's process group (`terminate`: SIGTERM to its first process
    alone); its output once it ended."""
    if terminate:
      os.kill(process.pid, signal.SIGTERM)
    else:
      os.killpg(process.pid, signal.SIGINT)
    output, _ = process.communicate(timeout=300)
    log = output.decode("utf-8", "replace")[-3000:]
    self.assertEqual(process.returncode, 143 if terminate else 130, log)
    self.assertIn("fuzz: terminated;" if terminate else "interrupted", log)
    self.assertEqual(child_processes.left_in_session(process.pid), [],
                     "processes of the campaign left: " + log)
    return log

  def assert_whole(self, out: str) -> dict:
    """DIR's merged state, each of its and its shards' finding dirs listed with its test file."""
    data = findings(out)
    with open(os.path.join(out, "findings.md")) as f:
      self.assertIn("# Fuzzing campaign, seed 3", f.read())
    for directory in [out] + [os.path.join(out, "jobs", i) for i in ("0", "1")]:
      if not os.path.exists(os.path.join(directory, "findings.json")):
        continue
      listed = {f["signature"]: f for f in findings(directory)["findings"]}
      found = os.path.join(directory, "findings")
      on_disk = sorted(os.listdir(found)) if os.path.isdir(found) else []
      self.assertEqual(on_disk, sorted(listed), f"finding dirs of {directory}")
      for row in listed.values():
        self.assertTrue(os.path.isfile(row["test_file"]), row)
    return data

  def assert_resumes(self, out: str, modules_before: int) -> dict:
    """`--resume` with only what names the campaign: it goes on from DIR's seed and settings."""
    done = fuzz("--target_backends=iree_vmla", f"--out={out}", "--resume", "--jobs=2",
                "--max_modules=2", "--nolocalize_findings")
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    data = self.assert_whole(out)
    self.assertEqual((data["seed"], data["modules"]), (3, modules_before + 2))
    self.assertEqual(data["functions"], 3 * data["modules"])
    expected = set()
    for index in range(2):
      shard = findings(os.path.join(out, "jobs", str(index)))
      expected |= {position * 2 + index for position in range(shard["modules"])}
    generated = {int(m.group(1)): os.path.join(work, name)
                 for work in [os.path.join(out, "jobs", i, "work") for i in ("0", "1")]
                 for name in os.listdir(work) for m in [_MODULE_FILE.match(name)] if m}
    # Each module done is there once, the one an uninterrupted campaign generates.
    self.assertEqual(sorted(generated), sorted(expected))
    for index, path in generated.items():
      functions, arrays = programs.module_functions(3, index, data["ops"], data["generation"])
      calls = [(p.name, inputs) for p, call_list in zip(functions, arrays)
               for inputs in call_list]
      with open(path) as f:
        self.assertEqual(f.read(), programs.module_source(f"Fuzz3_{index}", functions, calls,
                                                          1e-4, 1e-4), path)
    return data

  def test_ctrl_c_while_a_finding_is_confirmed_keeps_what_was_found(self):
    out = os.path.join(tempfile.mkdtemp(), "campaign")
    process = self.start(out)
    findings_dir = os.path.join(out, "jobs")
    confirm = child_processes.wait_for(
        process.pid, lambda pid: any(a.startswith(findings_dir) and a.endswith("_test.py")
                                     for a in child_processes.cmdline(pid)),
        timeout=900, done=lambda: process.poll() is not None)
    self.assertIsNotNone(confirm, "no finding's test file was run")
    time.sleep(2.0)  # its TensorFlow import under way: a finding dir written, not yet listed.
    self.interrupt(process)
    before = self.assert_whole(out)
    self.assert_resumes(out, before["modules"])

  def test_ctrl_c_before_any_module_keeps_the_campaign_to_resume(self):
    out = os.path.join(tempfile.mkdtemp(), "early")
    process = self.start(out)
    workers = []
    deadline = time.monotonic() + 120
    while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
      workers = [pid for pid in child_processes.descendants(process.pid)
                 if any(a.startswith(f"--out={os.path.join(out, 'jobs')}")
                        for a in child_processes.cmdline(pid))]
      time.sleep(0.05)
    self.assertLen(workers, 2)
    time.sleep(1.0)  # the workers importing TensorFlow.
    self.interrupt(process)
    data = self.assert_whole(out)
    self.assertEqual((data["modules"], data["findings"]), (0, []))
    self.assert_resumes(out, 0)

  def test_sigterm_to_the_campaign_alone_stops_it_as_ctrl_c_does(self):
    # `kill PID`, `timeout` and batch schedulers send SIGTERM to the command's process only:
    # it stops its workers and keeps the campaign as Ctrl-C does, and nothing of TensorFlow's
    # is left behind in the temporary dir (autograph's converted functions, one file per
    # generated function, are removed at exit: ~270 were left in /tmp by ten killed campaigns).
    out = os.path.join(tempfile.mkdtemp(), "terminated")
    temporary = tempfile.mkdtemp()
    agreeing = ("--target_backends=iree_llvmjit", "--seed=5", "--jobs=2", "--ops=add,multiply",
                "--functions_per_module=3", "--nolocalize_findings", *OLD_STREAM)
    process = self.start(out, agreeing, TMPDIR=temporary)
    deadline = time.monotonic() + 600
    while (not _a_module_done(out) and time.monotonic() < deadline
           and process.poll() is None):
      time.sleep(0.2)
    self.assertTrue(_a_module_done(out), "no worker finished a module")
    self.interrupt(process, terminate=True)
    data = findings(out)
    self.assertGreaterEqual(data["modules"], 1)
    left = [n for n in os.listdir(temporary) if n.startswith("__autograph_generated_file")]
    self.assertEqual(left, [], "TensorFlow's temporary files left")
    resumed = fuzz("--target_backends=iree_llvmjit", f"--out={out}", "--resume", "--jobs=2",
                   "--max_modules=2", "--nolocalize_findings")
    self.assertEqual(resumed.returncode, 0, resumed.stderr[-3000:])
    self.assertEqual(findings(out)["modules"], data["modules"] + 2)

  def test_a_killed_worker_is_said_and_resume_runs_what_it_left(self):
    # The OOM killer or a `kill -9` of one worker: the parent says which and exits 1, not 0
    # with some of the campaign's modules silently missing; `--resume` runs the rest.
    out = os.path.join(tempfile.mkdtemp(), "killed")
    agreeing = ("--target_backends=iree_llvmjit", "--seed=5", "--jobs=2", "--ops=add,multiply",
                "--functions_per_module=2", "--nolocalize_findings", *OLD_STREAM)
    process = self.start(out, agreeing)
    workers = {}
    deadline = time.monotonic() + 120
    while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
      workers = {a[len("--out="):]: pid for pid in child_processes.descendants(process.pid)
                 for a in child_processes.cmdline(pid)
                 if a.startswith(f"--out={os.path.join(out, 'jobs')}")}
      time.sleep(0.05)
    self.assertLen(workers, 2)
    killed = os.path.join(out, "jobs", "1")
    os.kill(workers[killed], signal.SIGKILL)
    # Worker 0 goes on: DIR is still the parent's, and a shard dir its worker's (a merge or a
    # second campaign there is refused, naming the holder).
    for directory, holder in ((out, process.pid), (os.path.join(out, "jobs", "0"),
                                                   workers[os.path.join(out, "jobs", "0")])):
      _wait_for_holder(directory, holder)  # a worker locks its dir once it has imported
      with self.assertRaisesRegex(FuzzError, f"is in use by another campaign or merge "
                                  f"\\(pid {holder},"):
        with campaign_lock.held(directory, "merge --out"):
          pass
    output, _ = process.communicate(timeout=600)
    log = output.decode("utf-8", "replace")
    self.assertEqual(process.returncode, 1, log[-3000:])
    self.assertIn(f"fuzz: worker 1 (shard 1/2, {killed}) was killed by SIGKILL", log)
    self.assertIn("--resume --jobs=2 goes on from there", log)
    before = findings(out)
    self.assertEqual(before["modules"], findings(os.path.join(out, "jobs", "0"))["modules"]
                     + findings(killed)["modules"])
    resumed = fuzz("--target_backends=iree_llvmjit", f"--out={out}", "--resume", "--jobs=2",
                   "--max_modules=2", "--nolocalize_findings")
    self.assertEqual(resumed.returncode, 0, resumed.stderr[-3000:])
    self.assertEqual(findings(out)["modules"], before["modules"] + 2)
    self.assertGreater(findings(killed)["modules"], 0)


def _wait_for_holder(directory: str, pid: int, timeout: float = 120.0) -> None:
  """Until the lock file of `directory` names `pid` (its holder writes it once it holds it)."""
  path = os.path.join(directory, campaign_lock.LOCK_NAME)
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    try:
      with open(path) as f:
        if f.read().strip() == str(pid):
          return
    except FileNotFoundError:
      pass
    time.sleep(0.05)


def _a_module_done(out: str) -> bool:
  """Whether a shard of the --jobs=2 campaign `out` saved a module as done."""
  for shard in ("0", "1"):
    try:
      if findings(os.path.join(out, "jobs", shard))["modules"] > 0:
        return True
    except (OSError, ValueError):
      pass
  return False


if __name__ == "__main__":
  absltest.main()
