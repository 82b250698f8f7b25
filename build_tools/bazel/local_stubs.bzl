"""Offline stand-ins for repositories Bazel 4.2.3 would otherwise download.

Bazel 4 wants three external repositories even for a pure-Python build:

* `@rules_cc`: `@bazel_tools//tools/cpp` and `@local_config_cc` load
  `@rules_cc//cc:defs.bzl` (toolchain resolution of `py_test` touches the C++
  toolchain). The stub forwards every macro to the native rule built into
  Bazel 4. (Debian's `bazel-rules-cc` is too new for 4.2.3.)
* `@rules_java`: same story for `@rules_java//java:defs.bzl`.
* `@remote_coverage_tools`: every `bazel test` depends on
  `@remote_coverage_tools//:coverage_report_generator`. The stub provides
  targets that only print an error: `bazel coverage` is NOT supported offline.

Declare these at the very top of WORKSPACE: the first definition of a
repository name wins over the `http_archive`s in Bazel's built-in WORKSPACE
suffix.
"""

def _forwarders(names):
    """Returns .bzl source defining `def x(**kwargs): native.x(**kwargs)`."""
    return "".join([
        "def {n}(**kwargs):\n    native.{n}(**kwargs)\n\n".format(n = n)
        for n in names
    ])

_CC_RULES = [
    "cc_binary",
    "cc_import",
    "cc_library",
    "cc_proto_library",
    "cc_test",
    "cc_toolchain",
    "cc_toolchain_suite",
    "fdo_prefetch_hints",
    "fdo_profile",
    "objc_import",
    "objc_library",
]

_JAVA_RULES = [
    "java_binary",
    "java_import",
    "java_library",
    "java_lite_proto_library",
    "java_package_configuration",
    "java_plugin",
    "java_proto_library",
    "java_runtime",
    "java_test",
    "java_toolchain",
]

def _rules_cc_stub_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "rules_cc")\n')
    rctx.file("BUILD.bazel", "")
    rctx.file("cc/BUILD.bazel", """\
package(default_visibility = ["//visibility:public"])

alias(
    name = "toolchain_type",
    actual = "@bazel_tools//tools/cpp:toolchain_type",
)
""")
    rctx.file("cc/defs.bzl", _forwarders(_CC_RULES))

rules_cc_stub = repository_rule(
    implementation = _rules_cc_stub_impl,
    doc = "Offline @rules_cc forwarding to Bazel 4's native C++ rules.",
)

def _rules_java_stub_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "rules_java")\n')
    rctx.file("BUILD.bazel", "")
    rctx.file("java/BUILD.bazel", 'package(default_visibility = ["//visibility:public"])\n')
    rctx.file("java/defs.bzl", _forwarders(_JAVA_RULES))

rules_java_stub = repository_rule(
    implementation = _rules_java_stub_impl,
    doc = "Offline @rules_java forwarding to Bazel 4's native Java rules.",
)

def _remote_coverage_tools_stub_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "remote_coverage_tools")\n')
    rctx.file(
        "unsupported.sh",
        "#!/bin/sh\necho 'bazel coverage is not available offline' >&2\nexit 1\n",
        executable = True,
    )
    rctx.file("BUILD.bazel", """\
package(default_visibility = ["//visibility:public"])

sh_binary(name = "coverage_report_generator", srcs = ["unsupported.sh"])

sh_binary(name = "lcov_merger", srcs = ["unsupported.sh"])

sh_binary(name = "Main", srcs = ["unsupported.sh"])
""")

remote_coverage_tools_stub = repository_rule(
    implementation = _remote_coverage_tools_stub_impl,
    doc = "Offline @remote_coverage_tools: satisfies `bazel test`, not `bazel coverage`.",
)
