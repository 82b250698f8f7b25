# GENERATED from pyiree_tf_support/core/backends.py: do not edit. After changing the table,
# regenerate with `python -m pyiree_tf_support.tools.generate_backends_bzl`;
# tests/core/backends_test.py fails while this file is stale.

# The name each backend's e2e tests use (the 2020 name where one exists), in table order:
# every suite runs on these.
E2E_BACKENDS = ["tf", "iree_vmla", "iree_llvmjit", "iree_vulkan"]

# Rows that are no default target (`default_target=False`): a suite runs on them only when
# it names them (e2e/BUILD.bazel's e2e suites do).
OPT_IN_BACKENDS = ["tflite"]

# Every accepted backend name (canonical and 2020 alias) -> values of its `driver=` tag.
BACKEND_TO_DRIVER_TAGS = {
    "tf": ["tf"],
    "iree_vmvx": ["vmla", "vmvx"],
    "iree_vmla": ["vmla", "vmvx"],
    "iree_llvmcpu": ["llvm", "llvm-cpu"],
    "iree_llvmjit": ["llvm", "llvm-cpu"],
    "iree_vulkan": ["vulkan"],
    "tflite": ["tflite"],
}

# Backends whose tests default to timeout "long" (every name of a `slow` row).
SLOW_BACKENDS = ["iree_vulkan"]
