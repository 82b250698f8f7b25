"""Internal. Compile: iree_input.mlir -> .vmfb with iree-compile (`compiler`: reproducers, errors
located in functions; `iree_compile`: iree-compile as a child in its own session, killed on a
timeout or an interrupt), the on-disk compile cache (`vmfb_cache`) and its key
(`cache_key`), the per-process de-duplication of identical compiles (`module_compiles`), a big
module's compile found again from its saved bytecode's digest (`tested_compiles`), the
per-method fallback when the whole module does not compile (`method_compiles`, with
`mlir_functions`: one function kept, the others' bodies removed) and a saved iree_input.mlir read
as text (`mlir_files`).

Import rule: no TensorFlow and no device (never `iree.runtime`); imports only `core` of the
package.
"""
