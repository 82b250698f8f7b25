"""The fuzzer's throughput per backend, and its time to the first hit of known bug classes.

  .venv/bin/python bench/fuzz_throughput.py [--minutes 5] [--backends iree_vmvx,iree_llvmcpu,
      iree_vulkan] [--jobs 1] [--seed 11] [--output /tmp/fuzz_bench.json] [--skip_known]

T figures: for each backend alone, a campaign of `--minutes` (`python -m pyiree_tf_support.fuzz
--target_backends=<backend>`, every op that backend runs, special values, None dims and state
as by default), generated functions compared per minute: compiled, run and compared, triage
included (the issue's goal: >= 20 on 2 cores, functions batched into modules). K figures: from a
cold start (fresh campaign dir, no compile cache), the seconds until the first finding of each
known bug class, polled from findings.json every second: vmvx's rounding f32 -> i32 convert,
vmvx failing to legalize arith.fptoui, the variable assigned inside a tf.cond (llvm-cpu),
lavapipe losing i8 bytes past the last whole 32-bit word (Vulkan), and Vulkan refusing size-0
dynamic inputs ("empty buffer range").

Every measurement is a whole child process (a fresh interpreter, TF_CPP_MIN_LOG_LEVEL=2), so this
script never imports TensorFlow, IREE or the library. The backends' campaigns run one after the
other (never side by side); each figure is one run, so compare figures measured in one
invocation.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV_PYTHON = os.path.join(REPO, ".venv", "bin", "python")
PYTHON = VENV_PYTHON if os.path.exists(VENV_PYTHON) else sys.executable
# (name, backend, flags, what the finding's row holds): each a known bug class.
KNOWN = (
    ("vmvx f32 -> i32 rounds", "iree_vmvx",
     ("--ops=cast_f32_to_i32,tanh,add,floor,cast_i32_to_f32",), "cast_f32_to_i32"),
    ("vmvx arith.fptoui", "iree_vmvx", ("--ops=cast_f32_to_u8,abs,add,cast_u8_to_f32",),
     "fptoui"),
    ("variable assigned in tf.cond", "iree_llvmcpu",
     ("--ops=abs,add", "--stateful=1", "--states=cond", "--nolocalize_findings"), "MISMATCH"),
    ("lavapipe i8 trailing bytes", "iree_vulkan",
     ("--ops=cast_f32_to_i8,add_i8,cast_i8_to_f32", "--shapes=3x5,2x3"), "_i8"),
    ("Vulkan size-0 dynamic inputs", "iree_vulkan",
     ("--ops=add,abs,tanh", "--shapes=?x4", "--dynamic_sizes=0,2"), "empty buffer range"),
)


def _fuzz(out: str, backend: str, seed: int, extra: List[str]) -> subprocess.Popen:
  command = [PYTHON, "-m", "pyiree_tf_support.fuzz", f"--target_backends={backend}",
             f"--out={out}", f"--seed={seed}", "--nocompile_cache", *extra]
  return subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=REPO))


def _findings(out: str) -> Dict[str, Any]:
  try:
    with open(os.path.join(out, "findings.json")) as f:
      return json.load(f)
  except (OSError, ValueError):
    return {}


def throughput(backend: str, minutes: float, jobs: int, seed: int) -> Dict[str, Any]:
  out = os.path.join(tempfile.mkdtemp(prefix="fuzz-bench-"), "campaign")
  started = time.monotonic()
  _fuzz(out, backend, seed, [f"--minutes={minutes}", f"--jobs={jobs}"]).wait()
  data = _findings(out)
  seconds = time.monotonic() - started
  return {"backend": backend, "jobs": jobs, "functions": data.get("functions", 0),
          "modules": data.get("modules", 0), "hits": data.get("hits", 0),
          "findings": len(data.get("findings", [])), "wall_seconds": round(seconds, 1),
          "per_minute": round(data.get("functions", 0) / (seconds / 60), 1)}


def first_hit(name: str, backend: str, flags: List[str], marker: str, seed: int,
              limit: float) -> Dict[str, Any]:
  out = os.path.join(tempfile.mkdtemp(prefix="fuzz-known-"), "campaign")
  started = time.monotonic()
  worker = _fuzz(out, backend, seed, [*flags, f"--minutes={limit / 60}"])
  found = None
  while worker.poll() is None and found is None:
    time.sleep(1.0)
    for row in _findings(out).get("findings", []):
      if marker in json.dumps(row):
        found = time.monotonic() - started
  if worker.poll() is None:
    worker.terminate()
    worker.wait()
  return {"bug": name, "backend": backend, "seconds_to_first_hit":
          None if found is None else round(found, 1), "campaign_dir": out}


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--minutes", type=float, default=5.0)
  parser.add_argument("--backends", default="iree_vmvx,iree_llvmcpu,iree_vulkan")
  parser.add_argument("--jobs", type=int, default=1)
  parser.add_argument("--seed", type=int, default=11)
  parser.add_argument("--known_limit", type=float, default=900.0,
                      help="seconds a known bug class is searched for before giving up")
  parser.add_argument("--skip_known", action="store_true")
  parser.add_argument("--output", default=None)
  args = parser.parse_args()
  results: Dict[str, Any] = {"throughput": [], "first_hit": []}
  for backend in args.backends.split(","):
    row = throughput(backend, args.minutes, args.jobs, args.seed)
    results["throughput"].append(row)
    print(f"T {backend} (jobs {args.jobs}): {row['per_minute']} functions/min "
          f"({row['functions']} in {row['wall_seconds']} s, {row['findings']} findings)")
  if not args.skip_known:
    for name, backend, flags, marker in KNOWN:
      row = first_hit(name, backend, list(flags), marker, args.seed, args.known_limit)
      results["first_hit"].append(row)
      shown = row["seconds_to_first_hit"]
      print(f"K {name} on {backend}: "
            + (f"first hit after {shown} s" if shown is not None else
               f"not found in {args.known_limit:g} s"))
  if args.output:
    with open(args.output, "w") as f:
      json.dump(results, f, indent=1)
  return 0


if __name__ == "__main__":
  sys.exit(main())
