"""A test file written against IREE's later (2020-11) API, run as its users ran it: its own flags
and `app.run(main)`, by hand (absltest) and under pytest, on real backends; and a class of that
API that names its module in setUp."""

import os
import re
import shutil
import subprocess
import tempfile
import textwrap

from absl.testing import absltest

from tests.support import test_files
from tests.support.repo import ROOT

LATER_FILE = os.path.join(ROOT, "tests", "data", "later_api_math.py")


def make_tempdir(test: absltest.TestCase) -> str:
  path = tempfile.mkdtemp()
  test.addCleanup(shutil.rmtree, path, ignore_errors=True)
  return path


def run(args, env=None, cwd=ROOT) -> subprocess.CompletedProcess:
  return test_files.run_test_file(*args, env=env, cwd=cwd, timeout=900)


class AbsltestTest(absltest.TestCase):

  def test_own_flags_choose_the_generated_tests_and_each_passes(self):
    artifacts = make_tempdir(self)
    done = run([LATER_FILE, "--target_backends=iree_llvmjit,iree_vulkan",
                "--functions=abs,reduce_sum,maximum", "--test_complex",
                f"--artifacts_dir={artifacts}"])
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    ran = sorted(set(re.findall(r"\[       OK \] MathTest\.(\S+)", done.stderr)))
    self.assertEqual(ran, ["test_abs__2x3__c64__uniform", "test_abs__2x3__f32__uniform",
                           "test_abs__2x3__i32__uniform", "test_maximum__arange",
                           "test_reduce_sum__2x3__f32__uniform__axis_1",
                           "test_reduce_sum__2x3__f32__uniform__axis_None"])
    self.assertEqual(done.stderr.count("2 pass (iree_llvmjit, iree_vulkan)"), 6, done.stderr)
    # The module is imported and compiled once for the class, not once per test.
    self.assertEqual(done.stderr.count("Artifacts of MathModule are saved in"), 1)
    traces = os.listdir(os.path.join(artifacts, "MathModule", "traces"))
    self.assertIn("abs__2x3__c64__uniform__iree_vulkan.txt", traces)

  def test_target_backends_as_the_later_api_and_the_seed_use_it(self):
    work = make_tempdir(self)
    path = os.path.join(work, "uses_the_flag_test.py")
    with open(path, "w") as f:
      f.write(textwrap.dedent("""\
          from absl import app, flags
          import numpy as np
          from pyiree_tf_support import tf_test_utils
          import tensorflow.compat.v2 as tf
          FLAGS = flags.FLAGS

          class M(tf.Module):
            @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
            def double(self, x):
              return 2 * x

          @tf_test_utils.compile_module(M)
          class T(tf_test_utils.TracedModuleTestCase):
            def test_double(self):
              self.compare_backends(lambda m: m.double(np.ones([2], np.float32)))

          def main(argv):
            if len(FLAGS.target_backends) != 1:  # the later API's generated suites
              raise flags.IllegalFlagValueError(
                  f"Expected len(target_backends) == 1, got {FLAGS.target_backends}.")
            print("suffix", f"multiple_functions__{FLAGS.target_backends[0]}")
            print("seed", FLAGS.target_backends.split(","))
            tf.test.main()

          if __name__ == "__main__":
            app.run(main)
          """))
    done = run([path, "--target_backends=iree_llvmjit", f"--artifacts_dir={work}/a"])
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    self.assertIn("suffix multiple_functions__iree_llvmjit\nseed ['iree_llvmjit']\n", done.stdout)

  def test_dynamic_dims_compile_with_none_dims(self):
    artifacts = make_tempdir(self)
    done = run([LATER_FILE, "--target_backends=iree_vmla", "--functions=add",
                "--dynamic_dims", f"--artifacts_dir={artifacts}"])
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    with open(os.path.join(artifacts, "MathModule", "iree_input.mlir")) as f:
      self.assertIn("tensor<?x?xf32>", f.read())


class PytestTest(absltest.TestCase):

  def test_one_item_per_generated_test_and_backend_and_own_flags_from_the_environment(self):
    artifacts = make_tempdir(self)
    done = run(["-m", "pytest", "-v", "-p", "no:cacheprovider", LATER_FILE,
                "--target_backends=iree_llvmjit,iree_vmla", f"--artifacts_dir={artifacts}"],
               env={"PYIREE_TF_SUPPORT_FLAGS": "--functions=reduce_sum"})
    self.assertEqual(done.returncode, 0, done.stdout[-3000:] + done.stderr[-2000:])
    items = sorted(re.findall(r"::MathTest::(\S+) PASSED", done.stdout))
    self.assertEqual(items, [f"test_reduce_sum__2x3__f32__uniform__axis_{a}[{b}]"
                             for a in ("1", "None") for b in ("iree_llvmjit", "iree_vmla")])

  def test_a_flag_no_file_defines_is_still_a_one_line_error(self):
    done = run(["-m", "pytest", "-q", "-p", "no:cacheprovider", LATER_FILE,
                "--target_backends=iree_llvmjit"], env={"PYIREE_TF_SUPPORT_FLAGS": "--function=x"})
    self.assertNotEqual(done.returncode, 0)
    self.assertIn("ERROR: $PYIREE_TF_SUPPORT_FLAGS: Unknown command line flag 'function'. "
                  "Did you mean: functions ?", done.stderr)


SET_UP_STYLE = textwrap.dedent('''
    import numpy as np
    import tensorflow.compat.v2 as tf
    from pyiree_tf_support import tf_test_utils

    class DoubleModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def double(self, x):
        return 2 * x

    class OtherModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
      def f(self, x):
        return x

    class DoubleTest(tf_test_utils.TracedModuleTestCase):

      def setUp(self):
        super().setUp()
        self._modules = tf_test_utils.compile_tf_module(DoubleModule)

      def test_double(self):
        def double(module):
          module.double(np.arange(4, dtype=np.float32))
        self.compare_backends(double, self._modules)
        self.assertEqual([m.backend for m in self._modules.tar_modules], ["iree_llvmjit"])

      def test_another_record_is_refused(self):
        with self.assertRaisesRegex(ValueError, "the modules record is of .*OtherModule"):
          self.compare_backends(lambda m: None, tf_test_utils.compile_tf_module(OtherModule))

    if __name__ == "__main__":
      tf.test.main()
    ''')


class SetUpStyleTest(absltest.TestCase):

  def test_a_class_naming_its_module_in_set_up_compares_it(self):
    directory = make_tempdir(self)
    path = os.path.join(directory, "set_up_style_test.py")
    with open(path, "w") as f:
      f.write(SET_UP_STYLE)
    done = run([path, "--target_backends=iree_llvmjit", f"--artifacts_dir={directory}"],
               cwd=directory)
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    self.assertIn("Ran 2 tests", done.stderr)
    self.assertTrue(os.path.exists(os.path.join(directory, "DoubleModule", "traces",
                                                "double__iree_llvmjit.txt")))


STANDALONE = textwrap.dedent('''
    import sys
    import numpy as np
    import tensorflow.compat.v2 as tf
    from pyiree_tf_support import cli_flags, tf_test_utils

    class TripleModule(tf.Module):
      @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
      def triple(self, x):
        return 3 * x

    cli_flags.FLAGS(sys.argv)
    modules = tf_test_utils.compile_tf_module(TripleModule)
    again = tf_test_utils.compile_tf_module(TripleModule)
    ref, targets, artifacts_dir = modules
    assert modules.ref_module is again.ref_module  # compiled once per process.
    print(ref.triple(np.float32([1, 2])), [t.triple(np.float32([1, 2])) for t in targets],
          [t.backend for t in targets], artifacts_dir)
    ''')


class StandaloneTest(absltest.TestCase):

  def test_a_script_compiles_once_and_calls_every_backend(self):
    directory = make_tempdir(self)
    path = os.path.join(directory, "standalone.py")
    with open(path, "w") as f:
      f.write(STANDALONE)
    done = run([path, "--target_backends=iree_llvmjit,iree_vulkan",
                f"--artifacts_dir={directory}"], cwd=directory)
    self.assertEqual(done.returncode, 0, done.stderr[-3000:])
    self.assertIn(f"[3. 6.] [array([3., 6.], dtype=float32), array([3., 6.], dtype=float32)] "
                  f"['iree_llvmjit', 'iree_vulkan'] {directory}/TripleModule", done.stdout)


if __name__ == "__main__":
  absltest.main()
