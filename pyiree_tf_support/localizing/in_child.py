"""--localize_mismatches: the localize command run in a child process for each mismatch.

A test process holds TensorFlow, which cannot share a process with lavapipe, so the localizer
runs as `python -m pyiree_tf_support.localize` in a fresh interpreter; its verdict comes back
as JSON (--report_json). Imported only when the flag is on.
"""

import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Dict, Sequence

from pyiree_tf_support.runtime import worker_client


def localize(trace_dir: str, backend: str, call: int, extra_args: Sequence[str] = (),
             timeout: float = 1800.0) -> Dict[str, Any]:
  """The verdict of localizing `call` of the reference trace in `trace_dir` on `backend` (as
  report.to_json gives it); a failure to localize is a verdict of kind "error" saying why."""
  with tempfile.TemporaryDirectory(prefix="localize-") as scratch:
    out = os.path.join(scratch, "verdict.json")
    try:
      completed = subprocess.run(
          [sys.executable, "-m", "pyiree_tf_support.localize", trace_dir,
           f"--target_backends={backend}", f"--call={call}", f"--report_json={out}",
           *extra_args], env=worker_client.worker_env(), capture_output=True, text=True,
          timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
      return {"verdict": "error", "summary": f"localizing {backend} did not finish in "
                                             f"{timeout:g} s"}
    if completed.returncode == 0 and os.path.exists(out):
      with open(out) as f:
        return json.load(f)
    last = (completed.stderr.strip().splitlines() or [f"exit status {completed.returncode}"])[-1]
    return {"verdict": "error", "summary": f"localizing {backend} failed: {last}"}
