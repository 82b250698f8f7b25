"""BUILD files of IREE's two periods, written in their style with IREE's own load lines, then
changed only by the substitutions docs/api_2020.md lists: they load, expand to the targets their
macros made, and those targets pass with the real Bazel (a copy of the workspace per test)."""

import os
import re
import shutil

from absl.testing import absltest

from tests.tooling import bazel_test
from tests.tooling.bazel_test import labels
from tests.tooling.bazel_test import NEEDS_BAZEL
from tests.tooling.bazel_test import ROOT
from tests.tooling.bazel_test import tags_of
from tests.tooling.bazel_test import TempWorkspace

IREE_LIBRARY = '"//integrations/tensorflow/bindings/python/pyiree/tf/support"'

# In the style of IREE's e2e BUILD of 2020: manual binaries and two iree_e2e_test_suites.
BUILD_2020 = f'''
load(
    "//bindings/python:build_defs.oss.bzl",
    "INTREE_TENSORFLOW_PY_DEPS",
    "NUMPY_DEPS",
    "iree_py_binary",
)
load(
    "//integrations/tensorflow/e2e:iree_e2e_test_suite.bzl",
    "iree_e2e_test_suite",
)

package(default_visibility = ["//visibility:public"])

[
    iree_py_binary(
        name = src.replace(".py", "_manual"),
        srcs = [src],
        main = src,
        python_version = "PY3",
        deps = INTREE_TENSORFLOW_PY_DEPS + NUMPY_DEPS + [
            {IREE_LIBRARY},
        ],
    )
    for src in glob(["*_test.py"])
]

VMLA_FAILING = ["special_math_test.py"]

LLVM_FAILING = ["special_math_test.py"]

VULKAN_FAILING = ["special_math_test.py"]

iree_e2e_test_suite(
    name = "e2e_tests",
    backends_to_srcs = {{
        "tf": glob(["*_test.py"]),
        "iree_vmla": glob(["*_test.py"], exclude = VMLA_FAILING),
        "iree_llvmjit": glob(["*_test.py"], exclude = LLVM_FAILING),
        "iree_vulkan": glob(["*_test.py"], exclude = VULKAN_FAILING),
    }},
    reference_backend = "tf",
    deps = INTREE_TENSORFLOW_PY_DEPS + NUMPY_DEPS + [
        {IREE_LIBRARY},
    ],
)

iree_e2e_test_suite(
    name = "e2e_tests_failing",
    backends_to_srcs = {{
        "iree_vmla": VMLA_FAILING,
        "iree_llvmjit": LLVM_FAILING,
        "iree_vulkan": VULKAN_FAILING,
    }},
    reference_backend = "tf",
    tags = ["failing", "manual", "nokokoro", "notap"],
    deps = INTREE_TENSORFLOW_PY_DEPS + NUMPY_DEPS + [
        {IREE_LIBRARY},
    ],
)
'''

# In the style of IREE's later tf.math BUILD: a cartesian product over functions, dims and
# backends (2020's tflite among them), known failures as failing configurations.
BUILD_LATER = f'''
load(
    "//bindings/python:build_defs.oss.bzl",
    "INTREE_TENSORFLOW_PY_DEPS",
    "NUMPY_DEPS",
    "iree_py_binary",
)
load(
    "//integrations/tensorflow/e2e:iree_e2e_test_suite.bzl",
    "set_difference",
)
load(
    "//integrations/tensorflow/e2e:iree_e2e_cartesian_product_test_suite.bzl",
    "iree_e2e_cartesian_product_test_suite",
)

[
    iree_py_binary(
        name = src.replace(".py", "_manual"),
        srcs = [src],
        main = src,
        python_version = "PY3",
        deps = INTREE_TENSORFLOW_PY_DEPS + NUMPY_DEPS + [
            {IREE_LIBRARY},
        ],
    )
    for src in glob(["*_test.py"])
]

FUNCTIONS = ["abs", "erf", "reduce_sum"]

IREE_FAILING = ["erf"]

iree_e2e_cartesian_product_test_suite(
    name = "math_tests",
    srcs = ["math_test.py"],
    failing_configurations = [
        {{
            "functions": IREE_FAILING,
            "target_backends": ["iree_vmla", "iree_llvmjit", "iree_vulkan"],
        }},
    ],
    flags_to_values = {{
        "reference_backend": "tf",
        "functions": set_difference(FUNCTIONS, ["reduce_sum"]),
        "dynamic_dims": [False, True],
        "target_backends": ["tf", "tflite", "iree_vmla", "iree_llvmjit", "iree_vulkan"],
    }},
    main = "math_test.py",
    deps = INTREE_TENSORFLOW_PY_DEPS + NUMPY_DEPS + [
        {IREE_LIBRARY},
    ],
)
'''


def documented_substitutions():
  """The rows of docs/api_2020.md's table of BUILD lines: (IREE's text, this repo's)."""
  with open(os.path.join(ROOT, "docs", "api_2020.md"), encoding="utf-8") as f:
    text = f.read()
  table = text.split("| in IREE's BUILD file | here |", 1)[1].split("\n\n", 1)[0]
  rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|$", table, re.M)
  if len(rows) < 4:
    raise AssertionError(f"docs/api_2020.md's table of BUILD lines has {len(rows)} rows")
  return rows


def ported(build: str) -> str:
  for before, after in documented_substitutions():
    build = build.replace(before, after)
  return build


def write_package(ws: TempWorkspace, package: str, build: str, files: dict) -> None:
  directory = os.path.join(ws.root, package)
  os.makedirs(directory)
  with open(os.path.join(directory, "BUILD.bazel"), "w") as f:
    f.write(ported(build))
  for name, source in files.items():
    shutil.copy(source, os.path.join(directory, name))


@NEEDS_BAZEL
class Build2020Test(absltest.TestCase):

  def test_iree_load_lines_fail_as_they_are_and_load_once_changed(self):
    ws = TempWorkspace(self)
    os.makedirs(os.path.join(ws.root, "unported"))
    with open(os.path.join(ws.root, "unported", "BUILD.bazel"), "w") as f:
      f.write(BUILD_2020)
    # Bazel loads both .bzl files at once and reports whichever fails first: either names a
    # 2020 load path that is no package here.
    self.assertRegex(ws.bazel("query", "//unported:*").stderr.replace('"', "'"),
                     r"'(bindings/python|integrations/tensorflow/e2e)' is not a package")

    write_package(ws, "old", BUILD_2020, {
        "simple_arithmetic_test.py": os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"),
        "special_math_test.py": os.path.join(ROOT, "e2e", "special_math_test.py")})
    self.assertEqual(labels(ws.bazel("query", "tests(//old:e2e_tests)")), {
        "//old:e2e_tests_simple_arithmetic_test__tf__" + b
        for b in ("tf", "iree_vmla", "iree_llvmjit", "iree_vulkan")} | {
            "//old:e2e_tests_special_math_test__tf__tf"})
    self.assertLen(labels(ws.bazel("query", "tests(//old:e2e_tests_failing)")), 3)
    tested = ws.bazel("test", "//old:e2e_tests", "--test_tag_filters=driver=llvm")
    self.assertEqual(tested.returncode, 0, tested.stdout[-3000:] + tested.stderr[-3000:])
    self.assertIn("e2e_tests_simple_arithmetic_test__tf__iree_llvmjit", tested.stdout +
                  tested.stderr)
    ran = ws.bazel("run", "//old:simple_arithmetic_test_manual", "--",
                   "--target_backends=iree_vmla",
                   f"--artifacts_dir={bazel_test.make_tempdir(self)}")
    self.assertEqual(ran.returncode, 0, ran.stderr[-3000:])


@NEEDS_BAZEL
class BuildLaterTest(absltest.TestCase):

  def test_the_cartesian_product_names_tags_and_runs_its_tests(self):
    ws = TempWorkspace(self)
    write_package(ws, "later", BUILD_LATER,
                  {"math_test.py": os.path.join(ROOT, "tests", "data", "later_api_math.py")})
    passing = labels(ws.bazel("query", "tests(//later:math_tests)"))
    # abs x 2 dims x 5 backends (tflite is a backend of the table, as in 2020), erf x 2 dims on
    # tf and tflite (the file lists erf as failing on the IREE backends only).
    self.assertLen(passing, 14)
    self.assertIn(
        "//later:math_tests__functions__erf__dynamic_dims__True__target_backends__tflite", passing)
    self.assertIn(
        "//later:math_tests__functions__abs__dynamic_dims__True__target_backends__iree_vulkan",
        passing)
    failing = labels(ws.bazel("query", "tests(//later:math_tests_failing)"))
    self.assertEqual(failing, {
        f"//later:math_tests_failing__functions__erf__dynamic_dims__{d}__target_backends__{b}"
        for d in ("False", "True") for b in ("iree_vmla", "iree_llvmjit", "iree_vulkan")})
    label = "//later:math_tests_failing__functions__erf__dynamic_dims__False__target_backends__"
    self.assertEqual(tags_of(ws.root, label + "iree_llvmjit", ws.user_root),
                     ["driver=llvm", "driver=llvm-cpu", "failing", "manual", "nokokoro",
                      "notap"])
    rule = ws.bazel("query", "--output=build", label + "iree_llvmjit").stdout
    self.assertIn('"--functions=erf", "--dynamic_dims=False", "--target_backends=iree_llvmjit", '
                  '"--xfail_backends=iree_llvmjit"', rule)

    # The passing tests pass and the failing ones still fail (so their suite is green).
    tested = ws.bazel("test", "//later:math_tests", "//later:math_tests_failing",
                      "--test_tag_filters=driver=llvm")
    self.assertEqual(tested.returncode, 0, tested.stdout[-3000:] + tested.stderr[-3000:])
    self.assertEqual(len(re.findall(r"^//later:\S+ +PASSED", tested.stdout + tested.stderr,
                                    re.M)), 4, tested.stdout + tested.stderr)
    ran = ws.bazel("run", "//later:math_test_manual", "--", "--functions=reduce_sum",
                   "--target_backends=iree_vmla",
                   f"--artifacts_dir={bazel_test.make_tempdir(self)}")
    self.assertEqual(ran.returncode, 0, ran.stderr[-3000:])
    self.assertIn("Ran 2 tests", ran.stderr)

  def test_a_failing_configuration_naming_an_unknown_flag_is_a_load_error(self):
    ws = TempWorkspace(self)
    write_package(ws, "later", BUILD_LATER.replace('"functions": IREE_FAILING',
                                                   '"function": IREE_FAILING'),
                  {"math_test.py": os.path.join(ROOT, "tests", "data", "later_api_math.py")})
    query = ws.bazel("query", "tests(//later:math_tests)")
    self.assertNotEqual(query.returncode, 0)
    self.assertIn("a failing configuration names \"function\"", query.stderr)


if __name__ == "__main__":
  absltest.main()
