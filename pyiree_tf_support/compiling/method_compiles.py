"""After a whole module failed to compile: which of its methods compile on their own, and one
binary of those that do, so traces that only call them still run and compare.

Each method is compiled from iree_input.mlir with the other exported functions (and what only
they call) removed, their lines left empty (`mlir_functions.only_exporting`), rather than
re-imported from TensorFlow by that name alone: the text is the one the whole module was compiled
from, state (ml_program globals) and private callees included, with the same line numbers, so
every error still points into iree_input.mlir. Removed, not only made private: IREE's input
passes run on private functions too, so a bad sibling would fail every method with its error.
It needs no TensorFlow (replay can do the same) and costs no import.
"""

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Tuple

from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.compiling.compiler import CompileError
from pyiree_tf_support.compiling.compiler import CompileRequest
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import phases

# (request, description, reproducer path or None) -> vmfb; raises CompileError.
CompileFn = Callable[[CompileRequest, str, Optional[str]], bytes]


@dataclasses.dataclass(frozen=True)
class MethodFailure:
  method: str
  reason: str  # the first error, located in iree_input.mlir.
  reproducer_path: Optional[str] = None
  rerun_command: str = ""  # compiles the reproducer again with the library's flags.

  @property
  def first_error(self) -> str:
    """The first error without its location, reproducer or failing pass: as the FAILING lists
    and report.json's `first_error` normalise it, so methods failing alike are one group."""
    return phases.first_error_line(self.reason, diagnostics=True)

  def describe(self) -> str:
    if not self.reproducer_path:
      return self.reason
    rerun = f" (compile it again with: {self.rerun_command})" if self.rerun_command else ""
    return f"{self.reason} Reproducer: {bazel_paths.display_path(self.reproducer_path)}{rerun}"


@dataclasses.dataclass(frozen=True)
class FailureGroup:
  """Methods whose first errors are the same once normalised: one failure, reported once (a
  module with one bad op 15 methods share printed its error and reproducer 15 times)."""
  first_error: str
  failures: Tuple[MethodFailure, ...]  # the first is the one shown, with its reproducer.

  @property
  def methods(self) -> Tuple[str, ...]:
    return tuple(f.method for f in self.failures)

  def label(self) -> str:
    """`erf: does not compile` or `batch_trace, trace: do not compile`."""
    verb = "does" if len(self.failures) == 1 else "do"
    return f"{', '.join(self.methods)}: {verb} not compile"


@dataclasses.dataclass(frozen=True)
class MethodCompiles:
  """Which exported methods compiled alone, and the first error of each that did not."""
  backend: str
  module_error: str
  compiled: Tuple[str, ...]
  failed: Tuple[MethodFailure, ...]

  def failure_of(self, method: Optional[str]) -> Optional[MethodFailure]:
    return next((f for f in self.failed if f.method == method), None)

  def groups(self) -> Tuple[FailureGroup, ...]:
    """The failures grouped by first error, in the order of each group's first method."""
    by_error: Dict[str, List[MethodFailure]] = {}
    for failure in self.failed:
      by_error.setdefault(failure.first_error, []).append(failure)
    return tuple(FailureGroup(error, tuple(failures)) for error, failures in by_error.items())

  def group_of(self, method: Optional[str]) -> Optional[FailureGroup]:
    return next((g for g in self.groups() if method in g.methods), None)

  def describe(self, module_error_shown: bool = False) -> str:
    """Per method, whether it compiles alone; each first error once, with the methods it covers
    and one reproducer. `module_error_shown`: the whole module's error is printed just before,
    so a group failing with that same error says so instead of repeating it."""
    total = len(self.compiled) + len(self.failed)
    lines = [f"{self.backend}: the whole module did not compile; compiled alone, "
             f"{len(self.compiled)} of {total} method(s) compile:"]
    lines += [f"  {name}: compiles" for name in self.compiled]
    module_first = phases.first_error_line(self.module_error, diagnostics=True)
    for group in self.groups():
      if module_error_shown and group.first_error == module_first:
        lines.append(f"  {group.label()}: the whole module's error above")
      else:
        lines.append(f"  {group.label()}: {group.failures[0].describe()}")
    return "\n".join(lines)

  def call_error(self, method: str) -> str:
    """What a call of a method that did not compile reports: the method and its first error."""
    failure = self.failure_of(method)
    reason = failure.describe() if failure else "it was not compiled"
    return f"method '{method}' did not compile for {self.backend}: {reason}"

  def call_note(self, method: str) -> str:
    """call_error without the reproducer, for a report the per-method list follows: it holds
    the reproducer once for every method failing alike. (Nothing after the reason: the first
    error is read from its end as from call_error's.)"""
    failure = self.failure_of(method)
    if failure is None:
      return self.call_error(method)
    return f"method '{method}' did not compile for {self.backend}: {failure.reason}"

  def call_reference(self, method: str) -> str:
    """A call error naming the group instead of repeating it: for report.txt, which holds the
    per-method list once per class."""
    group = self.group_of(method)
    if group is None:
      return self.call_error(method)
    return (f"method '{method}' did not compile for {self.backend}: see '{group.label()}' in "
            "the per-method list")

  def to_json(self) -> Dict[str, Any]:
    """report.json's record of the fallback: each group with its methods, error and reproducer;
    `failed` keeps every method's own error."""
    return {
        "backend": self.backend,
        "compiled": list(self.compiled),
        "groups": [{"first_error": g.first_error, "methods": list(g.methods),
                    "reason": g.failures[0].reason,
                    "reproducer": g.failures[0].reproducer_path,
                    "rerun_command": g.failures[0].rerun_command or None}
                   for g in self.groups()],
        "failed": {f.method: f.reason for f in self.failed},
    }


def compile_each_method(request: CompileRequest, module_error: CompileError, backend: str,
                        description: str, compile_fn: CompileFn,
                        reproducer_for: Callable[[str], Optional[str]] = lambda _: None
                        ) -> Tuple[Optional[bytes], MethodCompiles]:
  """Compiles every exported function of `request` alone, then those that compiled together.

  Returns the binary exporting every method that compiled (None when none did, or when they do
  not compile together: then each method is listed as failing with that error) and the record.
  `reproducer_for(method)` is where that method's reproducer goes.
  """
  methods = mlir_functions.exported_functions(request.iree_input)
  compiled, failed = [], []
  for method in methods:
    alone = dataclasses.replace(request,
                                iree_input=mlir_functions.only_exporting(request.iree_input,
                                                                         [method]))
    try:
      compile_fn(alone, f"method '{method}' of {description}", reproducer_for(method))
      compiled.append(method)
    except CompileError as e:
      failed.append(MethodFailure(method, e.reason, e.reproducer_path, e.rerun_command))
  vmfb = None
  if compiled:
    together = dataclasses.replace(
        request, iree_input=mlir_functions.only_exporting(request.iree_input, compiled))
    try:
      vmfb = compile_fn(together, f"methods {', '.join(compiled)} of {description}", None)
    except CompileError as e:
      failed = [MethodFailure(m, f"compiles alone, but not with {', '.join(compiled)}: "
                              f"{e.reason}") for m in compiled] + failed
      compiled = []
  order = {name: i for i, name in enumerate(methods)}
  failed.sort(key=lambda f: order[f.method])
  return vmfb, MethodCompiles(backend, module_error.reason, tuple(compiled), tuple(failed))
