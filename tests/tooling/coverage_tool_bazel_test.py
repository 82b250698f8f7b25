"""`python -m pyiree_tf_support.tools.update_e2e_coverage` on a package of its own (`--dirs`), and
the Bazel servers it leaves: none. Reading the last run starts no Bazel; `--run` runs the suites of
--dirs in the tool's own output base and shuts its server down, also when interrupted.

A copy of this workspace with a tiny `my_tests/` package (one file passing, one listed as failing
to compile on llvm-cpu) and the real Bazel; servers are found by their command line in /proc.
"""

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from typing import List
import unittest

from absl.testing import absltest

from pyiree_tf_support import cli_flags
from tests.support import child_processes
from tests.support import test_files

UNDER_BAZEL = "TEST_SRCDIR" in os.environ

TOOL = ["-m", "pyiree_tf_support.tools.update_e2e_coverage"]
ERF = "failed to legalize operation 'stablehlo.custom_call' (tf.math.erf)"
BUILD = textwrap.dedent(f'''\
    load("//build_tools/bazel:iree_e2e_test_suite.bzl", "iree_e2e_test_suite")

    FAILING = {{
        "iree_llvmjit": {{
            "erf_test.py": ("compile", "{ERF}"),
        }},
    }}

    iree_e2e_test_suite(
        name = "my_tests",
        backends_to_srcs = {{
            "tf": ["double_test.py", "erf_test.py"],
            "iree_llvmjit": ["double_test.py"],
        }},
        reference_backend = "tf",
        deps = ["//:pyiree_tf_support"],
    )

    iree_e2e_test_suite(
        name = "my_tests_failing",
        backends_to_srcs = {{"iree_llvmjit": ["erf_test.py"]}},
        reference_backend = "tf",
        deps = ["//:pyiree_tf_support"],
        expect_failure = True,
        expected_failure_phases = {{"iree_llvmjit": {{"erf_test.py": "compile"}}}},
        tags = ["manual"],
    )
    ''')
PASSING_XML = ('<?xml version="1.0"?><testsuites><testsuite name="T" tests="1" failures="0" '
               'errors="0"><testcase name="test_f" status="run" result="completed"/>'
               '</testsuite></testsuites>\n')


def bazel_servers(workspace: str) -> List[int]:
  """Pids of the Bazel servers whose workspace is `workspace` (read from /proc)."""
  pids = []
  for path in glob.glob("/proc/[0-9]*/cmdline"):
    try:
      with open(path, "rb") as f:
        arguments = f.read().split(b"\0")
    except OSError:
      continue
    if f"--workspace_directory={workspace}".encode() in arguments:
      pids.append(int(path.split("/")[2]))
  return pids


@unittest.skipIf(UNDER_BAZEL, "copies the source workspace and runs bazel, which a Bazel test "
                 "sandbox cannot")
class CoverageToolTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    # Imported here: a Bazel test's runfiles hold neither the workspace nor that file.
    from tests.tooling import bazel_test
    self.ws = bazel_test.TempWorkspace(self)
    self.root = os.path.realpath(self.ws.root)
    self.cache = self.tempdir()
    package = os.path.join(self.root, "my_tests")
    os.makedirs(package)
    with open(os.path.join(package, "BUILD.bazel"), "w") as f:
      f.write(BUILD)
    for name, body in (("Double", "a + a"), ("Erf", "tf.math.erf(a)")):
      with open(os.path.join(package, f"{name.lower()}_test.py"), "w") as f:
        f.write(test_files.one_method_test(name, body))
    self.addCleanup(self.shut_down_leftovers)

  def tempdir(self) -> str:
    path = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, path, ignore_errors=True)
    return path

  def shut_down_leftovers(self) -> None:
    """A server a failing run left: shut down by its own output base (never by name)."""
    if not bazel_servers(self.root):
      return
    bases = glob.glob(os.path.join(self.cache, "pyiree_tf_support", "bazel", "*"))
    for startup in [[f"--output_base={b}"] for b in bases] + [[]]:
      subprocess.run(["bazel", *startup, "shutdown"], cwd=self.root, capture_output=True,
                     timeout=120, check=False)

  def env(self) -> dict:
    variables = dict(os.environ, PYTHONPATH=self.root, TF_CPP_MIN_LOG_LEVEL="2",
                     XDG_CACHE_HOME=self.cache)
    variables.pop(cli_flags.ENV_VAR, None)
    return variables

  def tool(self, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *TOOL, *args], cwd=self.root, env=self.env(),
                          capture_output=True, text=True, timeout=timeout, check=False)

  def table_rows(self, output_dir: str) -> List[str]:
    with open(os.path.join(output_dir, "e2e_coverage.md"), encoding="utf-8") as f:
      return [line for line in f.read().splitlines() if line.startswith("| `")]

  def test_dirs_choose_the_rows_of_the_table(self):
    testlogs = self.tempdir()
    for suite, stem, backend in (("my_tests", "double_test", "tf"),
                                 ("my_tests", "double_test", "iree_llvmjit"),
                                 ("my_tests", "erf_test", "tf"),
                                 ("my_tests_failing", "erf_test", "iree_llvmjit")):
      target = os.path.join(testlogs, "my_tests", f"{suite}_{stem}__tf__{backend}")
      os.makedirs(target)
      with open(os.path.join(target, "test.xml"), "w") as f:
        f.write(PASSING_XML)
    output = self.tempdir()
    done = self.tool("--dirs=my_tests", f"--testlogs={testlogs}", f"--output_dir={output}")
    self.assertEqual(done.returncode, 1, done.stderr)  # vmvx, Vulkan and tflite did not run
    self.assertEqual(self.table_rows(output), [
        "| `double_test.py` | pass | not run | pass | not run | not run |",
        "| `erf_test.py` | pass | not run | fail (expected): compile: failed to legalize "
        "operation … [1] | not run | not run |"])
    both = self.tempdir()
    done = self.tool("--dirs=my_tests,e2e", f"--testlogs={testlogs}", f"--output_dir={both}")
    rows = self.table_rows(both)
    self.assertIn("| `my_tests/double_test.py` | pass | not run | pass | not run | not run |", rows)
    self.assertIn("| `e2e/simple_arithmetic_test.py` | not run | not run | not run | not run | "
                  "not run |", rows)
    self.assertEqual(bazel_servers(self.root), [])

  def test_a_bad_dir_is_a_one_line_usage_error(self):
    done = self.tool("--dirs=my_tests,absent")
    self.assertEqual(done.returncode, 2)
    self.assertIn("--dirs: 'absent' has no BUILD.bazel", done.stderr.splitlines()[-1])

  def test_reading_the_last_run_starts_no_bazel_server(self):
    done = self.tool(f"--output_dir={self.tempdir()}", "--dirs=my_tests")
    self.assertEqual(done.returncode, 2, done.stderr)
    self.assertIn("no Bazel run to read", done.stderr)
    self.assertEqual(bazel_servers(self.root), [])

  def test_run_tests_the_suites_of_dirs_and_shuts_its_server_down(self):
    output = self.tempdir()
    done = self.tool("--run", "--dirs=my_tests", f"--output_dir={output}")
    self.assertEqual(self.table_rows(output), [
        "| `double_test.py` | pass | not run | pass | not run | not run |",
        "| `erf_test.py` | pass | not run | fail (expected): compile: failed to legalize "
        "operation … [1] | not run | not run |"], done.stderr[-3000:])
    self.assertEqual(done.returncode, 1, done.stderr[-3000:])  # vmvx, Vulkan and tflite did not run
    self.assertNotIn("e2e_tests", done.stderr)  # the e2e suites did not run
    self.assertEqual(bazel_servers(self.root), [])
    # Its own output base, kept for the next run's cached results.
    bases = glob.glob(os.path.join(self.cache, "pyiree_tf_support", "bazel", "*"))
    self.assertLen(bases, 1)
    self.assertTrue(os.path.isdir(os.path.join(bases[0], "execroot")))

  def test_the_users_running_server_in_output_base_is_left_running(self):
    output_base = self.tempdir()
    user = ["bazel", f"--output_base={output_base}"]
    started = subprocess.run(user + ["info", "bazel-testlogs"], cwd=self.root, text=True,
                             capture_output=True, timeout=300, check=False)
    self.addCleanup(subprocess.run, user + ["shutdown"], cwd=self.root, capture_output=True,
                    timeout=120, check=False)
    self.assertEqual(started.returncode, 0, started.stderr[-2000:])
    servers = bazel_servers(self.root)
    self.assertLen(servers, 1)
    # Reads the last run of that output base: `bazel info` through the user's server.
    done = self.tool("--dirs=my_tests", f"--output_base={output_base}",
                     f"--output_dir={self.tempdir()}")
    self.assertEqual(done.returncode, 2, done.stderr)  # that output base ran no test yet
    self.assertIn(f"no Bazel run to read: {started.stdout.strip()} is not a directory",
                  done.stderr)
    self.assertEqual(bazel_servers(self.root), servers)

  def test_ctrl_c_during_a_run_shuts_its_server_down(self):
    process = subprocess.Popen([sys.executable, *TOOL, "--run", "--dirs=my_tests",
                                f"--output_dir={self.tempdir()}"], cwd=self.root,
                               env=self.env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=child_processes.interruptible)
    self.addCleanup(lambda: process.poll() is not None or process.kill())
    deadline = time.monotonic() + 300
    while not bazel_servers(self.root) and time.monotonic() < deadline:
      self.assertIsNone(process.poll(), "the tool ended before its Bazel server started")
      time.sleep(0.2)
    self.assertNotEqual(bazel_servers(self.root), [], "no Bazel server started")
    time.sleep(2)  # into the build
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the whole group
    _, stderr = process.communicate(timeout=300)
    self.assertNotEqual(process.returncode, 0, stderr[-2000:])
    deadline = time.monotonic() + 30
    while bazel_servers(self.root) and time.monotonic() < deadline:
      time.sleep(0.5)
    self.assertEqual(bazel_servers(self.root), [], stderr[-2000:])


if __name__ == "__main__":
  absltest.main()
