"""What a compile cache key is made of, so that a cache directory can be shared between machines.

Two things would make a shared key lie or miss needlessly:
- `--iree-llvmcpu-target-cpu=host` (or `-features=host`) means different code on different CPUs.
  The key holds the llvm-cpu executable target the compiler itself resolves `host` to (CPU name,
  features, data layout, triple: the `#hal.executable.target` attribute it attaches), asked of
  iree-compile once per process and set of llvm-cpu flags.
- A flag naming a file (`--iree-hal-substitute-executable-source=EXEC=/tmp/x.mlir`) keeps its
  text when the file is edited: the key holds the digest of every regular file a flag's value
  names (`named_files`); directories (a dump's output) are not content.
- File paths inside debug locations (`loc("/home/a/x.py":3:1)`) differ between checkouts and do
  not change what the module computes; locations are dropped from the keyed text.
"""

import functools
import hashlib
import logging
import os
import platform
import re
from typing import Any, Iterable, Optional, Tuple

from iree.compiler import version as compiler_version
from iree.compiler.tools import binaries

from pyiree_tf_support.compiling import iree_compile

_HOST_FLAGS = ("--iree-llvmcpu-target-cpu=host", "--iree-llvmcpu-target-cpu-features=host")
_LLVMCPU_FLAG = "--iree-llvmcpu-"
_PROBE = """
func.func @probe(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
_LOC = re.compile(r"(?<![\w.$@-])loc\(")  # not `memref.alloc(`.
_TARGET_ATTR = re.compile(r'#hal\.executable\.target<"llvm-cpu".*?\}>', re.S)
# The probe compiles a 4-element add to executable sources (~0.25 s): a minute means it hangs.
_PROBE_TIMEOUT_SECONDS = 60.0


def names_host(targets: Iterable[str], flags: Iterable[str]) -> bool:
  """Whether the output depends on the CPU compiling it (llvm-cpu asked to target `host`)."""
  return "llvm-cpu" in targets and any(flag in _HOST_FLAGS for flag in flags)


def llvmcpu_flags(flags: Iterable[str]) -> Tuple[str, ...]:
  """The flags that decide what `host` resolves to."""
  return tuple(flag for flag in flags if flag.startswith(_LLVMCPU_FLAG))


@functools.lru_cache(maxsize=None)
def resolve_host_target(llvmcpu: Tuple[str, ...]) -> str:
  """The `#hal.executable.target<"llvm-cpu", ...>` iree-compile attaches for these flags here.

  Asks the compiler rather than reading /proc/cpuinfo: the key must equal what the compiler uses
  (LLVM's host CPU name and features), which /proc/cpuinfo's flag names do not spell. ~0.25 s.
  """
  command = [binaries.find_tool("iree-compile"), "-", "--iree-input-type=stablehlo_xla",
             "--iree-hal-target-backends=llvm-cpu", *llvmcpu, "--compile-to=executable-sources"]
  try:
    process = iree_compile.run(command, _PROBE.encode("utf-8"), _PROBE_TIMEOUT_SECONDS)
  except iree_compile.CompileTimeout:
    raise RuntimeError(f"iree-compile did not say within {_PROBE_TIMEOUT_SECONDS:g} s which "
                       "llvm-cpu target it resolves 'host' to; it was killed") from None
  stdout = process.stdout.decode("utf-8", errors="replace")
  match = _TARGET_ATTR.search(stdout)
  if process.returncode != 0 or match is None:
    raise RuntimeError("iree-compile did not report the llvm-cpu target it resolves 'host' to; "
                       "pass --iree-llvmcpu-target-cpu=<cpu> explicitly to use the compile cache. "
                       + process.stderr.decode("utf-8", errors="replace").strip()[-500:])
  logging.debug("llvm-cpu 'host' is %s", match.group(0))
  return match.group(0)


# /proc/cpuinfo fields that say which CPU this is and what it can do (LLVM's host detection reads
# the same from cpuid / the kernel); clock speeds, core numbering and bug lists are left out.
_CPU_FIELDS = re.compile(r"^(vendor_id|cpu family|model|model name|stepping|flags|Features|"
                         r"CPU implementer|CPU architecture|CPU variant|CPU part|CPU revision)"
                         r"\s*:.*$", re.MULTILINE)


def _host_memo_key(llvmcpu: Tuple[str, ...]) -> Optional[str]:
  """The cache key under which `resolve_host_target(llvmcpu)` is remembered for this compiler
  and this CPU (None when /proc/cpuinfo cannot tell the CPU: then it is asked every time)."""
  try:
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
      cpu = sorted(set(match.group(0) for match in _CPU_FIELDS.finditer(f.read())))
  except OSError:
    return None
  if not cpu:
    return None
  digest = hashlib.sha256()
  for part in ("llvm-cpu host target", compiler_version.VERSION,
               repr(sorted(compiler_version.REVISIONS.items())), platform.machine(),
               repr(llvmcpu), *cpu):
    digest.update(part.encode("utf-8") + b"\0")
  return digest.hexdigest()


def host_target(llvmcpu: Tuple[str, ...], cache: Optional[Any] = None) -> str:
  """`resolve_host_target`, remembered in `cache` (a CompileCache) under this compiler and this
  CPU's description, so a warm run asks the compiler nothing (the probe is ~0.25 s)."""
  memo = _host_memo_key(llvmcpu) if cache is not None else None
  if cache is not None and memo is not None:
    stored = cache.get(memo)
    text = stored.decode("utf-8", errors="replace") if stored is not None else ""
    if _TARGET_ATTR.fullmatch(text):
      return text
  resolved = resolve_host_target(llvmcpu)
  if cache is not None and memo is not None:
    cache.put(memo, resolved.encode("utf-8"))
  return resolved


def named_files(flags: Iterable[str]) -> str:
  """Digests of the regular files the flags' values name (the value after `=`, and each part of
  it split at `=` and `,`), one line per file, in flag order; "" when none does."""
  lines = []
  for flag in flags:
    _, has_value, value = flag.partition("=")
    if not has_value:
      continue
    for part in dict.fromkeys([value, *re.split(r"[=,]", value)]):
      if part and os.path.isfile(part):
        digest = hashlib.sha256()
        with open(part, "rb") as f:
          for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
        lines.append(f"{flag} {part} {digest.hexdigest()}")
  return "\n".join(lines)


def without_locations(mlir: str) -> str:
  """`mlir` with every `loc(...)` emptied (`loc(?)`), nested parentheses and strings included."""
  out = []
  i = 0
  while True:
    match = _LOC.search(mlir, i)
    if match is None:
      out.append(mlir[i:])
      return "".join(out)
    out.append(mlir[i:match.start()] + "loc(?)")
    i = _after_closing_paren(mlir, match.end())


def _after_closing_paren(text: str, i: int) -> int:
  """The index after the `)` closing a parenthesis opened just before `i` (strings skipped)."""
  depth = 1
  while i < len(text) and depth:
    char = text[i]
    if char == '"':
      i += 1
      while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    elif char == "(":
      depth += 1
    elif char == ")":
      depth -= 1
    i += 1
  return i
