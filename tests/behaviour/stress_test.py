"""Eight processes testing one module into one artifacts dir leave every artifact whole."""

import json
import os
import subprocess
import sys
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.comparing import trace_io
from pyiree_tf_support.importing import pass_pipelines
from tests.support.repo import ROOT

PROCESSES = 8


class ParallelArtifactsTest(absltest.TestCase):

  def test_concurrent_runs_on_one_module_and_artifacts_dir(self):
    artifacts_dir = tempfile.mkdtemp()
    cache_dir = tempfile.mkdtemp()  # shared, cold: all eight race to fill the same entries.
    environment = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    processes = [
        subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "e2e", "simple_stateful_test.py"),
             "--target_backends=iree_vmla,iree_llvmjit,iree_vmla",
             f"--artifacts_dir={artifacts_dir}", f"--compile_cache_dir={cache_dir}"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment)
        for _ in range(PROCESSES)]
    outputs = [p.communicate(timeout=900)[0] for p in processes]
    for process, output in zip(processes, outputs):
      self.assertEqual(process.returncode, 0, output[-3000:])

    self.assertEqual(os.listdir(artifacts_dir), ["Stateful"])  # no Stateful__<hash> twin.
    module_dir = os.path.join(artifacts_dir, "Stateful")
    leftovers = [os.path.join(d, f) for d, _, files in os.walk(module_dir) for f in files
                 if f.startswith(".tmp") or f.endswith(".tmp")]
    self.assertEqual(leftovers, [])

    import iree.runtime
    instance = iree.runtime.VmInstance()
    vmfbs = sorted(f for f in os.listdir(module_dir) if f.endswith(".vmfb"))
    self.assertEqual(vmfbs, ["compiled__iree_llvmjit.vmfb", "compiled__iree_vmla_0.vmfb",
                             "compiled__iree_vmla_1.vmfb"])
    for name in vmfbs:
      with open(os.path.join(module_dir, name), "rb") as f:
        iree.runtime.VmModule.copy_buffer(instance, f.read())  # raises on a torn file.

    with open(os.path.join(module_dir, "signatures.json")) as f:
      self.assertIn("inc_by", json.load(f))
    for name in ("tf_input.mlir", "iree_input.mlir"):
      with open(os.path.join(module_dir, name)) as f:
        text = f.read()
      text = pass_pipelines.strip_header(text)  # iree_input.mlir starts with `//` lines.
      self.assertTrue(text.startswith("module") and text.rstrip().endswith("}"), name)

    trace_dir = os.path.join(module_dir, "traces")
    texts = [f for f in os.listdir(trace_dir) if f.endswith(".txt")]
    self.assertLen(texts, 3 * 4)  # 3 tests x (reference + 3 targets)
    for name in texts:
      with open(os.path.join(trace_dir, name)) as f:
        text = f.read()
      self.assertTrue(text.startswith("Trace of '") and text.endswith("\n"), name)
      self.assertEqual(text.count("Trace of '"), 1, name)
      trace = trace_io.load_trace(os.path.join(trace_dir, name[:-len(".txt")]))
      self.assertEqual(f"{trace.function_name}__{trace.backend}.txt", name)

    for directory, _, files in os.walk(os.path.join(module_dir, "repro")):
      for name in files:
        path = os.path.join(directory, name)
        if name.endswith(".npy"):
          np.load(path, allow_pickle=False)
        elif name == "flagfile":
          with open(path) as f:
            lines = f.read().splitlines()
          self.assertTrue(any(line.startswith("--function=") for line in lines), path)


if __name__ == "__main__":
  absltest.main()
