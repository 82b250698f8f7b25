"""Values in the files the package generates, as data of the file's language, never as its code;
and the names a function can have, which are all a loaded module dir may name.

Why: a generated file holds values from elsewhere - a method or trace name from a module dir
someone handed over, a path, a backend's error message - and a person runs it (reduced.py,
repro.sh, test_dispatches.py) or pastes the command it prints. Formatted raw, a name holding
`\"\"\"` ends a docstring and the rest of it runs as Python, and a newline in a comment of a
shell script starts a command. So a value goes into a generated Python file as a literal
(`repr`, or `docstring` for the docstring's text), into a comment as one printable line
(`comment`), and into a shell command as a word (`shlex.quote`/`shlex.join`, the standard
library's, called where the command is built).

The names are those Python gives a function (`function_name`: an identifier such as `größe`,
not a keyword) and a trace (`trace_name`: the trace function's, with the test's name and a
number when two tests share it): a module dir naming anything else was not written by a run,
and its names are refused where it is loaded (`reporting.replay_input`).
"""

import keyword

_LAMBDA = "<lambda>"  # the name Python gives a lambda, a trace function's name when it is one


def _plain(text: str) -> bool:
  """Whether `text` reads the same between triple double quotes: printable lines, no backslash
  (an escape), no three quotes and no quote at its end (either would end the literal)."""
  return (all(c == "\n" or c.isprintable() for c in text) and "\\" not in text
          and '"""' not in text and not text.endswith('"'))


def docstring(text: str) -> str:
  """A string literal whose value is `text`, to be a generated file's docstring: the text between
  triple quotes when nothing in it can end them, else each line `repr`'s literal, joined in
  parentheses (one string, still the docstring)."""
  if _plain(text):
    return '"""' + text + '"""'
  lines = text.splitlines(keepends=True) or [""]
  if len(lines) == 1:
    return repr(lines[0])
  return "(" + "\n ".join(repr(line) for line in lines) + ")"


def comment(text: str) -> str:
  """`text` as one printable line, for a `#` comment of a Python or shell file: line breaks, NUL
  and other unprintable characters escaped as `repr` escapes them."""
  return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def function_name(name: object) -> bool:
  """Whether `name` is one a Python function can have (`größe` is): an identifier, no keyword."""
  return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def trace_name(name: object) -> bool:
  """Whether `name` is one the library gives a trace: its function's name (`<lambda>` for a
  lambda), then, when another test has a trace of that name, `.<test method>` and `.<number>`
  (`.examples` for the inputs drawn of a method)."""
  if not isinstance(name, str):
    return False
  return all(function_name(part) or part == _LAMBDA or (part.isascii() and part.isdigit())
             for part in name.split("."))


def shown(name: str, limit: int = 80) -> str:
  """`name` as an error message names it: its literal (one line, escapes visible), cut short."""
  return repr(name[:limit]) + ("..." if len(name) > limit else "")
