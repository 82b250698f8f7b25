"""Expected failures per class and per test method, on a real file of four classes (one passes,
one fails at import, one at compile, one at mismatch on vmvx) and one of two methods: the list
tool converges in one update (run, update, run again: green; update again: no change) under the
pytest plugin and under absltest (the file run by itself, with the --xfail_backends entries
Bazel's failing suite passes), and a --xfail_backends scope covers only what it names."""

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap

from absl.testing import absltest

from pyiree_tf_support import cli_flags
from pyiree_tf_support.core.phases import Phase
from pyiree_tf_support.reporting import expected_failures

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
TOOL = ["-m", "pyiree_tf_support.tools.update_e2e_coverage"]
BACKEND = "iree_vmla"
NO_CHANGE = ": 0 added, 0 removed, 0 phase changed, 0 phase set"
UNCHANGED = NO_CHANGE + " (file unchanged)"

MODULES = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

def module(body, other=lambda a: a + a):
  class M(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
    def f(self, a):
      return body(a)
    @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
    def g(self, a):
      return other(a)
  return M

DoubleModule = module(lambda a: a + a)
StringModule = module(lambda a: tf.strings.length(tf.strings.as_string(a)))  # import error
ErfModule = module(tf.math.erf)  # compile error on vmvx
CastModule = module(lambda a: tf.cast(a, tf.int32))  # rounds on vmvx: a mismatch

def call_f(module):
  module.f(np.array([0.6, 1.6, 2.4, -0.7], np.float32))

def call_g(module):
  module.g(np.array([0.6, 1.6, 2.4, -0.7], np.float32))
'''
FOUR_CLASSES = MODULES + ''.join(f'''
@tf_test_utils.compile_module({module})
class {name}Test(tf_test_utils.TracedModuleTestCase):
  def test_f(self):
    self.compare_backends(call_f)
''' for name, module in (("Pass", "DoubleModule"), ("Import", "StringModule"),
                         ("Compile", "ErfModule"), ("Mismatch", "CastModule"))) + '''
if __name__ == "__main__":
  tf.test.main()
'''
# One class whose two methods fail differently: a compile error (f) and a mismatch (g).
TWO_METHODS = MODULES + '''
@tf_test_utils.compile_module(module(tf.math.erf, lambda a: tf.cast(a, tf.int32)))
class BothTest(tf_test_utils.TracedModuleTestCase):
  def test_erf(self):
    self.compare_backends(call_f)
  def test_cast(self):
    self.compare_backends(call_g)

@tf_test_utils.compile_module(CastModule)
class CastTest(tf_test_utils.TracedModuleTestCase):
  def test_cast(self):
    self.compare_backends(call_f)

if __name__ == "__main__":
  tf.test.main()
'''


def env() -> dict:
  variables = dict(os.environ, PYTHONPATH=REPO, TF_CPP_MIN_LOG_LEVEL="2")
  variables.pop(cli_flags.ENV_VAR, None)
  return variables


class ScopedListsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.dir = tempfile.mkdtemp(prefix="scoped_lists_")
    self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
    self.suite = os.path.join(self.dir, "suite")
    os.mkdir(self.suite)
    for name, text in (("four_test.py", FOUR_CLASSES), ("two_test.py", TWO_METHODS)):
      with open(os.path.join(self.suite, name), "w") as f:
        f.write(text)
    self.runs = 0

  def write_lists(self, literal: str) -> None:
    with open(os.path.join(self.suite, "BUILD.bazel"), "w") as f:
      f.write("FAILING = " + textwrap.dedent(literal).strip() + "\n")

  def lists(self) -> expected_failures.Lists:
    return expected_failures.read(os.path.join(self.suite, "BUILD.bazel")).lists

  def run_tests(self, *command: str, python_file: str = ""):
    """(artifacts dir, the finished process) of one run of the suite on vmvx."""
    self.runs += 1
    artifacts = os.path.join(self.dir, f"artifacts_{self.runs}")
    head = ([sys.executable, os.path.join(self.suite, python_file)] if python_file else
            [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
             "no:cacheprovider", "-q", "-rA"])
    done = subprocess.run(head + [*command, f"--target_backends={BACKEND}",
                                  f"--artifacts_dir={artifacts}", "--nocompile_cache"],
                          capture_output=True, text=True, cwd=self.dir, env=env(), timeout=600,
                          check=False)
    return artifacts, done

  def update(self, artifacts: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, *TOOL, "--update_lists", f"--dirs={self.suite}",
                           f"--artifacts_dir={artifacts}"], capture_output=True, text=True,
                          env=env(), timeout=120, check=False)
    self.assertEqual(done.returncode, 0, done.stderr)
    return done

  def test_a_file_entry_over_four_classes_converges_in_one_update(self):
    # The lists as a per-file update left them: one phase for every class of the file.
    self.write_lists('{"iree_vmla": {"four_test.py": ("compile", "one phase for the file")}}')
    artifacts, before = self.run_tests("suite/four_test.py")
    self.assertNotEqual(before.returncode, 0)
    failed = [line.partition(" - ")[::2] for line in before.stdout.splitlines()
              if line.startswith("FAILED ")]
    self.assertEqual([(where.split("::")[1], why[:13]) for where, why in failed],
                     [("PassTest", "[XPASS(strict"), ("ImportTest", "WRONG PHASE: "),
                      ("MismatchTest", "WRONG PHASE: ")], before.stdout)
    first = self.update(artifacts)
    self.assertIn("split   four_test.py on iree_vmla", first.stdout)
    self.assertEqual({k: e.phase for k, e in self.lists()[BACKEND].items()},
                     {"four_test.py::ImportTest": Phase.IMPORT,
                      "four_test.py::CompileTest": Phase.COMPILE,
                      "four_test.py::MismatchTest": Phase.MISMATCH})
    # The class failing in the file entry's phase keeps its human-written reason.
    self.assertEqual(self.lists()[BACKEND]["four_test.py::CompileTest"].reason,
                     "one phase for the file")
    artifacts, after = self.run_tests("suite/four_test.py")
    self.assertEqual(after.returncode, 0, after.stdout + after.stderr)
    self.assertIn("1 passed, 3 xfailed", after.stdout)
    self.assertIn("[listed: FAILING four_test.py::MismatchTest]", after.stdout)
    self.assertIn(UNCHANGED, self.update(artifacts).stdout)

  def test_absltest_runs_the_per_class_entries_as_bazels_failing_suite_passes_them(self):
    self.write_lists('''
        {"iree_vmla": {
            "four_test.py::ImportTest": ("import", "strings"),
            "four_test.py::CompileTest": ("compile", "erf"),
            "four_test.py::MismatchTest": ("mismatch", "rounding"),
        }}''')
    entries = expected_failures.flag_entries(self.lists(), "four_test.py")
    artifacts, done = self.run_tests(f"--xfail_backends={','.join(entries)}",
                                     python_file="four_test.py")
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    self.assertIn("[listed: --xfail_backends four_test.py::MismatchTest]", done.stderr)
    listed = self.lists()
    self.assertIn(NO_CHANGE, self.update(artifacts).stdout)
    self.assertEqual(self.lists(), listed)
    # Today's per-file flag over the same file: the passing class is an XPASS, two wrong phases.
    _, done = self.run_tests("--xfail_backends=iree_vmla:compile", python_file="four_test.py")
    self.assertNotEqual(done.returncode, 0)
    self.assertIn("XPASS: PassTest passed every trace on iree_vmla", done.stderr)
    self.assertEqual(done.stderr.count("WRONG PHASE: "), 2, done.stderr[-3000:])

  def test_a_method_entry_does_not_hide_the_other_methods_of_its_class(self):
    self.write_lists('{"iree_vmla": {"two_test.py::BothTest::test_erf": ("compile", "erf")}}')
    artifacts, done = self.run_tests("suite/two_test.py")
    verdicts = [line.partition(" - ")[0] for line in done.stdout.splitlines()]
    self.assertIn("XFAIL suite/two_test.py::BothTest::test_erf[iree_vmla]", verdicts, done.stdout)
    self.assertIn("FAILED suite/two_test.py::BothTest::test_cast[iree_vmla]", verdicts)
    self.assertIn("FAILED suite/two_test.py::CastTest::test_cast[iree_vmla]", verdicts)
    first = self.update(artifacts)
    self.assertEqual({k: e.phase for k, e in self.lists()[BACKEND].items()},
                     {"two_test.py::BothTest::test_erf": Phase.COMPILE,  # kept
                      # the rest of both classes fails in one phase: one entry for the file.
                      "two_test.py": Phase.MISMATCH}, first.stdout)
    artifacts, done = self.run_tests("suite/two_test.py")
    self.assertEqual(done.returncode, 0, done.stdout)
    self.assertIn("3 xfailed", done.stdout)
    self.assertIn(UNCHANGED, self.update(artifacts).stdout)

  def test_a_scoped_flag_covers_only_its_scope_among_several_files(self):
    self.write_lists('{"iree_vmla": {}}')
    _, done = self.run_tests("suite/four_test.py", "suite/two_test.py",
                             "--xfail_backends=iree_vmla:mismatch@two_test.py::CastTest")
    lines = done.stdout.splitlines()
    self.assertIn("XFAIL suite/two_test.py::CastTest::test_cast[iree_vmla] - --xfail_backends "
                  "[listed: --xfail_backends two_test.py::CastTest]", lines, done.stdout)
    self.assertIn("PASSED suite/four_test.py::PassTest::test_f[iree_vmla]", lines)
    self.assertIn("FAILED suite/four_test.py::MismatchTest::test_f[iree_vmla]",
                  [line.partition(" - ")[0] for line in lines])
    self.assertNotIn("XPASS", done.stdout)


if __name__ == "__main__":
  absltest.main()
