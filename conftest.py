"""pytest integration: the library's absl flags as pytest options for e2e and unit tests.

`pytest e2e/ --target_backends=iree_vmla,iree_llvmjit` runs the same tests, with the same artifacts
and messages, as `python e2e/<file> --target_backends=...`. The options are passed on through
$PYIREE_TF_SUPPORT_FLAGS, which the library reads when absl has not parsed argv; they are parsed
once here, so a bad value is one usage error instead of a traceback repeated by every test.
"""

import os
import shlex

import pytest

_OPTIONS = ("reference_backend", "target_backends", "artifacts_dir", "tolerances", "xfail_backends",
            "compile_cache_dir")


def pytest_addoption(parser):
  group = parser.getgroup("pyiree_tf_support")
  for name in _OPTIONS:
    group.addoption(f"--{name}", dest=f"pyiree_{name}", default=None,
                    help=f"pyiree_tf_support's --{name} (see README.md).")
  group.addoption("--require_backends", dest="pyiree_require_backends", action="store_true",
                  default=False, help="pyiree_tf_support's --require_backends (see README.md).")


def pytest_configure(config):
  extra = [f"--{name}={value}" for name in _OPTIONS
           if (value := config.getoption(f"pyiree_{name}")) is not None]
  if config.getoption("pyiree_require_backends"):
    extra.append("--require_backends")
  if extra:
    existing = os.environ.get("PYIREE_TF_SUPPORT_FLAGS", "")
    os.environ["PYIREE_TF_SUPPORT_FLAGS"] = " ".join([existing] + [shlex.quote(e) for e in extra]).strip()
  if os.environ.get("PYIREE_TF_SUPPORT_FLAGS", "").strip():
    from pyiree_tf_support import cli_flags  # pylint: disable=import-outside-toplevel
    try:
      cli_flags.ensure_parsed()
    except cli_flags.FlagsError as e:
      raise pytest.UsageError(str(e)) from None
