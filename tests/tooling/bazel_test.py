"""Bazel contracts, checked with the real Bazel: 2020 target names and tags, manual binaries,
a backend added by one table row, and a user's own package as docs/driving.md teaches it.

These run `bazel` themselves, so they are skipped inside a Bazel test sandbox
(`bazel test //tests/...`); `scripts/test.sh` runs them with pytest.
"""

import filecmp
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List, Set
import unittest

from absl.testing import absltest
from absl.testing import parameterized

from tests.support.repo import ROOT

UNDER_BAZEL = "TEST_SRCDIR" in os.environ
NEEDS_BAZEL = unittest.skipIf(UNDER_BAZEL, "runs bazel itself, which a Bazel test sandbox cannot")

# What a copy of the workspace needs: the library (and its tools), Bazel files, the e2e corpus and
# the scripts.
_COPIED = ("WORKSPACE", ".bazelrc", ".bazelignore", "BUILD.bazel", "pyiree_tf_support",
           "build_tools", "e2e", "scripts")

FAKE_ROW = '''    BackendSpec(
        name="iree_fake",
        description="llvm-cpu under a new name: a test's fake backend",
        driver="local-task",
        compiler_targets=("llvm-cpu",),
        compiler_flags=("--iree-llvmcpu-target-cpu=host",)),
'''
FAKE_FAILING = '''    "iree_fake": {
        "special_math_test.py": ("compile", "a fake backend's known failure"),
    },
'''


def bazel(workspace: str, *args: str, user_root: str = "") -> subprocess.CompletedProcess:
  startup = [f"--output_user_root={user_root}"] if user_root else []
  return subprocess.run(["bazel", *startup, *args], cwd=workspace, capture_output=True, text=True,
                        timeout=900, check=False)


def labels(process: subprocess.CompletedProcess) -> Set[str]:
  if process.returncode != 0:
    raise AssertionError(f"bazel failed ({process.returncode}):\n{process.stderr[-3000:]}")
  return {line for line in process.stdout.splitlines() if line.startswith("//")}


def tags_of(workspace: str, label: str, user_root: str = "") -> List[str]:
  rule = bazel(workspace, "query", "--output=build", label, user_root=user_root)
  found = re.search(r"^\s*tags = \[(.*?)\],$", rule.stdout, re.M)
  return re.findall(r'"([^"]*)"', found.group(1)) if found else []


def make_tempdir(test: absltest.TestCase) -> str:
  path = tempfile.mkdtemp()
  test.addCleanup(shutil.rmtree, path, ignore_errors=True)
  return path


class TempWorkspace:
  """A copy of this workspace in a temporary directory, with its own Bazel server."""

  def __init__(self, test: absltest.TestCase):
    self.root = make_tempdir(test)
    self.user_root = os.path.join(tempfile.gettempdir(), "pyiree_tf_support_bazel_test")
    for name in _COPIED:
      source, target = os.path.join(ROOT, name), os.path.join(self.root, name)
      if os.path.isdir(source):
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
      else:
        shutil.copy(source, target)
    os.symlink(os.path.join(ROOT, ".venv"), os.path.join(self.root, ".venv"))
    test.addCleanup(lambda: bazel(self.root, "shutdown", user_root=self.user_root))

  def bazel(self, *args: str) -> subprocess.CompletedProcess:
    return bazel(self.root, *args, user_root=self.user_root)

  def python(self, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=self.root, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.run([sys.executable, *args], cwd=self.root, env=env, capture_output=True,
                          text=True, timeout=600, check=False)

  def edit(self, path: str, before: str, insert: str) -> None:
    """Inserts `insert` before the first `before` in the file at `path` (relative to the root)."""
    path = os.path.join(self.root, path)
    with open(path) as f:
      text = f.read()
    if before not in text:
      raise AssertionError(f"{path} has no {before!r}")
    with open(path, "w") as f:
      f.write(text.replace(before, insert + before, 1))

  def changed_files(self) -> Set[str]:
    """Files of the copy that differ from (or are missing in) this workspace."""
    changed = set()
    for name in _COPIED:
      for directory, dirs, files in os.walk(os.path.join(self.root, name)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for file in files:
          relative = os.path.relpath(os.path.join(directory, file), self.root)
          original = os.path.join(ROOT, relative)
          if not os.path.exists(original) or not filecmp.cmp(
              original, os.path.join(self.root, relative), shallow=False):
            changed.add(relative)
      if os.path.isfile(os.path.join(self.root, name)) and not filecmp.cmp(
          os.path.join(ROOT, name), os.path.join(self.root, name), shallow=False):
        changed.add(name)
    return changed


@NEEDS_BAZEL
class TargetNamesTest(parameterized.TestCase):
  """The 2020 contracts of iree_e2e_test_suite, on this repository's e2e package."""

  def test_the_e2e_suite_lists_the_2020_target_names(self):
    tests = labels(bazel(ROOT, "query", "tests(//e2e:e2e_tests)"))
    self.assertIn("//e2e:e2e_tests_simple_arithmetic_test__tf__iree_vmla", tests)
    failing = labels(bazel(ROOT, "query", "tests(//e2e:e2e_tests_failing)"))
    self.assertIn("//e2e:e2e_tests_failing_special_math_test__tf__iree_vulkan", failing)

  @parameterized.named_parameters(
      ("tf", "tf", ["driver=tf"]),
      ("vmla", "iree_vmla", ["driver=vmla", "driver=vmvx"]),
      ("llvm", "iree_llvmjit", ["driver=llvm", "driver=llvm-cpu"]),
      ("vulkan", "iree_vulkan", ["driver=vulkan"]),
  )
  def test_driver_tags_have_the_2020_values_and_todays_beside_them(self, backend, expected):
    label = f"//e2e:e2e_tests_simple_arithmetic_test__tf__{backend}"
    self.assertEqual(tags_of(ROOT, label), expected)

  def test_suite_tags_reach_the_tests_and_the_suite(self):
    self.assertIn("manual", tags_of(ROOT, "//e2e:e2e_tests_failing"))
    tags = tags_of(ROOT, "//e2e:e2e_tests_failing_special_math_test__tf__iree_vulkan")
    self.assertCountEqual(tags, ["manual", "driver=vulkan"])

  @parameterized.named_parameters(
      ("compile", "//e2e:e2e_tests_failing_special_math_test__tf__iree_vmla",
       "--xfail_backends=iree_vmla:compile"),
      ("mismatch", "//e2e:e2e_tests_failing_integer_test__tf__iree_vmla",
       "--xfail_backends=iree_vmla:mismatch"),
      ("runtime", "//e2e:e2e_tests_failing_float64_test__tf__iree_vulkan",
       "--xfail_backends=iree_vulkan:runtime"),
      ("import_keras", "//e2e/keras:keras_tests_failing_lstm_test__tf__iree_llvmjit",
       "--xfail_backends=iree_llvmjit:import"),
  )
  def test_a_failing_test_is_expected_to_fail_in_its_listed_phase(self, label, flag):
    rule = bazel(ROOT, "query", "--output=build", label)
    self.assertEqual(rule.returncode, 0, rule.stderr[-2000:])
    args = re.search(r"^\s*args = \[(.*?)\],$", rule.stdout, re.M).group(1)
    self.assertEqual(re.findall(r'"([^"]*)"', args)[-1], flag)

  def test_every_e2e_file_has_a_manual_binary(self):
    binaries = labels(bazel(ROOT, "query", "attr(tags, manual, kind(py_binary, //e2e:all))"))
    files = sorted(f for f in os.listdir(os.path.join(ROOT, "e2e")) if f.endswith("_test.py"))
    self.assertEqual(binaries, {f"//e2e:{f[:-len('.py')]}_manual" for f in files})


@NEEDS_BAZEL
class AddingABackendTest(absltest.TestCase):
  """docs/backends.md "Adding a backend": one table row plus one expected-failure list, nothing
  else."""

  def test_a_fake_backend_needs_only_its_row_and_its_failure_list(self):
    ws = TempWorkspace(self)
    ws.edit("pyiree_tf_support/core/backends.py", ")\n\n_BY_NAME", FAKE_ROW)
    stale = ws.python("-m", "pyiree_tf_support.tools.generate_backends_bzl", "--check")
    self.assertEqual(stale.returncode, 1, "backends.bzl should be reported stale after a new row")
    self.assertEqual(ws.python("-m", "pyiree_tf_support.tools.generate_backends_bzl").returncode, 0)

    # Without its failure list the e2e package refuses to load, saying what to add.
    missing = ws.bazel("query", "tests(//e2e:e2e_tests)")
    self.assertNotEqual(missing.returncode, 0)
    self.assertIn('the backend table has "iree_fake" but FAILING has no list for it',
                  missing.stderr)

    ws.edit("e2e/BUILD.bazel", "}\n\n_ALL_SRCS", FAKE_FAILING)
    passing = labels(ws.bazel("query", "tests(//e2e:e2e_tests)"))
    failing = labels(ws.bazel("query", "tests(//e2e:e2e_tests_failing)"))
    self.assertIn("//e2e:e2e_tests_simple_arithmetic_test__tf__iree_fake", passing)
    self.assertNotIn("//e2e:e2e_tests_special_math_test__tf__iree_fake", passing)
    self.assertIn("//e2e:e2e_tests_failing_special_math_test__tf__iree_fake", failing)
    self.assertEqual(tags_of(ws.root, "//e2e:e2e_tests_simple_arithmetic_test__tf__iree_fake",
                             ws.user_root), ["driver=fake"])

    tools = ws.python("-c", "from pyiree_tf_support.tools import e2e_lists, update_e2e_coverage "
                      "as c; print(c.BACKENDS); print(e2e_lists.failing_by_backend()['iree_fake'])")
    self.assertEqual(tools.returncode, 0, tools.stderr)
    self.assertIn("'iree_fake'", tools.stdout.splitlines()[0])
    self.assertIn("special_math_test.py", tools.stdout.splitlines()[1])

    run = ws.python("e2e/simple_arithmetic_test.py", "--target_backends=iree_fake",
                    f"--artifacts_dir={make_tempdir(self)}", "--nocompile_cache")
    self.assertEqual(run.returncode, 0, run.stderr[-3000:])
    self.assertIn("1 pass (iree_fake)", run.stderr)

    self.assertEqual(ws.changed_files(), {"pyiree_tf_support/core/backends.py", "e2e/BUILD.bazel",
                                          "build_tools/bazel/backends.bzl"})


@NEEDS_BAZEL
class FailingPhaseCheckTest(parameterized.TestCase):
  """A FAILING entry whose phase is not one of the five stops the package from loading."""

  @parameterized.named_parameters(
      ("e2e", "e2e/BUILD.bazel", '"integer_test.py": ("mismatch", ',
       '"integer_test.py": ("miscompile", ', "//e2e:all",
       "FAILING['iree_vmla']['integer_test.py'] must be (phase, reason) with phase one of "
       '["import", "compile", "runtime", "mismatch", "reference_error"], got ("miscompile", '),
      ("keras", "e2e/keras/BUILD.bazel", '"lstm_test.py": ("import", ',
       '"lstm_test.py": ("linking", ', "//e2e/keras:all",
       "FAILING['iree_vmla']['lstm_test.py'] must be (phase, reason) with phase one of "
       '["import", "compile", "runtime", "mismatch", "reference_error"], got ("linking", '),
  )
  def test_a_phase_not_among_the_five_is_a_load_error(self, build, before, after, pattern,
                                                       message):
    ws = TempWorkspace(self)
    path = os.path.join(ws.root, build)
    with open(path) as f:
      text = f.read()
    with open(path, "w") as f:
      f.write(text.replace(before, after, 1))
    process = ws.bazel("query", f"tests({pattern})")
    self.assertNotEqual(process.returncode, 0)
    self.assertIn(message.replace("'", '"'), process.stderr)


def readme_block(first_line: str) -> str:
  """The fenced code block of docs/driving.md whose first line is `first_line`."""
  with open(os.path.join(ROOT, "docs", "driving.md")) as f:
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```$", f.read(), re.M | re.S)
  matching = [b for b in blocks if b.startswith(first_line + "\n")]
  if len(matching) != 1:
    raise AssertionError(f"docs/driving.md should have one code block starting {first_line!r}")
  return matching[0]


@NEEDS_BAZEL
class UserPackageTest(absltest.TestCase):
  """docs/driving.md "Your own test files under Bazel", followed literally in a copy of the
  workspace."""

  def test_the_readme_build_file_makes_tests_and_a_manual_binary_that_pass(self):
    ws = TempWorkspace(self)
    os.makedirs(os.path.join(ws.root, "my_tests"))
    with open(os.path.join(ws.root, "my_tests", "BUILD.bazel"), "w") as f:
      f.write(readme_block("# my_tests/BUILD.bazel"))
    shutil.copy(os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"),
                os.path.join(ws.root, "my_tests", "my_model_test.py"))

    self.assertEqual(labels(ws.bazel("query", "tests(//my_tests:my_tests)")), {
        f"//my_tests:my_tests_my_model_test__tf__{b}"
        for b in ("tf", "iree_vmla", "iree_llvmjit", "iree_vulkan")})
    tested = ws.bazel("test", "//my_tests:my_tests", "--test_tag_filters=driver=llvm")
    self.assertEqual(tested.returncode, 0, tested.stdout[-3000:] + tested.stderr[-3000:])
    self.assertIn("my_tests_my_model_test__tf__iree_llvmjit", tested.stdout + tested.stderr)
    ran = ws.bazel("run", "//my_tests:my_model_test_manual", "--", "--target_backends=iree_vmla",
                   f"--artifacts_dir={make_tempdir(self)}")
    self.assertEqual(ran.returncode, 0, ran.stderr[-3000:])
    self.assertIn("1 pass (iree_vmla)", ran.stderr)


@NEEDS_BAZEL
class Coverage2020Test(absltest.TestCase):
  """`python -m pyiree_tf_support.tools.update_e2e_coverage BUILD_DIR`: the 2020 interface and
  layout."""

  def run_script(self, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyiree_tf_support.tools.update_e2e_coverage",
                           *args], capture_output=True, text=True, timeout=600, check=False,
                          cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))

  def test_writes_doc_tf_e2e_coverage_md_with_a_column_per_backend(self):
    build_dir = make_tempdir(self)
    done = self.run_script(build_dir)
    self.assertEqual(done.returncode, 0, done.stderr)
    with open(os.path.join(build_dir, "doc", "tf_e2e_coverage.md"), encoding="utf-8") as f:
      lines = f.read().splitlines()
    yes = '<span class="success-table-element">✓</span>'
    no = '<span class="failure-table-element">✗</span>'
    self.assertEqual(lines[0], "# TensorFlow End to End Coverage")
    self.assertIn("## End to end TensorFlow tests", lines)
    # 2020's table had a tflite column too (its TfLiteCompiledModule): the backend is back.
    self.assertIn("target | tensorflow | vmvx | llvm-cpu | vulkan-spirv | tflite", lines)
    self.assertIn(
        " | ".join(["[simple_arithmetic_test](e2e/simple_arithmetic_test.py)"] + [yes] * 5),
        lines)
    self.assertIn(" | ".join(["[special_math_test](e2e/special_math_test.py)", yes] + [no] * 4),
                  lines)

  def test_a_missing_build_dir_is_a_one_line_usage_error(self):
    missing = os.path.join(make_tempdir(self), "absent")
    done = self.run_script(missing)
    self.assertEqual(done.returncode, 2)
    self.assertIn(f"BUILD_DIR {missing!r} is not an existing directory",
                  done.stderr.splitlines()[-1])
    self.assertFalse(os.path.exists(missing))


if __name__ == "__main__":
  absltest.main()
