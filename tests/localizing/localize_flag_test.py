"""--localize_mismatches puts each mismatch's first diverging dispatch into the failure message,
report.txt and report.json; off, the localizer is not even imported.

The mismatch is real: IREE's vmvx rounds an f32 -> i32 convert that TensorFlow truncates.
"""

import io
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

from absl.testing import absltest
from absl.testing import flagsaver
import numpy as np
import tensorflow as tf

from pyiree_tf_support import cli_flags
from pyiree_tf_support import tf_test_utils
from tests.support.repo import ROOT


class Truncating(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32)


def truncating_case():
  """A failing test class (made here, not at module level, so no runner collects it)."""

  @tf_test_utils.compile_module(Truncating)
  class TruncatingTest(tf_test_utils.TracedModuleTestCase):

    def test_truncate(self):
      self.compare_backends(lambda module: module.truncate(
          np.array([0.7, 1.2, 2.6, -3.3], np.float32)))

  return TruncatingTest


class LocalizeMismatchesFlagTest(absltest.TestCase):

  def test_the_verdict_is_in_every_report(self):
    cli_flags.ensure_parsed()
    artifacts_dir = tempfile.mkdtemp()
    with flagsaver.flagsaver(artifacts_dir=artifacts_dir, target_backends=["iree_vmla"],
                             localize_mismatches=True):
      suite = unittest.defaultTestLoader.loadTestsFromTestCase(truncating_case())
      result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
    self.assertLen(result.failures, 1, result.errors)
    expected = ("localized: localized call 0 (truncate) on iree_vmvx against iree_llvmcpu: "
                "dispatch truncate_dispatch_0::")
    self.assertIn(expected, result.failures[0][1])
    # What a reader needs next, beside the verdict: both sources and the standalone repro.
    for needle in (r"\n    iree_vmvx executable source: /\S+/module_truncate_dispatch_0\.mlir\n",
                   r"\n    iree_llvmcpu executable source: /\S+/sources_trusted/\S+\.mlir\n",
                   r"\n    the dispatch alone, on both backends: /\S+python\S* /\S+/repro\.py"):
      self.assertRegex(result.failures[0][1], needle)
    module_dir = os.path.join(artifacts_dir, "Truncating")
    with open(os.path.join(module_dir, "report.txt")) as f:
      text = f.read()
    self.assertIn(expected, text)
    self.assertIn("the dispatch alone, on both backends: ", text)
    with open(os.path.join(module_dir, "report.json")) as f:
      text = f.read()
    self.assertIn('"localization"', text)
    self.assertIn('"verdict": "dispatch"', text.replace('":"', '": "'))

  def test_the_localizer_uses_the_run_s_compile_cache_or_none(self):
    cli_flags.ensure_parsed()
    default_cache = tempfile.mkdtemp()  # where a localizer without the run's flags would write.
    os.environ["PYIREE_TF_SUPPORT_CACHE_DIR"] = default_cache
    self.addCleanup(os.environ.pop, "PYIREE_TF_SUPPORT_CACHE_DIR")
    own_cache = tempfile.mkdtemp()
    for cache_flags in ({"compile_cache_dir": own_cache}, {"compile_cache": False}):
      with flagsaver.flagsaver(artifacts_dir=tempfile.mkdtemp(), target_backends=["iree_vmla"],
                               localize_mismatches=True, **cache_flags):
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(truncating_case())
        result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
      self.assertIn("dispatch truncate_dispatch_0::", result.failures[0][1])
      self.assertEqual(os.listdir(default_cache), [], cache_flags)
    self.assertNotEqual(os.listdir(own_cache), [])

  def test_off_imports_nothing_of_the_localizer(self):
    script = textwrap.dedent(f"""
        import importlib.util, io, sys, tempfile, unittest
        sys.argv = [sys.argv[0], "--target_backends=iree_vmla",
                    "--artifacts_dir=" + tempfile.mkdtemp()]
        from pyiree_tf_support import cli_flags
        cli_flags.ensure_parsed()
        spec = importlib.util.spec_from_file_location("localize_flag_test",
                                                      {os.path.abspath(__file__)!r})
        t = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(t)
        suite = unittest.defaultTestLoader.loadTestsFromTestCase(t.truncating_case())
        result = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)
        assert len(result.failures) == 1, (result.failures, result.errors)
        print(sorted(m for m in sys.modules if m.startswith("pyiree_tf_support.localiz")))
        """)
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               check=False, timeout=600)
    self.assertEqual(completed.returncode, 0, completed.stderr[-3000:])
    self.assertEqual(completed.stdout.strip().splitlines()[-1], "[]")

  def test_pytest_items_carry_the_verdict(self):
    directory = tempfile.mkdtemp()
    with open(os.path.join(directory, "truncating_test.py"), "w") as f:
      f.write(textwrap.dedent("""
          import numpy as np
          from pyiree_tf_support import tf_test_utils
          import tensorflow as tf

          class Truncating(tf.Module):
            @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
            def truncate(self, x):
              return tf.cast(x, tf.int32)

          @tf_test_utils.compile_module(Truncating)
          class TruncatingTest(tf_test_utils.TracedModuleTestCase):
            def test_truncate(self):
              self.compare_backends(lambda module: module.truncate(
                  np.array([0.7, 1.2, 2.6, -3.3], np.float32)))
          """))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=ROOT)
    env.pop(cli_flags.ENV_VAR, None)
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "pyiree_tf_support.pytest_plugin", "-p",
         "no:cacheprovider", "truncating_test.py", "--target_backends=iree_vmla",
         "--localize_mismatches", f"--artifacts_dir={directory}/artifacts"],
        capture_output=True, text=True, cwd=directory, env=env, timeout=600, check=False)
    self.assertEqual(completed.returncode, 1, completed.stdout[-3000:] + completed.stderr[-2000:])
    self.assertIn("localized: localized call 0 (truncate) on iree_vmvx against iree_llvmcpu: "
                  "dispatch truncate_dispatch_0::", completed.stdout)


if __name__ == "__main__":
  absltest.main()
