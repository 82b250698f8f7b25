"""No module below the public API reads a flag: the public modules (tf_utils, tf_test_utils,
tf_test_driver, the pytest plugin, the replay / bundle / localize commands and the tools) read
them through `cli_flags` into `RunSettings` and `SessionOptions`, and pass those down, so a module
below behaves the same whoever calls it (a fuzzer, a reducer, a test without flags)."""

import ast
import os
import unittest

from tests.support.repo import ROOT

PACKAGE = os.path.join(ROOT, "pyiree_tf_support")
# Every folder: the fuzzer's and the reducer's parts too (their commands, fuzz and reduce, read
# the flags and pass them down as the other public modules do).
BELOW = ("core", "comparing", "compiling", "runtime", "importing", "reporting", "examples",
         "localizing", "harness", "fuzzing", "reducing")
# harness/main_files runs a later-API file's `main` under pytest: it has cli_flags parse that
# file's own flags first, and reads none of the library's.
ALLOWED = {("harness/main_files.py", "parse_deferred")}


def flag_reads(path: str):
  """(line, what) of each use of cli_flags or absl's flags in `path`."""
  with open(path) as f:
    tree = ast.parse(f.read())
  for node in ast.walk(tree):
    if isinstance(node, ast.ImportFrom) and node.module == "absl" and any(
        a.name == "flags" for a in node.names):
      yield node.lineno, "absl.flags"
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
        node.value.id == "cli_flags"):
      yield node.lineno, node.attr


class FlagReadsTest(unittest.TestCase):

  def test_every_folder_of_the_package_is_checked(self):
    folders = {e for e in os.listdir(PACKAGE) if os.path.isfile(os.path.join(PACKAGE, e,
                                                                              "__init__.py"))}
    self.assertEqual(folders - set(BELOW), {"tools"})  # the maintainers' commands: the top.

  def test_no_module_below_the_public_api_reads_a_flag(self):
    found = []
    for folder in BELOW:
      for root, _, names in os.walk(os.path.join(PACKAGE, folder)):
        for name in sorted(n for n in names if n.endswith(".py")):
          path = os.path.join(root, name)
          relative = os.path.relpath(path, PACKAGE)
          found += [f"{relative}:{line}: {what}" for line, what in flag_reads(path)
                    if (relative, what) not in ALLOWED]
    self.assertEqual(found, [])

  def test_the_check_sees_a_planted_read(self):
    path = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "planted_flag_read.py")
    with open(path, "w") as f:
      f.write("from absl import flags\nfrom pyiree_tf_support import cli_flags\n"
              "def f():\n  return cli_flags.value('summarize')\n")
    self.assertEqual(sorted(flag_reads(path)), [(1, "absl.flags"), (4, "value")])


if __name__ == "__main__":
  unittest.main()
