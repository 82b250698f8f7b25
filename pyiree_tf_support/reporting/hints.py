"""What to rewrite, for the unsupported patterns users meet most: one table, keyed by a pattern of
a failure's first error line (`verdicts.Outcome.first_error`), read by the failure report, which
prints the hint as one line after the first error.

Each hint names the pattern in the user's TensorFlow code and a rewrite measured to import,
compile and match TF on vmvx and llvm-cpu (docs/failures.md, "Hints"); an error no pattern matches
gets no hint. Pure data and one lookup: no TensorFlow, no IREE.
"""

import dataclasses
import re
from typing import Optional, Tuple


@dataclasses.dataclass(frozen=True)
class Hint:
  """`text` for a first error line matching `pattern` (re.search)."""
  name: str
  pattern: str
  text: str


HINTS: Tuple[Hint, ...] = (
    Hint("shape-as-data",
         r"index types must not cross the dispatch boundary",
         "a tf.shape() value used as data (cast, added to a tf.Variable, returned) is an index "
         "tensor IREE cannot pass between dispatches: count with tensors instead (rows of x: "
         "tf.reduce_sum(tf.ones_like(x[:, 0]))) or pass the count as an input"),
    Hint("strided-slice-on-none-dim",
         r"TensorFlow ops IREE cannot compile: .*\btf\.StridedSlice\b",
         "a slice of a None dim (x[1:], x[::2], x[-1] on a [None, ...] input) is not imported; "
         "keep every None dim whole with step 1 (x[:, 0], x[:, 1:3] are), or give that dim a "
         "fixed size in the input_signature"),
    Hint("sort-top-k",
         r'call_target_name = \\?"mhlo\.topk\\?"',
         "tf.sort and tf.math.top_k lower to an mhlo.topk custom call IREE does not compile: for "
         "k=1 use tf.reduce_max / tf.argmax; otherwise sort outside the compiled module"),
    Hint("rnn-none-batch",
         r"'tf\.TensorListReserve' op unknown tensor list element shape",
         "a Keras RNN (LSTM, GRU, Bidirectional) or TensorArray whose elements have a None dim, "
         "usually the batch: TF makes a TensorList a buffer only for a static element shape; "
         "give the batch a fixed size (Input(batch_size=N, ...) and TensorSpec([N, ...]))"),
    Hint("rnn-none-time",
         r"'tf\.TensorListReserve' op unknown max element count",
         "a Keras RNN over a None time dim, or a TensorArray of runtime size: TF makes a "
         "TensorList a buffer only for a constant size; give the time dim a fixed size "
         "(pad the sequences) in the Input and the input_signature"),
)

_COMPILED = tuple((re.compile(hint.pattern), hint) for hint in HINTS)


def hint_for(first_error: Optional[str]) -> Optional[Hint]:
  """The first hint of the table whose pattern the first error line matches; None if none."""
  if not first_error:
    return None
  for pattern, hint in _COMPILED:
    if pattern.search(first_error):
      return hint
  return None
