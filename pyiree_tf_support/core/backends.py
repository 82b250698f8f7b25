"""The backend table: the single source of truth for every backend name the library accepts.

Everything else that names backends reads this table: the flags, Bazel (through
`build_tools/bazel/backends.bzl`, generated from it by `python -m
pyiree_tf_support.tools.generate_backends_bzl`), the coverage tool and the benchmark. Adding a
backend is one row here plus its list of known e2e failures in `e2e/BUILD.bazel` (see
docs/backends.md, "Adding a backend").
"""

import collections
import dataclasses
from typing import Dict, List, Optional, Sequence, Tuple

TF_DRIVER = "tf"
# TensorFlow Lite: each exported method converted by TFLiteConverter and run by its interpreter.
TFLITE_DRIVER = "tflite"
# The drivers that are no IREE runtime driver: what runs them needs TensorFlow.
TENSORFLOW_DRIVERS = (TF_DRIVER, TFLITE_DRIVER)


@dataclasses.dataclass(frozen=True)
class BackendSpec:
  """One row of the backend table."""
  name: str
  description: str
  driver: str  # "tf" for TensorFlow itself, otherwise an IREE runtime driver.
  compiler_targets: Tuple[str, ...] = ()
  compiler_flags: Tuple[str, ...] = ()
  aliases: Tuple[str, ...] = ()
  # Run the module in a process that never imports TensorFlow (lavapipe and TF cannot share one).
  isolated: bool = False
  # Values of the Bazel `driver=` tag of its e2e tests; empty: the name without "iree_".
  # (The 2020 values come first so 2020 `--test_tag_filters` keep working.)
  driver_tags: Tuple[str, ...] = ()
  # Slow enough (a software GPU on a shared CPU) that its Bazel tests default to timeout "long".
  slow: bool = False
  # A target of runs without --target_backends and of every Bazel suite. False (tflite): only
  # when named, and in Bazel only the e2e suite's variant (`OPT_IN_BACKENDS` of backends.bzl).
  default_target: bool = True

  @property
  def is_iree(self) -> bool:
    return self.driver not in TENSORFLOW_DRIVERS

  @property
  def is_tflite(self) -> bool:
    return self.driver == TFLITE_DRIVER

  @property
  def e2e_name(self) -> str:
    """The 2020 name where there is one (iree_vmla), else the table name: what Bazel's e2e tests
    and a run without --target_backends call the backend, so both share artifact names."""
    return self.aliases[0] if self.aliases else self.name

  @property
  def bazel_driver_tags(self) -> Tuple[str, ...]:
    return self.driver_tags or (self.name[len("iree_"):] if self.name.startswith("iree_")
                                else self.name,)


# IREE demotes f64 to f32 by default; TF computes in f64, so the CPU targets keep it.
# (vulkan-spirv cannot convert f64 memrefs, so it keeps the default and fails f64 modules.)
KEEP_F64 = "--iree-input-demote-f64-to-f32=false"

BACKENDS: Tuple[BackendSpec, ...] = (
    BackendSpec(
        name="tf",
        description="the tf.Module executed by TensorFlow",
        driver=TF_DRIVER),
    BackendSpec(
        name="iree_vmvx",
        description="IREE target vmvx on the local-task driver",
        driver="local-task",
        compiler_targets=("vmvx",),
        compiler_flags=(KEEP_F64,),
        aliases=("iree_vmla",),
        driver_tags=("vmla", "vmvx")),
    BackendSpec(
        name="iree_llvmcpu",
        description="IREE target llvm-cpu on the local-task driver",
        driver="local-task",
        compiler_targets=("llvm-cpu",),
        compiler_flags=(KEEP_F64, "--iree-llvmcpu-target-cpu=host"),
        aliases=("iree_llvmjit",),
        driver_tags=("llvm", "llvm-cpu")),
    BackendSpec(
        name="iree_vulkan",
        description="IREE target vulkan-spirv on the vulkan driver",
        driver="vulkan",
        compiler_targets=("vulkan-spirv",),
        isolated=True,
        slow=True),
    BackendSpec(
        name="tflite",
        description="each exported method converted to TensorFlow Lite and run by its "
                    "interpreter (2020's TfLiteCompiledModule)",
        driver=TFLITE_DRIVER,
        default_target=False),
)

_BY_NAME = {spec.name: spec for spec in BACKENDS}
_BY_NAME.update({alias: spec for spec in BACKENDS for alias in spec.aliases})


def valid_names() -> Tuple[str, ...]:
  """Every accepted backend name, canonical names first, then the seed's aliases."""
  return tuple(spec.name for spec in BACKENDS) + tuple(
      alias for spec in BACKENDS for alias in spec.aliases)


def unknown_backend_message(name: str) -> str:
  return (f"Unknown backend '{name}'; valid backends are: "
          f"{', '.join(valid_names())}.")


def lookup(name: str) -> BackendSpec:
  """Returns the table row for a backend name or alias; KeyError names it and the valid names."""
  spec = _BY_NAME.get(name)
  if spec is None:
    raise KeyError(unknown_backend_message(name))
  return spec


def find(name: str) -> Optional[BackendSpec]:
  return _BY_NAME.get(name)


def find_by_artifact_name(name: str) -> Optional[BackendSpec]:
  """The row behind a backend name or an artifact name (`iree_vmla_1`, `tf_ref`), else None."""
  spec = find(name)
  if spec is None and name.endswith("_ref"):
    spec = find(name[:-len("_ref")])
  stem, _, index = name.rpartition("_")
  if spec is None and index.isdigit():
    spec = find(stem)
  return spec


def indexed_names(names: Sequence[str]) -> List[str]:
  """Artifact names: repeated backends get an index (`tf,x,tf` -> `tf_0,x,tf_1`)."""
  counts = collections.Counter(names)
  seen: Dict[str, int] = collections.defaultdict(int)
  result = []
  for name in names:
    if counts[name] > 1:
      result.append(f"{name}_{seen[name]}")
      seen[name] += 1
    else:
      result.append(name)
  return result
