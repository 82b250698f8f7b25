"""Where the repository is: the tools that read or write e2e/, docs/ or build_tools/ use the
source checkout this package lives in (installed editable, or run with PYTHONPATH=<checkout>). A
copy of the package installed without the repository has none, and a tool says so in one line."""

import os
import sys

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(PACKAGE)  # the checkout holding pyiree_tf_support/, when there is one.
MARKERS = ("WORKSPACE", os.path.join("e2e", "BUILD.bazel"), "build_tools")


def checkout_root(tool: str) -> str:
  """ROOT, or exit status 2 with one line on stderr when the package is not in a checkout."""
  if all(os.path.exists(os.path.join(ROOT, marker)) for marker in MARKERS):
    return ROOT
  print(f"ERROR: {tool} needs the pyiree-tf-support repository (e2e/, build_tools/), but "
        f"{PACKAGE} is not in a checkout of it; run it from a checkout (pip install -e "
        "<checkout>, or PYTHONPATH=<checkout>).", file=sys.stderr)
  raise SystemExit(2)


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
