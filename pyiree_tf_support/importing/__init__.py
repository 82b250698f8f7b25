"""Internal. Import: a tf.Module -> SavedModel (`saved_models`, in temporary dirs held by a
lock: `locked_dirs`) -> tf_input.mlir -> iree_input.mlir (StableHLO) by `importer`, with TF's
pass sequences as data (`pass_pipelines`),
the per-process import cache (`module_imports`), the TF reference's calls (`reference_calls`),
the per-function fallback when the whole module does not import (`method_imports`), Keras 2's
learning phase for 2020 files under Keras 3 (`keras_compat`), the tflite backend's conversion
of each method to a TFLite model (`tflite_models`) and the StableHLO rewrites after TF's
lowering (`rewrites`).

Import rule: the only folder that imports TensorFlow (besides the 2020 public modules at the top);
it may use IREE's MLIR Python bindings (`iree.compiler.ir`) to rewrite and parse text, never the
IREE runtime. Imports only `core` of the package.
"""
