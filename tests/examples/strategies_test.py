"""Strategies drawn from a signature: the values compilers get wrong are among the draws, dynamic
dims take 0, 1 and odd sizes, static dims are kept, a seed draws the same inputs again, and a
dtype nothing can be drawn for is named. No toolchain: hypothesis and numpy only."""

import random
import tempfile

from absl.testing import absltest
import hypothesis
import numpy as np

from pyiree_tf_support.core.signatures import InputSpec
from pyiree_tf_support.examples import strategies

_SETTINGS = hypothesis.settings(max_examples=2000, database=None, phases=[
    hypothesis.Phase.generate], suppress_health_check=list(hypothesis.HealthCheck))


def drawn(inputs, condition, seed=0):
  """The first draw of `inputs` meeting `condition` (hypothesis.NoSuchExample if none)."""
  return hypothesis.find(strategies.for_inputs(inputs), condition, settings=_SETTINGS,
                         random=random.Random(seed))


def setUpModule():
  # hypothesis caches constants it reads from local sources in its home: not the working dir.
  hypothesis.configuration.set_hypothesis_home_dir(tempfile.mkdtemp())


class ValuesTest(absltest.TestCase):

  def test_float32_special_values_are_drawn(self):
    spec = [InputSpec((4,), "float32")]
    tiny = np.finfo(np.float32).smallest_subnormal
    for name, condition in [
        ("NaN", lambda v: np.isnan(v[0]).any()),
        ("+Inf", lambda v: (v[0] == np.inf).any()),
        ("-Inf", lambda v: (v[0] == -np.inf).any()),
        ("-0.0", lambda v: ((v[0] == 0) & np.signbit(v[0])).any()),
        ("subnormal", lambda v: ((np.abs(v[0]) > 0) & (np.abs(v[0]) < 2 * tiny)).any()),
        ("max", lambda v: (v[0] == np.finfo(np.float32).max).any()),
        ("ordinary", lambda v: ((np.abs(v[0]) > 0.1) & (np.abs(v[0]) < 100)).all())]:
      with self.subTest(name):
        self.assertEqual(drawn(spec, condition)[0].dtype, np.float32)

  def test_integer_extremes_and_bools_are_drawn(self):
    spec = [InputSpec((3,), "int8"), InputSpec((3,), "uint16"), InputSpec((2,), "bool")]
    self.assertIn(-128, drawn(spec, lambda v: (v[0] == -128).any())[0])
    self.assertIn(127, drawn(spec, lambda v: (v[0] == 127).any())[0])
    self.assertIn(65535, drawn(spec, lambda v: (v[1] == 65535).any())[1])
    both = drawn(spec, lambda v: v[2].any() and not v[2].all())[2]
    self.assertEqual(both.dtype, np.bool_)

  def test_float16_and_complex_inputs_keep_their_dtype(self):
    values = drawn([InputSpec((2,), "float16"), InputSpec((2,), "complex64")],
                   lambda v: np.isinf(v[0]).any() and (v[1].imag != 0).any())
    self.assertEqual([v.dtype for v in values], [np.float16, np.complex64])


class ShapesTest(absltest.TestCase):

  def test_dynamic_dims_take_zero_one_and_odd_sizes_static_dims_are_kept(self):
    spec = [InputSpec((None, 3), "float32"), InputSpec((None, 3), "float32")]
    for size in (0, 1, 3, 5, 7):
      with self.subTest(size=size):
        a, b = drawn(spec, lambda v, size=size: v[0].shape[0] == size)
        self.assertEqual(a.shape, (size, 3))
        self.assertEqual(b.shape, a.shape)  # one size per axis, shared: elementwise-ready.

  def test_unknown_rank_gets_rank_zero_to_two(self):
    spec = [InputSpec(None, "int32")]
    for rank in (0, 1, 2):
      self.assertEqual(drawn(spec, lambda v, rank=rank: v[0].ndim == rank)[0].ndim, rank)

  def test_the_same_seed_draws_the_same_inputs(self):
    spec = [InputSpec((None,), "float32"), InputSpec((2, None), "int32")]
    runs = []
    for seed in (7, 7, 8):
      runs.append([])
      with self.assertRaises(hypothesis.errors.NoSuchExample):  # collects 30 draws.
        drawn(spec, lambda v: runs[-1].append(v) and False, seed)
    def same(x, y):
      return len(x) == len(y) and all(
          a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
          for u, v in zip(x, y) for a, b in zip(u, v))
    self.assertLen(runs[0], 2000)
    self.assertTrue(same(runs[0], runs[1]))
    self.assertFalse(same(runs[0], runs[2]))


class UnsupportedTest(absltest.TestCase):

  def test_a_string_input_is_named_with_what_can_be_drawn(self):
    with self.assertRaisesRegex(strategies.UnsupportedInputError,
                                r"^M.f\(\) input 1 \(object\[2\]\): .*examples draw bool, "
                                "integer, float and complex inputs$"):
      strategies.for_inputs([InputSpec((2,), "float32"), InputSpec((2,), "object")], "M.f()")


if __name__ == "__main__":
  absltest.main()
