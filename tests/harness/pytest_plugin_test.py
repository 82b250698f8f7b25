"""The pytest plugin, driven as a user drives it: pytest in a directory outside the repo (no
conftest), on real modules compiled for real backends.

pytest runs in this process (`pytester`, tests/support/in_process_pytest.py) where what is
checked is the plugin's behaviour: its items, verdicts, summaries, reports and times. A child
process remains where the process is the point: what reaches the terminal's file descriptor past
pytest's capture, a command's whole output and exit status, and the absltest runs (`python
file.py`) the plugin's verdicts are compared with.
"""

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from xml.etree import ElementTree

import pytest

from pyiree_tf_support import cli_flags
from tests.support import in_process_pytest
from tests.support.repo import ROOT
from tests.support.test_files import run_test_file

pytest_plugins = ("pytester",)

PLUGIN = in_process_pytest.PLUGIN

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
          time.sleep({"tf_ref": 0.6, "iree_llvmjit": 5.0}.get(module.backend, 0.0))
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


@pytest.fixture
def runs(pytester, monkeypatch):
  with in_process_pytest.library_state_restored():
    yield in_process_pytest.InProcessPytest(pytester, monkeypatch)


def summary_table(out):
  """The rows of the plugin's end table, split into cells."""
  table = out[out.index("verdicts per test file and backend"):].splitlines()
  return [re.split(r"\s{2,}", row) for row in table[1:]]


def run_absltest(runs, name, *args):
  """`python <name> args` in the test's directory: the file as a user runs it without pytest."""
  return run_test_file(os.path.join(runs.dir, name), *args, f"--artifacts_dir={runs.dir}/absl",
                       cwd=runs.dir, timeout=600)


def test_collect_only_shows_one_item_per_backend(runs):
  shutil.copy(os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"), runs.dir)
  result = runs.run("simple_arithmetic_test.py", "--collect-only", "-q",
                    "--target_backends=iree_vmla,iree_llvmjit")
  items = [line for line in result.outlines if "::" in line]
  assert len(items) == 4, result.stdout.str() + result.stderr.str()
  for test in ("test_simple_mul", "test_simple_matmul"):
    for backend in ("iree_vmla", "iree_llvmjit"):
      assert f"simple_arithmetic_test.py::SimpleArithmeticTest::{test}[{backend}]" in items


def test_a_file_named_as_a_module_this_process_imported_is_collected(runs, monkeypatch):
  # Under xdist one worker runs tests/core/phases_test.py (imported as `phases_test`) and then
  # a run writing its own phases_test.py: the run collects its file, as a fresh pytest would.
  import types
  taken = types.ModuleType("mul_twin_test")
  taken.__file__ = os.path.join(ROOT, "tests", "mul_twin_test.py")
  monkeypatch.setitem(sys.modules, "mul_twin_test", taken)
  runs.write("mul_twin_test.py", MUL_TEST)
  result = runs.run("mul_twin_test.py", "--collect-only", "-q", "--target_backends=iree_vmla")
  out = result.stdout.str()
  assert "mul_twin_test.py::MulTest::test_mul[iree_vmla]" in out, out
  assert sys.modules["mul_twin_test"] is taken


def test_k_runs_only_that_backend_and_the_reference_once(runs):
  shutil.copy(os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"), runs.dir)
  runs.write("mul_test.py", MUL_TEST)
  junit = os.path.join(runs.dir, "junit.xml")
  result = runs.run("simple_arithmetic_test.py", "mul_test.py", "-k", "iree_llvmjit",
                    "--target_backends=iree_vmla,iree_llvmjit", f"--junitxml={junit}")
  out = result.stdout.str()
  assert result.ret == 0, out + result.stderr.str()
  assert "3 passed, 3 deselected" in out
  assert runs.traced_backends() == ["tf_ref", "iree_llvmjit"]
  with open(junit) as f:
    assert 'name="test_mul[iree_llvmjit]"' in f.read()
  assert not os.path.exists(os.path.join(runs.dir, "artifacts", "MulModule",
                                         "compiled__iree_vmla.vmfb"))
  # report.json is written under the plugin as under absltest: the one backend run, passed.
  with open(os.path.join(runs.dir, "artifacts", "MulModule", "report.json")) as f:
    tests = json.load(f)["tests"]
  assert list(tests) == ["mul_test.MulTest.test_mul"]
  entry = tests["mul_test.MulTest.test_mul"]
  assert (entry["file"], entry["passed"]) == ("mul_test.py", True)
  [trace] = entry["traces"]
  assert (trace["trace"], trace["reference"]) == ("mul", "tf_ref")
  assert [(b["backend"], b["outcome"], b["phase"]) for b in trace["backends"]] == [
      ("iree_llvmjit", "PASS", None)]


def test_failures_are_per_backend_and_listed_ones_are_strict_xfails(runs):
  runs.write("mul_test.py", MUL_TEST)
  runs.write("erf_test.py", ERF_TEST)
  runs.write("BUILD.bazel", BUILD)
  result = runs.run("mul_test.py", "erf_test.py", "-rxXf",
                    "--target_backends=iree_vmla,iree_llvmjit")
  out = result.stdout.str()
  assert result.ret == 1, out + result.stderr.str()
  assert "2 failed, 1 passed, 1 xfailed" in out
  assert re.search(r"XFAIL erf_test.py::ErfTest::test_erf\[iree_llvmjit\] - no erf lowering", out)
  assert re.search(r"FAILED mul_test.py::MulTest::test_mul\[iree_llvmjit\] - \[XPASS\(strict\)\]",
                   out)
  assert "[XPASS(strict)] listed but passes" in out
  assert "iree_vmla: COMPILE ERROR" in out
  assert sorted(runs.traced_backends()) == ["iree_llvmjit", "iree_vmla", "tf_ref"]
  table = summary_table(out)
  assert table[0] == ["file", "iree_vmla", "iree_llvmjit"]
  assert table[1] == ["mul_test.py", "pass", "fail"]
  assert table[2] == ["erf_test.py", "fail", "xfail (compile)"]
  assert table[3] == ["total", "1 pass 1 fail", "1 fail 1 xfail"]
  assert "slowest compiles" in out


def test_a_pass_says_how_close_to_its_tolerance_it_came(runs):
  runs.write("close_test.py", CLOSE_PASS_TEST.format(name="Close", offset="9.5e-7"))
  runs.write("exact_test.py", CLOSE_PASS_TEST.format(name="Exact", offset="0.0"))
  result = runs.run("close_test.py", "exact_test.py", "--target_backends=iree_llvmjit")
  out = result.stdout.str()
  assert result.ret == 0, out + result.stderr.str()
  table = summary_table(out)
  assert table[1] == ["close_test.py", "pass (0.95 of tol)"]
  assert table[2] == ["exact_test.py", "pass"]
  for module, fraction, line in [("EchoClose", 0.95, "iree_llvmjit: PASS (0.95 of tolerance)"),
                                 ("EchoExact", 0.0, "iree_llvmjit: PASS")]:
    module_dir = os.path.join(runs.dir, "artifacts", module)
    with open(os.path.join(module_dir, "report.json")) as f:
      [backend] = next(iter(json.load(f)["tests"].values()))["traces"][0]["backends"]
    assert backend["worst_fraction_of_tolerance"] == pytest.approx(fraction, abs=1e-6), module
    with open(os.path.join(module_dir, "report.txt")) as f:
      assert line in f.read().splitlines(), module


def test_a_listed_file_needs_one_failing_test_as_under_bazel(runs):
  # Bazel's e2e_tests_failing passes while any test of the file fails on the listed backend;
  # the file's passing tests are no XPASS (bool_test.py fails one of six tests on Vulkan).
  runs.write("mixed_test.py", MIXED_TEST)
  runs.write("BUILD.bazel", 'FAILING = {"iree_llvmjit": {"mixed_test.py": "erf"}}')
  result = runs.run("mixed_test.py", "-rxXf", "--target_backends=iree_llvmjit")
  out = result.stdout.str()
  assert result.ret == 0, out + result.stderr.str()
  assert "1 passed, 1 xfailed" in out
  assert re.search(r"XFAIL mixed_test.py::MixedTest::test_erf\[iree_llvmjit\] - erf", out)


@pytest.mark.parametrize("listed,returncode,summary", [("compile", 0, "2 xfailed"),
                                                       ("mismatch", 1, "1 failed, 1 xfailed")])
def test_typed_failing_phases_are_strict_and_agree_with_absltest(runs, listed, returncode,
                                                                  summary):
  runs.write("phases_test.py", PHASES_TEST)
  runs.write("BUILD.bazel", f'FAILING = {{"iree_vmla": {{"phases_test.py": ("{listed}", "why")}}}}')
  result = runs.run("phases_test.py", "-rxXf", "--target_backends=iree_vmla")
  out = result.stdout.str()
  assert result.ret == returncode, out + result.stderr.str()
  assert summary in out
  assert re.search(r"XFAIL phases_test.py::PhasesTest::test_cast\[iree_vmla\] - why", out)
  if listed == "compile":
    assert re.search(r"phases_test.py\s+2 xfail \(compile, mismatch\)\n", out)
  if listed == "mismatch":
    assert re.search(r"FAILED phases_test.py::PhasesTest::test_erf\[iree_vmla\] - WRONG", out)
    assert ("WRONG PHASE: PhasesTest on iree_vmla is listed as expected to fail in phase "
            "'mismatch' but failed first in phase 'compile': error: failed to legalize "
            "operation 'stablehlo.custom_call'") in out
    assert ("update its expected-failure phase (FAILING in BUILD.bazel, or "
            "--xfail_backends=iree_vmla:compile).\nlisted reason: why") in out
  absl = run_absltest(runs, "phases_test.py", "--target_backends=iree_vmla",
                      f"--xfail_backends=iree_vmla:{listed}")
  assert absl.returncode == returncode, absl.stderr[-3000:]
  if listed == "compile":
    assert re.search(r"XFAIL iree_vmla \(compile\): error: failed to legalize", absl.stderr)
  else:
    assert "WRONG PHASE: PhasesTest on iree_vmla" in absl.stderr


def test_a_tests_own_error_on_a_listed_backend_fails_as_under_absltest(runs):
  # Only the backend's failing traces are its expected failure; the test's own error is not.
  runs.write("own_error_test.py", OWN_ERROR_TEST)
  runs.write("BUILD.bazel", 'FAILING = {"iree_llvmjit": {"own_error_test.py": '
                            '("compile", "no erf lowering")}}')
  result = runs.run("own_error_test.py", "-rxXf", "--target_backends=iree_llvmjit")
  out = result.stdout.str()
  assert result.ret == 1, out + result.stderr.str()
  assert "1 failed" in out
  assert "xfailed" not in out
  assert "RuntimeError: the test's own error" in out
  absl = run_absltest(runs, "own_error_test.py", "--target_backends=iree_llvmjit",
                      "--xfail_backends=iree_llvmjit:compile")
  assert absl.returncode == 1, absl.stderr[-3000:]
  assert "RuntimeError: the test's own error" in absl.stderr


def test_lf_reruns_only_the_failed_backend_items(runs):
  runs.write("mixed_test.py", MIXED_TEST)
  args = ("mixed_test.py", "--target_backends=iree_vmla,iree_llvmjit")
  first = runs.run(*args, cache=True)
  assert "2 failed, 2 passed" in first.stdout.str(), first.stdout.str() + first.stderr.str()
  again = runs.run(*args, "--lf", "-v", cache=True)
  out = again.stdout.str()
  assert "rerun previous 2 failures" in out, out + again.stderr.str()
  assert "2 failed, 2 deselected" in out
  ran = re.findall(r"^mixed_test.py::MixedTest::(\S+) FAILED", out, re.MULTILINE)
  assert ran == ["test_erf[iree_vmla]", "test_erf[iree_llvmjit]"]


def test_each_backend_item_reports_its_own_time(runs):
  runs.write("slow_test.py", SLOW_TEST)
  junit = os.path.join(runs.dir, "junit.xml")
  result = runs.run("slow_test.py", "--target_backends=iree_vmla,iree_llvmjit",
                    f"--junitxml={junit}", "--durations=0", "-vv")
  out = result.stdout.str()
  assert result.ret == 0, out + result.stderr.str()
  times = {case.get("name"): float(case.get("time") or 0)
           for case in ElementTree.parse(junit).iter("testcase")}
  # The reference's 0.6 s is the first item's, the slow backend's 5 s its own item's. No upper
  # bound in seconds (a loaded machine adds seconds to each item): the vmla item holds less than
  # the llvmjit one, which it would not if the 5 s were counted for the first item.
  assert times["test_slow[iree_llvmjit]"] >= 5.0, times
  assert times["test_slow[iree_vmla]"] >= 0.6, times
  assert times["test_slow[iree_vmla]"] < times["test_slow[iree_llvmjit]"], times
  durations = re.search(r"([\d.]+)s call +slow_test.py::SlowTest::test_slow\[iree_llvmjit\]", out)
  assert durations and float(durations.group(1)) >= 5.0, out


def test_the_end_says_where_the_artifacts_went_and_a_pass_leaves_no_repro(runs):
  repro = os.path.join(runs.dir, "artifacts", "EchoFix", "repro", "echo__iree_llvmjit")
  for offset, returncode in [("1e-3", 1), ("0.0", 0)]:
    runs.write("fix_test.py", CLOSE_PASS_TEST.format(name="Fix", offset=offset))
    result = runs.run("fix_test.py", "--target_backends=iree_llvmjit")
    out = result.stdout.str()
    assert result.ret == returncode, out + result.stderr.str()
    assert out.count("artifacts in ") == 1, out
    assert f"artifacts in {runs.dir}/artifacts: EchoFix\n" in out
    assert "report.json/report.txt there merge with earlier runs" in out
    assert os.path.isdir(repro) == (returncode == 1)


def test_every_library_flag_is_an_option(runs):
  out = runs.run("--help").stdout.str()
  for flag in cli_flags.FLAGS.get_flags_for_module(cli_flags.__name__):
    assert f"--{flag.name}" in out


def subprocess_pytest(directory, *args):
  """`python -m pytest -p <plugin> args` in a child process, as a user runs it."""
  env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
  env.pop(cli_flags.ENV_VAR, None)
  return subprocess.run(
      [sys.executable, "-m", "pytest", "-p", PLUGIN, "-p", "no:cacheprovider", *args,
       f"--artifacts_dir={directory}/artifacts",
       f"--compile_cache_dir={os.path.join(os.path.dirname(directory), 'plugin_test_cache')}"],
      capture_output=True, text=True, cwd=directory, env=env, timeout=600, check=False)


def test_a_long_set_up_step_shows_its_progress_while_it_runs(runs):
  # A child process: the lines go to the terminal's descriptor, past pytest's own capture.
  runs.write("slow_import_test.py", SLOW_IMPORT_TEST)
  process = subprocess_pytest(runs.dir, "slow_import_test.py", "--target_backends=iree_llvmjit")
  out = process.stdout + process.stderr
  assert process.returncode == 0, out
  # Shown although the item's output is captured; the quick compile says nothing.
  assert re.search(r"pyiree_tf_support: SlowTracing: importing from TensorFlow: still "
                   r"running after 5 s\n", out)
  assert re.search(r"pyiree_tf_support: SlowTracing: importing from TensorFlow: done in "
                   r"\d+\.\d s\n", out)
  assert "compiling for iree_llvmjit" not in out


def test_a_bad_flag_value_is_one_line(runs):
  # A child process: the command's whole output is the one line, and it exits non-zero.
  process = subprocess_pytest(runs.dir, "--target_backends=iree_bogus")
  assert process.returncode != 0
  lines = (process.stdout + process.stderr).strip().splitlines()
  assert len(lines) == 1, lines
  assert "Unknown backend 'iree_bogus'; valid backends are:" in lines[0]


def test_installed_package_registers_the_plugin():
  """Passes once the package is (re)installed from this setup.py (scripts/bootstrap.sh)."""
  names = {ep.value for ep in importlib.metadata.entry_points(group="pytest11")}
  assert PLUGIN in names


if __name__ == "__main__":  # as Bazel runs it: the library is imported before pytest starts.
  sys.exit(pytest.main([__file__, "-p", "no:cacheprovider", "-W",
                        "ignore::pytest.PytestAssertRewriteWarning"]))
