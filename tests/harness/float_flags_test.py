"""Every float flag the package defines (found by reading its modules, so a new one cannot be
missed) refuses NaN, infinity and a value out of its bounds with one flag error naming it:
absl's bounds compare false with NaN, so `--fuzz_rtol=nan` passed `lower_bound=0` and set every
real mismatch aside as float precision, and `--minutes=nan` ran no module and exited 0.

The commands' modules cannot all be imported into one process (two define `--report_json`), so
children import as many as they can each and try every value there."""

import ast
import json
import os
import subprocess
import sys
from typing import Dict, List

from absl.testing import absltest

from tests.support.repo import ROOT

PACKAGE = os.path.join(ROOT, "pyiree_tf_support")
# Known float flags: the enumeration finding fewer would be its own bug.
KNOWN = {"minutes", "special_values", "stateful", "fuzz_rtol", "fuzz_atol", "reduce_timeout",
         "compile_timeout", "load_timeout", "call_timeout", "examples_timeout"}

# Imports the modules named in argv (those whose flags clash with one imported before are left
# for another child), then tries each float flag they define: on the command line with values
# that are no finite number or out of its bounds, and with its default; set from Python to NaN.
CHILD = r"""
import importlib, json, sys
from absl import flags
from absl.testing import flagsaver
from pyiree_tf_support import cli_flags

imported, left = [], []
for module in sys.argv[1:]:
  try:
    importlib.import_module(module)
    imported.append(module)
  except flags.DuplicateFlagError:
    left.append(module)
by_module = flags.FLAGS.flags_by_module_dict()
found = {}
for module in imported:
  for flag in by_module.get(module, ()):
    if not isinstance(flag.parser, flags.FloatParser):
      continue
    values = ["nan", "-nan", "NaN", "inf", "-inf"]
    lower, upper = flag.parser.lower_bound, flag.parser.upper_bound
    values += ([f"{lower - 1}"] if lower is not None else [])
    values += ([f"{upper + 1}"] if upper is not None else [])
    refusals = {}
    for value in values + [str(flag.default)]:
      with flagsaver.flagsaver():
        try:
          flags.FLAGS(["prog", f"--{flag.name}={value}"])
          refusals[value] = None
        except flags.Error as e:
          refusals[value] = str(e)
    with flagsaver.flagsaver():
      try:
        setattr(flags.FLAGS, flag.name, float("nan"))
        from_python = None
      except flags.Error as e:
        from_python = str(e)
    found[flag.name] = {"module": module, "refusals": refusals, "from_python": from_python,
                        "duration": type(flag.parser).__name__ == "_DurationParser"}
print(json.dumps({"flags": found, "left": left}))
"""


def flag_modules() -> List[str]:
  """The package's modules that define absl flags (a call of `flags.DEFINE...`)."""
  found = []
  for directory, _, names in os.walk(PACKAGE):
    for name in sorted(n for n in names if n.endswith(".py")):
      path = os.path.join(directory, name)
      with open(path) as f:
        tree = ast.parse(f.read())
      if any(isinstance(node, ast.Attribute) and node.attr.startswith("DEFINE") and
             isinstance(node.value, ast.Name) and node.value.id == "flags"
             for node in ast.walk(tree)):
        module = os.path.relpath(path, ROOT)[:-len(".py")].replace(os.sep, ".")
        found.append(module[:-len(".__init__")] if module.endswith(".__init__") else module)
  return found


def float_flags() -> Dict[str, dict]:
  """What the children found of each float flag of the package (see CHILD)."""
  found: Dict[str, dict] = {}
  modules = flag_modules()
  while modules:
    done = subprocess.run([sys.executable, "-c", CHILD, *modules], capture_output=True,
                          text=True, timeout=300, check=True, cwd=ROOT,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    report = json.loads(done.stdout.splitlines()[-1])
    found.update(report["flags"])
    if len(report["left"]) == len(modules):
      raise AssertionError(f"no child could import any of {modules}: {done.stderr[-2000:]}")
    modules = report["left"]
  return found


class FloatFlagsTest(absltest.TestCase):
  """Guarantee: a float flag of the package that is NaN, infinite or out of its range is one flag
  error naming it and what is valid, on the command line and in $PYIREE_TF_SUPPORT_FLAGS; set
  from Python to NaN too (a duration flag's value set from Python is refused where it is used,
  `tests/harness/flags_test.py` `DurationFlagsTest`)."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.flags = float_flags()

  def test_every_module_defining_flags_imports_beside_the_others(self):
    # A tool or a test importing two commands (reduce and localize both take --report_json)
    # must not stop at absl's DuplicateFlagError.
    modules = flag_modules()
    code = "import importlib, sys\nfor m in sys.argv[1:]: importlib.import_module(m)"
    done = subprocess.run([sys.executable, "-c", code, *modules], capture_output=True,
                          text=True, timeout=300, check=False, cwd=ROOT,
                          env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    self.assertEqual(done.returncode, 0, done.stderr[-2000:])

  def test_the_enumeration_finds_every_known_float_flag(self):
    self.assertContainsSubset(KNOWN, set(self.flags))
    self.assertContainsSubset({"pyiree_tf_support.fuzz", "pyiree_tf_support.reduce",
                               "pyiree_tf_support.localize", "pyiree_tf_support.cli_flags"},
                              flag_modules())

  def test_a_value_that_is_not_finite_or_out_of_range_is_one_flag_error(self):
    for name, found in sorted(self.flags.items()):
      *bad, default = found["refusals"].items()
      for value, message in bad:
        with self.subTest(flag=name, value=value):
          self.assertIsNotNone(message, f"--{name}={value} is accepted")
          self.assertLen(message.splitlines(), 1, message)
          self.assertRegex(message, f"^flag --{name}=[^ ]*: ")  # a validator shows nan as nan.
      with self.subTest(flag=name, value=default[0]):
        self.assertIsNone(default[1], f"its default is refused: {default[1]}")

  def test_nan_set_from_python_is_refused(self):
    for name, found in sorted(self.flags.items()):
      if not found["duration"]:
        with self.subTest(flag=name):
          self.assertRegex(found["from_python"] or "", f"^flag --{name}=nan: not a finite number")

  def test_the_messages_name_what_is_valid(self):
    for name, value, expected in (
        ("fuzz_rtol", "nan", "not a finite number; valid: a non-negative number."),
        ("special_values", "nan", "not a finite number; valid: a number in the range [0.0, 1.0]."),
        ("stateful", "inf", "inf is not a number in the range [0.0, 1.0]"),
        ("reduce_timeout", "nan", "not a finite number of seconds >= 0 (0: no limit).")):
      self.assertEqual(self.flags[name]["refusals"][value], f"flag --{name}={value}: {expected}")


if __name__ == "__main__":
  absltest.main()
