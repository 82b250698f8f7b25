"""Examples in a session (docs/examples.md): inputs hypothesis draws from a method's signature,
run on a test's modules, the first failure shrunk, then the chosen input compared as a trace.

`check_examples(run, method, examples, signature)` does it for one `TestRun` and returns an
`ExamplesResult`; `methods_due` says which methods --examples still has to check in a class
(each once), `example_signature` which signature to draw from. Nothing here fails a test or
reads a flag: `TracedModuleTestCase.check_examples` fails on the result, the pytest plugin's
items judge the compared trace.
"""

import dataclasses
import os
from typing import Any, Iterator, Optional, Sequence

from absl import logging
import numpy as np
import tensorflow as tf

from pyiree_tf_support.core import artifacts
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import signatures
from pyiree_tf_support.examples import engine as examples_engine
from pyiree_tf_support.examples import summary as examples_summary
from pyiree_tf_support.harness.session import ComparedTrace
from pyiree_tf_support.harness.session import ModuleSession
from pyiree_tf_support.harness.session import TestRun
from pyiree_tf_support.importing import importer


class ExampleTrace:
  """The trace function of one drawn example: a call of `method` with `inputs` (flattened)."""

  def __init__(self, name: str, method: str, signature: signatures.FunctionSignature,
               inputs: Sequence[Any]):
    self.__name__ = name
    self._method = method
    self._args = signature.pack_inputs(list(inputs))

  def __call__(self, module) -> None:
    getattr(module, self._method)(*self._args)


@dataclasses.dataclass(frozen=True)
class ExamplesResult:
  """What `check_examples` found: the compared trace of the chosen input (None when nothing was
  compared), and the message of a failure that is no backend's outcome."""
  compared: Optional[ComparedTrace]
  problem: Optional[str] = None  # compared nothing, or a backend that is not deterministic.
  fatal: bool = True  # whether `problem` fails the test (else it is only worth a warning).
  per_backend: bool = False  # the plugin's items judge `compared`: it fails no test here.

  @property
  def failure(self) -> Optional[str]:
    """The message that fails the test (None: it passes, `problem` at most a warning)."""
    if self.compared is not None and self.compared.failed and not self.per_backend:
      return self.compared.message
    return self.problem if self.problem and self.fatal else None


def methods_due(session: ModuleSession, compared: ComparedTrace) -> Iterator[str]:
  """--examples: the methods `compared` called that have no examples yet in this class, each
  counted as checked as it is given (a check that fails the test leaves the later ones for the
  next test); none when the setting is 0."""
  if not session.settings.examples:
    return
  for method in dict.fromkeys(compared.called):
    if method not in session.methods_with_examples:
      session.methods_with_examples.add(method)
      yield method


def example_signature(run: TestRun, method: str,
                      input_signature: Optional[Sequence[Any]]) -> signatures.FunctionSignature:
  """The signature examples of `method` are drawn from: its own, or `input_signature`
  (tf.TensorSpecs nested as the arguments, e.g. with static sizes for its None dims)."""
  known = run.reference.signatures
  if method not in known:
    raise ValueError(f"check_examples('{method}'): module '{run.session.module_name}' exports no "
                     f"such function; it exports: {', '.join(known) or 'none'}.")
  signature = known[method]
  if input_signature is None:
    return signature
  specs = tf.nest.flatten(list(input_signature))
  if len(specs) != len(signature.inputs) or not all(
      isinstance(s, tf.TensorSpec) for s in specs):
    raise ValueError(
        f"check_examples('{method}'): input_signature must be {len(signature.inputs)} "
        f"tf.TensorSpec(s) nested as the arguments of {method}{signature.python_signature()}, "
        f"got {input_signature!r}.")
  return dataclasses.replace(signature, inputs=importer.input_specs(specs))


def check_examples(run: TestRun, method: str, examples: int,
                   signature: signatures.FunctionSignature) -> ExamplesResult:
  """Checks `method` on `examples` inputs hypothesis draws from `signature` on the reference
  and every target of `run`, shrinks the first failure, then compares the shrunk input (or,
  when nothing fails, the first compared one) as a trace. An own fault (`faults`) is raised
  and counted, as by `TestRun.compare`."""
  try:
    return _check_examples(run, method, examples, signature)
  except faults.OwnFault:
    run.met_own_fault()
    raise


def _check_examples(run: TestRun, method: str, examples: int,
                    signature: signatures.FunctionSignature) -> ExamplesResult:
  session = run.session
  name = session.trace_names.claim(f"{method}.examples", run.name)
  directory = artifacts.examples_dir(session.artifacts_dir, name)
  storage = os.path.join(directory, "hypothesis")
  with faults.writing(directory):
    # hypothesis writes its caches there with plain opens: a directory made afresh holds no
    # link an earlier hand-over planted.
    safe_files.remove_tree(storage)
    safe_files.make_dirs(storage)
  state = run.reference.holds_variables()
  targets = tuple(
      examples_engine.ExampleTarget(s.info.name, m)
      for index, (s, m) in enumerate(zip(session.setup.targets, run.targets))
      if m is not None and index not in run.reset_errors
      and not (m.method_import_error(method) or m.method_compile_error(method)))
  modules = examples_engine.ExampleModules(run.reference, targets,
                                           stateful=state is None or state)
  settings = examples_engine.ExampleSettings(
      examples, session.settings.examples_seed, session.settings.examples_seconds,
      storage, session.options.tolerance_policy)
  result = examples_engine.run_examples(modules, method, signature, settings)
  where = f"{session.module_name}.{method}()"
  summary = examples_summary.format_summary(
      result, where, f"--examples={examples} --examples_seed={result.seed}")
  safe_files.write_text(os.path.join(directory, "summary.txt"), summary + "\n")
  if result.failure:  # the shrunk input is saved as a trace below.
    first = {f"input_{i}": a for i, a in enumerate(result.failure.first_inputs)}
    safe_files.write_with(os.path.join(directory, "first_failing_inputs.npz"),
                         lambda f: np.savez(f, allow_pickle=False, **first))
  if result.failure:  # shown under pytest too, whose backend items judge the trace below.
    logging.warning("%s", summary)
  else:
    logging.info("%s", summary if session.options.verbose else summary.splitlines()[0])
  chosen = result.failure.shrunk_inputs if result.failure else result.first_accepted
  if chosen is None or (targets and not result.compared):
    return ExamplesResult(None, f"Examples of {where} compared nothing: the reference "
                          "rejected every input or the time box ended before the first.\n"
                          f"{summary}", per_backend=session.per_backend)
  trace = ExampleTrace(f"{method}.shrunk" if result.failure else f"{method}.example",
                       method, signature, chosen)
  if modules.stateful:
    run.reinitialize()
  compared = run.compare(trace, summary)
  failing = result.failure.kind.backend if result.failure else None
  again = [o for o in compared.outcomes if o.backend == failing]
  if again and not again[0].status.failed:  # raw outcomes: a listed backend's too.
    return ExamplesResult(
        compared, f"{summary}\nThe shrunk input passed on {again[0].backend} when compared "
        "as a trace: the backend is not deterministic.", fatal=not session.per_backend,
        per_backend=session.per_backend)
  return ExamplesResult(compared, per_backend=session.per_backend)
