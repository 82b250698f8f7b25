"""Python's cyclic garbage collector around the one big import of a run: TensorFlow's.

Importing TensorFlow (with the library) creates ~440,000 objects the collector tracks, and almost
no cyclic garbage (a full collection after the import frees 0 of them). While those objects are
young, CPython's collector keeps visiting them: an import with the collector on ran 4 full
collections of 13, 44, 72 and 97 ms, and every later full collection of the run walked all of them
again (~130 ms each, ~390 ms in a short e2e file, landing wherever allocation happened to trigger
one: inside the import, a compile phase or a trace). Measured on this project's 2-core machine
with TF 2.21: `import pyiree_tf_support.tf_test_utils` 1.99 s -> 1.63 s, and a full collection
after it 127 ms -> 0.1 ms.

So `paused_for_import` pauses the collector for the import and then moves everything that exists
(`gc.freeze`) into the permanent generation, which later collections do not visit. What the run
allocates afterwards (traces, arrays, the user's objects) is collected as before. The cost: an
object alive at the freeze that later becomes cyclic garbage is never freed (TensorFlow's module
state lives until exit anyway; ~2 MB more peak RSS was measured).

A run whose collector is off (the user's choice) is left alone, and only the first import pauses
and freezes: a test file that imports TensorFlow before this library keeps the default behaviour.
"""

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def paused_for_import() -> Iterator[None]:
  """Runs the block (a big import) with the collector paused, then freezes what exists and
  turns the collector back on, also when the block raises."""
  if not gc.isenabled():
    yield
    return
  gc.disable()
  try:
    yield
  finally:
    gc.freeze()
    gc.enable()
