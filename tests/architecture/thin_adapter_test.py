"""`tf_test_utils` is a thin 2020-compatible adapter of `harness.session`: the 2020 API's names,
setUpClass opening a session and compare_backends failing on what it returns. What is not
adapter (registries of set-ups, probing a later-API class, examples, what the plugin asks of a
session) lives in harness/, so the adapter stays short enough to read in one sitting and holds
no state of its own that another module would have to reach into."""

import ast
import os
import unittest

from tests.support.repo import ROOT

PACKAGE = os.path.join(ROOT, "pyiree_tf_support")
ADAPTER = os.path.join(PACKAGE, "tf_test_utils.py")
ADAPTER_LINES = 300  # the goal for the adapter (it was 718, then 429 lines).
HARNESS_LINES = 700  # beyond it a harness module is split by concern.
_MUTABLE = (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def line_count(path: str) -> int:
  with open(path, encoding="utf-8") as f:
    return len(f.read().splitlines())


def module_state(path: str):
  """(line, name) of each module-level mutable container and each `global` statement of
  `path`: state a module keeps between calls (dunder names such as `__all__` excepted)."""
  with open(path, encoding="utf-8") as f:
    tree = ast.parse(f.read())
  for node in tree.body:
    targets = (node.targets if isinstance(node, ast.Assign)
               else [node.target] if isinstance(node, ast.AnnAssign) else [])
    value = getattr(node, "value", None)
    for target in targets:
      if (isinstance(target, ast.Name) and not target.id.startswith("__")
          and isinstance(value, _MUTABLE)):
        yield node.lineno, target.id
  for node in ast.walk(tree):
    if isinstance(node, ast.Global):
      yield from ((node.lineno, f"global {name}") for name in node.names)


class ThinAdapterTest(unittest.TestCase):

  def test_the_adapter_is_short(self):
    self.assertLessEqual(line_count(ADAPTER), ADAPTER_LINES,
                         "tf_test_utils.py grew: move what is not adapter into harness/")

  def test_the_adapter_keeps_no_state_of_its_own(self):
    self.assertEqual(list(module_state(ADAPTER)), [])

  def test_no_harness_module_outgrows_one_concern(self):
    folder = os.path.join(PACKAGE, "harness")
    long = {name: line_count(os.path.join(folder, name)) for name in sorted(os.listdir(folder))
            if name.endswith(".py")}
    self.assertEqual({n: c for n, c in long.items() if c > HARNESS_LINES}, {})

  def test_the_check_sees_planted_state(self):
    path = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "planted_state.py")
    with open(path, "w") as f:
      f.write("__all__ = ['f']\nA: dict = {}\nB = [1]\nC = 1\n_d = False\n"
              "def f():\n  global _d\n  _d = True\n")
    self.assertEqual(list(module_state(path)), [(2, "A"), (3, "B"), (7, "global _d")])


if __name__ == "__main__":
  unittest.main()
