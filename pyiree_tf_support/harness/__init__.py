"""Internal. The test harness: the named set-up steps of a test class (`test_setup`), and the
pytest plugin's parts (the body of `pytest_plugin`, listed failures, the per-file summary).

Import rule: the only folder that may import the public modules (`tf_utils`); nothing below it
imports it.
"""
