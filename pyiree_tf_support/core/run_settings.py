"""What a run was asked to do, as one immutable record passed down from where flags are read.

Only the public modules (`tf_test_utils`, `tf_utils`, the pytest plugin, the `replay` and `bundle`
commands) read flags, through `cli_flags`; `cli_flags.run_settings()` turns them into a
`RunSettings` that the harness and everything below it take as an argument. So a module below
the public API behaves the same whoever calls it, and a test can set up a class without flags.
"""

import dataclasses
from typing import Optional, Tuple

from pyiree_tf_support.core import timeouts as timeouts_lib
from pyiree_tf_support.core.phases import Phase


@dataclasses.dataclass(frozen=True)
class RunSettings:
  """The flags that decide how test classes are set up and judged (defaults: the flags')."""
  reference_backend: str = "tf"
  target_backends: Optional[Tuple[str, ...]] = None  # None: every backend this machine runs.
  run_in_worker: bool = False
  artifacts_dir: Optional[str] = None  # None: artifacts.default_root().
  compile_jobs: Optional[int] = None  # None: one per core.
  compile_cache_dir: Optional[str] = None  # None: no compile cache.
  # --xfail_backends: (backend as named, its expected phase or None for any phase, scope key or
  # None for every test); what it means is expected_failures' (reporting/expected_failures/).
  xfail_backends: Tuple[Tuple[str, Optional[Phase], Optional[str]], ...] = ()
  keep_saved_model: bool = False
  # --full_text_traces: trace files hold every element (default: arrays over 64 summarized).
  full_text_traces: bool = False
  # --iree_compile_flags: (backend as named, one iree-compile flag) (core/compile_flags.py).
  iree_compile_flags: Tuple[Tuple[str, str], ...] = ()
  # --dump_compiler_ir: IR after each compilation phase and executable sources in dumps/.
  dump_compiler_ir: bool = False
  # --localize_mismatches: the first diverging dispatch of each mismatch, in the report.
  localize_mismatches: bool = False
  # --reduce_failures: each failure reduced to the smallest program failing the same way.
  reduce_failures: bool = False
  # --compile_timeout, --load_timeout, --call_timeout.
  timeouts: timeouts_lib.Timeouts = timeouts_lib.DEFAULT
  # --examples, --examples_seed, --examples_timeout (None: no limit): inputs drawn per method.
  examples: int = 0
  examples_seed: int = 0
  examples_seconds: Optional[float] = 60.0
