"""Macro `iree_e2e_cartesian_product_test_suite`, as IREE's later (2020-11) BUILD files use it:
one test per combination of flag values, each run on one target backend.

    iree_e2e_cartesian_product_test_suite(
        name = "math_tests",
        srcs = ["math_test.py"],
        main = "math_test.py",
        flags_to_values = {
            "reference_backend": "tf",
            "functions": ["abs", "add"],
            "dynamic_dims": [False, True],
            "target_backends": ["tf", "iree_vmla", "iree_llvmjit", "iree_vulkan"],
        },
        failing_configurations = [
            {"functions": ["add"], "dynamic_dims": True, "target_backends": "iree_vulkan"},
        ],
        deps = ["//:pyiree_tf_support"],
    )

makes a `py_test` per element of the product of `flags_to_values` (a value that is not a list
is a list of one), with args `--<flag>=<value>` for every flag, named `<name>` (or
`<name>_failing` for a failing configuration) followed by `__<flag>__<value>` for each flag that
takes more than one value: `math_tests__functions__abs__dynamic_dims__False__target_backends__tf`.
`target_backends` is required and names one backend per test; a backend the library's table does
not know gets no test, as a backend without a driver got none then (2020's `tflite` is one of the
table's: its tests are made).

Each test is tagged `driver=<d>` as `iree_e2e_test_suite` tags it (2020's value and today's).
A configuration of `failing_configurations` (a flag left out takes every value of
`flags_to_values`) is also tagged `failing` and `manual` and gets
`--xfail_backends=<backend>`: it passes while it still fails and is an XPASS error once it
passes (the library's expected failures). Two test suites bundle them: `<name>` (the passing
ones) and `<name>_failing` (manual: `bazel test //pkg:<name>_failing`).

`tags` and the test_suite's keyword arguments go to the suites too, as in iree_e2e_test_suite.
"""

load(":backends.bzl", "BACKEND_TO_DRIVER_TAGS", "SLOW_BACKENDS")
load(":build_defs.oss.bzl", "iree_py_test")

_FAILING_TAGS = ["failing", "manual", "nokokoro", "notap"]

# A tag no test carries: filters an otherwise-empty test_suite down to nothing.
_EMPTY_SUITE_TAG = "iree-e2e-empty-test-suite"

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

def _as_lists(dictionary):
    """{flag: value or [values]} -> {flag: [values]} (a new dict: the BUILD file's is frozen)."""
    return {k: (v if type(v) == type([]) else [v]) for k, v in dictionary.items()}

def _product(dictionary):
    """Every combination of the values of `dictionary` ({flag: [values]}), in order."""
    combinations = [{}]
    for key, values in dictionary.items():
        grown = []
        for combination in combinations:
            for value in values:
                element = dict(combination)
                element[key] = value
                grown.append(element)
        combinations = grown
    return combinations

def iree_e2e_cartesian_product_test_suite(
        name,
        srcs,
        main,
        flags_to_values,
        failing_configurations = None,
        tags = None,
        data = None,
        deps = None,
        size = None,
        python_version = "PY3",
        **kwargs):
    """A py_test per combination of `flags_to_values`; see the module docstring."""
    if "target_backends" not in flags_to_values:
        fail("iree_e2e_cartesian_product_test_suite(%s): `target_backends` must be a key " % name +
             "of flags_to_values.")
    tags = tags or []
    values = _as_lists(flags_to_values)
    failing = []
    for configuration in failing_configurations or []:
        configuration = _as_lists(configuration)
        for key in configuration:
            if key not in values:
                fail("iree_e2e_cartesian_product_test_suite(%s): a failing configuration " % name +
                     "names %r; expected one of %s." % (key, sorted(values.keys())))
        full = {k: configuration.get(k, v) for k, v in values.items()}
        failing += _product(full)
    suite_kwargs = {k: v for k, v in kwargs.items() if k in _SUITE_KWARGS}

    tests = []
    for flags in _product(values):
        backend = flags["target_backends"]
        if "," in backend:
            fail("iree_e2e_cartesian_product_test_suite(%s): one backend per test, got %r" %
                 (name, backend))
        if backend not in BACKEND_TO_DRIVER_TAGS:
            continue  # no backend of the table runs it.
        is_failing = flags in failing
        parts = [name + ("_failing" if is_failing else "")]
        for key, value in flags.items():
            if len(values[key]) > 1:
                parts += [key, str(value)]
        test_name = "__".join(parts)
        args = ["--%s=%s" % (key, value) for key, value in flags.items()]
        test_tags = tags + ["driver=" + d for d in BACKEND_TO_DRIVER_TAGS[backend]]
        if is_failing:
            args.append("--xfail_backends=" + backend)
            test_tags += _FAILING_TAGS
        test_kwargs = dict(kwargs)
        if "timeout" not in test_kwargs and backend in SLOW_BACKENDS:
            test_kwargs["timeout"] = "long"
        iree_py_test(
            name = test_name,
            srcs = srcs,
            main = main,
            args = args,
            data = data,
            deps = deps,
            size = size or "medium",
            tags = test_tags,
            python_version = python_version,
            **test_kwargs
        )
        tests.append(":" + test_name)

    if not tests:  # test_suite(tests = []) would mean every test of the package.
        tags = tags + [_EMPTY_SUITE_TAG]
    native.test_suite(name = name, tests = tests, tags = tags + ["-failing"], **suite_kwargs)
    if failing_configurations != None:
        native.test_suite(
            name = name + "_failing",
            tests = tests,
            tags = tags + ["+failing"] + _FAILING_TAGS,
            **suite_kwargs
        )
