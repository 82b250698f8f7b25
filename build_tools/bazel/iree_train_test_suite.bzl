"""Macro `iree_train_test_suite`: a Keras training-step test per (optimizer, backend).

One training test file (default `model_train_test.py`) takes the optimizer from its absl flag
`--optimizer_name`. For each configuration `(optimizer, backends)` this macro calls
`iree_e2e_test_suite` with `--optimizer_name=<optimizer>`, named `<name>_<optimizer>`, so each
test is `<name>_<optimizer>` + the name `iree_e2e_test_suite` gives a (file, reference,
backend) (e.g. `keras_train_tests_adam_model_train_test__tf__iree_llvmjit`) with its `driver=`
tag, and `<name>` is a test_suite of those suites.

Every test gets env `TF_USE_LEGACY_KERAS=1` (Keras 2, see keras_test_env.bzl), merged with a
given `env`.

Args:
  name: name of the test_suite, and prefix of the generated tests.
  configurations: list of `(optimizer, backends)`; backends is a list or a comma-separated
    string of backend names. An optimizer may appear once.
  reference_backend: backend passed as `--reference_backend`.
  main: the test file.
  deps: deps of every py_test.
  tags: extra tags of every py_test; "manual" makes the suites manual too.
  size: size of every py_test (default: iree_e2e_test_suite's).
  python_version: passed to every py_test.
  expect_failure: if True, the tests pass while the backend fails (`--xfail_backends`).
  expected_failure_phases: {backend: phase}: with expect_failure, the phase each backend fails
    in ("import", "compile", "runtime", "mismatch" or "reference_error";
    `--xfail_backends=<backend>:<phase>`).
  **kwargs: passed on to every py_test (`timeout`, `data`, `args`, `env`, ...).
"""

load("//build_tools/bazel:iree_e2e_test_suite.bzl", "iree_e2e_test_suite")
load("//build_tools/bazel:keras_test_env.bzl", "keras_env", "suite_of_suites")

def iree_train_test_suite(
        name,
        configurations,
        reference_backend = "tf",
        main = "model_train_test.py",
        deps = None,
        tags = None,
        size = None,
        python_version = "PY3",
        expect_failure = False,
        expected_failure_phases = None,
        **kwargs):
    """One iree_e2e_test_suite per optimizer, all in a test_suite `name`."""
    tags = tags or []
    extra_args = kwargs.pop("args", [])
    env = keras_env(kwargs.pop("env", None))
    if size:
        kwargs["size"] = size
    suites = []
    for optimizer, backends in configurations:
        if type(backends) == type(""):
            backends = [b.strip() for b in backends.split(",") if b.strip()]
        suite = "%s_%s" % (name, optimizer)
        if ":" + suite in suites:
            fail("iree_train_test_suite(%s): optimizer %r is listed twice" % (name, optimizer))
        iree_e2e_test_suite(
            name = suite,
            backends_to_srcs = {backend: [main] for backend in backends},
            reference_backend = reference_backend,
            deps = deps,
            tags = tags,
            expect_failure = expect_failure,
            expected_failure_phases = {
                backend: {main: phase}
                for backend, phase in (expected_failure_phases or {}).items()
                if backend in backends
            },
            args = ["--optimizer_name=" + optimizer] + extra_args,
            env = env,
            python_version = python_version,
            **kwargs
        )
        suites.append(":" + suite)
    suite_of_suites(name, suites, tags)
