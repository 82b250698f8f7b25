"""Benchmarks pyiree_tf_support against hand-written code, itself and IREE's own iree.tf.support.

  .venv/bin/python bench/run_benchmark.py [--repeats 3] [--cheap_repeats 5] [--suite_repeats 1]
      [--timeout 300] [--output /tmp/bench_results.json] [--only suite,file,warm,long_trace,...]
      [--keep]

Suite ratios S1 (pytest e2e/ / Bazel) and S2 (pytest -n 2 / pytest) are in suite_ratios.py; S3 is
one e2e file through the library / the hand-written floor, S3w the same with a warm compile cache,
B the bytes that passing file writes (against the 46 MB it once wrote), L the cost per
call-execution of a 3000-call stateful trace (bench/long_trace_test.py), R the bytes, time and
peak RSS of a ResNet50-sized Keras model (bench/resnet50_test.py). 6a is the cost of one drawn
example once compiled (bench/example_cost.py), 6b an --examples=100 run of an e2e file / its
traces alone; 7 one dispatch localization / the compile + run of the failing call, 7r the same for
a bug planted in the ResNet50-sized model (its last dispatch); 8 one reduction (bench_reduce) /
the same compile + run. V figures: the
CPU seconds of a Vulkan file's run (its runtime workers' and the whole run's), an idle worker's
device released by the measured rule vs after a fixed second vs never (docs/vulkan_idle.md).

Every measurement is a whole child process (a fresh interpreter, TF_CPP_MIN_LOG_LEVEL=2), so this
script never imports TensorFlow, IREE or the library itself. Configurations that are compared run
interleaved (A, B, A, B, ...) so that a change in machine load hits both sides alike; each figure is
the median of the repeats. Peak memory per child: ru_maxrss from os.wait4 (the kernel's high-water
mark of the child, or of its largest single descendant, e.g. iree-compile; wall time ends
when a blocked wait4 returns, so polling adds no error to it), and the peak of the
summed RSS of the child's whole process tree, polled from /proc every 0.15 s (it can miss spikes
shorter than that and counts shared pages twice). Each process-level ratio is also given in CPU
seconds (user + sys of the child and the descendants it reaped, from the same wait4), which other
load on the machine disturbs much less than wall time.
"""

import argparse
import dataclasses
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import suite_ratios  # bench/ is on sys.path when this file runs as a script

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(REPO, ".venv", "bin", "python")
PYTHON = VENV_PYTHON if os.path.exists(VENV_PYTHON) else sys.executable
POLL_SECONDS = 0.15
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WORKER_MARK = b"pyiree_tf_support.runtime.worker_main\0--serve"
BYTES_BEFORE = 46e6  # what one passing simple_arithmetic run once wrote (every input per backend).
LONG_CALLS = 3000
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024
COMPILED_RE = re.compile(
    r"Compiled (\S+) for the reference and (\d+) target backend\(s\) in ([0-9.]+) s\.")
HAND_COMPILED_RE = re.compile(r"hand-written: compiled for \d+ target\(s\) in ([0-9.]+) s")
CACHE_HIT_RE = re.compile(r"Compile cache hit for ")
EXAMPLE_COST_RE = re.compile(r"example cost: ([0-9.]+) ms per example-call.*; CPU ([0-9.]+) ms")
# The library logs its compile phase and cache hits at DEBUG (quiet by default): its runs pass
# --verbose so that these lines are printed.


@dataclasses.dataclass
class Run:
  """One child process: what ran and what it cost."""
  label: str
  command: List[str]
  wall_s: float = 0.0
  cpu_s: float = 0.0  # user + sys of the child and the descendants it reaped
  returncode: Optional[int] = None
  maxrss_kib: int = 0
  tree_peak_kib: int = 0
  compile_phase_s: Optional[float] = None
  cache_hits: int = 0
  example_call_ms: Optional[float] = None  # bench/example_cost.py's figures: wall and CPU.
  example_call_cpu_ms: Optional[float] = None
  artifacts_bytes: int = 0
  worker_cpu_s: float = 0.0  # user + sys of the child's runtime worker processes, polled
  error: Optional[str] = None
  stderr_tail: str = ""

  @property
  def ok(self) -> bool:
    """True when the process exited 0 before its timeout."""
    return self.error is None


def _process_table() -> Dict[int, int]:
  """pid -> parent pid for every process in /proc."""
  table = {}
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      with open(f"/proc/{entry}/stat", "rb") as f:
        stat = f.read()
    except OSError:
      continue
    fields = stat[stat.rfind(b")") + 2:].split()
    if len(fields) > 1:
      table[int(entry)] = int(fields[1])
  return table


def _tree_rss_kib(root: int) -> int:
  """Summed RSS (KiB) of `root` and all its descendants."""
  children: Dict[int, List[int]] = {}
  for pid, ppid in _process_table().items():
    children.setdefault(ppid, []).append(pid)
  total, stack = 0, [root]
  while stack:
    pid = stack.pop()
    stack.extend(children.get(pid, ()))
    try:
      with open(f"/proc/{pid}/statm") as f:
        total += int(f.read().split()[1]) * PAGE_KIB
    except (OSError, IndexError, ValueError):
      pass
  return total


def _worker_cpu(root: int, seen: Dict[int, float]) -> None:
  """Records in `seen` the CPU seconds so far of each runtime worker process under `root`."""
  children: Dict[int, List[int]] = {}
  for pid, ppid in _process_table().items():
    children.setdefault(ppid, []).append(pid)
  stack = list(children.get(root, ()))
  while stack:
    pid = stack.pop()
    stack.extend(children.get(pid, ()))
    try:
      with open(f"/proc/{pid}/cmdline", "rb") as f:
        if WORKER_MARK not in f.read():
          continue
      with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    except OSError:
      continue
    fields = stat[stat.rfind(b")") + 2:].split()
    seen[pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def child_env(extra_env: Optional[Dict[str, str]] = None) -> Dict[str, str]:
  """The environment of every child: quiet TF, no flags or cache dir inherited from the caller,
  plus `extra_env`."""
  env = dict(os.environ)
  env.update(extra_env or {})
  env["TF_CPP_MIN_LOG_LEVEL"] = "2"
  env.pop("PYIREE_TF_SUPPORT_FLAGS", None)
  env.pop("PYIREE_TF_SUPPORT_CACHE_DIR", None)
  return env


def run_process(label: str, args: Sequence[str], timeout: float,
                extra_env: Optional[Dict[str, str]] = None) -> Run:
  """Runs `python args...` (or `args` when args[0] is an absolute program path, e.g. bazel) in
  the repo, timing it and tracking its peak memory and its runtime workers' CPU."""
  command = list(args) if os.path.isabs(args[0]) else [PYTHON] + list(args)
  run = Run(label, command)
  with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
    started = time.monotonic()
    try:
      proc = subprocess.Popen(command, cwd=REPO, env=child_env(extra_env), stdout=out, stderr=err,
                              stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as e:
      run.error = f"could not start: {e}"
      return run
    reaped: Dict[str, Any] = {}

    def reap() -> None:
      """Blocks until the child exits; records the exact end time and its rusage."""
      _, reaped["status"], reaped["usage"] = os.wait4(proc.pid, 0)
      reaped["ended"] = time.monotonic()

    waiter = threading.Thread(target=reap, daemon=True)
    waiter.start()
    worker_cpu: Dict[int, float] = {}
    while waiter.is_alive():
      run.tree_peak_kib = max(run.tree_peak_kib, _tree_rss_kib(proc.pid))
      _worker_cpu(proc.pid, worker_cpu)
      if time.monotonic() - started > timeout:
        os.killpg(proc.pid, signal.SIGKILL)  # the session this call started, by its id.
        run.error = f"timed out after {timeout:.0f} s"
        waiter.join()
        break
      waiter.join(POLL_SECONDS)
    status, usage = reaped["status"], reaped["usage"]
    run.wall_s = reaped["ended"] - started
    proc.returncode = run.returncode = os.waitstatus_to_exitcode(status)
    run.maxrss_kib = usage.ru_maxrss if usage else 0
    run.cpu_s = (usage.ru_utime + usage.ru_stime) if usage else 0.0
    run.tree_peak_kib = max(run.tree_peak_kib, run.maxrss_kib)
    run.worker_cpu_s = sum(worker_cpu.values())
    err.seek(0)
    stderr = err.read().decode("utf-8", "replace")
    out.seek(0)
    stderr += out.read().decode("utf-8", "replace")
  match = COMPILED_RE.search(stderr) or HAND_COMPILED_RE.search(stderr)
  if match:
    run.compile_phase_s = float(match.groups()[-1])
  run.cache_hits = len(CACHE_HIT_RE.findall(stderr))
  match = EXAMPLE_COST_RE.search(stderr)
  if match:
    run.example_call_ms, run.example_call_cpu_ms = float(match.group(1)), float(match.group(2))
  run.artifacts_bytes = sum(_dir_bytes(a.split("=", 1)[1]) for a in args
                            if a.startswith("--artifacts_dir="))
  run.stderr_tail = "\n".join(stderr.strip().splitlines()[-25:])
  if run.error is None and run.returncode != 0:
    run.error = f"exit status {run.returncode}: {_failure_reason(stderr)}"
  print(f"    {label:<30} wall {run.wall_s:6.2f} s  cpu {run.cpu_s:5.2f} s  compile phase "
        f"{_fmt(run.compile_phase_s):>6} s  maxrss {run.maxrss_kib / 1024:5.0f} MiB  "
        f"tree peak {run.tree_peak_kib / 1024:4.0f} MiB  "
        f"files {run.artifacts_bytes / 2**20:4.1f} MiB"
        + (f"  workers cpu {run.worker_cpu_s:.2f} s" if worker_cpu else "")
        + (f"  cache hits {run.cache_hits}" if run.cache_hits else "")
        + (f"  ERROR {run.error}" if run.error else ""), flush=True)
  return run


def _dir_bytes(path: str) -> int:
  """Total size of the files under `path`."""
  total = 0
  for root, _, files in os.walk(path):
    for name in files:
      try:
        total += os.path.getsize(os.path.join(root, name))
      except OSError:
        pass
  return total


def _failure_reason(stderr: str) -> str:
  """The most telling line of a failed child's output."""
  lines = [line.strip() for line in stderr.splitlines() if line.strip()]
  for pattern in ("Error:", "Error ", "error:", "FAIL:", "AssertionError", "Traceback"):
    hits = [line for line in lines if pattern in line]
    if hits:
      return hits[-1][:300]
  return (lines[-1] if lines else "no output")[:300]


def _fmt(value: Optional[float], digits: int = 2) -> str:
  """A number or 'n/a'."""
  return "n/a" if value is None else f"{value:.{digits}f}"


def median(values: Sequence[float]) -> Optional[float]:
  """The median, or None for no values."""
  return statistics.median(values) if values else None


def summarize(runs: Sequence[Run], field: str) -> Dict[str, Any]:
  """Median, values and failures of one field over a configuration's runs."""
  good = [r for r in runs if r.ok and getattr(r, field) is not None]
  values = [getattr(r, field) for r in good]
  return {"median": median(values), "values": values, "n": len(values),
          "failed": [r.error for r in runs if not r.ok]}


def loadavg() -> str:
  """The 1/5/15-minute load averages."""
  try:
    with open("/proc/loadavg") as f:
      return " ".join(f.read().split()[:3])
  except OSError:
    return "n/a"


class Bench:
  """Runs the configurations, keeps every run and builds the ratios."""

  def __init__(self, repeats: int, cheap_repeats: int, timeout: float, workdir: str):
    self.repeats = repeats
    self.cheap_repeats = cheap_repeats
    self.timeout = timeout
    self.workdir = workdir
    self.runs: List[Run] = []
    self.ratios: List[Dict[str, Any]] = []
    self._counter = 0

  def fresh_dir(self, prefix: str) -> str:
    """A new empty directory under the work dir."""
    self._counter += 1
    path = os.path.join(self.workdir, f"{prefix}_{self._counter}")
    os.makedirs(path)
    return path

  def interleaved(self, configs: Sequence[Tuple[str, Any]],
                  repeats: Optional[int] = None) -> Dict[str, List[Run]]:
    """Runs each (label, args or args-factory) `repeats` times, alternating between them."""
    results: Dict[str, List[Run]] = {label: [] for label, _ in configs}
    repeats = repeats or self.repeats
    print(f"  N={repeats} runs per configuration, interleaved", flush=True)
    for _ in range(repeats):
      for label, args in configs:
        argv = args() if callable(args) else args
        run = run_process(label, argv, self.timeout)
        self.runs.append(run)
        results[label].append(run)
    return results

  def ratio(self, rid: str, title: str, num: Sequence[Run], den: Sequence[Run], field: str,
            goal: Optional[float], note: str = "", unavailable: Optional[str] = None) -> None:
    """Records and prints median(num.field) / median(den.field) against `goal`."""
    a, b = summarize(num, field), summarize(den, field)
    value, reason = None, unavailable
    if reason is None:
      failed = a["failed"] + b["failed"]
      if failed:
        reason = f"a run failed: {failed[0]}"
      elif not a["n"] or not b["n"]:
        reason = f"no '{field}' figure in the output"
      elif not b["median"]:
        reason = "denominator is zero"
      else:
        value = a["median"] / b["median"]
    met = None if value is None or goal is None else value <= goal
    entry = {"id": rid, "title": title, "field": field, "value": value, "goal": goal, "met": met,
             "unavailable": reason, "note": note,
             "numerator": {"label": num[0].label if num else "", **a},
             "denominator": {"label": den[0].label if den else "", **b}}
    if field == "wall_s" and value is not None:
      cpu_a, cpu_b = summarize(num, "cpu_s")["median"], summarize(den, "cpu_s")["median"]
      entry["cpu_ratio"] = cpu_a / cpu_b if cpu_a and cpu_b else None
      entry["cpu_medians"] = [cpu_a, cpu_b]
    self.ratios.append(entry)
    unit = "s"
    print(f"  => {rid} {title}")
    print(f"     {entry['numerator']['label']}: {field} median {_fmt(a['median'])} {unit} of "
          f"{a['n']} ({', '.join(_fmt(v) for v in a['values'])})")
    print(f"     {entry['denominator']['label']}: {field} median {_fmt(b['median'])} {unit} of "
          f"{b['n']} ({', '.join(_fmt(v) for v in b['values'])})")
    shown = f"n/a: {reason}" if value is None else f"{value:.3f}"
    print(f"     ratio = {shown}   goal <= {_fmt(goal)}" if goal is not None
          else f"     ratio = {shown}   (no goal: information only)")
    if entry.get("cpu_ratio") is not None:
      cpu_a, cpu_b = entry["cpu_medians"]
      print(f"     load-robust cross-check: CPU seconds (user+sys, incl. reaped children) median "
            f"{cpu_a:.2f} / {cpu_b:.2f} = {entry['cpu_ratio']:.3f}")
    if note:
      print(f"     note: {note}")
    print(flush=True)


  def figure(self, rid: str, title: str, value: Optional[float], goal: Optional[float],
             unit: str, note: str = "", unavailable: Optional[str] = None,
             cpu_value: Optional[float] = None) -> None:
    """Records and prints a figure that is not a ratio of two configurations' medians."""
    reason = unavailable if value is None else None
    met = None if value is None or goal is None else value <= goal
    entry = {"id": rid, "title": title, "field": unit, "value": value, "goal": goal, "met": met,
             "unavailable": reason or (None if value is not None else "not measured"),
             "note": note, "cpu_ratio": cpu_value}
    self.ratios.append(entry)
    shown = f"n/a: {entry['unavailable']}" if value is None else f"{value:.3f} {unit}"
    print(f"  => {rid} {title}")
    print(f"     value = {shown}   " + (f"goal <= {goal:g}" if goal is not None else "(info)"))
    if cpu_value is not None:
      print(f"     load-robust cross-check (CPU seconds instead of wall): {cpu_value:.3f} {unit}")
    if note:
      print(f"     note: {note}")
    print(flush=True)


def print_memory(label: str, runs: Sequence[Run]) -> None:
  """Peak memory figures of one configuration."""
  good = [r for r in runs if r.ok]
  if not good:
    return
  print(f"     peak RSS {label}: maxrss median {median([r.maxrss_kib for r in good]) / 1024:.0f} "
        f"MiB (max {max(r.maxrss_kib for r in good) / 1024:.0f}), process-tree peak median "
        f"{median([r.tree_peak_kib for r in good]) / 1024:.0f} MiB "
        f"(max {max(r.tree_peak_kib for r in good) / 1024:.0f})")


def vulkan_available(timeout: float) -> Tuple[bool, str]:
  """Asks the library (in a child, TF-free) whether the Vulkan driver can run here."""
  code = ("from pyiree_tf_support.runtime import loading\n"
          "ok, why = loading.driver_available('vulkan')\n"
          "print('AVAILABLE' if ok else 'UNAVAILABLE', why)\n")
  try:
    done = subprocess.run([PYTHON, "-c", code], cwd=REPO, env=child_env(), capture_output=True,
                          text=True, timeout=timeout, check=False)
  except subprocess.TimeoutExpired:
    return False, f"availability check timed out after {timeout:.0f} s"
  line = (done.stdout.strip().splitlines() or ["UNAVAILABLE no answer: " + done.stderr[-200:]])[-1]
  return line.startswith("AVAILABLE"), line.split(" ", 1)[-1]


def bench_library_vs_hand_vs_iree(bench: Bench) -> None:
  """Ratios 1 and 5: e2e simple_arithmetic through the library, by hand, and via iree.tf.support."""
  print("[1+5] simple_arithmetic (llvm-cpu): library vs hand-written vs IREE's iree.tf.support")
  results = bench.interleaved([
      ("library iree_llvmjit", lambda: [
          "e2e/simple_arithmetic_test.py", "--target_backends=iree_llvmjit", "--nocompile_cache",
          "--verbose",
          f"--artifacts_dir={bench.fresh_dir('lib')}"]),
      ("hand-written iree_llvmjit", lambda: [
          "bench/hand_written_simple_arithmetic.py", "--target_backends=iree_llvmjit",
          f"--artifacts_dir={bench.fresh_dir('hand')}"]),
      ("iree.tf.support iree_llvmcpu", lambda: [
          "bench/iree_tf_support_equivalent_test.py", "--target_backends=iree_llvmcpu",
          f"--artifacts_dir={bench.fresh_dir('ireetf')}"]),
  ], bench.cheap_repeats)
  lib, hand, iree = (results["library iree_llvmjit"], results["hand-written iree_llvmjit"],
                     results["iree.tf.support iree_llvmcpu"])
  bench.ratio("S3", "one e2e file: library / hand-written floor, whole process", lib, hand,
              "wall_s", 1.00,
              "same module, traces, backend (llvm-cpu, --iree-llvmcpu-target-cpu=host), no cache; "
              "the library also writes .npz traces and per-call repro inputs (see 'files')")
  bench.ratio("1c", "library / hand-written, compilation phase (import + compile)", lib, hand,
              "compile_phase_s", None,
              "hand: SavedModel+import+iree-compile; library: also builds the TF reference module")
  print_memory("library", lib)
  print_memory("hand-written", hand)
  print_memory("iree.tf.support", iree)
  print()
  files = median([r.artifacts_bytes for r in lib if r.ok])
  bench.figure("B", "bytes written per passing file / the 46 MB simple_arithmetic "
               "once wrote", None if files is None else files / BYTES_BEFORE,
               0.25, "x", f"median {(files or 0) / 1e6:.1f} MB written by the library's run "
               "(the hand-written floor writes nothing)",
               unavailable=None if files is not None else "no library run passed")
  iree_failed = [r for r in iree if not r.ok]
  reason = None
  if iree_failed:
    reason = f"iree.tf.support test did not run: {iree_failed[0].error}"
  bench.ratio("5", "library / IREE's iree.tf.support, whole process", lib, iree, "wall_s", 0.8,
              "IREE's iree_llvmcpu compiles llvm-cpu without a target CPU (generic, plus a long "
              "warning); ours passes --iree-llvmcpu-target-cpu=host", unavailable=reason)


def bench_warm_vs_hand(bench: Bench) -> None:
  """S3w: the S3 file through the library with a warm compile cache / the hand-written floor,
  which compiles (a re-run that compiles nothing must beat a script that compiles)."""
  print("[S3w] simple_arithmetic (llvm-cpu): library with a warm compile cache vs hand-written")
  cache = bench.fresh_dir("s3cache")

  def warm_args() -> List[str]:
    return ["e2e/simple_arithmetic_test.py", "--target_backends=iree_llvmjit", "--verbose",
            f"--compile_cache_dir={cache}", f"--artifacts_dir={bench.fresh_dir('libwarm')}"]

  bench.runs.append(run_process("library (fills the cache)", warm_args(), bench.timeout))
  results = bench.interleaved([
      ("library warm cache", warm_args),
      ("hand-written iree_llvmjit", lambda: [
          "bench/hand_written_simple_arithmetic.py", "--target_backends=iree_llvmjit",
          f"--artifacts_dir={bench.fresh_dir('hand')}"]),
  ], bench.cheap_repeats)
  warm, hand = results["library warm cache"], results["hand-written iree_llvmjit"]
  missed = [r for r in warm if r.ok and not r.cache_hits]
  bench.ratio("S3w", "one e2e file, warm compile cache: library / hand-written floor", warm,
              hand, "wall_s", 0.80, "cache hits per warm run: "
              + ", ".join(str(r.cache_hits) for r in warm)
              + (" (a warm run missed the cache!)" if missed else ""))
  print_memory("library warm", warm)
  print()


def bench_long_trace(bench: Bench) -> None:
  """L: the per-call cost of a 3000-call stateful trace (bench/long_trace_test.py) over the same
  file with one call, on llvm-cpu + vmvx + the TF reference."""
  backends = "--target_backends=iree_llvmjit,iree_vmvx"
  print(f"[L] bench/long_trace_test.py {backends}: --calls={LONG_CALLS} vs --calls=1")
  results = bench.interleaved([
      (f"long trace {LONG_CALLS} calls", lambda: [
          "bench/long_trace_test.py", f"--calls={LONG_CALLS}", backends, "--nocompile_cache",
          f"--artifacts_dir={bench.fresh_dir('long')}"]),
      ("long trace 1 call", lambda: [
          "bench/long_trace_test.py", "--calls=1", backends, "--nocompile_cache",
          f"--artifacts_dir={bench.fresh_dir('short')}"]),
  ], bench.cheap_repeats)
  long, short = results[f"long trace {LONG_CALLS} calls"], results["long trace 1 call"]
  executions = (LONG_CALLS - 1) * 3  # the reference and two targets run every call.
  values = {}
  for field in ("wall_s", "cpu_s"):
    a, b = summarize(long, field)["median"], summarize(short, field)["median"]
    values[field] = None if a is None or b is None else (a - b) / executions * 1000
  failed = [r.error for r in long + short if not r.ok]
  long_bytes = median([r.artifacts_bytes for r in long if r.ok]) or 0
  bench.figure("L", f"ms per call-execution of a {LONG_CALLS}-call stateful trace (16 floats; "
               "llvm-cpu, vmvx, TF)", values["wall_s"], 0.15, "ms",
               f"(median wall of {LONG_CALLS} calls - median wall of 1 call) / {executions}; "
               f"files written: {long_bytes / 1e6:.1f} MB",
               unavailable=f"a run failed: {failed[0]}" if failed else None,
               cpu_value=values["cpu_s"])


def bench_big_model(bench: Bench) -> None:
  """R: a ResNet50-sized Keras model (CIFAR shape, random weights) on llvm-cpu: bytes written
  (goal <= 120 MB), wall time and peak RSS. One run: it takes ~30 s and ~2 GB."""
  print("[R] bench/resnet50_test.py on iree_llvmjit")
  run = run_process("ResNet50 llvm-cpu", [
      "bench/resnet50_test.py", "--target_backends=iree_llvmjit", "--nocompile_cache",
      f"--artifacts_dir={bench.fresh_dir('resnet')}"], bench.timeout)
  bench.runs.append(run)
  bench.figure("R", "ResNet50 (CIFAR shape, llvm-cpu): MB written", run.artifacts_bytes / 1e6
               if run.ok else None, 120, "MB",
               f"wall {run.wall_s:.1f} s, cpu {run.cpu_s:.1f} s, peak RSS (maxrss) "
               f"{run.maxrss_kib / 1024:.0f} MiB, process-tree peak {run.tree_peak_kib / 1024:.0f}"
               " MiB", unavailable=run.error)


def bench_duplicate_backends(bench: Bench) -> None:
  """Ratio 2: X,X,X vs X (iree_vmla) on the stateful e2e file, no compile cache."""
  print("[2] e2e/simple_stateful_test.py: --target_backends=iree_vmla,iree_vmla,iree_vmla vs "
        "iree_vmla (--nocompile_cache)")
  results = bench.interleaved([
      ("stateful vmla x3", lambda: [
          "e2e/simple_stateful_test.py", "--target_backends=iree_vmla,iree_vmla,iree_vmla",
          "--nocompile_cache", "--verbose", f"--artifacts_dir={bench.fresh_dir('dup3')}"]),
      ("stateful vmla x1", lambda: [
          "e2e/simple_stateful_test.py", "--target_backends=iree_vmla", "--nocompile_cache",
          "--verbose",
          f"--artifacts_dir={bench.fresh_dir('dup1')}"]),
  ], bench.cheap_repeats)
  x3, x1 = results["stateful vmla x3"], results["stateful vmla x1"]
  bench.ratio("2a", "X,X,X / X, compilation phase", x3, x1, "compile_phase_s", 1.15)
  bench.ratio("2b", "X,X,X / X, whole process", x3, x1, "wall_s", 1.15,
              "x3 also runs every trace on three vmvx modules")
  print_memory("x3", x3)
  print_memory("x1", x1)
  print()


def bench_compile_cache(bench: Bench) -> None:
  """Ratio 3: the same file run cold (fresh cache dir) then warm (same dir)."""
  print("[3] e2e/matmul_test.py --target_backends=iree_vmla,iree_llvmjit: "
        "warm vs cold compile cache")
  cold: List[Run] = []
  warm: List[Run] = []
  print(f"  N={bench.repeats} cold/warm pairs, each with its own fresh cache dir", flush=True)
  for _ in range(bench.repeats):
    cache = bench.fresh_dir("cache")
    for label, runs in (("matmul cold cache", cold), ("matmul warm cache", warm)):
      run = run_process(label, [
          "e2e/matmul_test.py", "--target_backends=iree_vmla,iree_llvmjit", "--verbose",
          f"--compile_cache_dir={cache}", f"--artifacts_dir={bench.fresh_dir('cachert')}"],
                        bench.timeout)
      bench.runs.append(run)
      runs.append(run)
  missing_hits = [r for r in warm if r.ok and r.cache_hits < 2]
  note = ("warm runs logged cache hits: " + ", ".join(str(r.cache_hits) for r in warm)
          + (" (some warm run missed the cache!)" if missing_hits else ""))
  bench.ratio("3a", "warm / cold, compilation phase", warm, cold, "compile_phase_s", 0.30, note)
  bench.ratio("3b", "warm / cold, whole process", warm, cold, "wall_s", None)
  print_memory("cold", cold)
  print_memory("warm", warm)
  print()


def bench_concurrent_compiles(bench: Bench) -> None:
  """Ratio 4: three backends compiled concurrently (default jobs) vs --compile_jobs=1."""
  ok, why = vulkan_available(120)
  if ok:
    targets = "iree_vmla,iree_llvmjit,iree_vulkan"
    note = (f"Vulkan device: {why}. The default pool has min(3, os.cpu_count() + 1 = "
            f"{os.cpu_count() + 1}) workers, Vulkan's probe and worker start during the import; "
            "the compilation phase also contains the serial TF reference module and TF->MLIR "
            "import before the compiles fan out")
  else:
    targets = "iree_vmla,iree_llvmjit,iree_vmla"
    note = (f"iree_vulkan unavailable ({why}); third backend is a repeat of iree_vmla, which the "
            "in-process dedupe compiles once, so this understates the work")
  print(f"[4] e2e/matmul_test.py --target_backends={targets}: default compile jobs "
        f"(os.cpu_count()={os.cpu_count()}) vs --compile_jobs=1 (--nocompile_cache)")
  results = bench.interleaved([
      ("matmul 3 backends concurrent", lambda: [
          "e2e/matmul_test.py", f"--target_backends={targets}", "--nocompile_cache", "--verbose",
          f"--artifacts_dir={bench.fresh_dir('conc')}"]),
      ("matmul 3 backends jobs=1", lambda: [
          "e2e/matmul_test.py", f"--target_backends={targets}", "--nocompile_cache", "--verbose",
          "--compile_jobs=1", f"--artifacts_dir={bench.fresh_dir('seq')}"]),
  ])
  conc, seq = results["matmul 3 backends concurrent"], results["matmul 3 backends jobs=1"]
  bench.ratio("4", "concurrent / one after another, compilation phase", conc, seq,
              "compile_phase_s", 0.7, note)
  bench.ratio("4b", "concurrent / one after another, whole process", conc, seq, "wall_s", None)
  print_memory("concurrent", conc)
  print_memory("jobs=1", seq)
  print()


# worker_client.IDLE_RELEASE_ENV: how long an idle Vulkan worker keeps its device.
IDLE_RELEASE_ENV = "PYIREE_TF_SUPPORT_IDLE_RELEASE_SECONDS"
IDLE_SETTINGS = (("measured rule", "auto"), ("after 1 s", "1"), ("never", "never"))


def bench_vulkan_idle(bench: Bench) -> None:
  """Figures V: CPU seconds of a Vulkan e2e file's run, an idle worker's device released by the
  measured rule (now) vs after a fixed second (before) vs never, interleaved, warm compile cache.
  """
  ok, why = vulkan_available(120)
  for rid, targets in (("V", "iree_vulkan"), ("Vx", "iree_vmvx,iree_vulkan")):
    print(f"[{rid}] e2e/simple_arithmetic_test.py --target_backends={targets}: CPU seconds with "
          f"an idle Vulkan device released by the measured rule / after 1 s / never "
          f"({IDLE_RELEASE_ENV}), warm compile cache")
    if not ok:
      bench.ratio(rid, "Vulkan file, workers' CPU: measured rule / after 1 s", [], [],
                  "worker_cpu_s", None, unavailable=f"no Vulkan device: {why}")
      continue
    cache = bench.fresh_dir("vkcache")
    args = ["e2e/simple_arithmetic_test.py", f"--target_backends={targets}",
            f"--compile_cache_dir={cache}"]
    run_process("warming the cache", args + [f"--artifacts_dir={bench.fresh_dir('vkwarm')}"],
                bench.timeout)
    results: Dict[str, List[Run]] = {label: [] for label, _ in IDLE_SETTINGS}
    print(f"  N={bench.repeats} runs per configuration, interleaved", flush=True)
    for _ in range(bench.repeats):
      for label, setting in IDLE_SETTINGS:
        run = run_process(f"release {label}", args + [f"--artifacts_dir={bench.fresh_dir('vk')}"],
                          bench.timeout, {IDLE_RELEASE_ENV: setting})
        bench.runs.append(run)
        results[label].append(run)
    now, before = results["measured rule"], results["after 1 s"]
    never = summarize(results["never"], "worker_cpu_s")["median"]
    note = (f"workers' CPU is polled from /proc every {POLL_SECONDS} s; a device never released: "
            f"workers {_fmt(never)} CPU-s, whole run "
            f"{_fmt(summarize(results['never'], 'cpu_s')['median'])} CPU-s")
    bench.ratio(rid, f"{targets}: workers' CPU, measured rule / after 1 s", now, before,
                "worker_cpu_s", None, note)
    bench.ratio(rid + "p", f"{targets}: whole run's CPU, measured rule / after 1 s", now, before,
                "cpu_s", None)
    bench.ratio(rid + "w", f"{targets}: wall, measured rule / after 1 s", now, before, "wall_s",
                None)
    print()


# Mismatching (file, backend, trace, ratio id) of the corpus the localizer is measured on
# (e2e/BUILD.bazel). The last (7o): wrong on every backend alike, so judged against the oracle
# outside IREE (jaxlib, the `oracle` extra: docs/localizing.md, Oracle).
LOCALIZE_CASES = (("e2e/integer_test.py", "iree_vmla", "float_int_casts", "7"),
                  ("e2e/bool_test.py", "iree_vulkan", "any_all", "7"),
                  ("e2e/conditional_assign_test.py", "iree_llvmjit", "add_if_positive", "7o"))


def prepared_trace(bench: Bench, prefix: str, test_file: str, backend: str,
                   trace: str) -> Optional[str]:
  """The reference trace dir of one run of `test_file` on `backend` (its artifacts in a fresh
  dir), or None (printed) when the run left none."""
  artifacts_dir = bench.fresh_dir(prefix)
  prepared = run_process("prepare", [test_file, f"--target_backends={backend}",
                                     f"--artifacts_dir={artifacts_dir}"], bench.timeout)
  module = next(iter(sorted(os.listdir(artifacts_dir))), None)
  trace_dir = os.path.join(artifacts_dir, module or "", "traces", f"{trace}__tf_ref")
  if prepared.returncode is None or not os.path.isdir(trace_dir):
    print(f"  could not prepare the artifacts ({prepared.returncode}); skipped\n")
    return None
  return trace_dir


def against_compile_and_run(bench: Bench, key: str, cases: Sequence[Tuple[str, str, str]],
                            name: str, command: Any, goal: float) -> None:
  """Ratio `key`: `name` (`command(trace_dir, backend)`: its args, or a factory of them) on
  each case's failing trace vs that trace's compile + run (replay --recompile without the
  compile cache: the same compile and calls, without TensorFlow), in wall and CPU time."""
  vulkan, _ = vulkan_available(120)
  for test_file, backend, trace in cases:
    if backend == "iree_vulkan" and not vulkan:
      continue
    print(f"[{key}] {test_file} on {backend}, trace {trace}: {name} / compile + run")
    trace_dir = prepared_trace(bench, name, test_file, backend, trace)
    if trace_dir is None:
      continue
    results = bench.interleaved([
        (name, command(trace_dir, backend)),
        ("compile + run", ["-m", "pyiree_tf_support.replay", trace_dir,
                           f"--target_backends={backend}", "--recompile", "--nocompile_cache"]),
    ], bench.cheap_repeats)
    for run in results["compile + run"]:  # exit status 1: the mismatch replayed, as expected.
      if run.returncode == 1:
        run.error = None
    where = f"{os.path.basename(test_file)}, {backend}"
    bench.ratio(key, f"{name} / compile + run ({where})", results[name],
                results["compile + run"], "wall_s", goal)
    bench.ratio(key + "c", f"{name} / compile + run, CPU ({where})", results[name],
                results["compile + run"], "cpu_s", goal)
    print_memory(name, results[name])
    print()


def bench_localize(bench: Bench) -> None:
  """Ratio 7: one localization vs the original compile + run of the failing trace; 7o the same
  for a localization against the oracle (every IREE backend tried, then the oracle)."""
  for key in ("7", "7o"):
    against_compile_and_run(
        bench, key, [case[:3] for case in LOCALIZE_CASES if case[3] == key], "localize",
        lambda trace_dir, backend: ["-m", "pyiree_tf_support.localize", trace_dir,
                                    f"--target_backends={backend}"], 3.0)


# Listed mismatches of the corpus the reducer is measured on (e2e/BUILD.bazel): a stateless
# call, a dynamic body on lavapipe, a stateful call that keeps its globals.
REDUCE_CASES = (("e2e/integer_test.py", "iree_vmla", "float_int_casts"),
                ("e2e/dynamic_elementwise_test.py", "iree_vulkan", "where"),
                ("e2e/conditional_assign_test.py", "iree_vmla", "add_if_positive"))


def bench_reduce(bench: Bench) -> None:
  """Ratio 8: one reduction (every level, op level and value shrinking included; each run
  with a compile cache of its own, so that every candidate compiles once, as a first run
  does) vs the failing trace's compile + run. Goal <= 10x (issue 32)."""
  against_compile_and_run(
      bench, "8", REDUCE_CASES, "reduce",
      lambda trace_dir, backend: lambda: [
          "-m", "pyiree_tf_support.reduce", trace_dir, f"--target_backends={backend}",
          f"--compile_cache_dir={bench.fresh_dir('reduce_cache')}"], 10.0)


# The library's llvm-cpu flags (core/backends.py): the planted executable's source must be dumped
# for the very target the test compiles for (`host` resolved alike), or it is not substituted.
LLVMCPU_FLAGS = ("--iree-input-demote-f64-to-f32=false", "--iree-llvmcpu-target-cpu=host")
_SOFTMAX_RE = re.compile(r"(%\w+) = linalg\.softmax dimension\(\d+\) ins\((%\w+) ")


def plant_softmax_bug(sources_dir: str, out_dir: str) -> Optional[Tuple[str, str]]:
  """(executable, path of its edited source) for the executable of `sources_dir` computing a
  softmax, edited to store the softmax's input instead of its result; None when none does.

  The softmax is a ResNet50's last dispatch, and the only one whose source is the same in the
  module as tested and traced (the others' binding offsets and push constants differ, so a
  source dumped from one does not fit the other): a bug there makes the localizer trace every
  dispatch before it, the most it can cost."""
  for name in sorted(n for n in os.listdir(sources_dir) if n.endswith(".mlir")):
    with open(os.path.join(sources_dir, name)) as f:
      text = f.read()
    match = _SOFTMAX_RE.search(text)
    executable = re.search(r"hal\.executable public @(\S+)", text)
    if match is None or executable is None:
      continue
    store = f"dispatch.tensor.store {match.group(1)},"
    if store not in text:
      continue
    path = os.path.join(out_dir, name)
    with open(path, "w") as f:
      f.write(text.replace(store, f"dispatch.tensor.store {match.group(2)},", 1))
    return executable.group(1), path
  return None


def bench_localize_resnet50(bench: Bench) -> None:
  """Ratio 7r: one localization of a planted mismatch in the ResNet50-sized model on llvm-cpu
  vs the failing trace's compile + run (replay --recompile --nocompile_cache), both with the
  planting flag; the localizer has the failing run's compile cache, as after a test run. The
  bug: the last dispatch's softmax skipped (plant_softmax_bug), found against vmvx after
  tracing the whole model. Takes ~10 minutes on 2 CPUs (three ResNet50 test runs first)."""
  print("[7r] bench/resnet50_test.py on iree_llvmcpu, a planted bug in its last dispatch: "
        "localize / compile + run")
  clean_dir = bench.fresh_dir("resnet_clean")
  clean = run_process("prepare (clean)", [
      "bench/resnet50_test.py", "--target_backends=iree_llvmcpu", "--nocompile_cache",
      f"--artifacts_dir={clean_dir}"], bench.timeout)
  iree_input = os.path.join(clean_dir, "ResNet50Module", "iree_input.mlir")
  sources = bench.fresh_dir("resnet_sources")
  dumped = run_process("dump sources", [
      os.path.join(os.path.dirname(PYTHON), "iree-compile"), iree_input,
      "--iree-input-type=stablehlo_xla", "--iree-hal-target-backends=llvm-cpu", *LLVMCPU_FLAGS,
      f"--iree-hal-dump-executable-sources-to={sources}", "--compile-to=executable-sources",
      "-o", os.path.join(bench.fresh_dir("resnet_dump"), "executable_sources.mlirbc"),
      "--emit-mlir-bytecode"],
      bench.timeout)
  planted = (plant_softmax_bug(sources, bench.fresh_dir("resnet_planted"))
             if clean.ok and dumped.ok else None)
  if planted is None:
    print(f"  could not plant the bug (clean run: {clean.error or 'ok'}, dump: "
          f"{dumped.error or 'ok'}); skipped\n")
    return
  flag = ("--iree_compile_flags=iree_llvmcpu:--iree-hal-substitute-executable-source="
          f"{planted[0]}={planted[1]}")
  artifacts_dir = bench.fresh_dir("resnet_failing")
  # The failing run fills a cache of its own, which the localizer reads as a user's would
  # (the module as tested is taken from it); the localizer adds nothing to it.
  cache = f"--compile_cache_dir={bench.fresh_dir('resnet_cache')}"
  prepared = run_process("prepare (planted)", [
      "bench/resnet50_test.py", "--target_backends=iree_llvmcpu", cache, flag,
      f"--artifacts_dir={artifacts_dir}"], bench.timeout)
  trace_dir = os.path.join(artifacts_dir, "ResNet50Module", "traces", "predict__tf_ref")
  if prepared.returncode != 1 or not os.path.isdir(trace_dir):  # 1: the planted mismatch.
    print(f"  the planted run did not mismatch ({prepared.returncode}); skipped\n")
    return
  results = bench.interleaved([
      ("localize", ["-m", "pyiree_tf_support.localize", trace_dir,
                    "--target_backends=iree_llvmcpu", cache, flag]),
      ("compile + run", ["-m", "pyiree_tf_support.replay", trace_dir,
                         "--target_backends=iree_llvmcpu", "--recompile", "--nocompile_cache",
                         flag]),
  ], bench.repeats)
  for run in results["compile + run"]:  # exit status 1: the mismatch replayed, as expected.
    if run.returncode == 1:
      run.error = None
  bench.ratio("7r", "localize / compile + run (ResNet50, planted, llvm-cpu)",
              results["localize"], results["compile + run"], "wall_s", 2.0,
              "the bug in the last of 57 dispatches: every dispatch traced on both backends")
  print_memory("localize", results["localize"])
  print()


SUMMARY_NAMES = {
    "S1": "pytest e2e/ / bazel e2e suites (process)",
    "S2": "pytest -n 2 e2e/ / pytest e2e/ (process)",
    "S3": "one file: library / hand-written (process)",
    "S3w": "one file, warm cache / hand-written (process)",
    "B": "bytes per passing file / 46 MB",
    "L": "ms per call-execution, 3000-call trace",
    "R": "ResNet50 llvm-cpu: MB written",
    "1c": "library / hand-written (compile phase)",
    "2a": "X,X,X / X (compile phase)",
    "2b": "X,X,X / X (process)",
    "3a": "warm / cold cache (compile phase)",
    "3b": "warm / cold cache (process)",
    "4": "concurrent / jobs=1 (compile phase)",
    "4b": "concurrent / jobs=1 (process)",
    "5": "library / iree.tf.support (process)",
    "V": "vulkan: workers' CPU, rule / 1 s idle",
    "Vp": "vulkan: process CPU, rule / 1 s idle",
    "Vw": "vulkan: process wall, rule / 1 s idle",
    "Vx": "vmvx+vulkan: workers' CPU, rule / 1 s",
    "Vxp": "vmvx+vulkan: process CPU, rule / 1 s",
    "Vxw": "vmvx+vulkan: process wall, rule / 1 s",
    "6a": "ms per example-call, once compiled",
    "6b": "--examples=100 / traces alone (process)",
    "7": "localize / compile + run (process)",
    "7c": "localize / compile + run (CPU)",
    "8": "reduce / compile + run (process)",
    "8c": "reduce / compile + run (CPU)",
    "7o": "oracle localize / compile + run (process)",
    "7oc": "oracle localize / compile + run (CPU)",
    "7r": "ResNet50 localize / compile + run",
}


def bench_examples(bench: Bench) -> None:
  """6a: the cost of one example-call once compiled; 6b: --examples=100 over one e2e file."""
  print("[6a] one example of a 16-float op on tf + llvm-cpu, once compiled "
        "(bench/example_cost.py)")
  costs = bench.interleaved([("example cost", ["bench/example_cost.py"])], bench.cheap_repeats)
  runs = costs["example cost"]
  figures = [r.example_call_ms for r in runs if r.ok and r.example_call_ms is not None]
  cpu_figures = [r.example_call_cpu_ms for r in runs if r.ok and r.example_call_ms is not None]
  value = median(figures)
  failed = [r.error for r in runs if not r.ok]
  entry = {"id": "6a", "title": "ms per example-call, once compiled (absolute, not a ratio)",
           "field": "example_call_ms", "value": value, "goal": 2.0,
           "met": None if value is None else value <= 2.0,
           "unavailable": failed[0] if failed else (None if value else "no figure printed"),
           "note": "hypothesis' draw, a call on tf and on llvm-cpu, the comparison; divided by "
                   "the 2 calls", "values": figures, "cpu_values": cpu_figures,
           "cpu_ratio": median(cpu_figures)}
  bench.ratios.append(entry)
  print(f"  => 6a ms per example-call: median {_fmt(value, 3)} of {len(figures)} "
        f"({', '.join(_fmt(v, 3) for v in figures)})   goal <= 2.00; CPU ms per example-call "
        f"(the process's, load-robust) median {_fmt(median(cpu_figures), 3)}\n", flush=True)

  print("[6b] e2e/broadcasting_test.py on llvm-cpu: --examples=100 vs its hand-written "
        "traces alone")
  results = bench.interleaved([
      ("examples=100", lambda: [
          "e2e/broadcasting_test.py", "--target_backends=iree_llvmjit", "--nocompile_cache",
          "--examples=100", f"--artifacts_dir={bench.fresh_dir('examples')}"]),
      ("hand-written traces", lambda: [
          "e2e/broadcasting_test.py", "--target_backends=iree_llvmjit", "--nocompile_cache",
          f"--artifacts_dir={bench.fresh_dir('traces')}"]),
  ], bench.cheap_repeats)
  bench.ratio("6b", "--examples=100 / hand-written traces, whole process",
              results["examples=100"], results["hand-written traces"], "wall_s", None,
              "100 drawn inputs per method a trace calls (5 methods; every example passes, "
              "so nothing is shrunk)")


def print_summary(ratios: Sequence[Dict[str, Any]]) -> None:
  """The final table: ratio, value, goal, met."""
  order = {rid: i for i, rid in enumerate(SUMMARY_NAMES)}
  print("Summary")
  header = f"  {'#':<3} {'ratio':<42} {'measured':>9} {'goal':>7} {'cpu x-check':>11}  result"
  print(header)
  print("  " + "-" * (len(header) - 2))
  for r in sorted(ratios, key=lambda r: order.get(r["id"], 99)):
    value = "n/a" if r["value"] is None else f"{r['value']:.3f}"
    goal = "-" if r["goal"] is None else f"<= {r['goal']:.2f}"
    if r["value"] is None:
      result = f"n/a: {r['unavailable']}"
    elif r["goal"] is None:
      result = "info"
    else:
      result = "met" if r["met"] else "NOT MET"
    cpu = "-" if r.get("cpu_ratio") is None else f"{r['cpu_ratio']:.3f}"
    print(f"  {r['id']:<3} {SUMMARY_NAMES.get(r['id'], r['title']):<42} {value:>9} {goal:>7} "
          f"{cpu:>11}  {result}")
  print("  (measured = ratio of median wall seconds; cpu x-check = ratio of median CPU seconds of "
        "the whole process tree, less sensitive to other load on the machine)")


# Benchmark name -> (its key: the letter or digit earlier versions' --only took, what it measures).
SECTION_NAMES = {
    "suite": ("S", "S1 pytest e2e/ vs Bazel, S2 pytest -n 2 vs pytest"),
    "file": ("1", "S3 one e2e file vs the hand-written floor, 1c, B its bytes"),
    "warm": ("W", "S3w the same with a warm compile cache"),
    "long_trace": ("L", "a 3000-call stateful trace"),
    "resnet50": ("R", "a ResNet50-sized Keras model"),
    "duplicates": ("2", "duplicate backends"),
    "cache": ("3", "the compile cache"),
    "concurrent": ("4", "concurrent compiles"),
    "startup": ("5", "set-up cost (shares the file benchmark's runs)"),
    "examples": ("6", "6a one drawn example, 6b an --examples=100 run"),
    "localize": ("7", "one dispatch localization vs the failing call's compile + run"),
    "localize_resnet50": ("7r", "a planted mismatch in the ResNet50-sized model localized vs "
                          "its compile + run"),
    "vulkan": ("V", "a Vulkan file's CPU, idle release"),
    "reduce": ("8", "one reduction to the smallest failing program vs the failing trace's "
               "compile + run"),
}


def selected_sections(only: str) -> Set[str]:
  """The keys of the benchmarks `--only` names (names or the old keys); ValueError naming an
  unknown one and what is valid."""
  by_key = {key: key for key, _ in SECTION_NAMES.values()}
  by_name = {name: key for name, (key, _) in SECTION_NAMES.items()}
  keys = set()
  for word in (w.strip() for w in only.split(",") if w.strip()):
    key = by_name.get(word, by_key.get(word))
    if key is None:
      raise ValueError(f"--only: unknown benchmark {word!r}; valid: "
                       f"{', '.join(SECTION_NAMES)} (or {', '.join(by_key)})")
    keys.add(key)
  if not keys:
    raise ValueError(f"--only names no benchmark; valid: {', '.join(SECTION_NAMES)}")
  return keys


def main() -> int:
  """Runs every benchmark, prints the figures and the summary, writes the JSON results."""
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--repeats", type=int, default=3,
                      help="runs per configuration (median) for benchmarks 3 and 4")
  parser.add_argument("--cheap_repeats", type=int, default=5,
                      help="runs per configuration for the cheaper benchmarks 1, 2 and 5")
  parser.add_argument("--timeout", type=float, default=300, help="seconds per child process")
  parser.add_argument("--output", default="/tmp/bench_results.json", help="JSON results path")
  parser.add_argument("--only", default=",".join(SECTION_NAMES),
                      help="comma list of benchmarks to run, by name (or by the letter or digit "
                      "of earlier versions): " + "; ".join(
                          f"{name} ({key}): {what}" for name, (key, what) in SECTION_NAMES.items()))
  parser.add_argument("--suite_repeats", type=int, default=1,
                      help="runs per configuration of the suite ratios S1, S2 (minutes each)")
  parser.add_argument("--keep", action="store_true", help="keep the artifacts and cache dirs")
  args = parser.parse_args()
  if args.repeats < 1 or args.cheap_repeats < 1:
    parser.error("--repeats and --cheap_repeats must be >= 1")
  try:
    only = selected_sections(args.only)
  except ValueError as e:
    parser.error(str(e))

  workdir = tempfile.mkdtemp(prefix="pyiree_tf_bench_")
  started = time.monotonic()
  load_before = loadavg()
  print(f"pyiree-tf-support benchmark: medians of N runs per configuration (N={args.cheap_repeats} "
        f"for benchmarks 1, 2, 5; N={args.repeats} for 3, 4); python {PYTHON}")
  print(f"machine: {os.cpu_count()} CPUs, load average at start {load_before} (other processes "
        "may be running: figures are wall times on a shared machine, interleaved A/B to spread "
        "load changes over both sides)")
  print(f"work dir: {workdir}\n", flush=True)
  bench = Bench(args.repeats, args.cheap_repeats, args.timeout, workdir)
  sections = [("S", lambda b: suite_ratios.bench_suite(b, PYTHON, REPO, run_process, print_memory,
                                                        args.suite_repeats)),
              ("1", bench_library_vs_hand_vs_iree), ("W", bench_warm_vs_hand),
              ("L", bench_long_trace), ("R", bench_big_model), ("2", bench_duplicate_backends),
              ("3", bench_compile_cache), ("4", bench_concurrent_compiles),
              ("6", bench_examples), ("7", bench_localize), ("7r", bench_localize_resnet50),
              ("8", bench_reduce),
              ("V", bench_vulkan_idle)]
  try:
    for key, section in sections:
      if key in only or (key == "1" and "5" in only):
        section(bench)
        print(f"  (load average now {loadavg()})\n", flush=True)
  except KeyboardInterrupt:
    print("interrupted; reporting what was measured", file=sys.stderr)
  finally:
    if not args.keep:
      shutil.rmtree(workdir, ignore_errors=True)
  elapsed = time.monotonic() - started
  print_summary(bench.ratios)
  print(f"\ntotal benchmark time {elapsed:.0f} s; load average at start {load_before}, "
        f"at end {loadavg()}")

  results = {
      "repeats": args.repeats, "cheap_repeats": args.cheap_repeats, "cpu_count": os.cpu_count(),
      "load_before": load_before,
      "load_after": loadavg(), "elapsed_s": elapsed, "python": PYTHON,
      "ratios": bench.ratios,
      "runs": [dataclasses.asdict(r) for r in bench.runs],
  }
  try:
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as f:
      json.dump(results, f, indent=2)
    print(f"results written to {args.output}")
  except OSError as e:
    print(f"could not write {args.output}: {e}", file=sys.stderr)
    return 1
  return 0 if all(r["value"] is not None for r in bench.ratios) else 2


if __name__ == "__main__":
  sys.exit(main())
