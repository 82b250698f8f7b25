# IREE's wheel types its MLIR bindings in iree/compiler/_mlir_libs/_mlir/, a folder with py.typed
# and no ir.pyi, which hides the compiled module that `iree.compiler.ir` re-exports: for pyright
# every name of it is unknown. Here every name is Any, as the untyped bindings are.
from typing import Any

def __getattr__(name: str) -> Any: ...
