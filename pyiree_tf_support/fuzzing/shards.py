"""A campaign over several processes: `--jobs=N` workers on this machine, each one shard.

Worker I is `python -m pyiree_tf_support.fuzz` with the same flags, `--shard=I/N` and
`--out=DIR/jobs/I`: it generates the modules whose index is I modulo N, from the campaign's
seed, so the shards are disjoint and together the modules one process would generate. Why
processes: TensorFlow and IREE's compiler hold the GIL and gigabytes; a process per worker is
what a crash or a hang of one of them costs. The parent merges the shards into DIR
(`findings.merge`) every few seconds and once at the end, prints the merged progress, and on
Ctrl-C lets every worker save (they get the same SIGINT) before merging what they kept.
Shards on other machines are the same command with `--shard=I/N` and their own `--out`; the
`merge` command adds their directories up.
"""

import os
import signal
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

from pyiree_tf_support.core import safe_files
from pyiree_tf_support.fuzzing import findings
from pyiree_tf_support.fuzzing import state_schema
from pyiree_tf_support.fuzzing import stopping
from pyiree_tf_support.fuzzing.findings import FuzzError

POLL_SECONDS = 5.0
_OWN_FLAGS = ("out", "jobs", "shard", "resume", "max_modules")


def parse_shard(spec: str) -> Tuple[int, int]:
  """--shard=I/N with 0 <= I < N; FuzzError otherwise."""
  try:
    if spec:
      return state_schema.parse_shard(spec, "--shard")
  except state_schema.SchemaError:
    pass
  raise FuzzError(f"--shard={spec} is not I/N with 0 <= I < N, e.g. --shard=0/4.")


def jobs_run(campaign: findings.Campaign) -> Optional[int]:
  """The --jobs a campaign ran with (1 without), or None for a `merge` of shards made elsewhere:
  a --jobs campaign's DIR lists its workers' dirs, .../jobs/0 to .../jobs/N-1."""
  dirs = campaign.merged_from
  if not dirs:
    return 1
  if all(os.path.basename(d) == str(i) and os.path.basename(os.path.dirname(d)) == "jobs"
         for i, d in enumerate(dirs)):
    return len(dirs)
  return None


def check_resumable(campaign: findings.Campaign, jobs: int) -> None:
  """FuzzError unless `--resume --jobs=jobs` goes on with `campaign` as it ran: other --jobs
  would generate again the modules its shards (or its one process) already ran."""
  ran = jobs_run(campaign)
  if ran is None:
    raise FuzzError(f"--resume: {campaign.directory} is a merge of {len(campaign.merged_from)} "
                    "shards, not a campaign: resume each shard in its own dir, then merge.")
  if ran != jobs:
    how = "one job (no --jobs)" if ran == 1 else f"--jobs={ran}"
    fix = "without --jobs" if ran == 1 else f"with --jobs={ran}"
    raise FuzzError(f"--resume: {campaign.directory} ran with {how}; resume it {fix}.")


def _forwarded(argv: Sequence[str]) -> List[str]:
  """The command line's flags without those each worker gets its own value of."""
  kept, skip = [], False
  for arg in argv:
    if skip:
      skip = False
      continue
    name = arg.lstrip("-").split("=")[0]
    bare = name[2:] if name.startswith("no") and name[2:] in _OWN_FLAGS else name
    if arg.startswith("-") and bare in _OWN_FLAGS:
      skip = "=" not in arg and bare not in ("resume",)
      continue
    kept.append(arg)
  return kept


def _share(max_modules: Optional[int], index: int, jobs: int) -> Optional[int]:
  """Shard `index`'s part of a campaign of `max_modules` modules."""
  if max_modules is None:
    return None
  return max(0, (max_modules - index + jobs - 1) // jobs)


def run_jobs(campaign: findings.Campaign, jobs: int, max_modules: Optional[int], resume: bool,
             argv: Sequence[str]) -> int:
  """Runs `jobs` shard workers of `campaign` (new, or DIR's state on `resume`) into DIR/jobs/I
  and merges them into DIR; the exit status of the campaign (130 when interrupted, 2 when a
  worker refused its input, 1 when one died: killed, or ended by a fault such as a full disk).

  The campaign's state (DIR's, and each shard's that has none yet) is saved before any worker
  starts, and every worker resumes its shard's: a Ctrl-C at any moment leaves a campaign that
  `--resume` goes on with, from its own seed and settings whatever the resuming command line
  says (a worker stopped before it saved would otherwise start afresh from that line's flags)."""
  directory = campaign.directory
  dirs = findings.shard_dirs(directory, jobs)
  campaign.merged_from = tuple(os.path.abspath(d) for d in dirs)
  if not resume:
    campaign.save()
  for index, shard_dir in enumerate(dirs):
    if not findings.existing(shard_dir):
      findings.Campaign(shard_dir, campaign.seed, campaign.ops, campaign.targets,
                        shard=f"{index}/{jobs}", generation=campaign.generation).save()
  workers = []
  deaths: Dict[str, str] = {}  # shard dir -> the line saying how its worker died
  interrupted = False
  try:
    for index, shard_dir in enumerate(dirs):
      share = _share(max_modules, index, jobs)
      if share == 0:
        continue
      command = [sys.executable, "-m", "pyiree_tf_support.fuzz", *_forwarded(argv),
                 f"--out={shard_dir}", "--resume"]
      command += [f"--max_modules={share}"] if share else []
      # A file, not a pipe: a worker's progress lines would fill a pipe nobody reads mid-run.
      with safe_files.open_append(f"{shard_dir}.log") as log:
        workers.append((subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log),
                        shard_dir))
    while any(w.poll() is None for w, _ in workers):
      time.sleep(POLL_SECONDS)
      _merge_progress(directory, dirs)
      _say_deaths(workers, jobs, deaths)  # as soon as seen: the others go on meanwhile.
  except KeyboardInterrupt:
    interrupted = True
  if stopping.terminated():  # a terminal's Ctrl-C reaches every worker; a SIGTERM only this.
    for worker, _ in workers:
      if worker.poll() is None:
        worker.send_signal(signal.SIGTERM)
  for worker, _ in workers:  # waits for each (it saves on SIGINT too), a second Ctrl-C too.
    while worker.poll() is None:
      try:
        worker.wait()
      except KeyboardInterrupt:
        interrupted = True
  for worker, shard_dir in workers:
    error = safe_files.read_bytes(f"{shard_dir}.log").decode("utf-8", "replace")
    lines = [line for line in (error or "").splitlines() if "fuzz: " in line
             and "functions/min" not in line]
    if worker.returncode == 2:
      print(lines[-1] if lines else f"fuzz: a worker failed: {error[-300:]}", file=sys.stderr)
      return 2
    for line in lines:
      print(line, file=sys.stderr)
  _say_deaths(workers, jobs, deaths)
  merged = _merge_progress(directory, dirs, final=True)
  stopped = (stopping.INTERRUPTED, stopping.EXIT_STATUS)
  if interrupted or any(w.returncode in stopped for w, _ in workers):
    print(f"fuzz: {stopping.stopped_how()}; {len(merged.findings) if merged else 0} findings "
          f"kept in {os.path.join(directory, 'findings.md')}", file=sys.stderr)
    return stopping.exit_status()
  if deaths:
    return 1
  if merged is None:
    print("fuzz: no worker saved a campaign", file=sys.stderr)
    return 1
  print(f"{merged.progress()}: {os.path.join(directory, 'findings.md')}")
  return 0


def _say_deaths(workers: Sequence[Tuple[subprocess.Popen, str]], jobs: int,
                deaths: Dict[str, str]) -> None:
  """Says each worker's death not said yet (`_death`) and records it in `deaths` (shard dir ->
  its line): once per worker, whether first seen while the others run or at the end."""
  for worker, shard_dir in workers:
    death = "" if shard_dir in deaths else _death(worker, shard_dir, jobs)
    if death:
      deaths[shard_dir] = death
      print(death, file=sys.stderr, flush=True)


def _death(worker: subprocess.Popen, shard_dir: str, jobs: int) -> str:
  """The line saying how `worker` of `shard_dir` died ("" while it runs, or when it ended as a
  worker does: done, bad input, interrupted). A worker killed (the OOM killer, a `kill -9`) or
  crashed saved its shard at its last module: what it left is its shard's to `--resume`."""
  code = worker.returncode
  if code in (None, 0, 2, stopping.INTERRUPTED, stopping.EXIT_STATUS):
    return ""
  index = os.path.basename(shard_dir)
  how = (f"was killed by {signal.Signals(-code).name}" if code < 0 and -code in
         signal.valid_signals() else f"ended with exit status {code}")
  return (f"fuzz: worker {index} (shard {index}/{jobs}, {shard_dir}) {how}: its modules saved "
          f"so far are merged, the rest of its share was not run (its log: {shard_dir}.log); "
          f"--resume --jobs={jobs} goes on from there.")


def _merge_progress(directory: str, dirs: Sequence[str],
                    final: bool = False) -> Optional[findings.Campaign]:
  """The shards merged into DIR, None when none has saved yet. A shard's state that cannot be
  merged is retried at the next poll, and said in one line (FuzzError) at the `final` merge."""
  present = [d for d in dirs if findings.existing(d)]
  if not present:
    return None
  try:
    merged = findings.merge(directory, present)
  except FuzzError:
    if final:
      raise
    return None
  merged.merged_from = tuple(os.path.abspath(d) for d in dirs)
  merged.save()
  print(merged.progress() + f" ({len(present)} of {len(dirs)} workers)", file=sys.stderr,
        flush=True)
  return merged
