"""Internal. Property-based inputs: examples drawn from a method's input signature by hypothesis
(`strategies`), run on the already compiled reference and targets, and the first failure shrunk
to the smallest input that fails the same way (`engine`); the summary of a run (`summary`).

Import rule: no TensorFlow, no IREE, no flags (the caller passes `ExampleSettings`); hypothesis
is imported only when examples are drawn, never when the package is imported.
"""
