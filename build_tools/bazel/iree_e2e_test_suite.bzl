"""Macro `iree_e2e_test_suite`: one py_test per (backend, e2e test file).

An e2e test file (e.g. `e2e/simple_arithmetic_test.py`) defines a
`tf_test_utils.TracedModuleTestCase` and is backend-agnostic: which backends it
compares is chosen on the command line with the absl flags
`--reference_backend=<backend>` and `--target_backends=<backend>[,...]`.
This macro turns a mapping `{backend: [files]}` into

* one `py_test` per (backend, file), named (as in 2020)
  `<name>_<file basename without .py>__<reference_backend>__<backend>`, e.g.
  `e2e_tests_simple_arithmetic_test__tf__iree_vmla`, whose `args` are
  `["--reference_backend=<reference_backend>", "--target_backends=<backend>"]`
  (any `args` passed in are appended), and
* a `test_suite` called `<name>` containing exactly those tests.

Every test is tagged with `tags` plus one `driver=<d>` tag per value the
backend table gives (`build_tools/bazel/backends.bzl`, generated from
`pyiree_tf_support/core/backends.py`): the 2020 values first, today's beside them:

| backend                        | tags                              |
|--------------------------------|-----------------------------------|
| `tf`                           | `driver=tf`                       |
| `iree_vmla`, `iree_vmvx`       | `driver=vmla`, `driver=vmvx`      |
| `iree_llvmjit`, `iree_llvmcpu` | `driver=llvm`, `driver=llvm-cpu`  |
| `iree_vulkan`                  | `driver=vulkan`                   |

Select or skip drivers with e.g. `--test_tag_filters=-driver=vulkan` or
`--test_tag_filters=driver=vmla`.

As in 2020, `tags` and `**kwargs` are passed on to the `test_suite` too:
every tag (so `"manual"` makes the suite manual as well: `bazel test //...`
skips it, `bazel test //pkg:<name>` runs it all), and those keyword arguments a
`test_suite` accepts (`visibility`, `testonly`, `deprecation`, `features`,
`compatible_with`, `restricted_to`, `target_compatible_with`,
`exec_compatible_with`, `licenses`, `distribs`). The others (`size`, `timeout`,
`data`, `args`, `env`, `shard_count`, ...) only apply to the tests; 2020's
macro rejected them, so passing them is an extension.

`shard_count = N` splits each file's test methods over N processes through
Bazel's sharding protocol (absltest reads `TEST_SHARD_INDEX` /
`TEST_TOTAL_SHARDS`, deals the methods out round-robin and touches
`TEST_SHARD_STATUS_FILE`): every method runs once across the shards, and a
module class is set up (imported, compiled) only in the shards that run one
of its methods. Each shard imports TensorFlow and compiles its classes' modules
itself, so shard files whose test methods, not set-up, dominate.

With `expect_failure = True` each test also gets `--xfail_backends=<backend>`:
the library then reports the backend's failures as XFAIL and the test passes,
while a file that passes every trace on it is an XPASS error (remove it from
the failing list). So a suite of known failures is green exactly when every
listed failure still happens. `expected_failure_phases = {backend: {src:
phase}}` (phase one of `FAILURE_PHASES`: "import", "compile", "runtime",
"mismatch", "reference_error") makes that `--xfail_backends=<backend>:<phase>` for the files it
names: the test then also fails when the file's earliest failure on the backend
is in another phase (e.g. a compiler change turned a compile error into a
mismatch), saying which. A key may also name one class or one test method of a
file (`"src::Class"`, `"src::Class::test_method"`): the file's test then gets
`--xfail_backends=<backend>:<phase>@src::Class`, one entry per listed key of it
(comma-joined), and that class alone is held to it (the library's scopes).

An empty suite (no files for any backend) is legal: it then contains no tests
(rather than, as a bare `test_suite(tests = [])` would, every test of the
package).

Defaults applied to each `py_test` unless given in `**kwargs`: `size =
"medium"` (TensorFlow import + compilation do not fit in `small`'s 60 s),
`timeout = "long"` for the table's `slow` backends (`iree_vulkan`: lavapipe is
a software GPU on the same 2 cores; an early library version took 40-160 s per
file, too close to medium's 300 s; ~10 s now),
`env = {"TF_CPP_MIN_LOG_LEVEL": "2"}` (merged with a given `env`) and
`legacy_create_init = False` (no generated `__init__.py` files in runfiles: the
workspace directory and the library package are both called
`pyiree_tf_support`).

Args:
  name: name of the test_suite, and prefix of the generated tests.
  backends_to_srcs: dict backend name -> list of test files (`*.py`).
  reference_backend: backend passed as `--reference_backend` (usually "tf").
  deps: deps of every py_test (e.g. `["//:pyiree_tf_support"]`).
  tags: extra tags of every py_test and of the test_suite.
  python_version: `python_version` of every py_test ("PY3").
  expect_failure: if True, pass `--xfail_backends=<backend>` to each test.
  expected_failure_phases: {backend: {src or src::Class[::test_method]: phase}}:
    with expect_failure, the phase each listed file, class or test method fails
    in (`--xfail_backends=<backend>:<phase>[@scope]`).
  **kwargs: passed on to every py_test, and those a test_suite accepts to it.
"""

load(":backends.bzl", "BACKEND_TO_DRIVER_TAGS", "SLOW_BACKENDS")

# Attributes every rule has, test_suite included: these kwargs go to the suite too.
_SUITE_KWARGS = [
    "compatible_with",
    "deprecation",
    "distribs",
    "exec_compatible_with",
    "features",
    "licenses",
    "restricted_to",
    "target_compatible_with",
    "testonly",
    "visibility",
]

# Where a known failure happens first, in pipeline order (pyiree_tf_support/core/phases.py).
FAILURE_PHASES = ["import", "compile", "runtime", "mismatch", "reference_error"]

# A tag no test carries: filters an otherwise-empty test_suite down to nothing.
_EMPTY_SUITE_TAG = "iree-e2e-empty-test-suite"

def get_driver(backend):
    """The 2020 driver tag value of a backend ("vmla" for iree_vmla), None for one the table
    does not know (IREE's later BUILD files skip those)."""
    drivers = BACKEND_TO_DRIVER_TAGS.get(backend)
    return drivers[0] if drivers else None

def set_difference(include, exclude):
    """The elements of `include` not in `exclude`, in order (IREE's later BUILD files use it)."""
    return [i for i in include if i not in exclude]

def _basename_without_py(src):
    if not src.endswith(".py"):
        fail("iree_e2e_test_suite: %r is not a .py file" % src)
    return src.rsplit("/", 1)[-1][:-len(".py")]

def iree_e2e_test_suite(
        name,
        backends_to_srcs,
        reference_backend,
        deps = None,
        tags = None,
        python_version = "PY3",
        expect_failure = False,
        expected_failure_phases = None,
        **kwargs):
    """Creates a py_test per (backend, src) and a test_suite `name` of them.

    See the module docstring for the naming, args and tags of the tests.
    """
    deps = deps or []
    tags = tags or []
    known = sorted(BACKEND_TO_DRIVER_TAGS.keys())
    if reference_backend not in BACKEND_TO_DRIVER_TAGS:
        fail("iree_e2e_test_suite(%s): unknown reference_backend %r; known: %s" %
             (name, reference_backend, known))

    shard_count = kwargs.get("shard_count")
    if shard_count != None and (type(shard_count) != "int" or shard_count < 1):
        fail("iree_e2e_test_suite(%s): shard_count must be a positive int, got %r" %
             (name, shard_count))
    phases = expected_failure_phases or {}
    if phases and not expect_failure:
        fail("iree_e2e_test_suite(%s): expected_failure_phases needs expect_failure = True" % name)
    for backend, srcs_to_phase in phases.items():
        for key, phase in srcs_to_phase.items():
            if phase not in FAILURE_PHASES:
                fail("iree_e2e_test_suite(%s): %s on %s has phase %r; valid phases: %s" %
                     (name, key, backend, phase, FAILURE_PHASES))
            if key.split("::")[0] not in backends_to_srcs.get(backend, []):
                fail("iree_e2e_test_suite(%s): expected_failure_phases names %s on %s, which is " %
                     (name, key, backend) + "not one of its backends_to_srcs")
    suite_kwargs = {k: v for k, v in kwargs.items() if k in _SUITE_KWARGS}
    extra_args = kwargs.pop("args", [])
    env = {"TF_CPP_MIN_LOG_LEVEL": "2"}
    env.update(kwargs.pop("env", {}))
    kwargs.setdefault("size", "medium")
    kwargs.setdefault("legacy_create_init", False)

    tests = []
    for backend in sorted(backends_to_srcs.keys()):
        if backend not in BACKEND_TO_DRIVER_TAGS:
            fail("iree_e2e_test_suite(%s): unknown backend %r; known: %s" %
                 (name, backend, known))
        driver_tags = ["driver=" + d for d in BACKEND_TO_DRIVER_TAGS[backend]]
        test_kwargs = dict(kwargs)
        if "timeout" not in test_kwargs and backend in SLOW_BACKENDS:
            test_kwargs["timeout"] = "long"
        for src in sorted(backends_to_srcs[backend]):
            test_name = "%s_%s__%s__%s" % (name, _basename_without_py(src), reference_backend, backend)
            # One entry per listed scope of the file: the file (backend:phase), or one class or
            # test method of it (backend:phase@src::Class[::test_method]).
            xfails = [
                backend + ":" + phase + ("" if key == src else "@" + key)
                for key, phase in sorted(phases.get(backend, {}).items())
                if key.split("::")[0] == src
            ]
            xfail = ",".join(xfails) if xfails else backend
            native.py_test(
                name = test_name,
                srcs = [src],
                main = src,
                args = [
                    "--reference_backend=" + reference_backend,
                    "--target_backends=" + backend,
                ] + (["--xfail_backends=" + xfail] if expect_failure else []) + extra_args,
                deps = deps,
                env = env,
                python_version = python_version,
                tags = tags + driver_tags,
                **test_kwargs
            )
            tests.append(":" + test_name)

    suite_tags = list(tags)
    if not tests:
        # test_suite(tests = []) means "every non-manual test in the package".
        suite_tags.append(_EMPTY_SUITE_TAG)
    native.test_suite(
        name = name,
        tests = tests,
        tags = suite_tags,
        **suite_kwargs
    )
