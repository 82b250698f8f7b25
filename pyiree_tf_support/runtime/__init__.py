"""Internal. Run: loading a .vmfb into an IREE driver and calling its functions behind one
interface (`loading`), in this process (`in_process`) or in a TF-free worker process
(`worker_client` <-> `worker_main`, spoken over `worker_protocol`), facts about the drivers and
whether this machine can run one (`drivers`), reading results back to numpy (`readback`) and the
errors a run raises (`call_errors`); the tflite backend's interpreters, one per method
(`tflite_modules`).

Import rule: never imports TensorFlow (TF and lavapipe cannot share a process) nor the IREE
compiler; imports only `core` of the package.
"""
