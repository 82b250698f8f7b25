"""Internal. The test harness: the named set-up steps of a module (`class_setup`), the session
comparing its traces without unittest (`session`; examples of a method in it:
`session_examples`), the later API's generated tests and modules records (`generated_tests`,
`later_modules`, `main_files`), and the pytest plugin's parts: what it asks of a class's session
(`session_requests`), listed failures (`pytest_listed`) and the per-file summary
(`pytest_summary`). `TracedModuleTestCase` (tf_test_utils) is an adapter of these.

Import rule: the only folder that may import the public modules (`tf_utils`); nothing below it
imports it; it reads no flag.
"""
