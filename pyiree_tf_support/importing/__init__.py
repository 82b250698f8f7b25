"""Internal. Import: a tf.Module -> SavedModel -> tf_input.mlir -> iree_input.mlir (StableHLO),
with the per-process import cache (`module_imports`), the per-function fallback when the whole
module does not import (`method_imports`), the StableHLO rewrites after TF's lowering
(`rewrites/`), and the tflite backend's conversion of each method to a TFLite model
(`tflite_models`).

Import rule: the only folder that imports TensorFlow (besides the 2020 public modules at the top);
it may use IREE's MLIR Python bindings (`iree.compiler.ir`) to rewrite and parse text, never the
IREE runtime. Imports only `core` of the package.
"""
