"""Internal. Run: loading a .vmfb into an IREE driver and calling its functions, in this process
(`runtime_host`) or in a TF-free worker process (`worker_client` <-> `runtime_worker`, spoken
over `worker_protocol`), and reading results back to numpy (`readback`); the tflite backend's
interpreters, one per method (`tflite_modules`).

Import rule: never imports TensorFlow (TF and lavapipe cannot share a process) nor the IREE
compiler; imports only `core` of the package.
"""
