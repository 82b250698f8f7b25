"""pytest integration: the library's absl flags as pytest options for e2e and unit tests.

`pytest e2e/ --target_backends=iree_vmla,iree_llvmjit` runs the same tests, with the same artifacts
and messages, as `python e2e/<file> --target_backends=...`. The options are passed on through
$PYIREE_TF_SUPPORT_FLAGS, which the library reads when absl has not parsed argv.
"""

import os
import shlex

_OPTIONS = ("reference_backend", "target_backends", "artifacts_dir", "tolerances", "xfail_backends",
            "compile_cache_dir")


def pytest_addoption(parser):
  group = parser.getgroup("pyiree_tf_support")
  for name in _OPTIONS:
    group.addoption(f"--{name}", dest=f"pyiree_{name}", default=None,
                    help=f"pyiree_tf_support's --{name} (see README.md).")


def pytest_configure(config):
  extra = [f"--{name}={value}" for name in _OPTIONS
           if (value := config.getoption(f"pyiree_{name}")) is not None]
  if extra:
    existing = os.environ.get("PYIREE_TF_SUPPORT_FLAGS", "")
    os.environ["PYIREE_TF_SUPPORT_FLAGS"] = " ".join([existing] + [shlex.quote(e) for e in extra]).strip()
