"""pyiree-tf-support: differential testing of tf.Modules on TensorFlow and IREE backends."""

import setuptools

setuptools.setup(
    name="pyiree-tf-support",
    version="0.1.0",
    description="Trace-based differential testing of TensorFlow modules across IREE backends.",
    packages=setuptools.find_packages(include=["pyiree_tf_support", "pyiree_tf_support.*"]),
    # 3.11: hashlib.file_digest (trace_io) and shutil.rmtree(dir_fd=) (safe_files).
    python_requires=">=3.11",
    install_requires=[
        "tensorflow-cpu>=2.21,<2.22",
        "iree-base-compiler>=3.13,<3.14",
        "iree-base-runtime>=3.13,<3.14",
        "iree-tools-tf>=20260316",
        "absl-py>=2.5,<3",
        "numpy>=2.0,<3",
        "filecheck>=1.0.6,<2",  # tf_test_driver; why this one: its module docstring
        "hypothesis>=6.100,<7",  # examples/: imported only when examples are drawn
    ],
    extras_require={
        "test": ["pytest>=8", "pytest-xdist>=3", "import-linter>=2.1,<3"],
        # The localizer's oracle outside IREE, the StableHLO reference interpreter (349 MB
        # installed): docs/localizing.md, "Oracle".
        "oracle": ["jaxlib>=0.10.2,<0.11"],
        # tests/architecture/linters_test.py; pinned: a new release finds new things. [nodejs]
        # brings Node.js as a wheel, so pyright needs no download of its own.
        "lint": ["ruff==0.17.6", "pyright[nodejs]==1.1.414"],
    },
    # Named as its module, so that conftest.py's `pytest_plugins` or `-p` never loads it twice.
    entry_points={"pytest11": ["pyiree_tf_support.pytest_plugin = pyiree_tf_support.pytest_plugin"]},
)
