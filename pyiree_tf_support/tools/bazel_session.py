"""Bazel commands of a tool, in an output base it owns, with no server left behind.

A Bazel server lingers for hours after its last command. A tool that runs `bazel` (the coverage
table's `--run`, the 2020 `bazel query`) runs it through a `session`: in the tool's own output base
(`$XDG_CACHE_HOME/pyiree_tf_support/bazel/<workspace hash>`, ~/.cache without it or when it is
relative, so its cached results last from one run of the tool to the next) or in the one the
user names (`--output_base`, e.g. their usual `bazel info output_base`), and shuts down at the
end, also on an error, Ctrl-C or SIGTERM, the server it started. A server that was already
running in that output base is the user's, and is left running.
"""

import contextlib
import dataclasses
import hashlib
import os
import signal
import subprocess
import sys
import time
from typing import Iterator, Optional

from pyiree_tf_support.core import safe_files

# Where Bazel records its server's pid, inside an output base.
_PID_FILE = os.path.join("server", "server.pid.txt")


def default_output_base(workspace: str) -> str:
  """The tool's own output base for `workspace`."""
  cache = safe_files.user_cache_dir() or os.path.join(os.path.expanduser("~"), ".cache")
  digest = hashlib.sha256(os.path.realpath(workspace).encode("utf-8")).hexdigest()[:16]
  return os.path.join(cache, "pyiree_tf_support", "bazel", digest)


def server_pid(output_base: str) -> Optional[int]:
  """The pid of the Bazel server running in `output_base`; None when none runs."""
  try:
    with open(os.path.join(output_base, _PID_FILE), encoding="utf-8") as f:
      pid = int(f.read().strip())
    os.kill(pid, 0)
  except (OSError, ValueError):
    return None
  return pid


@dataclasses.dataclass(frozen=True)
class Bazel:
  """`bazel` in one workspace and output base."""
  workspace: str
  output_base: str

  def command(self, *args: str) -> list:
    return ["bazel", f"--output_base={self.output_base}", *args]

  def run(self, *args: str, capture: bool = False) -> subprocess.CompletedProcess:
    """Runs `bazel <args>` in the workspace (output captured as text when `capture`)."""
    return subprocess.run(self.command(*args), cwd=self.workspace, check=False, text=True,
                          capture_output=capture)


def _raise_on_sigterm(signum, frame):
  raise SystemExit(128 + signum)


@contextlib.contextmanager
def session(workspace: str, output_base: Optional[str] = None) -> Iterator[Bazel]:
  """A `Bazel` in `output_base` (default: the tool's own); the server it starts is shut down
  when the block ends, however it ends. SIGTERM ends the block as Ctrl-C does."""
  bazel = Bazel(workspace, os.path.abspath(output_base or default_output_base(workspace)))
  already_running = server_pid(bazel.output_base) is not None
  previous = signal.signal(signal.SIGTERM, _raise_on_sigterm)
  try:
    yield bazel
  finally:
    signal.signal(signal.SIGTERM, previous)
    if not already_running:
      _shut_down(bazel)


def _shut_down(bazel: Bazel, settle_seconds: float = 10) -> None:
  """`bazel shutdown` (quick, and starts nothing, when no server runs), again while a server
  whose start an interrupted client left under way shows up in the output base."""
  deadline = time.monotonic() + settle_seconds
  while True:
    done = subprocess.run(bazel.command("shutdown"), cwd=bazel.workspace, check=False, text=True,
                          capture_output=True)
    time.sleep(1)
    if server_pid(bazel.output_base) is None:
      return
    if time.monotonic() > deadline:
      print(f"WARNING: could not shut down the Bazel server of {bazel.output_base} "
            f"(pid {server_pid(bazel.output_base)}): {done.stderr.strip()[-300:]}",
            file=sys.stderr)
      return


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
