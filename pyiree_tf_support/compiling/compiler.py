"""iree-compile invocation: requests keyed by content, reproducers on failure, the compile cache."""

import dataclasses
import hashlib
import logging
import os
import re
import secrets
import shlex
import sys
from typing import Optional, Sequence, Tuple

from iree.compiler import version as iree_compiler_version
from iree.compiler.tools import binaries as iree_binaries
from iree.compiler.tools import core as iree_core
from iree.compiler.tools import debugging as iree_debugging

from pyiree_tf_support.compiling import cache_key
from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import bazel_paths
from pyiree_tf_support.core import exit_status
from pyiree_tf_support.core import faults
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import timeouts

INPUT_TYPE = "stablehlo_xla"


class CompileError(RuntimeError):
  """iree-compile failed; the message names the backend, the exported functions (TF methods)
  holding the failing location, the first error and the reproducer.

  `reason`: the first error alone; `methods`: those exported functions (empty when the error
  has no location inside a function, e.g. a parse error or a crash without diagnostics).
  """

  def __init__(self, message: str, reproducer_path: Optional[str] = None, reason: str = "",
               methods: Tuple[str, ...] = (), rerun_command: str = ""):
    super().__init__(message)
    self.reproducer_path = reproducer_path
    self.reason = reason or message
    self.methods = methods
    self.rerun_command = rerun_command  # the shell command compiling the reproducer again.


class CompileTimeoutError(CompileError):
  """iree-compile ran past its limit (--compile_timeout) and was killed; no reproducer is
  written (nothing says the compiler is wrong) and no method is compiled alone."""


@dataclasses.dataclass(frozen=True)
class CompileRequest:
  """Everything that determines a .vmfb: the input text, the targets and the flags."""
  iree_input: str
  targets: Tuple[str, ...]
  flags: Tuple[str, ...] = ()

  def key(self, host_target: Optional[str] = None) -> str:
    """A digest of what decides the output, the same on any machine that would produce it.

    `host_target`: what `--iree-llvmcpu-target-cpu=host` resolves to (default: ask this
    machine's compiler, see `cache_key`); unused when no flag names `host`.
    """
    host = ""
    if cache_key.names_host(self.targets, self.flags):
      host = host_target or cache_key.resolve_host_target(cache_key.llvmcpu_flags(self.flags))
    digest = hashlib.sha256()
    for part in (iree_compiler_version.VERSION,
                 repr(sorted(iree_compiler_version.REVISIONS.items())),
                 INPUT_TYPE, repr(self.targets), repr(self.flags), host,
                 cache_key.named_files(self.flags),
                 cache_key.without_locations(self.iree_input)):
      digest.update(part.encode("utf-8"))
      digest.update(b"\0")
    return digest.hexdigest()

  def command_line(self, input_path: str, output_path: str) -> str:
    """The iree-compile command that reproduces this compilation by hand: the compiler this
    library ran (its full path) with every flag it passed."""
    args = [_compiler_tool(), input_path, f"--iree-input-type={INPUT_TYPE}"]
    args += [f"--iree-hal-target-backends={target}" for target in self.targets]
    args += list(self.flags) + ["-o", output_path]
    return shlex.join(args)


def _compiler_tool() -> str:
  try:
    return os.path.normpath(iree_binaries.find_tool("iree-compile"))
  except Exception:  # not installed: the name says what to run.
    return "iree-compile"


def rerun_command(request: CompileRequest, reproducer_path: str) -> str:
  """A shell command that compiles the reproducer with the flags of `request` (iree-compile
  reads a pass crash reproducer as its input; `iree-opt --run-reproducer` cannot run IREE's).
  It enters the reproducer's directory first (unzipping Bazel's outputs when needed)."""
  return (f"{bazel_paths.shell_cd(os.path.dirname(reproducer_path) or '.')} && "
          + request.command_line(os.path.basename(reproducer_path), "reproduced.vmfb"))


# iree-compile's note when a pass fails with a crash reproducer requested.
_FAILED_PASS = re.compile(r"Pipeline failed while executing \[`([^`]+)` on '([^']+)'")


def failing_pass(diagnostics: str) -> Optional[str]:
  """The pass iree-compile names as the one that failed ("X on 'op'"), or None."""
  match = _FAILED_PASS.search(diagnostics)
  return None if match is None else f"{match.group(1)} on '{match.group(2)}'"


# What the compiler read from stdin is the module's iree_input.mlir (or, compiling one method,
# that text with the other functions removed: same line numbers), so its locations are
# shown as positions in the file users have.
INPUT_NAME = "iree_input.mlir"


def _first_error(diagnostics: str) -> str:
  for line in diagnostics.splitlines():
    if "error:" in line:
      return line.strip()
  lines = [line.strip() for line in diagnostics.splitlines() if line.strip()]
  return lines[0] if lines else "no diagnostics"


def _first_error_block(diagnostics: str) -> str:
  """The first error with its notes (`called from` chains), up to the next error."""
  lines = diagnostics.splitlines()
  start = next((i for i, line in enumerate(lines) if "error:" in line), None)
  if start is None:
    return ""
  end = next((i for i in range(start + 1, len(lines)) if "error:" in lines[i]), len(lines))
  return "\n".join(lines[start:end])


def _describe_failure(error: Exception, iree_input: str) -> Tuple[str, Tuple[str, ...]]:
  """The first error (locations shown in iree_input.mlir) and the exported functions it is in."""
  text = str(error)
  code = None
  for line in text.splitlines():
    if line.startswith("Error code:"):
      try:
        code = int(line.split(":", 1)[1])
      except ValueError:
        pass
  diagnostics = text.split("Diagnostics:", 1)[-1].split("Invoked with:", 1)[0]
  lines = [line for line, _ in mlir_functions.locations_in(_first_error_block(diagnostics))]
  methods = mlir_functions.exported_functions_at(iree_input, lines)
  reason = _first_error(diagnostics).replace("<stdin>", INPUT_NAME)
  pass_name = failing_pass(diagnostics)
  if pass_name:
    reason += f" [failing pass: {pass_name}]"
  if code is not None and code < 0:
    reason = f"iree-compile crashed with {exit_status.signal_name(-code)}: {reason}"
  return reason, methods


def _in_methods(methods: Sequence[str]) -> str:
  if not methods:
    return ""
  return f" in method{'s' if len(methods) > 1 else ''} {', '.join(methods)}"


def _run_compiler(request: CompileRequest, crash_path: Optional[str],
                  timeout: Optional[float]) -> bytes:
  """iree-compile's output for `request`, run as a child we can time out and kill (see
  iree_compile), with the command line `iree.compiler.compile_str` would use."""
  flags = list(request.flags)
  if iree_compile.single_threaded() and not any(
      f.split("=")[0] == iree_compile.SINGLE_THREADED_FLAG for f in flags):
    flags.append(iree_compile.SINGLE_THREADED_FLAG)  # not in the key: it changes no output.
  with iree_debugging.TempFileSaver.implicit() as saver:
    options = iree_core.CompilerOptions(target_backends=list(request.targets),
                                        input_type=INPUT_TYPE, extra_args=flags,
                                        crash_reproducer_path=crash_path)
    command = iree_core.build_compile_command_line("-", saver, options)
  if iree_binaries.logger.isEnabledFor(logging.INFO):  # the line compile_str logs, as before.
    logging.info("Invoke IREE Tool: %s", shlex.join(command))
  completed = iree_compile.run(command, request.iree_input.encode("utf-8"), timeout)
  if completed.returncode != 0:
    raise iree_binaries.CompilerToolError(completed)
  if completed.stderr:  # warnings of a successful compile, shown as compile_str shows them.
    sys.stderr.write(completed.stderr.decode("utf-8", errors="replace"))
  return completed.stdout


def compile_request(request: CompileRequest, description: str,
                    reproducer_path: Optional[str] = None,
                    cache: Optional[CompileCache] = None, key: Optional[str] = None,
                    timeout: timeouts.Limit = timeouts.DEFAULT.compile) -> bytes:
  """Compiles `request` (or fetches it from `cache`); `description` names it in errors and logs.

  `key`: `request.key()` when the caller has it already (computing it hashes the whole input).
  `timeout`: past it (scaled by the input's size) iree-compile is killed and CompileTimeoutError
  raised. An interrupt kills it too and raises CompileInterrupted (no CompileError: nothing was
  wrong with the input).
  """
  if cache is not None:
    key = key or request.key()
    cached = cache.get(key)
    if cached is not None:
      logging.debug("Compile cache hit for %s (%s).", description, key[:12])
      return cached
    logging.debug("Compile cache miss for %s (%s); compiling.", description, key[:12])
  crash_path = None
  if reproducer_path:
    # iree-compile writes it by name: a fresh name in the (checked) module dir.
    with faults.writing(reproducer_path):
      safe_files.make_dirs(os.path.dirname(reproducer_path) or ".")
    crash_path = os.path.join(os.path.dirname(reproducer_path) or ".",
                              f".tmp-reproducer-{secrets.token_hex(8)}.mlir")
  seconds = timeout.seconds(len(request.iree_input))
  try:
    vmfb = _run_compiler(request, crash_path, seconds)
  except iree_compile.CompileTimeout:
    raise CompileTimeoutError(
        f"Compiling {description} did not finish {timeout.explain(seconds)}; iree-compile was "
        "killed.", reason=f"iree-compile did not finish {timeout.explain(seconds)}") from None
  except Exception as e:  # CompilerToolError, or an OSError starting the tool.
    reason, methods = _describe_failure(e, request.iree_input)
    message = f"Compiling {description} failed{_in_methods(methods)}: {reason}"
    command = ""
    if reproducer_path:
      if crash_path and os.path.exists(crash_path):
        safe_files.rename(crash_path, reproducer_path)
      else:
        safe_files.write_text(reproducer_path, _input_reproducer(request, reproducer_path, str(e)))
      command = rerun_command(request, reproducer_path)
      message += (f" Reproducer: {bazel_paths.display_path(reproducer_path)} "
                  f"(compile it again with: {command})")
    raise CompileError(message, reproducer_path, reason, methods, command) from e
  finally:
    if crash_path and os.path.exists(crash_path):
      os.remove(crash_path)
  if cache is not None:
    cache.put(key or request.key(), vmfb)  # key is set above whenever there is a cache.
  return vmfb


def _input_reproducer(request: CompileRequest, path: str, error: str) -> str:
  """The compiler's input with the command and the error in a leading comment."""
  comment = "\n".join("// " + line for line in [
      "iree-compile failed on this input (no pass crash reproducer was written).",
      "Re-run with:", "  " + request.command_line(path, "/tmp/out.vmfb"), "Error:",
      *error.splitlines()[:40]])
  return comment + "\n" + request.iree_input
