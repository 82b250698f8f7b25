"""Internal. The test harness: the named set-up steps of a module (`class_setup`), the session
comparing its traces without unittest (`session`), the later API's generated tests
(`generated_tests`, `main_files`), and the pytest plugin's parts: listed failures
(`pytest_listed`) and the per-file summary (`pytest_summary`).

Import rule: the only folder that may import the public modules (`tf_utils`); nothing below it
imports it.
"""
