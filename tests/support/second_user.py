"""A second local user (`nobody`, via a child process that drops to its uid) for the tests in
which another user plants directories, links or cache entries as an attacker would."""

import os
import subprocess
import unittest

NOBODY = 65534


def as_nobody(*command: str) -> None:
  """Runs `command` as the unprivileged user `nobody` (the attacker)."""
  subprocess.run(command, check=True, user=NOBODY, group=NOBODY, extra_groups=[], timeout=60)


def _why_no_second_user() -> str:
  """Why this process cannot start one as `nobody` ("" when it can): not root, or a sandbox's
  user namespace without that uid."""
  if os.geteuid() != 0:
    return "acting as a second user ('nobody') needs root"
  try:
    as_nobody("true")
  except (OSError, subprocess.SubprocessError) as e:
    return f"cannot start a process as 'nobody' here ({e})"
  return ""


_NO_SECOND_USER = _why_no_second_user()
needs_second_user = unittest.skipIf(bool(_NO_SECOND_USER), _NO_SECOND_USER)
