"""Internal. The leaves every phase shares: the backend table, the artifacts layout, the phases
of a failure, nested structures, function signatures and input casting, log verbosity and exit
statuses, and where the tflite backend's models are and how their inputs are named
(`tflite_layout`).

Import rule: imports nothing of the package outside `core`, and neither TensorFlow nor IREE
(numpy and ml_dtypes only), so that every other folder, the Vulkan worker and replay can use it.
"""
