"""Differential testing of TensorFlow modules across TensorFlow and IREE backends.

The public API lives in `pyiree_tf_support.tf_utils` and `pyiree_tf_support.tf_test_utils`.
This package's top level stays free of TensorFlow so that runtime workers can import it cheaply.
"""
