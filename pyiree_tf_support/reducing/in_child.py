"""--reduce_failures: the reduce command run in a child process for each failing IREE target.

A test process holds TensorFlow, which cannot share a process with lavapipe, and the reducer
compiles and runs many candidates, so it runs as `python -m pyiree_tf_support.reduce` in a fresh
interpreter (as --localize_mismatches runs the localizer); what it reduced comes back as JSON
(--report_json). Imported only when the setting is on.
"""

import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, Sequence

from pyiree_tf_support.runtime import worker_client


def reduce(trace_dir: str, backend: str, extra_args: Sequence[str] = (),
           timeout: float = 1800.0) -> Dict[str, Any]:
  """What reducing the failure of the reference trace in `trace_dir` on `backend` gave (as
  reduce.to_json gives it); a failure to reduce is `{"error": ..., "summary": why}`."""
  with tempfile.TemporaryDirectory(prefix="reduce-") as scratch:
    out = os.path.join(scratch, "reduction.json")
    try:
      completed = subprocess.run(
          [sys.executable, "-m", "pyiree_tf_support.reduce", trace_dir,
           f"--target_backends={backend}", f"--report_json={out}", *extra_args],
          env=worker_client.worker_env(), capture_output=True, text=True, timeout=timeout,
          check=False)
    except subprocess.TimeoutExpired:
      return {"error": True, "summary": f"reducing {backend} did not finish in {timeout:g} s"}
    if completed.returncode == 0 and os.path.exists(out):
      with open(out) as f:
        return json.load(f)
    last = (completed.stderr.strip().splitlines() or [f"exit status {completed.returncode}"])[-1]
    return {"error": True, "summary": f"reducing {backend} failed: {last}"}
