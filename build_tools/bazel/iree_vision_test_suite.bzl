"""Macro `iree_vision_test_suite`: a keras.applications model x dataset x backend matrix.

One vision test file (default `vision_model_test.py`) builds the model named by its absl flags
`--model`, `--data`, `--include_top` (and `--url` for trained weights). For each (model,
dataset) this macro calls `iree_e2e_test_suite` with those flags as `args`, named
`<name>_<model>_<dataset>`, so each test is
`<name>_<model>_<dataset>` + the name `iree_e2e_test_suite` gives a (file, reference, backend)
(e.g. `keras_vision_tests_MobileNet_cifar10_vision_model_test__tf__iree_vmla`) with its
`driver=` tag, and `<name>` is a test_suite of those suites.

Every test gets env `TF_USE_LEGACY_KERAS=1` (Keras 2, see keras_test_env.bzl), or with
`keras = 3` `TF_USE_LEGACY_KERAS=0` (Keras 3, where the library gives `tf.keras.backend` back
the `set_learning_phase(False)` 2020's files call: importing/keras_compat.py), merged with a
given `env`.

Args:
  name: name of the test_suite, and prefix of the generated tests.
  reference_backend: backend passed as `--reference_backend` (usually "tf").
  datasets: list of `--data` values ("cifar10": 32x32 images, "imagenet": 224x224).
  models_to_backends: dict model name (or tuple of names) -> list of backends.
  external_weights: base URL of trained weights, passed as `--url` (the test downloads them:
    leave unset for tests that must run offline; models then keep random weights).
  include_top: value of `--include_top` (1 keeps the classifier layers).
  keras: 2 (tf-keras, as in 2020) or 3 (the Keras TF 2.21 ships).
  main: the test file.
  deps: deps of every py_test.
  tags: extra tags of every py_test; "manual" makes the suites manual too.
  size: size of every py_test ("large" as in 2020: models compile slowly).
  python_version: passed to every py_test.
  expect_failure: if True, the tests pass while the backend fails (`--xfail_backends`).
  expected_failure_phases: {backend: phase}: with expect_failure, the phase each backend fails
    in ("import", "compile", "runtime", "mismatch" or "reference_error";
    `--xfail_backends=<backend>:<phase>`).
  **kwargs: passed on to every py_test (`timeout`, `data`, `args`, `env`, ...).
"""

load("//build_tools/bazel:iree_e2e_test_suite.bzl", "iree_e2e_test_suite")
load("//build_tools/bazel:keras_test_env.bzl", "keras_env", "suite_of_suites")

def _models_to_backends(name, models_to_backends):
    """{model: [backends]} with tuple keys expanded; a model listed twice is an error."""
    result = {}
    for models, backends in models_to_backends.items():
        if type(models) == type(""):
            models = (models,)
        for model in models:
            if model in result:
                fail("iree_vision_test_suite(%s): model %r is listed twice" % (name, model))
            result[model] = backends
    return result

def iree_vision_test_suite(
        name,
        reference_backend,
        datasets,
        models_to_backends,
        external_weights = None,
        include_top = 1,
        keras = 2,
        main = "vision_model_test.py",
        deps = None,
        tags = None,
        size = "large",
        python_version = "PY3",
        expect_failure = False,
        expected_failure_phases = None,
        **kwargs):
    """One iree_e2e_test_suite per (model, dataset), all in a test_suite `name`."""
    tags = tags or []
    extra_args = kwargs.pop("args", [])
    if keras not in (2, 3):
        fail("iree_vision_test_suite(%s): keras must be 2 or 3, got %r" % (name, keras))
    env = keras_env(kwargs.pop("env", None))
    if keras == 3:
        env["TF_USE_LEGACY_KERAS"] = "0"
    suites = []
    for model, backends in sorted(_models_to_backends(name, models_to_backends).items()):
        for dataset in datasets:
            suite = "%s_%s_%s" % (name, model, dataset)
            flags = [
                "--model=" + model,
                "--data=" + dataset,
                "--include_top=%d" % include_top,
            ]
            if external_weights:
                flags.append("--url=" + external_weights)
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
                args = flags + extra_args,
                env = env,
                size = size,
                python_version = python_version,
                **kwargs
            )
            suites.append(":" + suite)
    suite_of_suites(name, suites, tags)
