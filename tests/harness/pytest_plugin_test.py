"""The pytest plugin, driven as a user drives it: pytest in a directory outside the repo (no
conftest), on real modules compiled for real backends."""

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from xml.etree import ElementTree

from absl.testing import absltest

from pyiree_tf_support import cli_flags
from tests.support.repo import ROOT

PLUGIN = "pyiree_tf_support.pytest_plugin"

MUL_TEST = textwrap.dedent('''
    import os
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class MulModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def mul(self, a):
        return a * a

    @tf_test_utils.compile_module(MulModule)
    class MulTest(tf_test_utils.TracedModuleTestCase):
      def test_mul(self):
        def mul(module):
          with open(os.environ["TRACE_LOG"], "a") as log:
            log.write(module.backend + "\\n")
          module.mul(np.arange(4, dtype=np.float32))
        self.compare_backends(mul)
    ''')

ERF_TEST = textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class ErfModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def erf(self, a):
        return tf.math.erf(a)

    @tf_test_utils.compile_module(ErfModule)
    class ErfTest(tf_test_utils.TracedModuleTestCase):
      def test_erf(self):
        self.compare_backends(lambda module: module.erf(np.zeros([4], np.float32)))
    ''')

MIXED_TEST = textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class MixedModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def erf(self, a):
        return tf.math.erf(a)

      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def mul(self, a):
        return a * a

    @tf_test_utils.compile_module(MixedModule)
    class MixedTest(tf_test_utils.TracedModuleTestCase):
      def test_erf(self):
        self.compare_backends(lambda module: module.erf(np.zeros([4], np.float32)))

      def test_mul(self):
        self.compare_backends(lambda module: module.mul(np.ones([4], np.float32)))
    ''')

# On vmvx erf does not compile (the module compiles per method) and the f32 -> i32 cast rounds
# to nearest (a mismatch): the class's earliest failing phase there is compile.
PHASES_TEST = textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class ErfAndCastModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def erf(self, a):
        return tf.math.erf(a)

      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def cast(self, a):
        return tf.cast(a, tf.int32)

    @tf_test_utils.compile_module(ErfAndCastModule)
    class PhasesTest(tf_test_utils.TracedModuleTestCase):
      def test_cast(self):
        self.compare_backends(lambda m: m.cast(np.array([-2.7, -0.5, 0.5, 3.99], np.float32)))

      def test_erf(self):
        self.compare_backends(lambda m: m.erf(np.zeros([4], np.float32)))

    if __name__ == "__main__":
      tf_test_utils.tf.test.main()
    ''')

# A test whose backend fails as listed, and which then raises an error of its own.
OWN_ERROR_TEST = textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class ErfModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def erf(self, a):
        return tf.math.erf(a)

    @tf_test_utils.compile_module(ErfModule)
    class OwnErrorTest(tf_test_utils.TracedModuleTestCase):
      def test_erf(self):
        self.compare_backends(lambda module: module.erf(np.zeros([4], np.float32)))
        raise RuntimeError("the test's own error")

    if __name__ == "__main__":
      tf_test_utils.tf.test.main()
    ''')

# Two files on one module: the target sees an input 9.5e-7 from the reference's (float64, within
# the default atol of 1e-6 at 0) and returns it, so inputs and outputs pass at 0.95 of the
# tolerance; the other passes exactly.
CLOSE_PASS_TEST = textwrap.dedent('''
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class Echo{name}(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([3], tf.float64)])
      def echo(self, a):
        return a + 0.0

    @tf_test_utils.compile_module(Echo{name})
    class {name}Test(tf_test_utils.TracedModuleTestCase):
      def test_echo(self):
        def echo(module):
          offset = {offset} if module.backend != "tf_ref" else 0.0
          module.echo(np.array([0.0, offset, 1.0]))
        self.compare_backends(echo)
    ''')

# The reference sleeps 0.6 s, iree_llvmjit 1.2 s, iree_vmla not at all.
SLOW_TEST = textwrap.dedent('''
    import time
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class SlowModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def mul(self, a):
        return a * a

    @tf_test_utils.compile_module(SlowModule)
    class SlowTest(tf_test_utils.TracedModuleTestCase):
      def test_slow(self):
        def slow(module):
          time.sleep({"tf_ref": 0.6, "iree_llvmjit": 1.2}.get(module.backend, 0.0))
          module.mul(np.arange(4, dtype=np.float32))
        self.compare_backends(slow)
    ''')

# Tracing `mul` takes 5.5 s: the import (SavedModel export) is a long set-up step.
SLOW_IMPORT_TEST = textwrap.dedent('''
    import time
    import numpy as np
    import tensorflow as tf
    from pyiree_tf_support import tf_test_utils

    class SlowTracing(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def mul(self, a):
        time.sleep(5.5)
        return a * a

    @tf_test_utils.compile_module(SlowTracing)
    class SlowTracingTest(tf_test_utils.TracedModuleTestCase):
      def test_mul(self):
        self.compare_backends(lambda module: module.mul(np.ones([4], np.float32)))
    ''')

BUILD = textwrap.dedent('''
    FAILING = {
        "iree_llvmjit": {
            "erf_test.py": ("compile", "no erf lowering"),
            "mul_test.py": "listed but passes",
        },
    }
    ''')


class PluginTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix="plugin_test_")
    self.log = os.path.join(self.dir, "trace.log")

  def write(self, name, text):
    with open(os.path.join(self.dir, name), "w") as f:
      f.write(text)

  def pytest(self, *args, cache=False):
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2", TRACE_LOG=self.log)
    env.pop(cli_flags.ENV_VAR, None)
    no_cache = () if cache else ("-p", "no:cacheprovider")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", PLUGIN, *no_cache, *args,
         f"--artifacts_dir={self.dir}/artifacts",
         f"--compile_cache_dir={os.path.join(tempfile.gettempdir(), 'plugin_test_cache')}"],
        capture_output=True, text=True, cwd=self.dir, env=env, timeout=600, check=False)

  def traced_backends(self):
    with open(self.log) as f:
      return f.read().split()

  def test_collect_only_shows_one_item_per_backend(self):
    shutil.copy(os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"), self.dir)
    process = self.pytest("simple_arithmetic_test.py", "--collect-only", "-q",
                          "--target_backends=iree_vmla,iree_llvmjit")
    items = [line for line in process.stdout.splitlines() if "::" in line]
    self.assertLen(items, 4, process.stdout + process.stderr)
    for test in ("test_simple_mul", "test_simple_matmul"):
      for backend in ("iree_vmla", "iree_llvmjit"):
        self.assertIn(f"simple_arithmetic_test.py::SimpleArithmeticTest::{test}[{backend}]", items)

  def test_k_runs_only_that_backend_and_the_reference_once(self):
    shutil.copy(os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"), self.dir)
    self.write("mul_test.py", MUL_TEST)
    junit = os.path.join(self.dir, "junit.xml")
    process = self.pytest("simple_arithmetic_test.py", "mul_test.py", "-k", "iree_llvmjit",
                          "--target_backends=iree_vmla,iree_llvmjit", f"--junitxml={junit}")
    self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
    self.assertIn("3 passed, 3 deselected", process.stdout)
    self.assertEqual(self.traced_backends(), ["tf_ref", "iree_llvmjit"])
    with open(junit) as f:
      self.assertIn('name="test_mul[iree_llvmjit]"', f.read())
    self.assertFalse(os.path.exists(os.path.join(self.dir, "artifacts", "MulModule",
                                                 "compiled__iree_vmla.vmfb")))
    # report.json is written under the plugin as under absltest: the one backend run, passed.
    with open(os.path.join(self.dir, "artifacts", "MulModule", "report.json")) as f:
      tests = json.load(f)["tests"]
    self.assertEqual(list(tests), ["mul_test.MulTest.test_mul"])
    entry = tests["mul_test.MulTest.test_mul"]
    self.assertEqual((entry["file"], entry["passed"]), ("mul_test.py", True))
    [trace] = entry["traces"]
    self.assertEqual((trace["trace"], trace["reference"]), ("mul", "tf_ref"))
    self.assertEqual([(b["backend"], b["outcome"], b["phase"]) for b in trace["backends"]],
                     [("iree_llvmjit", "PASS", None)])

  def test_failures_are_per_backend_and_listed_ones_are_strict_xfails(self):
    self.write("mul_test.py", MUL_TEST)
    self.write("erf_test.py", ERF_TEST)
    self.write("BUILD.bazel", BUILD)
    process = self.pytest("mul_test.py", "erf_test.py", "-rxXf",
                          "--target_backends=iree_vmla,iree_llvmjit")
    out = process.stdout
    self.assertEqual(process.returncode, 1, out + process.stderr)
    self.assertIn("2 failed, 1 passed, 1 xfailed", out)
    self.assertRegex(out, r"XFAIL erf_test.py::ErfTest::test_erf\[iree_llvmjit\] - no erf lowering")
    self.assertRegex(
        out, r"FAILED mul_test.py::MulTest::test_mul\[iree_llvmjit\] - \[XPASS\(strict\)\]")
    self.assertIn("[XPASS(strict)] listed but passes", out)
    self.assertRegex(out, r"iree_vmla: COMPILE ERROR")
    self.assertEqual(sorted(self.traced_backends()), ["iree_llvmjit", "iree_vmla", "tf_ref"])
    table = out[out.index("verdicts per test file and backend"):].splitlines()
    self.assertEqual(re.split(r"\s{2,}", table[1]), ["file", "iree_vmla", "iree_llvmjit"])
    self.assertEqual(re.split(r"\s{2,}", table[2]), ["mul_test.py", "pass", "fail"])
    self.assertEqual(re.split(r"\s{2,}", table[3]), ["erf_test.py", "fail", "xfail (compile)"])
    self.assertEqual(re.split(r"\s{2,}", table[4]), ["total", "1 pass 1 fail", "1 fail 1 xfail"])
    self.assertIn("slowest compiles", out)

  def test_a_pass_says_how_close_to_its_tolerance_it_came(self):
    self.write("close_test.py", CLOSE_PASS_TEST.format(name="Close", offset="9.5e-7"))
    self.write("exact_test.py", CLOSE_PASS_TEST.format(name="Exact", offset="0.0"))
    process = self.pytest("close_test.py", "exact_test.py", "--target_backends=iree_llvmjit")
    out = process.stdout
    self.assertEqual(process.returncode, 0, out + process.stderr)
    table = out[out.index("verdicts per test file and backend"):].splitlines()
    self.assertEqual(re.split(r"\s{2,}", table[2]), ["close_test.py", "pass (0.95 of tol)"])
    self.assertEqual(re.split(r"\s{2,}", table[3]), ["exact_test.py", "pass"])
    for module, fraction, line in [("EchoClose", 0.95, "iree_llvmjit: PASS (0.95 of tolerance)"),
                                   ("EchoExact", 0.0, "iree_llvmjit: PASS")]:
      with self.subTest(module=module):
        module_dir = os.path.join(self.dir, "artifacts", module)
        with open(os.path.join(module_dir, "report.json")) as f:
          [backend] = next(iter(json.load(f)["tests"].values()))["traces"][0]["backends"]
        self.assertAlmostEqual(backend["worst_fraction_of_tolerance"], fraction, places=6)
        with open(os.path.join(module_dir, "report.txt")) as f:
          self.assertIn(line, f.read().splitlines())

  def test_a_listed_file_needs_one_failing_test_as_under_bazel(self):
    # Bazel's e2e_tests_failing passes while any test of the file fails on the listed backend;
    # the file's passing tests are no XPASS (bool_test.py fails one of six tests on Vulkan).
    self.write("mixed_test.py", MIXED_TEST)
    self.write("BUILD.bazel", 'FAILING = {"iree_llvmjit": {"mixed_test.py": "erf"}}')
    process = self.pytest("mixed_test.py", "-rxXf", "--target_backends=iree_llvmjit")
    self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
    self.assertIn("1 passed, 1 xfailed", process.stdout)
    self.assertRegex(process.stdout,
                     r"XFAIL mixed_test.py::MixedTest::test_erf\[iree_llvmjit\] - erf")

  def test_typed_failing_phases_are_strict_and_agree_with_absltest(self):
    self.write("phases_test.py", PHASES_TEST)
    for listed, returncode, summary in [("compile", 0, "2 xfailed"),
                                        ("mismatch", 1, "1 failed, 1 xfailed")]:
      self.write("BUILD.bazel",
                 f'FAILING = {{"iree_vmla": {{"phases_test.py": ("{listed}", "why")}}}}')
      process = self.pytest("phases_test.py", "-rxXf", "--target_backends=iree_vmla")
      out = process.stdout
      self.assertEqual(process.returncode, returncode, out + process.stderr)
      self.assertIn(summary, out)
      self.assertRegex(out, r"XFAIL phases_test.py::PhasesTest::test_cast\[iree_vmla\] - why")
      if listed == "compile":
        self.assertRegex(out, r"phases_test.py\s+2 xfail \(compile, mismatch\)\n")
      if listed == "mismatch":
        self.assertRegex(out, r"FAILED phases_test.py::PhasesTest::test_erf\[iree_vmla\] - WRONG")
        self.assertIn("WRONG PHASE: PhasesTest on iree_vmla is listed as expected to fail in phase "
                      "'mismatch' but failed first in phase 'compile': error: failed to legalize "
                      "operation 'stablehlo.custom_call'", out)
        self.assertIn("update its expected-failure phase (FAILING in BUILD.bazel, or "
                      "--xfail_backends=iree_vmla:compile).\nlisted reason: why", out)
      env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
      env.pop(cli_flags.ENV_VAR, None)
      absl = subprocess.run(
          [sys.executable, "phases_test.py", "--target_backends=iree_vmla",
           f"--xfail_backends=iree_vmla:{listed}", f"--artifacts_dir={self.dir}/absl"],
          capture_output=True, text=True, cwd=self.dir, env=env, timeout=600, check=False)
      self.assertEqual(absl.returncode, returncode, absl.stderr[-3000:])
      if listed == "compile":
        self.assertRegex(absl.stderr, r"XFAIL iree_vmla \(compile\): error: failed to legalize")
      else:
        self.assertIn("WRONG PHASE: PhasesTest on iree_vmla", absl.stderr)

  def test_a_tests_own_error_on_a_listed_backend_fails_as_under_absltest(self):
    # Only the backend's failing traces are its expected failure; the test's own error is not.
    self.write("own_error_test.py", OWN_ERROR_TEST)
    self.write("BUILD.bazel", 'FAILING = {"iree_llvmjit": {"own_error_test.py": '
                              '("compile", "no erf lowering")}}')
    process = self.pytest("own_error_test.py", "-rxXf", "--target_backends=iree_llvmjit")
    self.assertEqual(process.returncode, 1, process.stdout + process.stderr)
    self.assertIn("1 failed", process.stdout)
    self.assertNotIn("xfailed", process.stdout)
    self.assertIn("RuntimeError: the test's own error", process.stdout)
    env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(cli_flags.ENV_VAR, None)
    absl = subprocess.run(
        [sys.executable, "own_error_test.py", "--target_backends=iree_llvmjit",
         "--xfail_backends=iree_llvmjit:compile", f"--artifacts_dir={self.dir}/absl"],
        capture_output=True, text=True, cwd=self.dir, env=env, timeout=600, check=False)
    self.assertEqual(absl.returncode, 1, absl.stderr[-3000:])
    self.assertIn("RuntimeError: the test's own error", absl.stderr)

  def test_lf_reruns_only_the_failed_backend_items(self):
    self.write("mixed_test.py", MIXED_TEST)
    args = ("mixed_test.py", "--target_backends=iree_vmla,iree_llvmjit")
    first = self.pytest(*args, cache=True)
    self.assertIn("2 failed, 2 passed", first.stdout, first.stdout + first.stderr)
    again = self.pytest(*args, "--lf", "-v", cache=True)
    out = again.stdout
    self.assertIn("rerun previous 2 failures", out, out + again.stderr)
    self.assertIn("2 failed, 2 deselected", out)
    ran = re.findall(r"^mixed_test.py::MixedTest::(\S+) FAILED", out, re.MULTILINE)
    self.assertEqual(ran, ["test_erf[iree_vmla]", "test_erf[iree_llvmjit]"])

  def test_each_backend_item_reports_its_own_time(self):
    self.write("slow_test.py", SLOW_TEST)
    junit = os.path.join(self.dir, "junit.xml")
    process = self.pytest("slow_test.py", "--target_backends=iree_vmla,iree_llvmjit",
                          f"--junitxml={junit}", "--durations=0", "-vv")
    self.assertEqual(process.returncode, 0, process.stdout + process.stderr)
    times = {case.get("name"): float(case.get("time"))
             for case in ElementTree.parse(junit).iter("testcase")}
    # The reference's 0.6 s is the first item's, the slow backend's 1.2 s its own item's.
    self.assertGreaterEqual(times["test_slow[iree_llvmjit]"], 1.2, times)
    self.assertGreaterEqual(times["test_slow[iree_vmla]"], 0.6, times)
    self.assertLess(times["test_slow[iree_vmla]"], 1.2, times)
    self.assertRegex(process.stdout, r"1\.[2-9]\ds call +slow_test.py::SlowTest::"
                                     r"test_slow\[iree_llvmjit\]")

  def test_the_end_says_where_the_artifacts_went_and_a_pass_leaves_no_repro(self):
    repro = os.path.join(self.dir, "artifacts", "EchoFix", "repro", "echo__iree_llvmjit")
    for offset, returncode in [("1e-3", 1), ("0.0", 0)]:
      self.write("fix_test.py", CLOSE_PASS_TEST.format(name="Fix", offset=offset))
      process = self.pytest("fix_test.py", "--target_backends=iree_llvmjit")
      out = process.stdout
      self.assertEqual(process.returncode, returncode, out + process.stderr)
      self.assertEqual(out.count("artifacts in "), 1, out)
      self.assertIn(f"artifacts in {self.dir}/artifacts: EchoFix\n", out)
      self.assertIn("report.json/report.txt there merge with earlier runs", out)
      self.assertEqual(os.path.isdir(repro), returncode == 1)

  def test_a_long_set_up_step_shows_its_progress_while_it_runs(self):
    self.write("slow_import_test.py", SLOW_IMPORT_TEST)
    process = self.pytest("slow_import_test.py", "--target_backends=iree_llvmjit")
    out = process.stdout + process.stderr
    self.assertEqual(process.returncode, 0, out)
    # Shown although the item's output is captured; the quick compile says nothing.
    self.assertRegex(out, r"pyiree_tf_support: SlowTracing: importing from TensorFlow: still "
                          r"running after 5 s\n")
    self.assertRegex(out, r"pyiree_tf_support: SlowTracing: importing from TensorFlow: done in "
                          r"\d+\.\d s\n")
    self.assertNotIn("compiling for iree_llvmjit", out)

  def test_every_library_flag_is_an_option_and_a_bad_value_is_one_line(self):
    process = self.pytest("--help")
    for flag in cli_flags.FLAGS.get_flags_for_module(cli_flags.__name__):
      self.assertIn(f"--{flag.name}", process.stdout)
    process = self.pytest("--target_backends=iree_bogus")
    self.assertNotEqual(process.returncode, 0)
    lines = (process.stdout + process.stderr).strip().splitlines()
    self.assertLen(lines, 1, lines)
    self.assertIn("Unknown backend 'iree_bogus'; valid backends are:", lines[0])


class EntryPointTest(absltest.TestCase):

  def test_installed_package_registers_the_plugin(self):
    """Passes once the package is (re)installed from this setup.py (scripts/bootstrap.sh)."""
    names = {ep.value for ep in importlib.metadata.entry_points(group="pytest11")}
    self.assertIn(PLUGIN, names)


if __name__ == "__main__":
  absltest.main()
