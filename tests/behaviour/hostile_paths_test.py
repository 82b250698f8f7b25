"""Hostile paths: nothing outside the artifacts dir is written, emptied or read through a
symlink below it, directories of another user are refused, a damaged or escaping bundle is not
replayed as if it were sound, and a printed command quotes the names it contains.

Everything is real: TensorFlow, IREE's compiler and runtime, the symlinks, and a second user
(`nobody`, via a child process that drops to its uid) planting directories as an attacker would.
"""

import contextlib
import hashlib
import io
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
import unittest.mock
import zipfile

from absl.testing import absltest
from absl.testing import flagsaver
from absl.testing import parameterized
import numpy as np
import tensorflow as tf

from pyiree_tf_support import bundle
from pyiree_tf_support import cli_flags
from pyiree_tf_support import localize
from pyiree_tf_support import replay
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import module_dirs
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup
from pyiree_tf_support.reporting import replay_input
from pyiree_tf_support.tools import make_repros
from tests.support.output_dirs import snapshot
from tests.support.second_user import as_nobody
from tests.support.second_user import needs_second_user
from tests.support.second_user import NOBODY

REPRO = "repro/trace__iree_vmla"


class Hostile(tf.Module):
  """vmvx rounds f32 -> i32 where TF truncates: 0.7 mismatches, whole numbers pass."""

  @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
  def truncate(self, x):
    return tf.cast(x, tf.int32)


def passing(module):
  module.truncate(np.array([1.0, -2.0], np.float32))


def failing(module):
  module.truncate(np.array([0.7, -2.0], np.float32))


def make_case(trace_function):
  trace_function.__name__ = "trace"

  @tf_test_utils.compile_module(Hostile)
  class Case(tf_test_utils.TracedModuleTestCase):

    def test_trace(self):
      self.compare_backends(trace_function)

  return Case


def run_case(test_class, root: str, **flag_values) -> unittest.TestResult:
  cli_flags.ensure_parsed()
  suite = unittest.defaultTestLoader.loadTestsFromTestCase(test_class)
  with flagsaver.flagsaver(artifacts_dir=root, target_backends=["iree_vmla"], **flag_values):
    return unittest.TextTestRunner(stream=io.StringIO(), verbosity=0).run(suite)


def messages(result: unittest.TestResult) -> str:
  return "\n".join(text for _, text in result.failures + result.errors)


class Victim:
  """Files of the user running the tests outside any artifacts dir: documents and a key."""

  def __init__(self):
    self.home = tempfile.mkdtemp(prefix="victim-")
    self.documents = os.path.join(self.home, "documents")
    os.makedirs(self.documents)
    for name, text in (("notes.txt", "notes"), ("taxes.pdf", "pdf")):
      with open(os.path.join(self.documents, name), "w") as f:
        f.write(text)
    self.key = os.path.join(self.home, "id_ed25519")
    with open(self.key, "w") as f:
      f.write("PRIVATE KEY")
    self.absent = os.path.join(self.home, "never_created")
    self.before = snapshot(self.home)

  def untouched(self) -> bool:
    return snapshot(self.home) == self.before and not os.path.lexists(self.absent)


# (name, path below the module dir, link target: a directory / file / missing file of the victim,
#  trace function, extra flags). Each link sits where the run writes, removes or locks.
LINKS = (
    ("repro_dir_emptied_by_a_passing_run", REPRO, "documents", passing, {}),
    ("repro_dir_of_intermediate_dirs", "repro", "documents", passing, {}),
    ("repro_call_dir", f"{REPRO}/call_0_truncate", "documents", failing, {}),
    ("traces_dir", "traces", "documents", passing, {}),
    ("readable_trace_file", "traces/trace__iree_vmla.txt", "key", passing, {}),
    ("loadable_trace_dir", "traces/trace__tf_ref", "documents", passing, {}),
    ("loadable_trace_file", "traces/trace__tf_ref/trace.json", "key", passing, {}),
    ("report_lock_to_a_file", ".report.lock", "key", passing, {}),
    ("report_lock_to_a_missing_file", ".report.lock", "absent", passing, {}),
    ("report_json", "report.json", "key", passing, {}),
    ("report_txt", "report.txt", "key", passing, {}),
    ("kept_saved_model", "saved_model__iree_vmla", "documents", passing,
     {"keep_saved_model": True}),
    ("compiled_vmfb", "compiled__iree_vmla.vmfb", "key", passing, {}),
    ("tf_input", "tf_input.mlir", "key", passing, {}),
    ("iree_input", "iree_input.mlir", "absent", passing, {}),
    ("signatures", "signatures.json", "key", passing, {}),
)


class PlantedLinksTest(parameterized.TestCase):
  """Guarantee: a run never writes, empties or locks through a symlink below the artifacts dir;
  the link is replaced (its target untouched) and the run's verdict is the backend's."""

  @parameterized.named_parameters(*LINKS)
  def test_the_link_target_is_untouched_and_the_link_replaced(self, relative, target, trace,
                                                               flag_values):
    victim, root = Victim(), tempfile.mkdtemp()
    module_dir = class_setup.claim_artifacts_dir(Hostile, RunSettings(artifacts_dir=root))
    link = os.path.join(module_dir, relative)
    os.makedirs(os.path.dirname(link), exist_ok=True)
    os.symlink(getattr(victim, target), link)

    result = run_case(make_case(trace), root, **flag_values)

    self.assertTrue(victim.untouched(), f"{snapshot(victim.home)} {victim.before}")
    self.assertFalse(os.path.islink(link), link)
    if trace is passing:
      self.assertTrue(result.wasSuccessful(), messages(result))
    else:  # the backend's own verdict, not an error of ours.
      self.assertIn("iree_vmla: MISMATCH", messages(result))
      self.assertTrue(os.path.isfile(os.path.join(link, "flagfile")), link)
    if relative.startswith("traces") or relative.startswith("saved_model"):
      self.assertTrue(os.path.exists(link), link)

  def test_emptying_a_linked_repro_dir_outside_any_root_removes_only_the_link(self):
    # CallRepros given a module dir no run claimed (e.g. by a caller of the library).
    victim, module_dir = Victim(), tempfile.mkdtemp()
    os.makedirs(os.path.join(module_dir, "repro"))
    os.symlink(victim.documents, os.path.join(module_dir, REPRO))
    safe_files.remove_other_entries(os.path.join(module_dir, REPRO), set())
    self.assertTrue(victim.untouched())
    self.assertFalse(os.path.lexists(os.path.join(module_dir, REPRO)))

  def test_a_symlink_at_the_module_dir_is_refused_with_one_line(self):
    victim, root = Victim(), tempfile.mkdtemp()
    os.symlink(victim.documents, os.path.join(root, "Hostile"))
    result = run_case(make_case(passing), root)
    self.assertFalse(result.wasSuccessful())
    self.assertIn(f"ArtifactsDirError: The module's artifacts dir '{root}/Hostile' is a symlink; "
                  "refusing to follow it out of the artifacts dir (remove it or choose another "
                  "--artifacts_dir).\n", messages(result))
    self.assertTrue(victim.untouched())


class ForeignDirsTest(absltest.TestCase):
  """Guarantee: an artifacts root or module dir of another user, or one every user may write, is
  refused with one line before anything is written or removed."""

  def claim(self, root: str) -> str:
    return class_setup.claim_artifacts_dir(Hostile, RunSettings(artifacts_dir=root))

  def assert_one_line_refusal(self, root: str, expected: str) -> None:
    with self.assertRaises(safe_files.ArtifactsDirError) as raised:
      self.claim(root)
    self.assertLen(str(raised.exception).splitlines(), 1)
    self.assertIn(expected, str(raised.exception))

  @needs_second_user
  def test_the_reported_attack_a_planted_root_does_not_empty_the_victims_documents(self):
    # `nobody` creates the artifacts root the victim's runs will use, with the module dir and a
    # link where a passing run empties its repro dir.
    victim, shared_tmp = Victim(), tempfile.mkdtemp()
    os.chmod(shared_tmp, 0o1777)
    root = os.path.join(shared_tmp, "iree", "modules")
    as_nobody("mkdir", "-p", os.path.join(root, "Hostile", "repro"))
    as_nobody("ln", "-s", victim.documents, os.path.join(root, "Hostile", REPRO))
    result = run_case(make_case(passing), root)
    self.assertFalse(result.wasSuccessful())
    self.assertIn(f"ArtifactsDirError: The artifacts dir '{root}' belongs to user 'nobody' "
                  f"(uid {NOBODY}), not to you", messages(result))
    self.assertTrue(victim.untouched())

  @needs_second_user
  def test_a_module_dir_another_user_made_is_refused(self):
    victim, root = Victim(), tempfile.mkdtemp()
    os.chmod(root, 0o777)
    as_nobody("mkdir", os.path.join(root, "Hostile"))
    as_nobody("ln", "-s", victim.documents, os.path.join(root, "Hostile", "repro"))
    os.chmod(root, 0o755)
    self.assert_one_line_refusal(
        root, f"The module's artifacts dir '{root}/Hostile' belongs to user 'nobody'")
    self.assertTrue(victim.untouched())

  @needs_second_user
  def test_an_artifacts_dir_that_is_another_users_link_is_refused(self):
    # `nobody` plants the name the victim's runs will use as a link to the victim's documents,
    # which are the victim's own: only the link's owner tells the attack.
    victim, shared_tmp = Victim(), tempfile.mkdtemp()
    os.chmod(shared_tmp, 0o1777)
    root = os.path.join(shared_tmp, "modules")
    as_nobody("ln", "-s", victim.documents, root)
    self.assert_one_line_refusal(
        root, f"The artifacts dir '{root}' is a symlink of user 'nobody' (uid {NOBODY})")
    self.assertTrue(victim.untouched())

  def test_a_world_writable_module_dir_is_refused(self):
    root = tempfile.mkdtemp()
    os.mkdir(os.path.join(root, "Hostile"))
    os.chmod(os.path.join(root, "Hostile"), 0o777)
    self.assert_one_line_refusal(
        root, f"The module's artifacts dir '{root}/Hostile' is writable by every user (mode 0777)")

  def test_a_world_writable_root_is_refused(self):
    root = tempfile.mkdtemp()
    os.chmod(root, 0o1777)
    self.assert_one_line_refusal(root, f"The artifacts dir '{root}' is writable by every user")


class DefaultRootTest(absltest.TestCase):
  """Guarantee: the default artifacts root is private to the user, never a shared temp name."""

  def default_root(self, **environment) -> str:
    names = ("TEST_UNDECLARED_OUTPUTS_DIR", "XDG_CACHE_HOME", "HOME")
    saved = {name: os.environ.pop(name, None) for name in names}
    os.environ.update(environment)
    try:
      return module_dirs.default_root()
    finally:
      for name, value in saved.items():
        os.environ.pop(name, None)
        if value is not None:
          os.environ[name] = value

  def test_under_the_users_cache_dir_and_0700(self):
    home = tempfile.mkdtemp()
    root = self.default_root(HOME=home)
    self.assertEqual(root, os.path.join(home, ".cache", "pyiree_tf_support", "modules"))
    self.assertEqual(stat.S_IMODE(os.stat(root).st_mode), 0o700)
    cache = tempfile.mkdtemp()
    self.assertEqual(self.default_root(XDG_CACHE_HOME=cache, HOME=home),
                     os.path.join(cache, "pyiree_tf_support", "modules"))

  def test_bazel_keeps_the_test_outputs_dir(self):
    outputs = tempfile.mkdtemp()
    self.assertEqual(self.default_root(TEST_UNDECLARED_OUTPUTS_DIR=outputs), outputs)

  @needs_second_user
  def test_without_a_home_a_per_user_temp_dir_another_user_cannot_plant(self):
    shared_tmp = tempfile.mkdtemp()
    os.chmod(shared_tmp, 0o1777)
    private = os.path.join(shared_tmp, f"pyiree_tf_support-{os.geteuid()}")
    with unittest.mock.patch.object(tempfile, "tempdir", shared_tmp):
      as_nobody("mkdir", "-m", "0700", private)  # made first by another user: refused.
      with self.assertRaisesRegex(safe_files.ArtifactsDirError, "belongs to user 'nobody'"):
        self.default_root()
      shutil.rmtree(private)
      as_nobody("ln", "-s", tempfile.mkdtemp(), private)  # a link: refused.
      with self.assertRaisesRegex(safe_files.ArtifactsDirError, "is not a directory"):
        self.default_root()
      os.remove(private)
      root = self.default_root()
    self.assertEqual(root, os.path.join(private, "modules"))
    self.assertEqual(stat.S_IMODE(os.stat(private).st_mode), 0o700)


def sha256(path: str) -> str:
  with open(path, "rb") as f:
    return hashlib.sha256(f.read()).hexdigest()


class DamagedBundleTest(parameterized.TestCase):
  """Guarantee: replaying a damaged bundle is exit 2 with one line, or that backend's RUNTIME
  ERROR with the others replayed; a bundle's paths never leave its directory."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.recorded, cls.bundles = tempfile.mkdtemp(), tempfile.mkdtemp()
    result = run_case(make_case(passing), cls.recorded)
    assert result.wasSuccessful(), messages(result)
    cls.made = bundle.write(os.path.join(cls.recorded, "Hostile"), cls.bundles,
                            ["iree_vmla", "iree_llvmjit"])

  def setUp(self):
    super().setUp()
    self.module = os.path.join(tempfile.mkdtemp(), "Hostile")
    shutil.copytree(self.made, self.module)
    self.trace = os.path.join(self.module, "traces", "trace__tf_ref")
    self.vmfb = os.path.join(self.module, "compiled__iree_vmla.vmfb")
    self.elsewhere = os.path.join(tempfile.mkdtemp(), "elsewhere.vmfb")
    shutil.copy(self.vmfb, self.elsewhere)

  def manifest(self, change) -> None:
    path = os.path.join(self.module, "manifest.json")
    with open(path) as f:
      document = json.load(f)
    document = change(document)
    with open(path, "w") as f:
      f.write(document if isinstance(document, str) else json.dumps(document))

  def replay(self, backends=("iree_vmla",)):
    stderr, stdout = io.StringIO(), io.StringIO()
    with flagsaver.flagsaver(target_backends=list(backends)), \
        contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
      code = replay.main(["replay", self.trace])
    return code, stdout.getvalue(), stderr.getvalue()

  def assert_refused(self, expected: str) -> None:
    code, stdout, stderr = self.replay()
    self.assertEqual((code, stdout), (2, ""), stderr)
    self.assertLen(stderr.splitlines(), 1, stderr)
    self.assertIn(expected, stderr)

  def test_the_sound_bundle_replays(self):
    code, stdout, stderr = self.replay(("iree_vmla", "iree_llvmjit"))
    self.assertEqual(code, 0, stderr)
    self.assertIn("iree_vmla: PASS", stdout)

  def test_an_unloadable_vmfb_whose_hash_matches_is_that_backends_runtime_error(self):
    with open(self.vmfb, "wb") as f:
      f.write(b"not a vmfb " * 10)
    self.manifest(lambda m: {**m, "files": {**m["files"],
                                            "compiled__iree_vmla.vmfb": sha256(self.vmfb)}})
    code, stdout, stderr = self.replay(("iree_vmla", "iree_llvmjit"))
    self.assertEqual(code, 1, stderr)
    self.assertIn("iree_vmla: RUNTIME ERROR", stdout)
    self.assertIn("loading the compiled module raised", stdout)
    self.assertIn("iree_llvmjit: PASS", stdout)

  def test_a_missing_vmfb(self):
    os.remove(self.vmfb)
    self.assert_refused(f"{self.vmfb} (the bundle's compiled 'iree_vmla') is missing.")

  @parameterized.named_parameters(
      ("not_json", lambda m: "{", "not JSON"),
      ("a_list", lambda m: [m], "it holds a JSON list, not an object"),
      ("no_files", lambda m: {k: v for k, v in m.items() if k != "files"},
       "'backends' and 'files' must be objects"),
      ("entry_not_an_object", lambda m: {**m, "backends": {"iree_vmla": "x.vmfb"}},
       "backend 'iree_vmla' names no file"),
      ("file_not_a_string", lambda m: {**m, "backends": {"iree_vmla": {"file": 3}}},
       "backend 'iree_vmla' names no file"),
      ("no_hash", lambda m: {**m, "files": {k: v for k, v in m["files"].items()
                                           if k != "compiled__iree_vmla.vmfb"}},
       "'files' records no SHA-256 of compiled__iree_vmla.vmfb"),
      ("other_format", lambda m: {**m, "format": "x/2"}, "its format is 'x/2'"),
  )
  def test_a_malformed_manifest(self, change, expected):
    self.manifest(change)
    self.assert_refused(expected)

  @needs_second_user
  def test_a_compile_cache_of_another_user_is_refused_with_one_line(self):
    shared = tempfile.mkdtemp()
    os.chmod(shared, 0o1777)
    cache_dir = os.path.join(shared, "cache")
    as_nobody("mkdir", cache_dir)
    with flagsaver.flagsaver(compile_cache_dir=cache_dir):
      self.assert_refused(f"replay: The compile cache dir '{cache_dir}' belongs to user 'nobody'")

  @parameterized.named_parameters(("parent", "../{name}"), ("absolute", "{path}"))
  def test_a_vmfb_path_outside_the_bundle_is_refused(self, file):
    # The vmfb elsewhere is sound and its hash recorded: followed, it would replay and pass.
    file = file.format(name=os.path.relpath(self.elsewhere, os.path.dirname(self.module)),
                       path=self.elsewhere)
    self.manifest(lambda m: {**m, "backends": {"iree_vmla": {"file": file}},
                             "files": {**m["files"], file: sha256(self.elsewhere)}})
    self.assert_refused(f"backend 'iree_vmla' names the file {file!r}, outside the bundle's "
                        "directory")

  @parameterized.named_parameters(
      ("vmfb", "compiled__iree_vmla.vmfb"),
      ("trace", "traces/trace__tf_ref/trace.json"),
      ("arrays", "traces/trace__tf_ref/arrays.npz"),  # opened once, then checked and mapped.
      ("iree_input", "iree_input.mlir"),
      ("traces_dir", "traces"),
  )
  def test_a_symlink_in_the_bundle_is_refused(self, relative):
    path = os.path.join(self.module, relative)
    moved = os.path.join(tempfile.mkdtemp(), "moved")
    shutil.move(path, moved)  # the same content, reached through a link.
    os.symlink(moved, path)
    code, stdout, stderr = self.replay()
    self.assertEqual((code, stdout), (2, ""), stderr)
    self.assertLen(stderr.splitlines(), 1, stderr)
    self.assertIn("is a symlink; refusing to follow it", stderr)


# What a hand-written iree_input.mlir can add to a module so that compiling it links, or runs,
# code of its author's: each snippet goes before the module's first function.
_TARGET = ('#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = '
           '"x86_64-unknown-unknown-eabi-elf"}>')
PLANTED = {
    "executable_with_objects": f"""
  hal.executable private @planted {{
    hal.executable.variant public @x86_64 target({_TARGET}) objects([
        #hal.executable.object<{{path = "planted.o"}}>]) {{
      hal.executable.export public @entry ordinal(0) layout(
          #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
          count(%device: !hal.device) -> (index, index, index) {{
        %c1 = arith.constant 1 : index
        hal.return %c1, %c1, %c1 : index, index, index
      }}
    }}
  }}""",
    "objects_on_a_function": """
  func.func private @planted(%arg0: tensor<2xf32>) -> tensor<2xf32> attributes {
      hal.executable.objects = [#hal.executable.object<{path = "planted.o"}>]}""",
    "flow_executable": """
  flow.executable private @planted {
    flow.executable.export public @entry
    builtin.module {
      func.func @entry() {
        return
      }
    }
  }""",
    "opaque_attribute": """
  func.func private @planted() attributes {
      objects = [#hal<executable.object<{path = "planted.o"}>>]}""",
    "generic_form": """
  "hal.executable"() <{sym_name = "planted", sym_visibility = "private"}> ({
  }) : () -> ()""",
}


class HandedModuleDirTest(parameterized.TestCase):
  """Guarantee: an iree_input.mlir loaded from disk (replay, bundle, localize, make_repros) that
  holds an op, attribute or type of IREE's executable dialects, which the import never writes,
  is refused with one line before anything is compiled or written; an imported one is not."""

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    cls.recorded = tempfile.mkdtemp()
    result = run_case(make_case(passing), cls.recorded)
    assert result.wasSuccessful(), messages(result)

  def planted(self, kind: str, as_bytecode: bool = False) -> str:
    """A copy of the recorded module dir with `kind` planted, its trace rehashed to match (the
    dir's author controls every file of it); the copy's path."""
    module = os.path.join(tempfile.mkdtemp(), "Hostile")
    shutil.copytree(os.path.join(self.recorded, "Hostile"), module)
    path = os.path.join(module, "iree_input.mlir")
    with open(path) as f:
      text = f.read()
    start = text.index("  func.func")
    text = text[:start] + PLANTED[kind].lstrip("\n") + "\n" + text[start:]
    with open(path, "w") as f:
      f.write(text)
    if as_bytecode:
      subprocess.run([os.path.join(os.path.dirname(sys.executable), "iree-opt"),
                      "--emit-bytecode", path, "-o", path], check=True, timeout=120)
      with open(path, "rb") as f:
        self.assertTrue(artifacts.is_mlir_bytecode(f.read()))
    with open(path, "rb") as f:
      digest = hashlib.sha256(f.read()).hexdigest()
    trace_json = os.path.join(module, "traces", "trace__tf_ref", "trace.json")
    with open(trace_json) as f:
      document = json.load(f)
    document["iree_input_sha256"] = digest
    with open(trace_json, "w") as f:
      json.dump(document, f)
    return module

  def run_main(self, main, argv, **flag_values):
    stderr, stdout = io.StringIO(), io.StringIO()
    with flagsaver.flagsaver(target_backends=["iree_llvmjit"], **flag_values), \
        contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(stdout):
      code = main(argv)
    return code, stdout.getvalue(), stderr.getvalue()

  def assert_refused(self, result, module: str, name: str) -> None:
    code, stdout, stderr = result
    self.assertEqual((code, stdout), (2, ""), stdout + stderr)
    self.assertLen(stderr.splitlines(), 1, stderr)
    self.assertIn(f"{module}/iree_input.mlir holds '{name}' (line ", stderr)
    self.assertIn("which this library's import never writes", stderr)

  @parameterized.named_parameters(
      ("executable_with_objects", "executable_with_objects", "hal.executable"),
      ("objects_on_a_function", "objects_on_a_function", "hal.executable.objects"),
      ("flow_executable", "flow_executable", "flow.executable"),
      ("opaque_attribute", "opaque_attribute", "#hal<"),
      ("generic_form", "generic_form", "hal.executable"))
  def test_replay_refuses_it(self, kind, name):
    module = self.planted(kind)
    trace = os.path.join(module, "traces", "trace__tf_ref")
    self.assert_refused(self.run_main(replay.main, ["replay", trace]), module, name)

  def test_replay_refuses_it_in_mlir_bytecode(self):
    module = self.planted("executable_with_objects", as_bytecode=True)
    trace = os.path.join(module, "traces", "trace__tf_ref")
    self.assert_refused(self.run_main(replay.main, ["replay", trace]), module,
                        "hal.executable.target")  # the printer hoists the attribute first.

  def test_bundle_refuses_it_and_writes_nothing(self):
    module, out = self.planted("executable_with_objects"), tempfile.mkdtemp()
    self.assert_refused(self.run_main(bundle.main, ["bundle", module, out]), module,
                        "hal.executable")
    self.assertEqual(os.listdir(out), [])

  def test_localize_refuses_it_and_writes_nothing(self):
    module = self.planted("executable_with_objects")
    before = sorted(os.listdir(module))
    self.assert_refused(self.run_main(localize.main, ["localize", module]), module,
                        "hal.executable")
    self.assertEqual(sorted(os.listdir(module)), before)

  def test_make_repros_refuses_it(self):
    module = self.planted("flow_executable")
    with self.assertRaisesRegex(ValueError, r"iree_input.mlir holds 'flow.executable' \(line "):
      make_repros._iree_input(module)

  def test_a_name_in_a_location_is_no_code_and_no_place_to_hide_one(self):
    located = 'func.func @f() -> () loc("/home/hal.smith/flow.executable.py":3:5)\n'
    self.assertIsNone(replay_input.hand_written_code(located))
    hidden = ('%s = "loc(" : () -> ()\nhal.executable private @planted {\n}\n'
              '%t = ")" : () -> ()\n')  # a "loc(" in a string opens no location.
    self.assertEqual(replay_input.hand_written_code(hidden), ("hal.executable", 2))
    nested = 'x loc(callsite("a(" at fused["b)", loc("c":1:2)])) hal.executable @p {}'
    self.assertEqual(replay_input.hand_written_code(nested), ("hal.executable", 1))

  def test_the_imported_module_replays(self):
    trace = os.path.join(self.recorded, "Hostile", "traces", "trace__tf_ref")
    code, stdout, stderr = self.run_main(replay.main, ["replay", trace])
    self.assertEqual(code, 0, stderr)
    self.assertIn("iree_llvmjit: PASS", stdout)


class BazelCommandQuotingTest(absltest.TestCase):
  """Guarantee: a printed command quotes every path: a `$(...)` in a Bazel target name is text."""

  def test_the_printed_unzip_command_runs_nothing_from_the_target_name(self):
    workspace, outputs = tempfile.mkdtemp(), tempfile.mkdtemp()
    marker = os.path.join(tempfile.mkdtemp(), "marker")
    target = f"//hostile:t$(touch {marker})"
    environment = {"TEST_UNDECLARED_OUTPUTS_DIR": outputs, "TEST_TARGET": target}
    with unittest.mock.patch.dict(os.environ, environment):
      command = bazel_paths.shell_cd(os.path.join(outputs, "Hostile", "repro"))
    zip_path = os.path.join(workspace, "bazel-testlogs", "hostile", f"t$(touch {marker})",
                            "test.outputs", "outputs.zip")
    os.makedirs(os.path.dirname(zip_path))
    with zipfile.ZipFile(zip_path, "w") as archive:
      archive.writestr("Hostile/repro/flagfile", "unzipped")
    with open(os.path.join(workspace, "WORKSPACE"), "w"):
      pass
    ran = subprocess.run(["bash", "-c", f"{command} && cat flagfile"], cwd=workspace,
                         capture_output=True, text=True, check=False, timeout=60)
    self.assertFalse(os.path.exists(marker), command)
    self.assertEqual((ran.returncode, ran.stdout), (0, "unzipped"), ran.stderr)


if __name__ == "__main__":
  absltest.main()
