"""Suite-level ratios of bench/run_benchmark.py: the whole e2e corpus in one pytest
process against Bazel's one process per (file, backend), and pytest-xdist against one process.

  S1  `pytest e2e/` (one process) / `bazel test //e2e:e2e_tests //e2e:e2e_tests_failing`
      (--nocache_test_results; no compile cache on either side)             goal <= 0.30
  S2  `pytest -n 2 e2e/` / S1's pytest                                        information

Each configuration runs `repeats` times (default 1: a suite run takes minutes), interleaved. The
pytest run's JUnit XML and the Bazel run's test logs are checked against e2e/BUILD.bazel's FAILING
lists with `python -m pyiree_tf_support.tools.check_suite_verdicts`, so a ratio never compares
runs that disagree.
"""

import os
import shutil
import subprocess
from typing import Any, List, Optional

CHECK_TOOL = ("-m", "pyiree_tf_support.tools.check_suite_verdicts")
BAZEL_TARGETS = ("//e2e:e2e_tests", "//e2e:e2e_tests_failing")


def _pytest_args(bench: Any, tag: str, extra: List[str]) -> List[str]:
  out = bench.fresh_dir(tag)
  return ["-m", "pytest", "-q", "-p", "no:cacheprovider", *extra, "e2e/", "--nocompile_cache",
          f"--artifacts_dir={out}", f"--junitxml={os.path.join(out, 'junit.xml')}"]


def _agreement(python: str, repo: str, run: Any, bazel_testlogs: Optional[str] = None) -> str:
  """check_suite_verdicts' last line for a pytest run (its JUnit XML) or a Bazel run."""
  junit = next((a.split("=", 1)[1] for a in run.command if a.startswith("--junitxml=")), None)
  args = [python, *CHECK_TOOL, junit or os.devnull]
  if bazel_testlogs:
    args += ["--bazel_testlogs", bazel_testlogs]
  done = subprocess.run(args, cwd=repo, capture_output=True, text=True, check=False)
  lines = done.stdout.splitlines()
  if bazel_testlogs:  # the pytest cells are reported separately
    bazel_lines = [line for line in lines if line.startswith("bazel:")]
    return "; ".join(bazel_lines[:3]) or "all agree"
  return "; ".join(lines[-3:]) or done.stderr.strip()[-200:]


def xdist_missing(python: str) -> Optional[str]:
  """Why `pytest -n` cannot run here (None: pytest-xdist is installed)."""
  done = subprocess.run([python, "-c", "import xdist"], capture_output=True, check=False)
  return None if done.returncode == 0 else (
      "pytest-xdist is not installed (setup.py's `test` extra; pip install -e .[test])")


def bench_suite(bench: Any, python: str, repo: str, run_process: Any, print_memory: Any,
                repeats: int) -> None:
  """S1 and S2, interleaved: pytest one process, Bazel, pytest -n 2 (when xdist is installed)."""
  bazel = shutil.which("bazel")
  missing_xdist = xdist_missing(python)
  print("[S1+S2] the whole e2e suite: one pytest process vs Bazel vs pytest -n 2 "
        "(no compile cache)")
  configs = [("pytest e2e/ one process", lambda: _pytest_args(bench, "s1", []))]
  if bazel:
    configs.append(("bazel test e2e suites", lambda: [
        bazel, "test", *BAZEL_TARGETS, "--nocache_test_results"]))
  if not missing_xdist:
    configs.append(("pytest -n 2 e2e/", lambda: _pytest_args(bench, "s2", ["-n", "2",
                                                                          "--dist", "loadfile"])))
  timeout, bench.timeout = bench.timeout, max(bench.timeout, 3600.0)  # a suite run takes minutes
  try:
    results = bench.interleaved(configs, repeats)
  finally:
    bench.timeout = timeout
  one = results["pytest e2e/ one process"]
  note = "verdicts vs FAILING: " + _agreement(python, repo, one[-1]) if one else ""
  note += ("; Bazel's CPU seconds are its client's only (the server runs the tests), so the CPU "
           "cross-check does not apply" if bazel else "")
  if bazel:
    testlogs = os.path.join(repo, "bazel-testlogs")
    note += "; Bazel run: " + _agreement(python, repo, one[-1], testlogs) if one else ""
  bench.ratio("S1", "pytest e2e/ (one process) / bazel test e2e_tests + e2e_tests_failing",
              one, results.get("bazel test e2e suites", []), "wall_s", 0.30, note,
              unavailable=None if bazel else "bazel is not on PATH")
  bench.ratio("S2", "pytest -n 2 e2e/ / pytest e2e/", results.get("pytest -n 2 e2e/", []), one,
              "wall_s", None, "--dist loadfile keeps a file's items on one worker",
              unavailable=missing_xdist)
  for label, runs in results.items():
    print_memory(label, runs)
  print()
