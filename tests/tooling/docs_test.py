"""README.md and docs/*.md stay true: the example runs, and every command, module, path and flag
they name exists (a moved module or a renamed flag fails here, not in a user's shell)."""

import glob
import importlib.util
import os
import re
import subprocess
import sys
import tempfile
import unittest

from pyiree_tf_support import cli_flags
from tests.support.repo import ROOT

PAGES = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
# Paths of this repository as the pages write them (not the artifacts' or a user's).
REPO_PATH = re.compile(r"(?<![\w/.~-])((?:scripts|e2e|tests|pyiree_tf_support|build_tools"
                       r"|bench|docs)/[\w./-]*\w)")
# Names a page uses for paths that exist only in an example or after a run.
EXAMPLE_PATHS = ("e2e/repros/", "e2e/foo", "e2e/my_", "tests/foo", "docs/tf_e2e", "e2e/keras/foo")


def read(path: str) -> str:
  with open(path, encoding="utf-8") as f:
    return f.read()


class DocsTest(unittest.TestCase):

  def test_the_readme_is_a_first_screen(self):
    self.assertLessEqual(len(read(PAGES[0]).splitlines()), 150)

  def test_every_python_module_a_page_runs_exists(self):
    for page in PAGES:
      for module in re.findall(r"python3? -m (pyiree_tf_support(?:\.\w+)*)", read(page)):
        with self.subTest(page=os.path.basename(page), module=module):
          self.assertIsNotNone(importlib.util.find_spec(module), module)

  def test_every_repository_path_a_page_names_exists(self):
    for page in PAGES:
      for path in set(REPO_PATH.findall(read(page))):
        path = path.rstrip(".")
        if path.startswith(EXAMPLE_PATHS) or "<" in path or "*" in path:
          continue
        with self.subTest(page=os.path.basename(page), path=path):
          self.assertTrue(os.path.exists(os.path.join(ROOT, path)), path)

  def test_every_flag_of_the_flags_page_is_a_flag(self):
    flags_page = read(os.path.join(ROOT, "docs", "flags.md"))
    named = set(re.findall(r"^\| `--(\w+)`", flags_page, re.MULTILINE))
    for pair in re.findall(r"^\| `--(\w+)`, `--(\w+)`", flags_page, re.MULTILINE):
      named |= set(pair)
    self.assertTrue(named)
    defined = {f.name for f in cli_flags.FLAGS.get_flags_for_module(cli_flags.__name__)}
    self.assertLessEqual(named, defined, "docs/flags.md names flags the library lacks")
    self.assertLessEqual(defined, named, "flags missing from docs/flags.md")

  def test_no_line_of_prose_is_a_stray_fragment(self):
    # Prose lines start at column 0 or continue a bullet at column 2: a line at column 1 is what
    # is left when an edit cuts the start of a bullet (docs/failures.md lost "- Each kind of
    # difference has its own line: NaN/Inf placement" that way).
    for page in PAGES:
      prose = re.sub(r"^```.*?^```", "", read(page), flags=re.DOTALL | re.MULTILINE)
      with self.subTest(page=os.path.basename(page)):
        self.assertEqual(re.findall(r"^ \S.*", prose, re.MULTILINE), [])

  def test_the_readme_example_passes_as_written(self):
    blocks = re.findall(r"```python\n(.*?)```", read(PAGES[0]), re.DOTALL)
    self.assertTrue(blocks)
    directory = tempfile.mkdtemp()
    path = os.path.join(directory, "readme_example_test.py")
    with open(path, "w") as f:
      f.write(blocks[0])
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    env.pop(cli_flags.ENV_VAR, None)
    run = subprocess.run([sys.executable, path, "--target_backends=iree_llvmjit",
                          f"--artifacts_dir={directory}/artifacts", "--nocompile_cache"],
                         capture_output=True, text=True, env=env, timeout=600, check=False)
    self.assertEqual(run.returncode, 0, run.stdout[-2000:] + run.stderr[-3000:])
    self.assertIn("OK", run.stderr)


if __name__ == "__main__":
  unittest.main()
