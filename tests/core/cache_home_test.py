"""$XDG_CACHE_HOME as the XDG spec reads it: a relative value is ignored (~/.cache instead), so
the default artifacts root, the compile cache and the tools' Bazel output base are one place
per user, not one below every working directory a run starts in."""

import os
import tempfile
import unittest.mock

from absl.testing import absltest

from pyiree_tf_support.compiling import vmfb_cache
from pyiree_tf_support.core import module_dirs
from pyiree_tf_support.tools import bazel_session

_UNSET = ("TEST_UNDECLARED_OUTPUTS_DIR", "TEST_TMPDIR", "PYIREE_TF_SUPPORT_CACHE_DIR")


class CacheHomeTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.home, self.outer = tempfile.mkdtemp(), tempfile.mkdtemp()
    self.cwd = os.path.join(self.outer, "work")  # "../cache" stays in the test's temp dir.
    os.mkdir(self.cwd)
    environ = {k: v for k, v in os.environ.items() if k not in _UNSET}
    self.enterContext(unittest.mock.patch.dict(os.environ, environ, clear=True))
    os.environ["HOME"] = self.home
    previous = os.getcwd()
    os.chdir(self.cwd)
    self.addCleanup(os.chdir, previous)

  def defaults(self):
    return (module_dirs.default_root(), vmfb_cache.default_cache_dir(),
            os.path.dirname(bazel_session.default_output_base(self.cwd)))

  def test_a_relative_xdg_cache_home_is_ignored(self):
    for relative in ("cache", "./x/cache", "../cache"):
      with self.subTest(relative):
        os.environ["XDG_CACHE_HOME"] = relative
        base = os.path.join(self.home, ".cache", "pyiree_tf_support")
        self.assertEqual(self.defaults(), (os.path.join(base, "modules"),
                                           os.path.join(base, "compile_cache"),
                                           os.path.join(base, "bazel")))
        self.assertEqual(os.listdir(self.outer), ["work"])  # nothing near the working dir.
        self.assertEqual(os.listdir(self.cwd), [])

  def test_an_absolute_xdg_cache_home_is_used(self):
    cache = tempfile.mkdtemp()
    os.environ["XDG_CACHE_HOME"] = cache
    base = os.path.join(cache, "pyiree_tf_support")
    self.assertEqual(self.defaults(), (os.path.join(base, "modules"),
                                       os.path.join(base, "compile_cache"),
                                       os.path.join(base, "bazel")))

  def test_an_empty_one_is_unset(self):
    os.environ["XDG_CACHE_HOME"] = ""
    self.assertEqual(module_dirs.default_root(),
                     os.path.join(self.home, ".cache", "pyiree_tf_support", "modules"))


if __name__ == "__main__":
  absltest.main()
