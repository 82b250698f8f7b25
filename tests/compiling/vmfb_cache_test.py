"""The compile cache: content-addressed, verified on read, bounded, shared safely; and a process
compiles each distinct request once."""

import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import time

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.compiling import cache_key
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling import vmfb_cache
from tests.support.repo import ROOT
from tests.support.second_user import as_nobody
from tests.support.second_user import needs_second_user

MLIR = """
func.func @double(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""


class CompileCacheTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.cache = vmfb_cache.CompileCache(tempfile.mkdtemp())
    self.request = compiler.CompileRequest(MLIR, ("vmvx",))

  def entry_path(self):
    key = self.request.key()
    return os.path.join(self.cache.directory, key[:2], key + ".vmfb")

  def test_second_compile_is_a_hit_with_identical_bytes(self):
    first = compiler.compile_request(self.request, "double", cache=self.cache)
    second = compiler.compile_request(self.request, "double", cache=self.cache)
    self.assertEqual(first, second)
    self.assertEqual((self.cache.hits, self.cache.misses), (1, 1))

  def test_key_covers_input_targets_and_flags(self):
    keys = {
        self.request.key(),
        compiler.CompileRequest(MLIR + "\n", ("vmvx",)).key(),
        compiler.CompileRequest(MLIR, ("llvm-cpu",)).key(),
        compiler.CompileRequest(MLIR, ("vmvx",), ("--iree-opt-level=O0",)).key(),
    }
    self.assertLen(keys, 4)

  def test_key_covers_the_contents_of_files_flags_name(self):
    # e.g. an edited executable substituted in (how a miscompile is planted or a fix tried): the
    # flag's text stays the same while the file it names changes.
    source = os.path.join(tempfile.mkdtemp(), "exec.mlir")

    def key_with(text):
      with open(source, "w") as f:
        f.write(text)
      return compiler.CompileRequest(MLIR, ("vmvx",), (
          f"--iree-hal-substitute-executable-source=main_dispatch_0={source}",)).key()

    first = key_with("hal.executable @a {}")
    self.assertEqual(first, key_with("hal.executable @a {}"))
    self.assertNotEqual(first, key_with("hal.executable @b {}"))
    out_dir = tempfile.mkdtemp()  # a directory a flag names (a dump's output) is not content.
    dump = (f"--iree-hal-dump-executable-sources-to={out_dir}",)
    before = compiler.CompileRequest(MLIR, ("vmvx",), dump).key()
    with open(os.path.join(out_dir, "written_by_a_compile.mlir"), "w") as f:
      f.write("x")
    self.assertEqual(before, compiler.CompileRequest(MLIR, ("vmvx",), dump).key())

  def test_a_corrupt_entry_is_discarded_and_recompiled(self):
    good = compiler.compile_request(self.request, "double", cache=self.cache)
    with open(self.entry_path(), "r+b") as f:
      f.seek(-10, os.SEEK_END)
      f.write(b"\xff" * 10)
    self.assertIsNone(self.cache.get(self.request.key()))
    self.assertFalse(os.path.exists(self.entry_path()))
    self.assertEqual(compiler.compile_request(self.request, "double", cache=self.cache), good)

  def test_a_truncated_entry_is_a_miss(self):
    compiler.compile_request(self.request, "double", cache=self.cache)
    with open(self.entry_path(), "r+b") as f:
      f.truncate(40)
    self.assertIsNone(self.cache.get(self.request.key()))

  def test_least_recently_used_entries_are_evicted_beyond_the_bound(self):
    cache = vmfb_cache.CompileCache(tempfile.mkdtemp(), max_bytes=2500)
    for i, key in enumerate(["aa" + "0" * 62, "bb" + "0" * 62, "cc" + "0" * 62]):
      cache.put(key, bytes([i]) * 1000)
      os.utime(cache._path(key), (i, i))
    cache.evict()
    self.assertIsNone(cache.get("aa" + "0" * 62))
    self.assertEqual(cache.get("cc" + "0" * 62), bytes([2]) * 1000)

  def test_concurrent_writers_leave_a_whole_entry(self):
    payloads = [bytes([i]) * 200_000 for i in range(8)]
    key = "dd" + "1" * 62
    threads = [threading.Thread(target=self.cache.put, args=(key, p)) for p in payloads]
    for thread in threads:
      thread.start()
    for thread in threads:
      thread.join()
    self.assertIn(self.cache.get(key), payloads)
    entry_dir = os.path.dirname(self.cache._path(key))
    self.assertEqual([n for n in os.listdir(entry_dir) if n.startswith(".tmp")], [])

  def test_default_location_is_off_under_bazel_unless_set(self):
    environment = {"TEST_TMPDIR": "/tmp/x"}
    with absltest.mock.patch.dict(os.environ, environment, clear=True):
      self.assertIsNone(vmfb_cache.default_cache_dir())
    with absltest.mock.patch.dict(os.environ, dict(environment, PYIREE_TF_SUPPORT_CACHE_DIR="/c"),
                                  clear=True):
      self.assertEqual(vmfb_cache.default_cache_dir(), "/c")
    home = tempfile.mkdtemp()
    with absltest.mock.patch.dict(os.environ, {"HOME": home}, clear=True):
      self.assertEqual(vmfb_cache.default_cache_dir(),
                       f"{home}/.cache/pyiree_tf_support/compile_cache")


# Compiles for real, then writes the entry with at most 4 KiB per file allowed (RLIMIT_FSIZE:
# Python ignores SIGXFSZ, so the write raises EFBIG), as a full disk or quota would fail it.
_FAILED_WRITE = textwrap.dedent("""
    import resource, sys
    from pyiree_tf_support.compiling import vmfb_cache
    from pyiree_tf_support.compiling import compiler
    request = compiler.CompileRequest(sys.argv[2], ("vmvx",))
    vmfb = compiler.compile_request(request, "double")
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
    vmfb_cache.CompileCache(sys.argv[1]).put(request.key(), vmfb)
    print(len(vmfb))
    """)


class SharedStorageTest(parameterized.TestCase):
  """A cache on shared storage: entries others can read, no temp file left for ever."""

  def setUp(self):
    super().setUp()
    self.cache = vmfb_cache.CompileCache(os.path.join(tempfile.mkdtemp(), "cache"))
    self.request = compiler.CompileRequest(MLIR, ("vmvx",))

  def entry_path(self):
    return self.cache._path(self.request.key())

  @parameterized.parameters((0o022, 0o644, 0o755), (0o002, 0o644, 0o755), (0o077, 0o600, 0o700))
  def test_entries_and_dirs_are_readable_as_the_umask_allows_and_writable_only_by_their_user(
      self, umask, file_mode, dir_mode):
    # Never 0666/0777 less the umask: with the usual umask 002 others could then plant entries.
    old = os.umask(umask)
    try:
      compiler.compile_request(self.request, "double", cache=self.cache)
    finally:
      os.umask(old)
    def mode(path):
      return oct(stat.S_IMODE(os.stat(path).st_mode))
    self.assertEqual(mode(self.entry_path()), oct(file_mode))
    self.assertEqual(mode(os.path.dirname(self.entry_path())), oct(dir_mode))

  def test_a_failed_write_removes_its_temporary_file(self):
    process = subprocess.run([sys.executable, "-c", _FAILED_WRITE, self.cache.directory, MLIR],
                             capture_output=True, text=True, timeout=300, check=False,
                             env=dict(os.environ, PYTHONPATH=ROOT))
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertGreater(int(process.stdout), 4096)  # the entry could not fit.
    self.assertIn("Could not write compile cache entry", process.stderr)
    self.assertEqual(os.listdir(os.path.dirname(self.entry_path())), [])

  def test_eviction_removes_temporary_files_older_than_an_hour(self):
    shard = os.path.join(self.cache.directory, "ab")
    os.makedirs(shard)
    stale, fresh = os.path.join(shard, ".tmp-stale"), os.path.join(shard, ".tmp-fresh")
    for path in (stale, fresh):
      with open(path, "wb") as f:
        f.write(b"half an entry")
    two_hours_ago = time.time() - 7200
    os.utime(stale, (two_hours_ago, two_hours_ago))
    compiler.compile_request(self.request, "double", cache=self.cache)  # a put evicts.
    self.assertFalse(os.path.exists(stale))
    self.assertTrue(os.path.exists(fresh))  # may be another process's write in progress.
    self.assertTrue(os.path.exists(self.entry_path()))


# Another module (multiply, not add): what a planted entry serves instead of the real compile.
PLANTED_MLIR = MLIR.replace("stablehlo.add", "stablehlo.multiply")


def entry_bytes(payload: bytes) -> bytes:
  """An entry as the cache writes it, checksum and all: the checksum cannot stop its writer."""
  return b"PYIREE-TF-CACHE-1\n" + hashlib.sha256(payload).digest() + payload


def without_home():
  """The environment of a service or cron job: no HOME, no XDG_CACHE_HOME, no cache variable."""
  kept = {k: v for k, v in os.environ.items()
          if k not in ("HOME", "XDG_CACHE_HOME", "PYIREE_TF_SUPPORT_CACHE_DIR", "TEST_TMPDIR")}
  return absltest.mock.patch.dict(os.environ, kept, clear=True)


class PoisonedCacheTest(parameterized.TestCase):
  """Guarantee: no entry another user could write is ever loaded. The default cache without a
  home is private to the user; a cache dir, a dir in it or an entry that is another user's or
  that other users may write is refused with one line naming it and how to fix it."""

  def setUp(self):
    super().setUp()
    self.request = compiler.CompileRequest(MLIR, ("vmvx",))
    self.key = self.request.key()
    self.shared_tmp = tempfile.mkdtemp()
    os.chmod(self.shared_tmp, 0o1777)

  def plant(self, cache_dir: str) -> bytes:
    """`nobody` writes a valid entry for self.request holding another module; its payload."""
    payload = compiler.compile_request(compiler.CompileRequest(PLANTED_MLIR, ("vmvx",)), "x")
    source = os.path.join(self.shared_tmp, "entry")
    with open(source, "wb") as f:
      f.write(entry_bytes(payload))
    os.chmod(source, 0o644)
    shard = os.path.join(cache_dir, self.key[:2])
    as_nobody("mkdir", "-p", shard)
    as_nobody("cp", source, os.path.join(shard, self.key + ".vmfb"))
    return payload

  def assert_one_line_refusal(self, expected: str, use) -> None:
    with self.assertRaises(vmfb_cache.CompileCacheError) as raised:
      use()
    self.assertLen(str(raised.exception).splitlines(), 1, str(raised.exception))
    self.assertIn(expected, str(raised.exception))

  def assert_read_refused(self, cache_dir: str, expected: str) -> None:
    self.assert_one_line_refusal(expected,
                                 lambda: vmfb_cache.CompileCache(cache_dir).get(self.key))

  @needs_second_user
  def test_the_reported_attack_a_planted_default_cache_is_not_used(self):
    planted_dir = os.path.join(self.shared_tmp, "pyiree_tf_support", "compile_cache")
    planted = self.plant(planted_dir)
    honest = compiler.compile_request(self.request, "double")
    with without_home(), absltest.mock.patch.object(tempfile, "tempdir", self.shared_tmp):
      directory = vmfb_cache.default_cache_dir()
      served = compiler.compile_request(self.request, "double",
                                        cache=vmfb_cache.CompileCache(directory))
    def digest(vmfb):
      return hashlib.sha256(vmfb).hexdigest()
    self.assertNotEqual(digest(served), digest(planted), "the planted module was served")
    self.assertEqual(digest(served), digest(honest))
    private = os.path.join(self.shared_tmp, f"pyiree_tf_support-{os.geteuid()}")
    self.assertEqual(directory, os.path.join(private, "compile_cache"))
    self.assertEqual(stat.S_IMODE(os.stat(private).st_mode), 0o700)

  @needs_second_user
  def test_a_private_default_dir_another_user_made_first_is_refused(self):
    private = os.path.join(self.shared_tmp, f"pyiree_tf_support-{os.geteuid()}")
    as_nobody("mkdir", "-m", "0700", private)
    with without_home(), absltest.mock.patch.object(tempfile, "tempdir", self.shared_tmp):
      self.assert_one_line_refusal(f"'{private}' belongs to user 'nobody'",
                                   vmfb_cache.default_cache_dir)

  @needs_second_user
  def test_a_cache_dir_of_another_user_is_refused(self):
    cache_dir = os.path.join(self.shared_tmp, "team_cache")
    self.plant(cache_dir)
    self.assert_read_refused(cache_dir,
                             f"The compile cache dir '{cache_dir}' belongs to user 'nobody'")

  @needs_second_user
  def test_a_dir_in_the_cache_of_another_user_is_refused(self):
    cache_dir = tempfile.mkdtemp()
    os.chmod(cache_dir, 0o777)  # e.g. made by an older version for sharing.
    self.plant(cache_dir)
    os.chmod(cache_dir, 0o755)
    self.assert_read_refused(
        cache_dir, f"'{os.path.join(cache_dir, self.key[:2])}' belongs to user 'nobody'")

  @needs_second_user
  def test_an_entry_of_another_user_is_refused(self):
    cache_dir = tempfile.mkdtemp()
    os.chmod(cache_dir, 0o755)
    shard = os.path.join(cache_dir, self.key[:2])
    os.mkdir(shard)
    os.chmod(shard, 0o777)
    self.plant(cache_dir)
    os.chmod(shard, 0o755)
    entry = os.path.join(shard, self.key + ".vmfb")
    self.assert_read_refused(cache_dir,
                             f"The compile cache entry '{entry}' belongs to user 'nobody'")

  @parameterized.named_parameters(("cache_dir", ""), ("shard_dir", "shard"),
                                  ("entry", "entry"))
  def test_what_other_users_may_write_is_refused(self, which):
    cache = vmfb_cache.CompileCache(tempfile.mkdtemp())
    compiler.compile_request(self.request, "double", cache=cache)
    entry = cache._path(self.key)
    path = {"": cache.directory, "shard": os.path.dirname(entry), "entry": entry}[which]
    os.chmod(path, os.stat(path).st_mode | stat.S_IWGRP)
    self.assert_read_refused(cache.directory, f"'{path}' is writable by other users")

  @needs_second_user
  def test_a_run_with_another_users_cache_errors_with_no_verdict(self):
    cache_dir = os.path.join(self.shared_tmp, "team_cache")
    self.plant(cache_dir)
    process = subprocess.run(
        [sys.executable, os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"),
         f"--artifacts_dir={tempfile.mkdtemp()}", "--target_backends=iree_vmla",
         f"--compile_cache_dir={cache_dir}"],
        capture_output=True, text=True, check=False, timeout=600,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    self.assertNotEqual(process.returncode, 0, process.stderr[-3000:])
    self.assertIn(f"CompileCacheError: The compile cache dir '{cache_dir}' belongs to user "
                  "'nobody'", process.stderr)
    for verdict in ("MISMATCH", "COMPILE ERROR", "PASS"):
      self.assertNotIn(f"iree_vmla: {verdict}", process.stderr)

  @needs_second_user
  def test_under_pytest_another_users_cache_is_one_error_line(self):
    cache_dir = os.path.join(self.shared_tmp, "team_cache")
    as_nobody("mkdir", cache_dir)
    process = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         os.path.join(ROOT, "e2e", "simple_arithmetic_test.py"), "--target_backends=iree_vmla",
         f"--compile_cache_dir={cache_dir}", f"--artifacts_dir={tempfile.mkdtemp()}"],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=600,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    self.assertEqual(process.returncode, 4, process.stdout[-3000:] + process.stderr[-3000:])
    errors = [line for line in process.stderr.splitlines() if line.startswith("ERROR: ")]
    self.assertEqual(len(errors), 1, process.stderr[-3000:])
    self.assertIn(f"The compile cache dir '{cache_dir}' belongs to user 'nobody'", errors[0])


HOST = ("--iree-llvmcpu-target-cpu=host",)


class SharedCacheKeyTest(absltest.TestCase):
  """A cache directory shared between machines and checkouts hands out only what fits."""

  def test_host_is_keyed_as_the_cpu_the_compiler_resolves_it_to(self):
    resolved = cache_key.resolve_host_target(HOST)
    self.assertRegex(resolved, r'^#hal\.executable\.target<"llvm-cpu", .*cpu = "(?!host")[^"]+"')
    self.assertIn("cpu_features = ", resolved)

  def test_another_cpu_misses_the_entry_this_cpu_wrote(self):
    cache = vmfb_cache.CompileCache(tempfile.mkdtemp())
    request = compiler.CompileRequest(MLIR, ("llvm-cpu",), HOST)
    compiler.compile_request(request, "double", cache=cache)
    here = cache_key.resolve_host_target(HOST)
    there = re.sub(r'cpu = "[^"]*"', 'cpu = "some-other-cpu"', here, count=1)
    self.assertIsNotNone(cache.get(request.key()))
    self.assertIsNotNone(cache.get(request.key(host_target=here)))
    self.assertIsNone(cache.get(request.key(host_target=there)))

  def test_an_explicit_cpu_needs_no_host(self):
    request = compiler.CompileRequest(MLIR, ("llvm-cpu",), ("--iree-llvmcpu-target-cpu=znver4",))
    self.assertEqual(request.key(host_target="a"), request.key(host_target="b"))

  def test_debug_location_paths_are_not_keyed_but_code_is(self):
    def located(path, op="add"):
      return MLIR.replace("stablehlo.add", f"stablehlo.{op}").replace(
          ": tensor<4xf32>\n  return", f': tensor<4xf32> loc("{path}":3:5)\n  return')
    def key(text):
      return compiler.CompileRequest(text, ("vmvx",)).key()
    self.assertEqual(key(located("/home/a/src/m.py")), key(located("/ci/b/m.py")))
    self.assertNotEqual(key(located("/ci/b/m.py")), key(located("/ci/b/m.py", "multiply")))

  def test_only_locations_are_emptied(self):
    text = 'memref.alloc(%a) loc(callsite("f(x)" at fused["a", loc("b":1:2)])) x\n#loc1 = loc("p")'
    self.assertEqual(cache_key.without_locations(text),
                     "memref.alloc(%a) loc(?) x\n#loc1 = loc(?)")


class CompileOncePerProcessTest(absltest.TestCase):

  def run_e2e(self, *args, path=os.path.join(ROOT, "e2e", "simple_stateful_test.py")):
    process = subprocess.run(
        [sys.executable, path,
         f"--artifacts_dir={tempfile.mkdtemp()}", *args],
        capture_output=True, text=True, check=False, timeout=600,
        env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2"))
    self.assertEqual(process.returncode, 0, process.stderr[-3000:])
    return process.stderr

  def test_duplicate_backends_compile_once(self):
    log = self.run_e2e("--target_backends=iree_vmla,iree_vmla,iree_vmla", "--nocompile_cache",
                       "--verbose")
    self.assertEqual(log.count("Invoke IREE Tool"), 1, log)
    self.assertEqual(log.count("Reusing this process's compilation"), 2)

  def test_without_a_cache_host_is_not_resolved_with_one_it_is(self):
    # The probe compile (~0.25 s) only serves the cache key.
    probe = "llvm-cpu 'host' is"
    self.assertNotIn(probe, self.run_e2e("--target_backends=iree_llvmjit,iree_llvmjit",
                                         "--nocompile_cache", "--verbose"))
    self.assertIn(probe, self.run_e2e("--target_backends=iree_llvmjit", "--verbose",
                                      f"--compile_cache_dir={tempfile.mkdtemp()}"))

  def test_a_warm_run_asks_the_compiler_nothing_about_host(self):
    cache_dir = tempfile.mkdtemp()
    probe = "llvm-cpu 'host' is"
    self.assertIn(probe, self.run_e2e("--target_backends=iree_llvmjit", "--verbose",
                                      f"--compile_cache_dir={cache_dir}"))
    second = self.run_e2e("--target_backends=iree_llvmjit", "--verbose",
                          f"--compile_cache_dir={cache_dir}")
    self.assertNotIn(probe, second)  # remembered in the cache for this compiler and CPU.
    self.assertEqual(second.count("Compile cache hit"), 1, second[-3000:])

  def test_the_same_module_from_another_checkout_hits(self):
    cache_dir = tempfile.mkdtemp()
    logs = []
    for checkout in (tempfile.mkdtemp(), tempfile.mkdtemp()):
      shutil.copy(os.path.join(ROOT, "e2e", "simple_stateful_test.py"), checkout)
      logs.append(self.run_e2e("--target_backends=iree_vmla,iree_llvmjit",
                               f"--compile_cache_dir={cache_dir}", "--verbose",
                               path=os.path.join(checkout, "simple_stateful_test.py")))
    self.assertEqual(logs[0].count("Compile cache miss"), 2)
    self.assertEqual(logs[1].count("Compile cache hit"), 2, logs[1][-3000:])

  def test_an_unchanged_module_compiles_nothing_the_second_time(self):
    cache_dir = tempfile.mkdtemp()
    # --verbose: hits and misses are details.
    first = self.run_e2e("--target_backends=iree_vmla,iree_llvmjit",
                         f"--compile_cache_dir={cache_dir}", "--verbose")
    second = self.run_e2e("--target_backends=iree_vmla,iree_llvmjit",
                          f"--compile_cache_dir={cache_dir}", "--verbose")
    self.assertEqual(first.count("Compile cache miss"), 2)
    self.assertEqual(second.count("Compile cache hit"), 2)
    self.assertNotIn("Invoke IREE Tool", second)


if __name__ == "__main__":
  absltest.main()
