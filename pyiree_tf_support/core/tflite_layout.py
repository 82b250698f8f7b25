"""What a tflite backend's converted models look like, shared by the converter (importing) and
the interpreters (runtime): `<Module>/tflite/<method>.tflite` (2020's place), one model per
method with inputs `input_0000, ...` and a flat dict result `output_0000, ...`, and
`<Module>/tflite/conversions.json`: {"methods": {method: null, or the converter's first cause},
"iree_input_sha256": the hash of the iree_input.mlir beside it when they were converted, or
null}. Replay reads it to say why a method has no model, and replays the models only when that
hash is the one the reference trace recorded (the models and the trace are of the same module).
"""

import dataclasses
import json
import os
from typing import Dict, Mapping, Optional

SUBDIR = "tflite"
CONVERSIONS = "conversions.json"


def input_name(index: int) -> str:
  return f"input_{index:04d}"


def output_name(index: int) -> str:
  return f"output_{index:04d}"


def tflite_dir(module_dir: str) -> str:
  return os.path.join(module_dir, SUBDIR)


def model_path(module_dir: str, method: str) -> str:
  return os.path.join(tflite_dir(module_dir), f"{method}.tflite")


def conversions_text(errors: Mapping[str, Optional[str]], iree_input_sha256: Optional[str]) -> str:
  return json.dumps({"methods": dict(errors), "iree_input_sha256": iree_input_sha256},
                    indent=1, sort_keys=True) + "\n"


@dataclasses.dataclass(frozen=True)
class Conversions:
  """conversions.json as read back."""
  methods: Dict[str, Optional[str]]
  iree_input_sha256: Optional[str]


def read_conversions(module_dir: str) -> Optional[Conversions]:
  """What the last tflite run of the module dir wrote; None if nothing readable."""
  try:
    with open(os.path.join(tflite_dir(module_dir), CONVERSIONS), encoding="utf-8") as f:
      data = json.load(f)
    return Conversions(dict(data["methods"]), data["iree_input_sha256"])
  except (OSError, ValueError, KeyError, TypeError):
    return None
