"""Telling a trace whose inputs change from run to run apart from a backend that computes wrong.

Every backend runs the trace function anew, so a trace that draws its inputs from an unseeded
generator or the clock gives each backend other inputs, and every backend would "mismatch" on
inputs it never shared with the reference. When a target's first mismatching call differs in its
inputs, the trace is run once more on a fresh reference; if that run's inputs differ from the
first run's, the trace is not deterministic, and that is the test's fault, not a backend's.
(Inputs computed from an earlier call's outputs differ for a backend that computed those outputs
differently, and they are the same on the reference twice: that stays a backend's mismatch.)
"""

from typing import Optional, Sequence

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.comparing import traces
from pyiree_tf_support.reporting import verdicts


def starts_in_inputs(outcomes: Sequence[verdicts.Outcome]) -> bool:
  """Whether a target's first mismatching call differs from the reference's in its inputs."""
  return any(o.status is verdicts.Status.MISMATCH
             and any(m.path[:1] == ("inputs",) for m in o.mismatches) for o in outcomes)


def input_difference(first: traces.Trace, again: traces.Trace) -> Optional[str]:
  """How the calls or inputs of `again` differ from those of `first` (None: not at all); inputs
  are compared exactly (NaN matching NaN)."""
  methods = [call.method for call in first.calls]
  methods_again = [call.method for call in again.calls]
  if methods != methods_again:
    return f"it made the calls {methods} and then {methods_again}"
  for index, (call, call_again) in enumerate(zip(first.calls, again.calls)):
    found = comparison.compare(call.inputs, call_again.inputs, "inputs",
                               lambda dtype: tolerances.EXACT)
    if found:
      return (f"call {index} ({call.method}) got other inputs: "
              f"{comparison.describe(found[0]).rstrip('.')}")
  return None


def message(trace: traces.Trace, difference: str) -> str:
  """The one-line error of a trace found not deterministic on its reference backend."""
  return (f"Trace '{trace.function_name}' is not deterministic: run twice on the reference "
          f"'{trace.backend}', {difference}. Every backend runs the trace anew, so they were "
          "given other inputs and no verdict was recorded; draw inputs from np.random, "
          "tf.random or random (seeded before every run, e.g. tf_utils.uniform), not from an "
          "unseeded generator or the clock.")
