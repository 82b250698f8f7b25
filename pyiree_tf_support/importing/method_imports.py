"""After a whole module failed to import: which of its exported functions import on their own.

The import counterpart of `method_compiles`: one function TF cannot lower (a tf.strings op, a
runtime-sized result) must not keep every other method of the module from being compared. The
record is plain data (no TensorFlow), so test set-up, reports and calls can read it.
"""

import dataclasses
from typing import Callable, List, Optional, Sequence, Tuple, TypeVar

from pyiree_tf_support.core import phases

T = TypeVar("T")


@dataclasses.dataclass(frozen=True)
class FunctionImportFailure:
  function: str
  reason: str  # that function's own import error, when imported alone.


@dataclasses.dataclass(frozen=True)
class MethodImports:
  """Which exported functions imported (together, into the module IREE compiles), and the
  error of each that did not; `module_error` is why the whole module did not import."""
  module_name: str
  module_error: str
  imported: Tuple[str, ...]
  failed: Tuple[FunctionImportFailure, ...]

  def failure_of(self, function: Optional[str]) -> Optional[FunctionImportFailure]:
    return next((f for f in self.failed if f.function == function), None)

  def describe(self, with_module_error: bool = True) -> str:
    """The whole-module error's first line (unless shown elsewhere), then per function whether it
    imports alone."""
    total = len(self.imported) + len(self.failed)
    lines = []
    if with_module_error:
      lines.append(f"Module '{self.module_name}' did not import as a whole: "
                   f"{phases.first_error_line(self.module_error, diagnostics=True)}")
    lines.append(f"Imported alone, {len(self.imported)} of {total} function(s) import:")
    lines += [f"  {name}: imports" for name in self.imported]
    lines += [f"  {failure.function}: does not import: "
              f"{phases.first_error_line(failure.reason, diagnostics=True)}"
              for failure in self.failed]
    return "\n".join(lines)

  def call_error(self, function: str) -> str:
    """What a call of a function that did not import reports: the function and its own error."""
    failure = self.failure_of(function)
    reason = failure.reason if failure else "it was not imported"
    return f"method '{function}' did not import: {reason}"


# names -> whatever the importer makes of them together; raises with the reason it cannot.
ImportFn = Callable[[Sequence[str]], T]


def _reason(error: Exception) -> str:
  return f"{type(error).__name__}: {error}"


def import_each_function(module_name: str, names: Sequence[str], module_error: str,
                         import_fn: ImportFn) -> Tuple[Optional[T], MethodImports]:
  """Imports every function of `names` alone, then those that imported, together.

  Returns what `import_fn` made of the functions that import (None when none does, or when they
  do not import together: then each is listed as failing with that error) and the record.
  Any exception of `import_fn` is that function's failure: it is reported, never swallowed.
  """
  imported: List[str] = []
  failed: List[FunctionImportFailure] = []
  for name in names:
    try:
      import_fn([name])
      imported.append(name)
    except Exception as e:
      failed.append(FunctionImportFailure(name, _reason(e)))
  result = None
  if imported:
    try:
      result = import_fn(imported)
    except Exception as e:
      failed += [FunctionImportFailure(name, f"imports alone, but not with "
                                       f"{', '.join(imported)}: {_reason(e)}") for name in imported]
      imported = []
  order = {name: i for i, name in enumerate(names)}
  failed.sort(key=lambda f: order[f.function])
  return result, MethodImports(module_name, module_error, tuple(imported), tuple(failed))
