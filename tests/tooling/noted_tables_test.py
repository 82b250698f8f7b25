"""The coverage pages' one table writer: numbered notes under a table, pointed to by its cells."""

from absl.testing import absltest

from pyiree_tf_support.tools import noted_tables


class NotedTablesTest(absltest.TestCase):

  def test_noted_cells_point_to_numbered_notes_in_order(self):
    table = {"a_test.py": {"x": ("pass", ""), "y": ("FAIL", "mismatch: 1 | 2")},
             "b_test.py": {"x": ("XFAIL", "compile: no"), "y": ("pass", "close")}}
    rows, notes = noted_tables.rows_with_notes(
        table, ["x", "y"], lambda status, note: bool(note) and status != "pass",
        lambda status, note: f"{status}: {note}")
    self.assertEqual(rows, ["| `a_test.py` | pass | FAIL: mismatch: 1 \\| 2 [1] |",
                            "| `b_test.py` | XFAIL: compile: no [2] | pass |"])
    self.assertEqual(notes, ["1. `a_test.py` on `y`: mismatch: 1 | 2",
                             "2. `b_test.py` on `x`: compile: no"])

  def test_by_default_a_noted_cell_shows_its_status(self):
    rows, notes = noted_tables.rows_with_notes({"k": {"x": ("XPASS", "passed")}}, ["x"],
                                               lambda status, note: bool(note))
    self.assertEqual((rows, notes), (["| `k` | XPASS [1] |"], ["1. `k` on `x`: passed"]))

  def test_header(self):
    self.assertEqual(noted_tables.header("file", ["x", "y"]),
                     ["| file | x | y |", "|---|---|---|"])


if __name__ == "__main__":
  absltest.main()
