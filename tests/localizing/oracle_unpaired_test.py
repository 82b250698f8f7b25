"""oracle.judge when a dispatch's output has no counterpart in the oracle and the divergence is
first seen at the next dispatch's inputs, through a flow.tensor.bitcast (which moves no values).

The records are what the localizer hands judge: traced events, the flow IR's sites (as
oracle_sites reads them) and the oracle's probed values. d0 writes the bits of an f32[4] as
i32[4] (no StableHLO value is i32[4]: unpaired), a bitcast makes it f32 again for d1, whose
input pairs with the oracle's f32[4] and differs: d0 is to blame, never the bitcast.
"""

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.localizing import events
from pyiree_tf_support.localizing import oracle
from pyiree_tf_support.localizing import oracle_module
from pyiree_tf_support.localizing import oracle_sites

EXPECTED = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
WRONG = np.array([1.0, 2.0, 3.5, 4.0], np.float32)
WHERE = "iree_input.mlir:3:5"


def _sites(output_probe):
  made = oracle_sites.Source("dispatch output", output_probe, WHERE, "d0::d0")
  def site(key, kind, source):
    return [oracle_sites.Site("f", key, kind, (source,), False)]
  return {
      ("f", "d0::d0", "inputs"): site("d0::d0", "inputs",
                                      oracle_sites.Source("argument", None, "")),
      ("f", "d0::d0", "outputs"): site("d0::d0", "outputs", made),
      ("f", "d1::d1", "inputs"): site("d1::d1", "inputs", oracle_sites.Source(
          "dispatch output", "p0", WHERE, "d0::d0", "flow.tensor.bitcast")),
      ("f", "d1::d1", "outputs"): site("d1::d1", "outputs", oracle_sites.Source(
          "dispatch output", "p1", "iree_input.mlir:4:5", "d1::d1")),
  }


def _judge(written: np.ndarray, output_probe: str) -> oracle.Judged:
  trace = [events.Event(0, "d0::d0", "inputs", 0, (EXPECTED,)),
           events.Event(0, "d0::d0", "outputs", 0, (written,)),
           events.Event(0, "d1::d1", "inputs", 0, (WRONG,)),
           events.Event(0, "d1::d1", "outputs", 0, (WRONG * 2,))]
  module = oracle_module.OracleModule({}, {}, None, (), {})
  call = oracle.Call((), (), {"p0": (EXPECTED,), "p1": (EXPECTED * 2,)})
  return oracle.judge(trace, oracle.OracleRun((call,), module, None), _sites(output_probe),
                      ["f"], tolerances.DEFAULT_POLICY, ["iree_vmvx"])


class UnpairedWriterTest(absltest.TestCase):

  def test_the_unpaired_writer_is_named_not_the_bitcast(self):
    judged = _judge(WRONG.view(np.int32), "p0")  # i32[4]: the oracle's p0 is f32[4].
    self.assertIs(judged.finding.kind, events.Kind.DISPATCH)
    culprit = judged.finding.culprit
    assert culprit is not None
    self.assertEqual(culprit.key, "d0::d0")
    self.assertRegex(culprit.worst.describe(), r"from the dispatch output at "
                     rf"{WHERE} \(through a flow.tensor.bitcast\); its output had no "
                     r"counterpart; seen at the inputs of d1::d1$")
    self.assertRegex(judged.unmatched[0], r"call 0 d0::d0 outputs\[0\]: the dispatch output at "
                     rf"{WHERE} is float32\[4\] in the oracle, int32\[4\] traced")

  def test_a_writer_that_was_compared_and_agreed_leaves_it_outside(self):
    judged = _judge(EXPECTED, "p0")  # compared: agrees, so the change came after it.
    self.assertIs(judged.finding.kind, events.Kind.OUTSIDE)
    culprit = judged.finding.culprit
    assert culprit is not None
    self.assertEqual((culprit.key, judged.unmatched), ("d1::d1", ()))


if __name__ == "__main__":
  absltest.main()
