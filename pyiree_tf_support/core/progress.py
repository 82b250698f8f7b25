"""Progress of long set-up steps (a big module's import, a slow compile): a step still running
after `after` seconds says so with its elapsed time, again every `every` seconds, and says when
it ends. A quicker step prints nothing, so short runs stay as quiet as without it (docs/driving.md
"Quiet by default")."""

import contextlib
import dataclasses
import sys
import threading
import time
from typing import Callable, Iterator

PREFIX = "pyiree_tf_support: "


def to_stderr(line: str) -> None:
  print(line, file=sys.stderr, flush=True)


@dataclasses.dataclass(frozen=True)
class Progress:
  """Where progress lines go (`write`, one line without its newline) and when they start."""
  write: Callable[[str], None] = to_stderr
  after: float = 5.0
  every: float = 15.0

  @contextlib.contextmanager
  def step(self, label: str) -> Iterator[None]:
    """Runs the body; `label` is what it does, e.g. `MulModule: compiling for iree_vmla`."""
    started = time.monotonic()
    done = threading.Event()
    announced = threading.Event()

    def watch() -> None:
      wait = self.after
      while not done.wait(wait):
        announced.set()
        self.write(f"{PREFIX}{label}: still running after {time.monotonic() - started:.0f} s")
        wait = self.every

    watcher = threading.Thread(target=watch, name=f"progress: {label}", daemon=True)
    watcher.start()
    try:
      yield
    finally:
      done.set()
      watcher.join()
      if announced.is_set():
        self.write(f"{PREFIX}{label}: done in {time.monotonic() - started:.1f} s")
