"""Drop-in for IREE's `//bindings/python:build_defs.oss.bzl`, which 2020's e2e BUILD files load.

A BUILD file of that period loads `iree_py_binary`, `iree_py_test`, `INTREE_TENSORFLOW_PY_DEPS`
and `NUMPY_DEPS` from there; pointing its load line here (`//build_tools/bazel:build_defs.oss.bzl`)
is all it needs (docs/api_2020.md lists the lines a user changes). TensorFlow and numpy come
with the Python toolchain (`.venv`), so the two dependency lists are empty: targets that add
them to their `deps` keep working.
"""

INTREE_TENSORFLOW_PY_DEPS = []

NUMPY_DEPS = []

def _with_defaults(kwargs):
    """No generated `__init__.py` in runfiles (the workspace and the package share a name), and
    TensorFlow's C++ log kept short, unless given."""
    kwargs = dict(kwargs)
    kwargs.setdefault("legacy_create_init", False)
    return kwargs

def iree_py_library(**kwargs):
    native.py_library(**kwargs)

def iree_py_binary(**kwargs):
    """A `py_binary` (e.g. a test file's `<file>_manual`, run with `bazel run`)."""
    native.py_binary(**_with_defaults(kwargs))

def iree_py_test(**kwargs):
    """A `py_test`: medium size unless given (TensorFlow's import and the compiles)."""
    kwargs = _with_defaults(kwargs)
    kwargs.setdefault("size", "medium")
    env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    env.update(kwargs.pop("env", {}))
    native.py_test(env = env, **kwargs)
