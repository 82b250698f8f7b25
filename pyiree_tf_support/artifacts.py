"""Where artifacts go and what they are called; every write is atomic (temp file + rename).

Layout under the artifacts root:
  <Module>/tf_input.mlir, iree_input.mlir       the module before and after the TF->IREE import
  <Module>/signatures.json                      the exported functions' metadata (for replay)
  <Module>/compiled__<backends>.vmfb            one per compiled backend (artifact name)
  <Module>/reproducer__<backends>.mlir          when compilation fails
  <Module>/saved_model__<backends>/             only with --keep_saved_model
  <Module>/traces/<trace function>__<backend>.txt
  <Module>/traces/<trace function>__<backend>/  the same trace, loadable (trace.json + arrays.npz)
  <Module>/repro/<trace function>__<backend>/call_<i>_<method>/
                                                inputs, expected outputs and an iree-run-module flagfile
"""

import hashlib
import os
import re
import secrets
import shlex
import shutil
import tempfile
from typing import Iterable, Optional, Set, Tuple, Union

from pyiree_tf_support import faults

_UNSAFE = re.compile(r"[^0-9a-zA-Z_.-]")


# File names stay far below NAME_MAX (255) with room for suffixes and temp-file prefixes.
MAX_NAME = 100


def safe_name(name: str) -> str:
  """A file-name-safe form of `name` (module names may contain '/' or spaces); names longer than
  MAX_NAME keep their start and end a stable hash of the whole name."""
  cleaned = _UNSAFE.sub("_", name).strip(".") or "_"
  if len(cleaned) <= MAX_NAME:
    return cleaned
  digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]
  return f"{cleaned[:MAX_NAME - 14]}__{digest}"


class ArtifactsDirError(faults.OwnFault, OSError):
  """The artifacts directory cannot be used; the message names the path and why."""


def create_temp_file(directory: str, prefix: str) -> Tuple[int, str]:
  """A new file in `directory`, open for writing: (fd, path).

  Unlike tempfile.mkstemp (always 0600), the file gets 0666 less the umask, as any file the user
  creates would, so the artifacts it becomes after a rename are readable by CI uploaders and
  colleagues when the umask allows it.
  """
  while True:
    path = os.path.join(directory, f"{prefix}{secrets.token_hex(6)}")
    try:
      return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0),
                     0o666), path
    except FileExistsError:
      continue


def _make_dir(path: str, what: str, follow_symlink: bool = False) -> None:
  """Creates `path`, refusing a symlink there (it would send writes outside the artifacts dir)
  unless `follow_symlink` (the root the user chose may be one)."""
  if os.path.islink(path) and not follow_symlink:
    raise ArtifactsDirError(f"{what} '{path}' is a symlink; refusing to follow it out of the "
                            "artifacts dir (remove it or choose another --artifacts_dir).")
  if os.path.exists(path) and not os.path.isdir(path):
    raise ArtifactsDirError(f"{what} '{path}' is a file, not a directory (pass a directory as "
                            "--artifacts_dir).")
  try:
    os.makedirs(path, exist_ok=True)
  except OSError as e:
    raise ArtifactsDirError(f"{what} '{path}' cannot be created: {e.strerror} "
                            "(pass a writable directory as --artifacts_dir).") from None
  if not os.access(path, os.W_OK | os.X_OK):
    raise ArtifactsDirError(f"{what} '{path}' is not writable (pass a writable directory as "
                            "--artifacts_dir).")


def remove_other_entries(directory: str, keep: Set[str]) -> None:
  """Removes what `directory` holds besides `keep` (left by earlier runs). Tolerates processes
  doing the same concurrently; never follows symlinks."""
  try:
    names = os.listdir(directory)
  except FileNotFoundError:
    return
  for name in set(names) - set(keep):
    path = os.path.join(directory, name)
    if os.path.isdir(path) and not os.path.islink(path):
      shutil.rmtree(path, ignore_errors=True)
    else:
      try:
        os.remove(path)
      except FileNotFoundError:
        pass


def backends_to_str(names: Iterable[str]) -> str:
  """Backend names normalized to [0-9a-zA-Z_], stripped of '_', joined by '__'."""
  return "__".join(re.sub(r"[^0-9a-zA-Z_]+", "_", name).strip("_") for name in names)


def default_root() -> str:
  """$TEST_UNDECLARED_OUTPUTS_DIR under Bazel, else <tmp>/iree/modules."""
  return os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR") or os.path.join(
      tempfile.gettempdir(), "iree", "modules")


def claim_module_dir(root: str, module_name: str, identity: str) -> str:
  """The directory of one module's artifacts under `root`, created if needed.

  `<root>/<module_name>` belongs to the first module that used it (its identity, the defining
  file's absolute path and the class's qualified name, is recorded in `.owner`); a different
  module that happens to have the same name gets
  `<root>/<module_name>__<8 hex digits of its identity>`, so the two never overwrite each other.
  """
  _make_dir(root, "The artifacts dir", follow_symlink=True)
  path = os.path.join(root, module_name)
  _make_dir(path, "The module's artifacts dir")
  owner = os.path.join(path, ".owner")
  if not os.path.exists(owner):
    with faults.writing(owner):
      fd, tmp = create_temp_file(path, ".tmp-owner-")
      with os.fdopen(fd, "w") as f:
        f.write(identity)
      try:
        os.link(tmp, owner)  # atomic, and fails if another process claimed it first.
      except FileExistsError:
        pass
      finally:
        os.remove(tmp)
  with open(owner) as f:
    if f.read() == identity:
      return path
  digest = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:8]
  path = os.path.join(root, f"{module_name}__{digest}")
  _make_dir(path, "The module's artifacts dir")
  return path


def _bazel_outputs(path: str) -> Optional[Tuple[str, str]]:
  """(path relative to the outputs dir, the outputs.zip Bazel leaves) for a Bazel test's artifact."""
  outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
  if not outputs:
    return None
  relative = os.path.relpath(os.path.abspath(path), os.path.abspath(outputs))
  if relative.startswith(".."):
    return None
  package, _, name = os.environ.get("TEST_TARGET", "").lstrip("/").partition(":")
  zip_path = (f"bazel-testlogs/{package}/{name}/test.outputs/outputs.zip" if name
              else "the test's test.outputs/outputs.zip")
  return relative, zip_path


def display_path(path: str) -> str:
  """Where a person finds `path` after the run: under Bazel the sandbox is gone and the
  artifacts are zipped into bazel-testlogs/<package>/<test>/test.outputs/outputs.zip."""
  located = _bazel_outputs(path)
  return path if located is None else f"{located[0]} in {located[1]}"


def shell_cd(directory: str) -> str:
  """A shell prefix that enters `directory`, unzipping Bazel's outputs.zip first if needed."""
  located = _bazel_outputs(directory)
  if located is None:
    return f"cd {shlex.quote(os.path.abspath(directory))}"
  relative, zip_path = located
  # Run from the workspace root: $OLDPWD is where the command started.
  return f"cd \"$(mktemp -d)\" && unzip -q \"$OLDPWD/{zip_path}\" && cd {shlex.quote(relative)}"


def _write(path: str, data: Union[str, bytes]) -> None:
  """Writes atomically; a failure (disk full, read-only) is the ArtifactWriteError of `path`,
  and the file it replaces stays as it was."""
  directory = os.path.dirname(path) or "."
  with faults.writing(path):
    os.makedirs(directory, exist_ok=True)
    fd, tmp = create_temp_file(directory, ".tmp-" + os.path.basename(path) + "-")
    try:
      with os.fdopen(fd, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
      os.replace(tmp, path)
    except BaseException:
      if os.path.exists(tmp):
        os.remove(tmp)
      raise


def write_text(path: str, text: str) -> None:
  """Writes `text` so that readers see the old file or the whole new one, never a mix."""
  _write(path, text)


def write_bytes(path: str, data: bytes) -> None:
  _write(path, data)


def compiled_path(artifacts_dir: str, backends: str) -> str:
  return os.path.join(artifacts_dir, f"compiled__{backends}.vmfb")


def reproducer_path(artifacts_dir: str, backends: str) -> str:
  return os.path.join(artifacts_dir, f"reproducer__{backends}.mlir")


def saved_model_path(artifacts_dir: str, backends: str) -> str:
  return os.path.join(artifacts_dir, f"saved_model__{backends}")


def signatures_path(module_dir: str) -> str:
  return os.path.join(module_dir, "signatures.json")


def repro_dir(module_dir: str, function_name: str, backend: str) -> str:
  return os.path.join(module_dir, "repro", f"{safe_name(function_name)}__{safe_name(backend)}")


def trace_dir(module_dir: str) -> str:
  return os.path.join(module_dir, "traces")


def trace_file_name(function_name: str, backend: str, suffix: str = ".txt") -> str:
  """<function>__<backend><suffix>: the readable trace, or (suffix "") the loadable one."""
  return f"{safe_name(function_name)}__{safe_name(backend)}{suffix}"


def trace_path(module_dir: str, function_name: str, backend: str, suffix: str = ".txt") -> str:
  return os.path.join(trace_dir(module_dir), trace_file_name(function_name, backend, suffix))
