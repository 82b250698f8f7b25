"""pyiree_tf_support/tools/test_summary.py, the last lines of scripts/test.sh, on the logs of real
pytest runs (run as test.sh runs pytest: piped through tee, the status from PIPESTATUS), and
scripts/test.sh itself with a pytest and a bazel that only print a result: the order of its
parts, its stop after a failing fast tier, and its one last line."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

from absl.testing import absltest
from absl.testing import parameterized

from tests.support.repo import ROOT

TESTS = {
    "clean": "def test_a():\n  pass\n\ndef test_b():\n  pass\n",
    "one_fails": "def test_a():\n  pass\n\ndef test_b():\n  assert False\n",
    "collection_error": "import no_such_module_here\n",
    # pytest dies mid-run: no summary line at all.
    "segfault": textwrap.dedent("""
        import os, signal
        def test_a():
          pass
        def test_b():
          os.kill(os.getpid(), signal.SIGSEGV)
        """),
    "exits": "import os\n\ndef test_a():\n  os._exit(3)\n",
    # Lines after pytest's summary, printed at interpreter exit (as nanobind prints the IREE
    # runtime objects still alive then).
    "noise_at_exit": textwrap.dedent("""
        import atexit, sys
        atexit.register(lambda: print("nanobind: leaked 2 instances!\\n - leaked instance",
                                      file=sys.stderr))
        def test_a():
          pass
        def test_b():
          assert False
        """),
}


class TestSummaryTest(parameterized.TestCase):

  def run_pytest(self, name: str, *args: str):
    """(log path, exit status) of `pytest -q` on TESTS[name], as test.sh runs it."""
    directory = tempfile.mkdtemp()
    with open(os.path.join(directory, f"{name}_test.py"), "w") as f:
      f.write(TESTS[name])
    log = os.path.join(directory, "unit.log")
    command = (f"{sys.executable} -m pytest -q -p no:cacheprovider {' '.join(args)} . 2>&1 "
               f"| tee {log} >/dev/null; exit ${{PIPESTATUS[0]}}")
    status = subprocess.run(["bash", "-c", command], cwd=directory, check=False,
                            env=dict(os.environ, PYTHONPATH=""), timeout=120).returncode
    return log, status

  def summary(self, log: str, status: int, e2e: str = "") -> list:
    return self.summary_of("--unit", "unit tests", log, str(status), "--e2e", self.e2e_log(e2e))

  def e2e_log(self, e2e: str) -> str:
    e2e_log = os.path.join(tempfile.mkdtemp(), "e2e.log")
    with open(e2e_log, "w") as f:
      f.write(e2e)
    return e2e_log

  def summary_of(self, *args: str) -> list:
    process = subprocess.run(
        [sys.executable, "-m", "pyiree_tf_support.tools.test_summary", *args],
        capture_output=True, text=True, check=True, timeout=60)
    return process.stdout.splitlines()

  @parameterized.parameters(("clean", 0, "2 passed, 0 failed"),
                            ("one_fails", 1, "1 passed, 1 failed"),
                            ("collection_error", 2, "0 passed, 1 failed"),
                            ("noise_at_exit", 1, "1 passed, 1 failed"))
  def test_counts_what_pytest_counted(self, name, status, counts):
    log, got_status = self.run_pytest(name)
    self.assertEqual(got_status, status)
    e2e = ("//e2e:e2e_tests_a__tf__iree_vmla  PASSED in 3.1s\n//e2e:b  (cached) FAILED in 2s\n"
           "//e2e/generated:generated_tests_math_test__tf__iree_vmla  PASSED in 9.0s\n")
    self.assertEqual(self.summary(log, got_status, e2e),
                     [f"unit tests: {counts}; e2e (Bazel): 2 passed, 1 failed",
                      f"{int(counts.split()[0]) + 2} passed, {int(counts.split()[2]) + 1} failed"])

  @parameterized.parameters(("segfault", 139), ("exits", 3))
  def test_a_crashed_pytest_is_its_exit_status_not_0_failed(self, name, status):
    log, got_status = self.run_pytest(name)
    self.assertEqual(got_status, status)
    lines = self.summary(log, got_status)
    self.assertEqual(lines, [
        f"unit tests: pytest ended with exit status {status} and no count of failures (crashed "
        "or stopped; see its output above); e2e (Bazel): 0 passed, 0 failed",
        f"0 passed, 0 failed (e2e only: the unit tests' pytest ended with exit status {status} "
        "and no count)"])

  def test_the_counts_of_both_tiers_and_bazel_add_up(self):
    fast, slow = self.run_pytest("clean"), self.run_pytest("one_fails")
    e2e = "//e2e:e2e_tests_a__tf__iree_vmla  PASSED in 3.1s\n"
    self.assertEqual(
        self.summary_of("--unit", "fast tier", fast[0], str(fast[1]),
                        "--unit", "slow tier", slow[0], str(slow[1]), "--e2e", self.e2e_log(e2e)),
        ["fast tier: 2 passed, 0 failed; slow tier: 1 passed, 1 failed; "
         "e2e (Bazel): 1 passed, 0 failed", "4 passed, 1 failed"])

  def test_a_crash_of_either_tier_is_its_exit_status_the_others_still_count(self):
    fast, slow = self.run_pytest("clean"), self.run_pytest("segfault")
    self.assertEqual(slow[1], 139)
    self.assertEqual(
        self.summary_of("--unit", "fast tier", fast[0], str(fast[1]),
                        "--unit", "slow tier", slow[0], str(slow[1]), "--e2e", self.e2e_log("")),
        ["fast tier: 2 passed, 0 failed; slow tier: pytest ended with exit status 139 and no "
         "count of failures (crashed or stopped; see its output above); e2e (Bazel): 0 passed, "
         "0 failed",
         "2 passed, 0 failed (fast tier and e2e only: the slow tier's pytest ended with exit "
         "status 139 and no count)"])

  def test_a_fast_tier_that_stops_the_run_names_what_did_not_run(self):
    fast = self.run_pytest("exits")
    self.assertEqual(
        self.summary_of("--unit", "fast tier", fast[0], str(fast[1]),
                        "--not_run", "slow tier", "--not_run", "e2e (Bazel)"),
        ["fast tier: pytest ended with exit status 3 and no count of failures (crashed or "
         "stopped; see its output above); slow tier: not run; e2e (Bazel): not run",
         "0 passed, 0 failed (nothing counted: the fast tier's pytest ended with exit status 3 "
         "and no count)"])

  def test_a_usage_error_is_its_exit_status(self):
    log, status = self.run_pytest("clean", "--no-such-option")
    self.assertEqual(status, 4)
    self.assertIn("pytest ended with exit status 4 and no count", self.summary(log, status)[0])

  def run_test_sh(self, fast_status: int) -> tuple:
    """(output, exit status, the commands run) of scripts/test.sh in a scratch copy whose pytest
    and bazel only print a result (the fast tier fails when `fast_status` is not 0)."""
    root = tempfile.mkdtemp()
    calls = os.path.join(root, "calls.txt")
    os.makedirs(os.path.join(root, "scripts"))
    shutil.copy(os.path.join(ROOT, "scripts", "test.sh"), os.path.join(root, "scripts"))
    fake_python = textwrap.dedent(f"""\
        #!/usr/bin/env bash
        echo "python $*" >> {calls}
        case "$*" in
          *--tier=fast*) echo "2 passed, {fast_status} failed in 0.5s"; exit {fast_status};;
          *--tier=slow*) echo "3 passed in 0.5s"; exit 0;;
          *) PYTHONPATH={ROOT} exec {sys.executable} "$@";;
        esac
        """)
    fake_bazel = f"#!/usr/bin/env bash\necho \"bazel $*\" >> {calls}\n" + \
        "[ \"$1\" = test ] && echo '//e2e:a__tf__iree_vmla  PASSED in 1.0s'\nexit 0\n"
    for path, text in ((os.path.join(root, ".venv", "bin", "python"), fake_python),
                       (os.path.join(root, "bin", "bazel"), fake_bazel)):
      os.makedirs(os.path.dirname(path), exist_ok=True)
      with open(path, "w") as f:
        f.write(text)
      os.chmod(path, 0o755)
    env = dict(os.environ, PATH=os.path.join(root, "bin") + os.pathsep + os.environ["PATH"])
    process = subprocess.run(["bash", os.path.join(root, "scripts", "test.sh")], env=env,
                             capture_output=True, text=True, timeout=120, check=False)
    with open(calls) as f:
      return process.stdout.splitlines(), process.returncode, f.read()

  def test_test_sh_stops_after_a_failing_fast_tier(self):
    lines, status, calls = self.run_test_sh(fast_status=1)
    self.assertEqual(status, 1)
    self.assertNotIn("--tier=slow", calls)
    self.assertNotIn("bazel", calls)
    self.assertEqual(lines[-2:], [
        "fast tier: 2 passed, 1 failed; slow tier: not run; e2e (Bazel): not run",
        "2 passed, 1 failed"])

  def test_test_sh_runs_both_tiers_then_bazel_and_adds_them_up(self):
    lines, status, calls = self.run_test_sh(fast_status=0)
    self.assertEqual(status, 0, lines)
    self.assertLess(calls.index("--tier=fast"), calls.index("--tier=slow"))
    self.assertLess(calls.index("--tier=slow"), calls.index("bazel test"))
    self.assertEqual(lines[-2:], [
        "fast tier: 2 passed, 0 failed; slow tier: 3 passed, 0 failed; e2e (Bazel): 1 passed, "
        "0 failed", "6 passed, 0 failed"])


if __name__ == "__main__":
  absltest.main()
