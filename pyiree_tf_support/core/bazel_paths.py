"""Where a person finds an artifact after the run, and the shell prefix that enters it: under
Bazel the sandbox is gone and a test's outputs are zipped into
bazel-testlogs/<package>/<test>/test.outputs/outputs.zip.
"""

import dataclasses
import os
import re
import shlex
from typing import Optional

# A sandboxed test's outputs dir is <output_base>/sandbox/<strategy>/<N>/execroot/<workspace>/
# bazel-out/<config>/testlogs/<package>/<test>/test.outputs; once the test ends Bazel zips it to
# the same path under <output_base>/execroot/, which bazel-testlogs in the workspace points into.
_SANDBOXED = re.compile(r"^(?P<base>/.+)/sandbox/[^/]+/\d+/(?P<rest>execroot/.+)$")
# Run at paste time when the zip's absolute path was not known: the nearest directory up from
# the current one that holds the workspace's WORKSPACE (or WORKSPACE.bazel, MODULE.bazel).
_WORKSPACE_ROOT = ('d="$PWD"; until [ -e "$d/WORKSPACE" ] || [ -e "$d/WORKSPACE.bazel" ] || '
                   '[ -e "$d/MODULE.bazel" ] || [ "$d" = / ]; do d="$(dirname "$d")"; done; '
                   'echo "$d"')


@dataclasses.dataclass(frozen=True)
class _BazelOutput:
  """Where a Bazel test's artifact is found after the run: `relative` to the outputs dir, in
  `zip_path`, absolute when it could be known at test time, else relative to the workspace."""
  relative: str
  zip_path: str
  absolute: bool


def _testlogs_zip(outputs: str) -> Optional[str]:
  """The absolute outputs.zip Bazel leaves for the outputs dir `outputs`, when the execroot
  holding it is visible from the test (local and sandboxed runs); None otherwise (remote
  execution)."""
  match = _SANDBOXED.match(outputs)
  real = os.path.join(match["base"], match["rest"]) if match else outputs
  execroot, marker, _ = real.partition("/bazel-out/")
  if (not marker or "/testlogs/" not in real or os.path.basename(real) != "test.outputs"
      or not os.path.isdir(os.path.join(execroot, "bazel-out"))):
    return None
  return os.path.join(real, "outputs.zip")


def _bazel_outputs(path: str) -> Optional[_BazelOutput]:
  """Where a Bazel test's artifact `path` is found after the run; None outside Bazel's outputs."""
  outputs = os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
  if not outputs:
    return None
  outputs = os.path.abspath(outputs)
  relative = os.path.relpath(os.path.abspath(path), outputs)
  if relative.startswith(".."):
    return None
  zip_path = _testlogs_zip(outputs)
  if zip_path is not None:
    return _BazelOutput(relative, zip_path, True)
  package, _, name = os.environ.get("TEST_TARGET", "").lstrip("/").partition(":")
  zip_path = (f"bazel-testlogs/{package}/{name}/test.outputs/outputs.zip" if name
              else "the test's test.outputs/outputs.zip")
  return _BazelOutput(relative, zip_path, False)


def display_path(path: str) -> str:
  """Where a person finds `path` after the run: under Bazel the sandbox is gone and the
  artifacts are zipped into bazel-testlogs/<package>/<test>/test.outputs/outputs.zip."""
  located = _bazel_outputs(path)
  return path if located is None else f"{located.relative} in {located.zip_path}"


def shell_cd(directory: str) -> str:
  """A shell prefix that enters `directory`, unzipping Bazel's outputs.zip first if needed; it
  works from any directory (inside the workspace when the zip's absolute path was not known at
  test time). Every path is shell-quoted: a target name is text, never a command."""
  located = _bazel_outputs(directory)
  if located is None:
    return f"cd {shlex.quote(os.path.abspath(directory))}"
  if located.absolute:
    unzip = f'cd "$(mktemp -d)" && unzip -q {shlex.quote(located.zip_path)}'
  else:  # $OLDPWD: the workspace root the first cd entered.
    unzip = (f'cd "$({_WORKSPACE_ROOT})" && cd "$(mktemp -d)" && '
             f'unzip -q "$OLDPWD"/{shlex.quote(located.zip_path)}')
  return f"{unzip} && cd {shlex.quote(located.relative)}"
