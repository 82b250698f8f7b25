"""A finding's signature: what makes two hits one bug.

phase + backend + the failure's key (`reducing.failures`: the kinds of difference of a mismatch,
or the normalised first error line and failing pass), and
- for a compile error, nothing more (the pass and the error name the bug);
- for a runtime error, nothing more either, with the generated function's name taken out of
  the error (`call 0 (f2) ... call to 'f2' failed`): the runtime's message is the error's kind
  (measured: Vulkan's "dispatch binding N resolved to an empty buffer range" on a size-0 input
  reduced to `tanh` in one function and `abs` in another, one bug that keying by ops made two
  rows), the key already without the native function the error surfaced in (a race's varies);
- for a mismatch the localizer pinned to one dispatch, that dispatch's op kinds and dtypes
  (`dispatch_kinds`): two chains whose wrong values come from the same kind of dispatch on the
  same dtypes (`cast_f32_to_i32` alone, or behind an `add`) are one bug;
- for a mismatch the localizer put outside every dispatch (a global load, a copy), the
  function's state kind (`outside_dispatches_state_cond`): the chain is only what made the
  state's update run (measured: conditional_assign's hoisted global load on llvm-cpu, reduced to
  no op, to `cast_f32_to_u8` and to `cast_f32_to_u32`, each cast kept because it made the sum
  positive, was three rows of campaign 20261201);
- otherwise (a mismatch not localized) the reduced chain's ops.
"""

import hashlib
import re
from typing import Any, Mapping, Optional, Sequence

from pyiree_tf_support.reporting.verdicts import Status

# A dispatch's symbol: <function>_dispatch_<n>_<kinds>_<shape>_<dtypes>, e.g.
# f0_dispatch_0_elementwise_3x4_f32xi32 (IREE names it after its root ops).
_DISPATCH = re.compile(r"^.*?_dispatch_\d+_?")
_SHAPE = re.compile(r"^(\d+|D|\?)(x(\d+|D|\?))*$")
_NAMED = re.compile(r"'([\w.]+)'")  # the op a compile error names, e.g. 'arith.fptoui'
_DTYPES = re.compile(r"^((i|ui|si|f|bf|c)\d+x?)+$")
_FUNCTION = re.compile(r"\bf\d+\b")  # a generated function's name: f0, f1, ...
# The localizer's verdict when no dispatch diverged but the result did (localizing's Kind.OUTSIDE,
# spelled here: fuzzing/ and localizing/ are one layer; a test keeps the two equal).
OUTSIDE = "outside any dispatch"


def dispatch_kinds(key: str) -> str:
  """The op kinds and dtypes of a localized dispatch's key (`entry::symbol`), shapes and
  numbers dropped and each dtype named once: `elementwise_f32xi32`."""
  symbol = key.split("::")[-1]
  symbol = _DISPATCH.sub("", symbol)
  words = [w for w in symbol.split("_") if w and not _SHAPE.match(w)]
  words = [w for w in words if not w.isdigit() or _DTYPES.match(w)]
  # Each dtype once: `f32xi8xi8` (an i8 operand and an i8 result) and `f32xi8` are one bug of
  # i8 tensors (measured: lavapipe's lost i8 bytes, behind a cast and behind a cast and add).
  words = ["x".join(dict.fromkeys(w.split("x"))) if _DTYPES.match(w) else w for w in words]
  return "_".join(words) or "dispatch"


def localized_kinds(verdict: Mapping[str, Any], state: str = "") -> str:
  """What a mismatch's signature keeps of the localizer's `verdict` (its report's dict) for a
  function of state kind `state` ("" for none): a blamed dispatch's kinds, `outside_dispatches`
  (with the state kind) when no dispatch diverged but the result did, else "" (the ops then)."""
  if verdict.get("verdict") == "dispatch" and verdict.get("dispatch"):
    return dispatch_kinds(verdict["dispatch"]["key"])
  if verdict.get("verdict") == OUTSIDE:
    return "outside_dispatches" + (f"_state_{state}" if state else "")
  return ""


def signature(status: Status, key: str, backend: str, ops: Sequence[str],
              dispatch: Optional[str] = None) -> str:
  """The signature of a reduced hit of `status` with the failure's `key` (`reducing.failures`)
  on `backend` (`dispatch`: its localized dispatch's kinds, if any)."""
  if status is Status.RUNTIME_ERROR:
    key = _FUNCTION.sub("f", key)
  parts = [backend, status.name, key]
  shown = list(ops)
  if status is Status.RUNTIME_ERROR:  # the runtime's message names it: no ops in it.
    shown = []
  elif dispatch and status is Status.MISMATCH:
    parts.append("dispatch:" + dispatch)
    shown = [dispatch]
  elif status is Status.COMPILE_ERROR:  # the pass and the error name it: no ops in it.
    named = _NAMED.search(key)
    shown = [named.group(1)] if named else []
  else:
    parts.append(",".join(ops))
  slug = re.sub(r"[^0-9a-zA-Z]+", "_", f"{backend}_{status.name}_{'_'.join(shown)}")
  return f"{slug[:60].strip('_')}_{hashlib.sha256(repr(parts).encode()).hexdigest()[:8]}"
