"""The one walker over nested values: tf.nest's order, paths, specs and their round trips."""

import collections

from absl.testing import absltest
from absl.testing import parameterized
import numpy as np

from pyiree_tf_support.comparing.traces import ModuleCall
from pyiree_tf_support.core import structure

Pair = collections.namedtuple("Pair", "b a")


class WalkerTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("dict_by_sorted_key", {"b": 1, "a": 2, "c": 3}, [2, 1, 3]),
      ("nested", {"z": [1, (2, {"y": 3, "x": 4})], "a": 0}, [0, 1, 2, 4, 3]),
      ("none_is_a_leaf", [None, 1], [None, 1]),
      ("namedtuple_in_field_order", Pair(1, 2), [1, 2]),
      ("scalar", 5, [5]),
  )
  def test_flatten_in_tf_nest_order(self, value, expected):
    self.assertEqual(structure.flatten(value), expected)

  def test_flatten_can_drop_none(self):
    self.assertEqual(structure.flatten({"b": None, "a": [1, None]}, drop_none=True), [1])

  def test_paths(self):
    self.assertEqual(structure.flatten_with_paths({"b": [7], "a": 8}),
                     [(("a",), 8), (("b", 0), 7)])
    self.assertEqual(structure.format_path("outputs", (0, "logits")), "outputs[0]['logits']")

  @parameterized.named_parameters(
      ("same", {"a": [1, 2]}, {"a": (3, 4)}, [(("a", 0), 1, 3), (("a", 1), 2, 4)]),
      ("length_differs_stops_there", {"a": [1, 2]}, {"a": [3]}, [(("a",), [1, 2], [3])]),
      ("keys_differ", {"a": 1}, {"b": 1}, [((), {"a": 1}, {"b": 1})]),
      ("dict_against_list", {0: 1}, [1], [((), {0: 1}, [1])]),
      ("leaf_against_container", 1, [1], [((), 1, [1])]),
  )
  def test_zip_paths(self, a, b, expected):
    self.assertEqual(list(structure.zip_paths(a, b)), expected)

  def test_map_structure_keeps_containers(self):
    self.assertEqual(structure.map_structure(lambda x: x * 2, {"a": [1, (2,)], "b": Pair(3, 4)}),
                     {"a": [2, (4,)], "b": (6, 8)})


class SpecTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("dict", {"b": 1, "a": None}, {"dict": [["a", None], ["b", "T"]]}),
      ("list_and_tuple", [1, (2,)], {"list": ["T", {"tuple": ["T"]}]}),
  )
  def test_spec_round_trip(self, value, spec):
    self.assertEqual(structure.spec_of(value), spec)
    flat = structure.flatten(value, drop_none=True)
    self.assertEqual(structure.count_leaves(spec), len(flat))
    self.assertEqual(structure.pack(spec, flat), value)
    self.assertEqual(structure.flatten_as(spec, value), flat)

  def test_pack_checks_the_count(self):
    with self.assertRaisesRegex(ValueError, "Expected 2 flat values"):
      structure.pack({"list": ["T", "T"]}, [1])

  @parameterized.named_parameters(
      ("not_a_dict", {"dict": [["a", "T"]]}, [1], "expected a dict at args, got list"),
      ("keys", {"dict": [["a", "T"]]}, {"b": 1}, "expected keys ['a'] at args, got ['b']"),
      ("length", {"tuple": ["T", {"list": ["T"]}]}, (1, [1, 2]),
       "expected 1 items at args[1], got 2 items"),
  )
  def test_flatten_as_names_the_place(self, spec, value, error):
    with self.assertRaisesRegex(TypeError, error.replace("[", r"\[")):
      structure.flatten_as(spec, value, "args")


class TraceTextUsesTheSameWalkerTest(absltest.TestCase):
  """A trace's text lists nested values in the order comparison and saved traces use."""

  def test_dict_keys_are_listed_in_tf_nest_order(self):
    text = str(ModuleCall("f", [{"b": 1, "a": 2}], {"z": np.zeros(1, np.float32), "y": None}))
    self.assertLess(text.index("'a': 2"), text.index("'b': 1"))
    self.assertLess(text.index("'y': None"), text.index("'z': float32[1]"))


if __name__ == "__main__":
  absltest.main()
