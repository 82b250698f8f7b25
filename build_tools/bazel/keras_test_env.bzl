"""Test environment shared by the Keras suite macros."""

# Keras-2-era test files (tf.keras.backend.set_learning_phase, Input(int), Keras 2 optimizers)
# run on TF 2.21 only with Keras 2, the `tf-keras` package, which `tf.keras` resolves to when
# this variable is set (scripts/bootstrap.sh installs it).
KERAS_TEST_ENV = {"TF_USE_LEGACY_KERAS": "1"}

# A tag no test carries: filters an otherwise-empty test_suite down to nothing.
EMPTY_SUITE_TAG = "iree-keras-empty-test-suite"

def keras_env(env):
    """KERAS_TEST_ENV merged with a caller's `env` (the caller's values win)."""
    merged = dict(KERAS_TEST_ENV)
    merged.update(env or {})
    return merged

def suite_of_suites(name, suites, tags):
    """A test_suite `name` of the given sub-suites, tagged `tags` as 2020's macros did (every
    test carries them, so they filter nothing out; "manual" makes the suite manual)."""
    suite_tags = list(tags)
    if not suites:
        # test_suite(tests = []) means "every non-manual test in the package".
        suite_tags = suite_tags + [EMPTY_SUITE_TAG]
    native.test_suite(name = name, tests = suites, tags = suite_tags)
