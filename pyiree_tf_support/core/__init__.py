"""Internal. The leaves every phase shares: the backend table (`backends`), the artifacts layout
(`artifacts`), writes that never follow a link below a root (`safe_files`), module directories
(`module_dirs`), where Bazel leaves an artifact (`bazel_paths`), the phases of a failure
(`phases`), nested structures (`structure`), function signatures and input casting
(`signatures`, `casting`), what a run was asked (`run_settings`), the compile flags a run adds
(`compile_flags`), compile, load and call limits (`timeouts`), our own faults, never a backend's
verdict (`faults`), a name as MLIR spells its symbol (`mlir_symbols`), values in generated
Python and shell files as data and the names a function can have (`quoting`), the garbage
collector around TensorFlow's import (`collector`), a trace's calls with the runtimes' threads
on one CPU (`colocation`), Ctrl-C and the watchdog of in-process calls (`interrupts`), long
set-up steps said (`progress`), log verbosity (`verbosity`), exit statuses (`exit_status`) and
the end of a finished test process without the interpreter's teardown (`quick_exit`); where the
tflite backend's models are and how their inputs are named (`tflite_layout`).

Import rule: imports nothing of the package outside `core`, and neither TensorFlow nor IREE
(numpy and ml_dtypes only), so that every other folder, the Vulkan worker and replay can use it.
"""
