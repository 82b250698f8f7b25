"""Markdown tables whose cells point to numbered notes under them: the coverage page's table of
e2e files (update_e2e_coverage) and its sections of the generated tests and keras.applications
models (suite_sections).

A table is {row key: {column: (status, note)}}; a cell whose note is worth showing says its
status (or a short text of it) and the number of the note, listed under the table as
"N. `key` on `column`: note".
"""

from typing import Callable, List, Mapping, Sequence, Tuple

Cell = Tuple[str, str]  # (status, note)


def header(first: str, columns: Sequence[str]) -> List[str]:
  """The header line and the separator line of a table with `first` and then `columns`."""
  return [f"| {first} | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]


def rows_with_notes(table: Mapping[str, Mapping[str, Cell]], columns: Sequence[str],
                    noted: Callable[[str, str], bool],
                    cell_text: Callable[[str, str], str] = lambda status, note: status
                    ) -> Tuple[List[str], List[str]]:
  """The table's row lines and its notes, in order: a cell for which `noted(status, note)` shows
  `cell_text(status, note)` and its note's number ("|" escaped), any other its status."""
  lines: List[str] = []
  notes: List[str] = []
  for key, row in table.items():
    cells = []
    for column in columns:
      status, note = row[column]
      if noted(status, note):
        notes.append(f"{len(notes) + 1}. `{key}` on `{column}`: {note}")
        cells.append(f"{cell_text(status, note)} [{len(notes)}]".replace("|", "\\|"))
      else:
        cells.append(status)
    lines.append(f"| `{key}` | " + " | ".join(cells) + " |")
  return lines, notes


if __name__ == "__main__":
  import sys as _sys

  from pyiree_tf_support import tools as _tools
  _sys.exit(_tools.not_a_command(__spec__.name, _sys.argv))
