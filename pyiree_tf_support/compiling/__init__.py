"""Internal. Compile: iree_input.mlir -> .vmfb with iree-compile, the on-disk compile cache and
its key, the per-process de-duplication of identical compiles (`module_compiles`) and the
per-method fallback when the whole module does not compile (`method_compiles`).

Import rule: no TensorFlow and no device (never `iree.runtime`); imports only `core` of the
package.
"""
