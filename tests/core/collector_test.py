"""The collector is paused for TensorFlow's import and what it built is frozen.

Each case imports the library in a fresh interpreter, as a test file does, and reports what
Python's collector did: how many full (generation 2) collections ran during the import, whether it
is on afterwards and how many objects are frozen.
"""

import gc
import json
import os
import subprocess
import sys
import textwrap

from absl.testing import absltest

from pyiree_tf_support.core import collector
from tests.support.repo import ROOT

PROBE = textwrap.dedent("""
    import gc, json, sys
    full = []
    gc.callbacks.append(lambda phase, info: full.append(1)
                        if phase == "stop" and info["generation"] == 2 else None)
    {before}
    import pyiree_tf_support.tf_test_utils
    print("RESULT " + json.dumps({{"full": len(full), "enabled": gc.isenabled(),
                                   "frozen": gc.get_freeze_count()}}))
""")


def probe(before: str = "", args=()) -> dict:
  env = dict(os.environ, PYTHONPATH=ROOT, TF_CPP_MIN_LOG_LEVEL="2")
  env.pop("PYIREE_TF_SUPPORT_FLAGS", None)
  result = subprocess.run([sys.executable, "-c", PROBE.format(before=before), *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300,
                          check=False)
  for line in result.stdout.splitlines():
    if line.startswith("RESULT "):
      return json.loads(line[len("RESULT "):])
  raise AssertionError(f"probe failed ({result.returncode}): {result.stderr[-2000:]}")


class ImportTest(absltest.TestCase):

  def test_import_runs_no_full_collection_and_freezes_what_it_built(self):
    seen = probe()
    self.assertEqual(seen["full"], 0, seen)  # 4 full collections (~230 ms) unpaused.
    self.assertTrue(seen["enabled"], seen)
    self.assertGreater(seen["frozen"], 100_000, seen)

  def test_verbose_import_too(self):
    seen = probe(args=["--verbose"])
    self.assertEqual(seen["full"], 0, seen)
    self.assertTrue(seen["enabled"], seen)
    self.assertGreater(seen["frozen"], 100_000, seen)

  def test_a_collector_the_user_turned_off_stays_off_and_nothing_is_frozen(self):
    seen = probe(before="gc.disable()")
    self.assertFalse(seen["enabled"], seen)
    self.assertEqual(seen["frozen"], 0, seen)

  def test_tensorflow_imported_first_keeps_the_default_behaviour(self):
    seen = probe(before="import tensorflow; full.clear()")
    self.assertTrue(seen["enabled"], seen)
    self.assertEqual(seen["frozen"], 0, seen)


class PausedForImportTest(absltest.TestCase):

  def tearDown(self):
    super().tearDown()
    gc.unfreeze()
    gc.enable()

  def test_pauses_then_freezes_and_turns_the_collector_back_on(self):
    gc.unfreeze()
    with collector.paused_for_import():
      self.assertFalse(gc.isenabled())
      kept = [object() for _ in range(10)]
    self.assertTrue(gc.isenabled())
    self.assertGreater(gc.get_freeze_count(), len(kept))

  def test_an_import_that_raises_turns_the_collector_back_on(self):
    with self.assertRaises(ImportError):
      with collector.paused_for_import():
        raise ImportError("no such module")
    self.assertTrue(gc.isenabled())

  def test_leaves_a_disabled_collector_alone(self):
    gc.unfreeze()
    gc.disable()
    with collector.paused_for_import():
      pass
    self.assertFalse(gc.isenabled())
    self.assertEqual(gc.get_freeze_count(), 0)


if __name__ == "__main__":
  absltest.main()
