"""A function's name as MLIR spells its symbol, and back.

Names are data: a TF method may be called `größe`, which MLIR writes as the quoted symbol
`@"gr\\C3\\B6\\C3\\9Fe"` (each byte of the UTF-8 that is not printable ASCII, and `"` and `\\`, as
`\\` and two hex digits), while an ASCII identifier stays bare (`@plain`). Every rename and
comparison of symbols goes through these two functions, so no name is ever regex syntax (a
replacement string `\\C` is a bad escape) or compared in one spelling with the other.
"""

import re

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
_ESCAPE = re.compile(rb'\\([0-9A-Fa-f]{2}|[\\"nt])')
_NAMED_ESCAPES = {b"\\": b"\\", b'"': b'"', b"n": b"\n", b"t": b"\t"}


def spelling(name: str) -> str:
  """The symbol of `name` as MLIR prints it, without its `@`: bare or quoted and escaped."""
  if _BARE.fullmatch(name):
    return name
  escaped = "".join(chr(byte) if 0x20 <= byte < 0x7F and byte not in b'"\\' else f"\\{byte:02X}"
                    for byte in name.encode("utf-8"))
  return f'"{escaped}"'


def _unescape(match: "re.Match[bytes]") -> bytes:
  code = match.group(1)
  return _NAMED_ESCAPES.get(code) or bytes([int(code, 16)])


def name_of(symbol: str) -> str:
  """The name a symbol (without its `@`, bare or quoted as MLIR prints it) stands for."""
  if not symbol.startswith('"'):
    return symbol
  return _ESCAPE.sub(_unescape, symbol[1:-1].encode("utf-8")).decode("utf-8", "replace")
