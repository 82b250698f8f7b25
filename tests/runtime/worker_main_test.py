"""Tests of the isolated runtime worker, Vulkan readback and driver probing (no TensorFlow needed).

The modules are StableHLO written by hand and compiled with iree.compiler; Vulkan runs only through
the worker (never in this process: another test file of the same run may have imported TensorFlow).
"""

import gc
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from unittest import mock

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.runtime import drivers
from pyiree_tf_support.runtime import in_process
from pyiree_tf_support.runtime import loading
from pyiree_tf_support.runtime import readback
from pyiree_tf_support.runtime import worker_client
from pyiree_tf_support.runtime import worker_main
from pyiree_tf_support.runtime.call_errors import BackendRuntimeError
from pyiree_tf_support.runtime.call_errors import WorkerCrashedError
from tests.support.repo import ROOT

# A counter variable (state), a vector variable, several results with bool and scalar ones,
# a bool input, and a function without results.
_MODULE = """
module @worker_test {
  ml_program.global private mutable @counter(dense<10.0> : tensor<f32>) : tensor<f32>
  ml_program.global private mutable @history(dense<[1, 2, 3]> : tensor<3xi32>) : tensor<3xi32>

  func.func @increment(%step: tensor<f32>) -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    %1 = stablehlo.add %0, %step : tensor<f32>
    ml_program.global_store @counter = %1 : tensor<f32>
    return %1 : tensor<f32>
  }
  func.func @get_counter() -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    return %0 : tensor<f32>
  }
  func.func @set_history(%h: tensor<3xi32>) {
    ml_program.global_store @history = %h : tensor<3xi32>
    return
  }
  func.func @get_history() -> tensor<3xi32> {
    %0 = ml_program.global_load @history : tensor<3xi32>
    return %0 : tensor<3xi32>
  }
  func.func @stats(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>)
      -> (tensor<2x3xf32>, tensor<2x3xi1>, tensor<f32>, tensor<i32>) {
    %prod = stablehlo.multiply %a, %b : tensor<2x3xf32>
    %gt = stablehlo.compare GT, %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %zero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%prod init: %zero) applies stablehlo.add across dimensions = [0, 1]
        : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %seven = stablehlo.constant dense<7> : tensor<i32>
    return %prod, %gt, %sum, %seven : tensor<2x3xf32>, tensor<2x3xi1>, tensor<f32>, tensor<i32>
  }
  func.func @choose(%c: tensor<4xi1>, %a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
    %0 = stablehlo.select %c, %a, %b : tensor<4xi1>, tensor<4xi32>
    return %0 : tensor<4xi32>
  }
}
"""

# State in public globals: IREE exports `global$counter$get/$set`, as for every tf.Variable.
_ACCESSIBLE_STATE_MODULE = """
module @accessible_state {
  ml_program.global public mutable @counter(dense<10.0> : tensor<f32>) : tensor<f32>
  func.func @increment(%step: tensor<f32>) -> tensor<f32> {
    %0 = ml_program.global_load @counter : tensor<f32>
    %1 = stablehlo.add %0, %step : tensor<f32>
    ml_program.global_store @counter = %1 : tensor<f32>
    return %1 : tensor<f32>
  }
}
"""

_STATELESS_MODULE = """
module @stateless {
  func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %x, %x : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""

_USER_FUNCTIONS = ("increment", "get_counter", "set_history", "get_history", "stats", "choose")

_A = np.array([[1.0, -2.0, 3.5], [0.0, 4.0, -1.0]], dtype=np.float32)
_B = np.array([[2.0, 2.0, 2.0], [-1.0, 0.5, 3.0]], dtype=np.float32)
_COND = np.array([True, False, False, True])
_X = np.array([1, 2, 3, 4], dtype=np.int32)
_Y = np.array([-1, -2, -3, -4], dtype=np.int32)

# (function, inputs) run in order; the expected results are computed with numpy below.
_SCRIPT = (
    ("get_counter", []),
    ("increment", [np.float32(1.5)]),
    ("increment", [np.array(2.0, dtype=np.float32)]),
    ("get_counter", []),
    ("stats", [_A, _B]),
    ("get_history", []),
    ("set_history", [np.array([7, 8, 9], dtype=np.int32)]),
    ("get_history", []),
    ("choose", [_COND, _X, _Y]),
)


def _expected_script_results():
  return [
      [np.array(10.0, np.float32)],
      [np.array(11.5, np.float32)],
      [np.array(13.5, np.float32)],
      [np.array(13.5, np.float32)],
      [_A * _B, _A > _B, np.array((_A * _B).sum(), np.float32), np.array(7, np.int32)],
      [np.array([1, 2, 3], np.int32)],
      [],
      [np.array([7, 8, 9], np.int32)],
      [np.where(_COND, _X, _Y)],
  ]


def _compile(target: str, source: str = _MODULE) -> bytes:
  import iree.compiler
  extra_args = ["--iree-llvmcpu-target-cpu=host"] if target == "llvm-cpu" else []
  return iree.compiler.compile_str(
      source, target_backends=[target], input_type="stablehlo", extra_args=extra_args)


def _cpu_seconds(pid: int) -> float:
  """User + system CPU time of a process so far, from /proc/<pid>/stat."""
  with open(f"/proc/{pid}/stat") as f:
    fields = f.read().rsplit(") ", 1)[1].split()
  return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _run_script(module):
  return [module.call(name, inputs) for name, inputs in _SCRIPT]


def _process_exists(pid: int) -> bool:
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  # A zombie still "exists"; treat it as gone only once reaped (nobody else reaps our children).
  try:
    with open(f"/proc/{pid}/stat") as f:
      return f.read().split(") ", 1)[1][0] != "Z"
  except OSError:
    return False


def _wait_gone(pid: int, timeout: float = 15.0) -> bool:
  deadline = time.monotonic() + timeout
  while time.monotonic() < deadline:
    if not _process_exists(pid):
      return True
    time.sleep(0.05)
  return False


class _ResultAssertions(absltest.TestCase):

  def assertResultsEqual(self, actual, expected):
    self.assertLen(actual, len(expected))
    for index, (got, want) in enumerate(zip(actual, expected)):
      self.assertIsInstance(got, np.ndarray, f"result {index}")
      self.assertEqual(got.dtype, want.dtype, f"result {index}")
      self.assertEqual(got.shape, want.shape, f"result {index}")
      np.testing.assert_array_equal(got, want, err_msg=f"result {index}")

  def assertScriptResults(self, results):
    expected = _expected_script_results()
    self.assertLen(results, len(expected))
    for (name, _), got, want in zip(_SCRIPT, results, expected):
      with self.subTest(function=name):
        self.assertResultsEqual(got, want)


class LocalTaskWorkerTest(_ResultAssertions):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.vmfb = _compile("llvm-cpu")

  def _worker(self, **kwargs):
    module = worker_client.WorkerModule(self.vmfb, "local-task", **kwargs)
    self.addCleanup(module.close)
    return module

  def test_worker_matches_in_process(self):
    host = in_process.InProcessHost(self.vmfb, "local-task")
    here = _run_script(host)
    worker = _run_script(self._worker())
    self.assertScriptResults(here)
    self.assertScriptResults(worker)
    for got, want in zip(worker, here):
      self.assertResultsEqual(got, want)

  def test_load_module_isolated_matches_in_process(self):
    here = loading.load_module(self.vmfb, "local-task")
    isolated = loading.load_module(self.vmfb, "local-task", isolated=True)
    self.addCleanup(here.close)
    self.addCleanup(isolated.close)
    self.assertIsInstance(isolated, worker_client.WorkerModule)
    self.assertEqual(isolated.function_names, here.function_names)
    expected = _run_script(here)
    self.assertScriptResults(expected)
    for got, want in zip(_run_script(isolated), expected):
      self.assertResultsEqual(got, want)

  def test_local_sync_driver(self):
    module = worker_client.WorkerModule(self.vmfb, "local-sync")
    self.addCleanup(module.close)
    self.assertScriptResults(_run_script(module))
    module.reset()
    self.assertResultsEqual(module.call("get_counter", []), [np.array(10.0, np.float32)])

  def test_function_names_hide_internal_exports(self):
    module = self._worker()
    self.assertCountEqual(module.function_names, _USER_FUNCTIONS)
    self.assertIsInstance(module.function_names, tuple)

  def test_state_persists_and_reset_restores_initial_values(self):
    module = self._worker()
    for expected in (11.0, 12.0, 13.0):
      self.assertResultsEqual(module.call("increment", [np.float32(1.0)]),
                              [np.array(expected, np.float32)])
    module.call("set_history", [np.array([4, 5, 6], np.int32)])
    pid = module.pid
    module.reset()
    self.assertEqual(module.pid, pid)  # Same worker, new context.
    self.assertResultsEqual(module.call("get_counter", []), [np.array(10.0, np.float32)])
    self.assertResultsEqual(module.call("get_history", []), [np.array([1, 2, 3], np.int32)])

  def test_results_do_not_alias_runtime_memory(self):
    module = self._worker()
    before = module.call("get_counter", [])[0]
    module.call("increment", [np.float32(5.0)])
    self.assertEqual(float(before), 10.0)
    host = in_process.InProcessHost(self.vmfb, "local-task")
    before = host.call("get_counter", [])[0]
    host.call("increment", [np.float32(5.0)])
    self.assertEqual(float(before), 10.0)

  def test_runtime_error_keeps_worker_usable(self):
    module = self._worker()
    module.call("increment", [np.float32(1.0)])
    with self.assertRaisesRegex(BackendRuntimeError, r"local-task.*'stats'.*mismatch") as caught:
      module.call("stats", [np.zeros((3, 3), np.float32), _B])
    self.assertNotIsInstance(caught.exception, WorkerCrashedError)
    with self.assertRaisesRegex(BackendRuntimeError, r"no function 'missing'"):
      module.call("missing", [])
    # Same worker, same state.
    self.assertResultsEqual(module.call("get_counter", []), [np.array(11.0, np.float32)])

  def test_segfault_is_reported_and_reset_starts_a_new_worker(self):
    module = self._worker()
    module.call("increment", [np.float32(1.0)])
    old_pid = module.pid
    os.kill(old_pid, signal.SIGSEGV)
    with self.assertRaises(WorkerCrashedError) as caught:
      module.call("get_counter", [])
    message = str(caught.exception)
    self.assertIn("SIGSEGV", message)
    self.assertIn("local-task", message)
    self.assertIn("'get_counter'", message)
    self.assertTrue(_wait_gone(old_pid))
    # The module stays dead until reset().
    with self.assertRaisesRegex(WorkerCrashedError, r"SIGSEGV.*reset\(\)"):
      module.call("increment", [np.float32(1.0)])
    module.reset()
    self.assertNotEqual(module.pid, old_pid)
    self.assertResultsEqual(module.call("get_counter", []), [np.array(10.0, np.float32)])

  def test_worker_exit_code_is_reported(self):
    module = self._worker()
    os.kill(module.pid, signal.SIGKILL)
    with self.assertRaisesRegex(WorkerCrashedError, r"SIGKILL.*'choose'"):
      module.call("choose", [_COND, _X, _Y])

  def test_unresponsive_worker_times_out(self):
    module = self._worker(call_timeout=1.0)
    pid = module.pid
    os.kill(pid, signal.SIGSTOP)  # A hung worker, for real.
    with self.assertRaisesRegex(WorkerCrashedError, r"did not answer within 1 s.*'get_counter'"):
      module.call("get_counter", [])
    self.assertTrue(_wait_gone(pid))

  def test_close_stops_worker(self):
    module = self._worker()
    pid = module.pid
    module.close()
    self.assertTrue(_wait_gone(pid))
    module.close()  # Idempotent.
    with self.assertRaisesRegex(BackendRuntimeError, "closed"):
      module.call("get_counter", [])

  def test_garbage_collection_stops_worker(self):
    module = worker_client.WorkerModule(self.vmfb, "local-task")
    pid = module.pid
    del module
    gc.collect()
    self.assertTrue(_wait_gone(pid))

  def test_load_error_is_backend_runtime_error(self):
    with self.assertRaisesRegex(BackendRuntimeError, "loading the module"):
      worker_client.WorkerModule(b"not a vmfb", "local-task")

  def test_interpreter_exit_stops_unclosed_worker(self):
    script = textwrap.dedent("""
        import sys
        from pyiree_tf_support.runtime import worker_client
        module = worker_client.WorkerModule(open(sys.argv[1], "rb").read(), "local-task")
        print(module.pid, flush=True)
        # No close(): the exit handler must stop the worker.
        """)
    with tempfile.NamedTemporaryFile(suffix=".vmfb", delete=False) as f:
      f.write(self.vmfb)
    self.addCleanup(os.remove, f.name)
    path = f.name
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    completed = subprocess.run([sys.executable, "-c", script, path], capture_output=True,
                               text=True, timeout=60, env=env, check=True)
    pid = int(completed.stdout.split()[0])
    self.assertTrue(_wait_gone(pid), f"worker {pid} outlived its parent")


class ReadbackTest(_ResultAssertions):
  """The staging-buffer path is exercised in this process on local-task (Vulkan: worker only)."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.host = in_process.InProcessHost(_compile("llvm-cpu"), "local-task")

  def _raw(self, name, inputs):
    context = self.host._context
    return context.modules["worker_test"][name](*inputs)

  def test_staging_copy_matches_to_host(self):
    raw = self._raw("stats", [_A, _B])
    staged = readback.staging_copy_many(list(raw))
    self.assertResultsEqual(staged, [np.asarray(value.to_host()) for value in raw])
    self.assertEqual(staged[1].dtype, np.bool_)
    self.assertEqual(staged[2].shape, ())

  def test_every_result_owns_its_memory(self):
    # A view of runtime memory (to_host()'s array, a mapped staging buffer) could change when a
    # later call reuses that memory; each result must be an independent, writable copy.
    raw = self._raw("stats", [_A, _B])
    for driver in ("local-task", "vulkan"):  # "vulkan" forces the staging path.
      for index, host in enumerate(readback.results_to_numpy(raw, driver=driver)):
        with self.subTest(driver=driver, result=index):
          self.assertIsNone(host.base)
          self.assertTrue(host.flags.owndata and host.flags.writeable)
    for index, host in enumerate(readback.staging_copy_many(list(raw))):
      with self.subTest(path="staging_copy_many", result=index):
        self.assertIsNone(host.base)
        self.assertTrue(host.flags.owndata)

  def test_results_to_numpy_flattens(self):
    self.assertEqual(readback.results_to_numpy(None), [])
    raw = self._raw("stats", [_A, _B])
    for driver in ("local-task", "vulkan"):  # "vulkan" forces the staging path.
      with self.subTest(driver=driver):
        self.assertResultsEqual(
            readback.results_to_numpy(raw, driver=driver),
            [_A * _B, _A > _B, np.array((_A * _B).sum(), np.float32), np.array(7, np.int32)])

  def test_telling_device_arrays_from_host_values_reads_no_dtype(self):
    import iree.runtime
    raw = self._raw("stats", [_A, _B])
    arrays = [v for v in raw if isinstance(v, iree.runtime.DeviceArray)]
    self.assertNotEmpty(arrays)
    is_device_array = readback._is_device_array
    with mock.patch.object(iree.runtime.DeviceArray, "_get_raw_dtype", autospec=True,
                           side_effect=iree.runtime.DeviceArray._get_raw_dtype) as read:
      self.assertTrue(all(is_device_array(v) for v in arrays))
      self.assertFalse(is_device_array(np.zeros(2)) or is_device_array(7))
    self.assertEqual(read.call_count, 0)  # the element type's dtype, mapped anew each time.
    self.assertResultsEqual(
        readback.results_to_numpy(raw),
        [_A * _B, _A > _B, np.array((_A * _B).sum(), np.float32), np.array(7, np.int32)])


class ReleasableHostTest(_ResultAssertions):
  """Release and re-creation of an owned device, in this process on local-task."""

  def _host(self, source):
    host = in_process.InProcessHost(_compile("llvm-cpu", source), "local-task", releasable=True)
    self.addCleanup(host.close)
    return host

  def test_state_in_accessible_globals_survives_release(self):
    host = self._host(_ACCESSIBLE_STATE_MODULE)
    self.assertEqual(host.function_names, ("increment",))
    host.call("increment", [np.float32(1.0)])
    self.assertTrue(host.release())
    self.assertFalse(host.holds_device)
    self.assertResultsEqual(host.call("increment", [np.float32(1.0)]), [np.array(12.0, np.float32)])
    self.assertTrue(host.holds_device)

  def test_reset_while_released_gives_initial_values(self):
    host = self._host(_ACCESSIBLE_STATE_MODULE)
    host.call("increment", [np.float32(5.0)])
    self.assertTrue(host.release())
    host.reset()
    self.assertResultsEqual(host.call("increment", [np.float32(1.0)]), [np.array(11.0, np.float32)])

  def test_state_without_accessors_keeps_the_device(self):
    host = self._host(_MODULE)
    self.assertTrue(host.release())  # Nothing called yet: a fresh context is the same state.
    host.call("increment", [np.float32(1.0)])
    self.assertFalse(host.release())  # Private globals cannot be carried over.
    self.assertResultsEqual(host.call("get_counter", []), [np.array(11.0, np.float32)])

  def test_vouched_module_without_accessors_has_no_state_and_is_released(self):
    host = in_process.InProcessHost(_compile("llvm-cpu", _STATELESS_MODULE), "local-task",
                                      releasable=True, all_state_in_accessors=True)
    self.addCleanup(host.close)
    host.call("double", [np.ones(4, np.float32)])
    self.assertTrue(host.release())
    self.assertResultsEqual(host.call("double", [np.ones(4, np.float32)]),
                            [np.full(4, 2.0, np.float32)])

  def test_cached_device_is_never_released(self):
    host = in_process.InProcessHost(_compile("llvm-cpu", _ACCESSIBLE_STATE_MODULE), "local-task")
    self.assertFalse(host.release())
    self.assertTrue(host.holds_device)


class VulkanWorkerTest(_ResultAssertions):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    available, reason = drivers.driver_available("vulkan")
    if not available:
      raise absltest.SkipTest(reason)
    cls.vmfb = _compile("vulkan-spirv")

  def _worker(self):
    module = worker_client.WorkerModule(self.vmfb, "vulkan")
    self.addCleanup(module.close)
    return module

  def test_vulkan_matches_cpu(self):
    cpu = _run_script(in_process.InProcessHost(_compile("llvm-cpu"), "local-task"))
    vulkan = _run_script(self._worker())
    self.assertScriptResults(vulkan)
    for got, want in zip(vulkan, cpu):
      self.assertResultsEqual(got, want)

  def test_state_and_reset(self):
    module = self._worker()
    module.call("increment", [np.float32(2.0)])
    module.call("set_history", [np.array([0, 0, 1], np.int32)])
    self.assertResultsEqual(module.call("get_counter", []), [np.array(12.0, np.float32)])
    module.reset()
    self.assertResultsEqual(module.call("get_counter", []), [np.array(10.0, np.float32)])
    self.assertResultsEqual(module.call("get_history", []), [np.array([1, 2, 3], np.int32)])

  def _assert_idle(self, module):
    time.sleep(worker_main.MAX_IDLE_SECONDS + 1.0)  # Time to release (~0.2 s) included.
    before, start = _cpu_seconds(module.pid), time.monotonic()
    time.sleep(3.0)
    share = (_cpu_seconds(module.pid) - before) / (time.monotonic() - start)
    self.assertLess(share, 0.05, "an idle Vulkan worker keeps using the CPU")

  def test_idle_worker_of_a_stateless_module_releases_the_device(self):
    # Most TF modules have no variables: no accessors, nothing to carry over (was ~32 % of a core).
    module = worker_client.WorkerModule(_compile("vulkan-spirv", _STATELESS_MODULE), "vulkan",
                                        release_when_idle=True)
    self.addCleanup(module.close)
    module.call("double", [np.ones(4, np.float32)])
    self._assert_idle(module)
    self.assertResultsEqual(module.call("double", [np.ones(4, np.float32)]),
                            [np.full(4, 2.0, np.float32)])

  def test_idle_worker_releases_the_device_and_keeps_state(self):
    vmfb = _compile("vulkan-spirv", _ACCESSIBLE_STATE_MODULE)
    module = worker_client.WorkerModule(vmfb, "vulkan", release_when_idle=True)
    self.addCleanup(module.close)
    self.assertResultsEqual(module.call("increment", [np.float32(1.0)]),
                            [np.array(11.0, np.float32)])
    self._assert_idle(module)
    self.assertResultsEqual(module.call("increment", [np.float32(1.0)]),
                            [np.array(12.0, np.float32)])
    module.reset()
    self.assertResultsEqual(module.call("increment", [np.float32(1.0)]),
                            [np.array(11.0, np.float32)])

  def test_runtime_error_and_crash(self):
    module = self._worker()
    with self.assertRaisesRegex(BackendRuntimeError, r"vulkan.*'choose'"):
      module.call("choose", [_COND[:2], _X, _Y])
    self.assertResultsEqual(module.call("choose", [_COND, _X, _Y]), [np.where(_COND, _X, _Y)])
    os.kill(module.pid, signal.SIGSEGV)
    with self.assertRaisesRegex(WorkerCrashedError, r"vulkan.*SIGSEGV.*'get_counter'"):
      module.call("get_counter", [])


class DriverAvailableTest(absltest.TestCase):

  def test_cpu_drivers_are_available(self):
    for driver in ("local-task", "local-sync"):
      available, _ = drivers.driver_available(driver)
      self.assertTrue(available)

  def test_result_is_cached(self):
    first = drivers.driver_available("vulkan")
    start = time.monotonic()
    self.assertEqual(drivers.driver_available("vulkan"), first)
    self.assertLess(time.monotonic() - start, 0.05)

  def test_missing_vulkan_device_gives_reason(self):
    # Point the Vulkan loader at no driver at all: a machine without a Vulkan device.
    no_icd = {"VK_ICD_FILENAMES": "/nonexistent/icd.json",
              "VK_DRIVER_FILES": "/nonexistent/icd.json"}
    available, reason = drivers.probe_driver("vulkan", extra_env=no_icd)
    self.assertFalse(available)
    self.assertStartsWith(reason, "no Vulkan device: ")

  def test_unknown_driver(self):
    available, reason = drivers.probe_driver("no-such-driver")
    self.assertFalse(available)
    self.assertIn("no-such-driver", reason)

  def test_probe_timeout(self):
    available, reason = drivers.probe_driver("vulkan", timeout=0.001)
    self.assertFalse(available)
    self.assertIn("did not finish within", reason)


class ImportHygieneTest(absltest.TestCase):

  def test_worker_refuses_to_run_with_tensorflow_loaded(self):
    # A sitecustomize that registers a stand-in "tensorflow" module in the worker at startup.
    site_dir = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, site_dir, ignore_errors=True)
    with open(os.path.join(site_dir, "sitecustomize.py"), "w") as f:
      f.write("import sys, types\nsys.modules['tensorflow'] = types.ModuleType('tensorflow')\n")
    # Ahead of the package's own path (set when this checkout is not the installed one).
    path = os.pathsep.join(filter(None, [site_dir, os.environ.get("PYTHONPATH")]))
    with self.assertRaisesRegex(BackendRuntimeError,
                                "tensorflow was imported in the runtime worker"):
      worker_client.WorkerModule(b"unused", "local-task", extra_env={"PYTHONPATH": path})
    available, reason = drivers.probe_driver("vulkan", extra_env={"PYTHONPATH": path})
    self.assertFalse(available)
    self.assertIn("tensorflow was imported", reason)

  def test_in_process_module_does_not_subclass_the_worker_host(self):
    self.assertEqual(loading.InProcessModule.__mro__, (loading.InProcessModule, object))

  def test_worker_modules_do_not_import_tensorflow(self):
    code = ("import sys\n"
            "import pyiree_tf_support.runtime.worker_main, pyiree_tf_support.runtime.readback\n"
            "import pyiree_tf_support.runtime.call_errors, pyiree_tf_support.runtime.loading\n"
            "import pyiree_tf_support.runtime.in_process, "
            "pyiree_tf_support.runtime.worker_client\n"
            "import pyiree_tf_support.runtime.worker_protocol, pyiree_tf_support.runtime.drivers\n"
            "import pyiree_tf_support.core.exit_status\n"
            "bad = sorted(m for m in sys.modules if m == 'tensorflow' "
            "or m.startswith(('tensorflow.', 'keras', 'tf_keras')))\n"
            "print(repr(bad))\n")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                               timeout=120, env=env, check=True)
    self.assertEqual(completed.stdout.strip(), "[]")


if __name__ == "__main__":
  absltest.main()
