"""`python -m pyiree_tf_support.tools.update_e2e_coverage --update_lists` on real runs of two tiny
e2e files: one that passes everywhere and one using tf.math.erf, which IREE fails to compile. The
lists of a BUILD.bazel are made true to the run (added, removed, phase changed, untyped given a
phase, cells not run left as they are) and the rest of the file stays byte-identical."""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import zipfile

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support import cli_flags
from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.reporting import expected_failures
from pyiree_tf_support.reporting.expected_failures import ExpectedFailure
from tests.support import test_files

# Under Bazel, realpath leads from the runfiles back to the source tree.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
TOOL = ["-m", "pyiree_tf_support.tools.update_e2e_coverage"]

ERF_ERROR = ("error: failed to legalize operation 'stablehlo.custom_call' that was explicitly "
             "marked illegal")
HEAD = "# A hand-written header.\nload(\"//x:y.bzl\", \"z\")\n\n"
TAIL = "\n\n# The rest of the file.\nOTHER = [b for b in FAILING]  # kept as it is\n"


def build_text(literal: str) -> str:
  return HEAD + "FAILING = " + textwrap.dedent(literal).strip() + TAIL


def env() -> dict:
  variables = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
  variables.pop(cli_flags.ENV_VAR, None)
  return variables


class UpdateListsTest(parameterized.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.dir = tempfile.mkdtemp(prefix="update_lists_")
    cls.files = os.path.join(cls.dir, "files")
    os.mkdir(cls.files)
    for name, body in (("Erf", "tf.math.erf(a)"), ("Double", "a + a")):
      with open(os.path.join(cls.files, f"{name.lower()}_test.py"), "w") as f:
        f.write(test_files.one_method_test(name, body))
    # The run: pytest with the plugin, with no BUILD.bazel beside the files (nothing expected).
    cls.artifacts = os.path.join(cls.dir, "artifacts")
    cls.pytest_log = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", "files", "--target_backends=iree_vmla,iree_llvmjit",
         f"--artifacts_dir={cls.artifacts}", "--nocompile_cache"],
        capture_output=True, text=True, cwd=cls.dir, env=env(), timeout=600, check=False)
    # A file run by itself, as a Bazel test runs it (test ids "__main__.<Class>.<test>"), laid out
    # as bazel-testlogs: <package>/<suite>_<stem>__tf__<backend>/test.outputs/outputs.zip.
    # A sharded test has a shard_i_of_n directory per shard (here shard 1 ran no test).
    cls.testlogs = os.path.join(cls.dir, "bazel-testlogs")
    os.makedirs(os.path.join(cls.testlogs, "pkg", "my_tests_erf_test__tf__iree_vmla",
                             "shard_1_of_2", "test.outputs"))
    for stem, backend, shard in (("erf_test", "iree_llvmjit", ""),
                                 ("double_test", "iree_llvmjit", ""),
                                 ("erf_test", "iree_vmla", "shard_2_of_2")):
      outputs = os.path.join(cls.dir, f"outputs_{stem}_{backend}")
      subprocess.run([sys.executable, os.path.join(cls.files, f"{stem}.py"),
                      f"--target_backends={backend}", f"--artifacts_dir={outputs}",
                      "--nocompile_cache"], capture_output=True, env=env(), timeout=600,
                     check=False)
      target = os.path.join(cls.testlogs, "pkg", f"my_tests_{stem}__tf__{backend}", shard,
                            "test.outputs")
      os.makedirs(target)
      with zipfile.ZipFile(os.path.join(target, "outputs.zip"), "w") as z:
        for path in glob.glob(os.path.join(outputs, "*", "report.json")):
          z.write(path, os.path.relpath(path, outputs))

  @classmethod
  def tearDownClass(cls):
    shutil.rmtree(cls.dir, ignore_errors=True)
    super().tearDownClass()

  def package(self, literal: str, name: str = "pkg") -> str:
    """A directory `name` holding the two test files and a BUILD.bazel with FAILING = literal."""
    directory = os.path.join(tempfile.mkdtemp(dir=self.dir), name)
    shutil.copytree(self.files, directory)
    with open(os.path.join(directory, "BUILD.bazel"), "w") as f:
      f.write(build_text(literal))
    return directory

  def update(self, directory: str, *source: str) -> subprocess.CompletedProcess:
    source = source or (f"--artifacts_dir={self.artifacts}",)
    return subprocess.run([sys.executable, *TOOL, "--update_lists", f"--dirs={directory}",
                           *source], capture_output=True, text=True, env=env(), timeout=120,
                          check=False)

  def lists(self, directory: str):
    return expected_failures.read(os.path.join(directory, "BUILD.bazel")).lists

  def test_the_run_really_failed_erf_at_compile_time_and_passed_the_other(self):
    self.assertIn("2 failed, 2 passed", self.pytest_log.stdout)

  def test_failures_are_added_passes_removed_and_the_rest_of_the_file_kept(self):
    directory = self.package('''
        {
            # A hand-written comment above a backend.
            "iree_llvmjit": {
                "double_test.py": ("compile", "listed, but it passes now"),
            },
            "tf": {},
        }''')
    done = self.update(directory)
    self.assertEqual(done.returncode, 0, done.stderr)
    lists = self.lists(directory)
    self.assertEqual(set(lists), {"tf", "iree_vmla", "iree_llvmjit"})
    self.assertEqual(lists["tf"], {})
    for backend in ("iree_vmla", "iree_llvmjit"):
      self.assertEqual(list(lists[backend]), ["erf_test.py"])
      self.assertIs(lists[backend]["erf_test.py"].phase, Phase.COMPILE)
      self.assertStartsWith(lists[backend]["erf_test.py"].reason, ERF_ERROR)
    with open(os.path.join(directory, "BUILD.bazel")) as f:
      text = f.read()
    self.assertStartsWith(text, HEAD + "FAILING = {\n")
    self.assertEndsWith(text, "\n}" + TAIL)
    self.assertIn('    # A hand-written comment above a backend.\n    "iree_llvmjit": {\n', text)
    self.assertIn('    # Backend "iree_vmla": IREE target vmvx on the local-task driver.\n', text)
    self.assertIn('    "tf": {\n    },\n', text)
    lines = done.stdout.splitlines()
    self.assertEndsWith(lines[0], ": 2 added, 1 removed, 0 phase changed, 0 phase set")
    self.assertIn("  removed double_test.py on iree_llvmjit (passed)", lines)
    self.assertTrue(any(line.startswith(f"  added   erf_test.py on iree_vmla: compile: {ERF_ERROR}")
                        for line in lines), lines)

  def test_a_second_update_from_the_same_run_changes_nothing(self):
    directory = self.package('{"iree_vmla": {}}')
    self.assertEqual(self.update(directory).returncode, 0)
    with open(os.path.join(directory, "BUILD.bazel"), "rb") as f:
      first = f.read()
    again = self.update(directory)
    self.assertEqual(again.returncode, 0, again.stderr)
    self.assertIn(": 0 added, 0 removed, 0 phase changed, 0 phase set (file unchanged)",
                  again.stdout)
    with open(os.path.join(directory, "BUILD.bazel"), "rb") as f:
      self.assertEqual(f.read(), first)

  @parameterized.named_parameters(
      ("same_phase_keeps_the_human_reason", ("compile", "why, in a human's words"),
       ExpectedFailure(Phase.COMPILE, "why, in a human's words"), None),
      ("untyped_gets_the_phase_and_keeps_the_reason", "why, in a human's words",
       ExpectedFailure(Phase.COMPILE, "why, in a human's words"),
       "phase set erf_test.py on iree_vmla: "
       "untyped -> compile"),
      ("another_phase_gets_the_new_first_error", ("mismatch", "it used to miscompute"),
       None, "phase changed erf_test.py on iree_vmla: mismatch -> compile: " + ERF_ERROR),
  )
  def test_a_listed_failure_that_still_fails(self, listed, expected, change):
    directory = self.package('{"iree_vmla": {"erf_test.py": %r}}' % (listed,))
    done = self.update(directory)
    self.assertEqual(done.returncode, 0, done.stderr)
    got = self.lists(directory)["iree_vmla"]["erf_test.py"]
    if expected is not None:
      self.assertEqual(got, expected)
    else:
      self.assertIs(got.phase, Phase.COMPILE)
      self.assertStartsWith(got.reason, ERF_ERROR)
    if change is None:
      self.assertNotIn("on iree_vmla", done.stdout)
    else:
      self.assertTrue(any(line.strip().startswith(change) for line in done.stdout.splitlines()),
                      done.stdout)

  def test_cells_the_run_does_not_hold_are_left_as_they_are_and_named(self):
    directory = self.package('''
        {
            "iree_vulkan": {
                "double_test.py": ("runtime", "not run here"),
            },
        }''')
    done = self.update(directory)
    self.assertEqual(done.returncode, 0, done.stderr)
    self.assertEqual(self.lists(directory)["iree_vulkan"],
                     {"double_test.py": ExpectedFailure(Phase.RUNTIME, "not run here")})
    self.assertIn("  1 listed cell(s) not in this run, left as they are: "
                  "double_test.py@iree_vulkan", done.stdout.splitlines())

  def test_bazel_testlogs_name_the_file_and_backend_of_each_target(self):
    directory = self.package('''
        {
            "iree_llvmjit": {
                "double_test.py": ("mismatch", "listed, but it passes now"),
            },
        }''')
    done = self.update(directory, f"--testlogs={self.testlogs}")
    self.assertEqual(done.returncode, 0, done.stderr)
    lists = self.lists(directory)
    self.assertEqual(list(lists["iree_llvmjit"]), ["erf_test.py"])
    self.assertStartsWith(lists["iree_llvmjit"]["erf_test.py"].reason, ERF_ERROR)
    self.assertEqual(list(lists["iree_vmla"]), ["erf_test.py"])  # from its sharded target.
    self.assertIn(": 2 added, 1 removed, 0 phase changed, 0 phase set", done.stdout)

  def test_an_older_target_of_the_same_cell_is_not_read(self):
    # bazel-testlogs keeps the outputs of targets an earlier run had, here a report written before
    # reports recorded phases; the cell's newer target wins and the old one is never parsed.
    testlogs = os.path.join(tempfile.mkdtemp(dir=self.dir), "bazel-testlogs")
    shutil.copytree(self.testlogs, testlogs)
    stale = os.path.join(testlogs, "pkg", "my_tests_failing_double_test__tf__iree_llvmjit",
                         "test.outputs")
    os.makedirs(stale)
    old_report = {"format": "pyiree_tf_support.report/1", "tests": {"__main__.T.test_f": {
        "traces": [{"backends": [{"backend": "iree_llvmjit", "outcome": "XFAIL"}]}]}}}
    with zipfile.ZipFile(os.path.join(stale, "outputs.zip"), "w") as z:
      z.writestr("DoubleModule/report.json", json.dumps(old_report))
    os.utime(os.path.join(stale, "outputs.zip"), (1e9, 1e9))
    directory = self.package('{"iree_llvmjit": {}}')
    done = self.update(directory, f"--testlogs={testlogs}")
    self.assertEqual(done.returncode, 0, done.stderr)
    self.assertEqual(list(self.lists(directory)["iree_llvmjit"]), ["erf_test.py"])

  def test_a_package_of_another_name_takes_nothing_from_the_testlogs(self):
    directory = self.package('{"iree_llvmjit": {}}', name="other")
    done = self.update(directory, f"--testlogs={self.testlogs}")
    self.assertEqual(done.returncode, 2)
    self.assertEqual(done.stderr.splitlines(), [
        f"ERROR: no run found: no e2e test of {directory} left a report.json under "
        f"{self.testlogs}"])


class BadInputTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix="update_lists_bad_")
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    self.suite = os.path.join(self.dir, "suite")
    os.mkdir(self.suite)
    self.write("suite/BUILD.bazel", build_text('{"iree_vmla": {}}'))

  def write(self, relative: str, text: str) -> str:
    path = os.path.join(self.dir, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
      f.write(text)
    return path

  def update(self, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *TOOL, "--update_lists", f"--dirs={self.suite}",
                           *args], capture_output=True, text=True, env=env(), timeout=120,
                          check=False)

  def assert_one_line_error(self, done: subprocess.CompletedProcess, message: str) -> None:
    self.assertEqual(done.returncode, 2, done.stdout + done.stderr)
    self.assertEqual(done.stderr.splitlines(), [f"ERROR: {message}"])
    with open(os.path.join(self.suite, "BUILD.bazel")) as f:
      self.assertEqual(f.read(), build_text('{"iree_vmla": {}}'))

  def test_no_run_in_the_artifacts_dir(self):
    empty = os.path.join(self.dir, "empty")
    os.mkdir(empty)
    self.assert_one_line_error(self.update(f"--artifacts_dir={empty}"), (
        f"no run found: {empty} has no <Module>/report.json (pass the --artifacts_dir of a "
        "pytest or python run of e2e files)"))

  def test_no_testlogs(self):
    missing = os.path.join(self.dir, "bazel-testlogs")
    self.assert_one_line_error(self.update(f"--testlogs={missing}"), (
        f"no run found: {missing} is not a directory (bazel-testlogs of a run)"))

  def test_a_report_of_another_format(self):
    path = self.write("artifacts/M/report.json", '{"format": "something/else", "tests": {}}')
    self.assert_one_line_error(self.update(f"--artifacts_dir={self.dir}/artifacts"), (
        f"{path}: format 'something/else' is not a pyiree_tf_support report "
        "(pyiree_tf_support.report/N with a 'tests' dict)"))

  def test_a_report_of_another_shape(self):
    path = self.write("artifacts/M/report.json",
                      '{"format": "pyiree_tf_support.report/1", "tests": {"t": {"traces": 3}}}')
    self.assert_one_line_error(self.update(f"--artifacts_dir={self.dir}/artifacts"), (
        f"{path}: t's traces is not a list of objects, as a pyiree_tf_support report has"))

  def test_a_report_that_is_not_json(self):
    path = self.write("artifacts/M/report.json", "{truncated")
    done = self.update(f"--artifacts_dir={self.dir}/artifacts")
    self.assertEqual(done.returncode, 2)
    self.assertLen(done.stderr.splitlines(), 1)
    self.assertStartsWith(done.stderr, f"ERROR: {path}: not JSON (")

  def test_a_build_file_without_failing(self):
    self.write("suite/BUILD.bazel", 'load("//x:y.bzl", "z")\n')
    done = self.update(f"--artifacts_dir={self.dir}")
    self.assertEqual(done.returncode, 2)
    self.assertEqual(done.stderr.splitlines(), [
        f"ERROR: {self.suite}/BUILD.bazel: no FAILING dict literal "
        "{backend: {file: (phase, reason)}}"])


if __name__ == "__main__":
  absltest.main()
