"""No module of the package reaches into a private name of another object: what one module needs
of another is public (a method, a property, an argument), so a refactoring of one cannot silently
break another. `self._x` / `cls._x` / `super()._x` are a module's own. The exceptions are other
projects' private names this package has no public way around, each listed with why."""

import ast
import os
import unittest

from tests.support.repo import ROOT

PACKAGE = os.path.join(ROOT, "pyiree_tf_support")

# (file, attribute): why another project's private name is used.
EXTERNAL = {
    ("core/quick_exit.py", "_getframe"): "sys: the caller's frame, to exit from run_tests",
    ("core/quick_exit.py", "_shutdown"): "threading: joins non-daemon threads as exit would",
    ("core/quick_exit.py", "_run_exitfuncs"): "atexit: runs the handlers before os._exit",
    ("core/quick_exit.py", "_exit"): "os._exit: the documented exit without teardown",
    ("localizing/traced_run.py", "_exit"): "os._exit: the documented exit without teardown",
    ("core/interrupts.py", "_exit"): "os._exit: a watchdog ends a call that cannot be cancelled",
    ("core/quick_exit.py", "_TemporaryFileWrapper"): "tempfile's wrapper: closed before exit",
    ("runtime/worker_main.py", "_exit"): "os._exit: the documented exit without teardown",
    ("importing/importer.py", "_fields"): "namedtuple's documented `_fields`",
    ("importing/reference_calls.py", "_call_flat"): "TensorFlow: a concrete function's flat call",
    ("runtime/readback.py", "_buffer_view"): "IREE's DeviceArray: its buffer view for readback",
    ("runtime/readback.py", "_device"): "IREE's DeviceArray: its device for readback",
    ("pytest_plugin.py", "_groups"): "pytest's option groups (no public accessor)",
    ("pytest_plugin.py", "_anonymous"): "pytest's ungrouped options (no public accessor)",
}


def private_uses(path: str):
  """(line, attribute) of each private name `path` uses on an object not its own."""
  with open(path) as f:
    tree = ast.parse(f.read())
  for node in ast.walk(tree):
    name = None
    if isinstance(node, ast.Attribute):
      value = node.value
      own = (isinstance(value, ast.Name) and value.id in ("self", "cls")) or (
          isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
          and value.func.id == "super")
      name = None if own else node.attr
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
          and node.func.id in ("getattr", "hasattr", "setattr") and len(node.args) >= 2
          and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
      name = node.args[1].value
    if name and name.startswith("_") and not name.startswith("__"):
      yield node.lineno, name


class PrivateAccessTest(unittest.TestCase):

  def test_no_module_uses_another_objects_private_names(self):
    found, used = [], set()
    for root, _, names in os.walk(PACKAGE):
      for name in sorted(names):
        if not name.endswith(".py"):
          continue
        path = os.path.join(root, name)
        relative = os.path.relpath(path, PACKAGE)
        for line, attribute in private_uses(path):
          if (relative, attribute) in EXTERNAL:
            used.add((relative, attribute))
          else:
            found.append(f"{relative}:{line}: {attribute}")
    self.assertEqual(found, [])
    self.assertEqual(set(EXTERNAL) - used, set(), "exceptions no longer needed")

  def test_the_check_sees_a_planted_use(self):
    path = os.path.join(os.environ.get("TEST_TMPDIR", "/tmp"), "planted_private.py")
    with open(path, "w") as f:
      f.write("def f(case):\n  case._compared.append(1)\n  return getattr(case, '_only', 0)\n")
    self.assertEqual(sorted(private_uses(path)), [(2, "_compared"), (3, "_only")])


if __name__ == "__main__":
  unittest.main()
