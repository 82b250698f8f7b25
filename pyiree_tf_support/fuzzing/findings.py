"""A campaign's state and findings (DIR/findings.json, DIR/findings.md), and their merge.

A campaign may be one shard of a larger one (`shard` "I/N": the modules whose index is I modulo
N, generated from the same seed as the whole campaign would, so shards never overlap and
together are the campaign a single process would run). `merge` adds shards up: counts summed,
one row per signature with the hits of every shard, the first hit the earliest module, each
finding's test file copied next to the merged table. Why by signature: a hundred hits of one
bug in eight shards are still one row.
"""

import dataclasses
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from pyiree_tf_support.core import safe_files

FORMAT = "pyiree_tf_support.fuzz/2"
READABLE = ("pyiree_tf_support.fuzz/1", FORMAT)


class FuzzError(ValueError):
  """Bad input to the fuzzer: the message says what and what is valid."""


@dataclasses.dataclass(frozen=True)
class Finding:
  """One signature: the first hit's reduced test and how many hits it has."""
  signature: str
  status: str
  backend: str
  key: str
  ops: Tuple[str, ...]
  hits: int
  first_module: int
  seed: int
  test_file: str
  confirmed: bool
  agrees: Tuple[str, ...]  # the other targets that matched TensorFlow on the first hit
  dispatch: str = ""  # the localized dispatch's op kinds and dtypes (a mismatch, when found)
  variants: Tuple[str, ...] = ()  # other reduced op chains with this signature


@dataclasses.dataclass
class Campaign:
  """A campaign's state, kept in DIR/findings.json after every module."""
  directory: str
  seed: int
  ops: Tuple[str, ...]
  targets: Tuple[str, ...]
  modules: int = 0
  functions: int = 0
  hits: int = 0
  precision: int = 0  # mismatches set aside by the float policy (`fuzzing.judging`)
  seconds: float = 0.0
  findings: Dict[str, Finding] = dataclasses.field(default_factory=dict)
  shard: str = ""  # "I/N", or "" for a whole campaign
  generation: Dict[str, Any] = dataclasses.field(default_factory=dict)  # shapes, specials...
  aliases: Dict[str, str] = dataclasses.field(default_factory=dict)  # ops signature -> row's
  merged_from: Tuple[str, ...] = ()
  # The counts at the start of the module under way (`counts`), {} between modules: saved when
  # it is interrupted, so that `--resume` runs that module again from them and no hit of it is
  # counted twice (the findings it confirmed stay).
  unfinished: Dict[str, Any] = dataclasses.field(default_factory=dict)

  def counts(self) -> Dict[str, Any]:
    """The hit counts as they are now (the campaign's and each finding's)."""
    return {"hits": self.hits, "precision": self.precision,
            "finding_hits": {name: f.hits for name, f in self.findings.items()}}

  def restart_unfinished(self) -> None:
    """Puts the counts back to the start of the module an interrupt left unfinished: a finding
    that module first found has 0 hits until it is hit again."""
    if not self.unfinished:
      return
    self.hits, self.precision = self.unfinished["hits"], self.unfinished["precision"]
    before = self.unfinished["finding_hits"]
    for name, finding in self.findings.items():
      self.findings[name] = dataclasses.replace(finding, hits=before.get(name, 0))
    self.unfinished = {}

  def shard_of(self) -> Tuple[int, int]:
    if not self.shard:
      return 0, 1
    index, count = self.shard.split("/")
    return int(index), int(count)

  def module_index(self, position: int) -> int:
    """The campaign-wide index of this shard's `position`-th module."""
    index, count = self.shard_of()
    return position * count + index

  def to_json(self) -> Dict[str, Any]:
    return {"format": FORMAT, "seed": self.seed, "ops": list(self.ops),
            "targets": list(self.targets), "modules": self.modules, "functions": self.functions,
            "hits": self.hits, "precision": self.precision,
            "seconds": round(self.seconds, 1), "shard": self.shard,
            "generation": self.generation, "aliases": self.aliases,
            "merged_from": list(self.merged_from), "unfinished": self.unfinished,
            "findings": [dataclasses.asdict(f) for f in self.findings.values()]}

  @classmethod
  def load(cls, directory: str, what: str = "--resume") -> "Campaign":
    path = os.path.join(directory, "findings.json")
    try:
      with open(path) as f:
        data = json.load(f)
    except (OSError, ValueError) as e:
      raise FuzzError(f"{what}: {path} cannot be read ({e}); name a campaign's directory (one "
                      "--out was given).") from None
    if not isinstance(data, dict) or data.get("format") not in READABLE:
      raise FuzzError(f"{what}: {path} is not a campaign of this version ({FORMAT}).")
    campaign = cls(directory, data["seed"], tuple(data["ops"]), tuple(data["targets"]),
                   data["modules"], data["functions"], data["hits"], data["precision"],
                   data["seconds"], shard=data.get("shard", ""),
                   generation=data.get("generation", {}), aliases=data.get("aliases", {}),
                   merged_from=tuple(data.get("merged_from", ())),
                   unfinished=data.get("unfinished", {}))
    for entry in data["findings"]:
      for name in ("ops", "agrees", "variants"):
        entry[name] = tuple(entry.get(name, ()))
      campaign.findings[entry["signature"]] = Finding(**entry)
    return campaign

  def save(self) -> None:
    safe_files.write_text(os.path.join(self.directory, "findings.json"),
                         json.dumps(self.to_json(), indent=1) + "\n")
    safe_files.write_text(os.path.join(self.directory, "findings.md"), self.table())

  def progress(self) -> str:
    rate = self.functions / (self.seconds / 60) if self.seconds else 0.0
    return (f"fuzz: {self.modules} modules, {self.functions} functions, {self.hits} hits, "
            f"{len(self.findings)} findings, {rate:.1f} functions/min")

  def table(self) -> str:
    rate = self.functions / (self.seconds / 60) if self.seconds else 0.0
    title = f"# Fuzzing campaign, seed {self.seed}" + (f", shard {self.shard}" if self.shard
                                                        else "")
    merged = (f" Merged from {len(self.merged_from)} shards." if self.merged_from else "")
    lines = [title, "",
             f"{self.modules} modules, {self.functions} functions compared on "
             f"{', '.join(self.targets)} ({rate:.1f} per minute), {self.hits} hits "
             f"({self.precision} more set aside as float32 precision: the backend as close to "
             "a float64 run as TensorFlow), "
             f"{len(self.findings)} distinct findings "
             f"({sum(f.confirmed for f in self.findings.values())} confirmed in a fresh "
             f"process).{merged}", "",
             "| signature | phase | backend | first error or difference | ops | localized "
             "dispatch | hits | first hit | confirmed | TF agreed by |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for f in sorted(self.findings.values(), key=lambda f: -f.hits):
      key = f.key.replace("|", "\\|")[:120]
      ops = ", ".join(f.ops) or "-"
      if f.variants:
        ops += f" (also: {'; '.join(f.variants)})"
      lines.append(f"| `{f.signature}` | {f.status} | {f.backend} | {key} | {ops} | "
                   f"{f.dispatch or '-'} | {f.hits} | module {f.first_module} (seed "
                   f"{f.seed}) | {'yes' if f.confirmed else 'NO'} | "
                   f"{', '.join(f.agrees) or '-'} |")
    return "\n".join(lines) + "\n"


def _same_campaign(first: Campaign, other: Campaign) -> None:
  for name in ("seed", "ops", "targets"):
    if getattr(first, name) != getattr(other, name):
      raise FuzzError(f"merge: {other.directory} has another {name} ({getattr(other, name)}) "
                      f"than {first.directory} ({getattr(first, name)}); only shards of one "
                      "campaign merge.")


def _copied(finding: Finding, directory: str) -> Finding:
  """`finding` with its test file copied to `directory`/findings/<signature>/ (when readable)."""
  target = os.path.join(directory, "findings", finding.signature,
                        os.path.basename(finding.test_file))
  if os.path.abspath(target) == os.path.abspath(finding.test_file):
    return finding
  try:
    with open(finding.test_file) as f:
      source = f.read()
  except OSError:
    return finding  # the row keeps naming where the shard wrote it.
  safe_files.write_text(target, source)
  return dataclasses.replace(finding, test_file=target)


def merge_findings(findings: Dict[str, Finding], new: Finding) -> None:
  """Adds `new` to `findings` (by signature): hits summed, the earlier first hit kept."""
  old = findings.get(new.signature)
  if old is None:
    findings[new.signature] = new
    return
  first, second = (old, new) if old.first_module <= new.first_module else (new, old)
  variants = tuple(dict.fromkeys(first.variants + second.variants + tuple(
      ",".join(f.ops) for f in (second,) if f.ops != first.ops)))
  findings[new.signature] = dataclasses.replace(
      first, hits=old.hits + new.hits, confirmed=old.confirmed or new.confirmed,
      variants=variants)


def merge(directory: str, shard_dirs: Sequence[str]) -> Campaign:
  """The campaign made of the shards in `shard_dirs`, saved in `directory`."""
  shards: List[Campaign] = [Campaign.load(d, "merge") for d in shard_dirs]
  if not shards:
    raise FuzzError("merge names the shard directories to merge, e.g. merge --out=DIR A B.")
  for other in shards[1:]:
    _same_campaign(shards[0], other)
  first = shards[0]
  merged = Campaign(directory, first.seed, first.ops, first.targets,
                    generation=first.generation,
                    merged_from=tuple(os.path.abspath(s.directory) for s in shards))
  for shard in shards:
    merged.modules += shard.modules
    merged.functions += shard.functions
    merged.hits += shard.hits
    merged.precision += shard.precision
    merged.seconds = max(merged.seconds, shard.seconds)  # shards run side by side.
    merged.aliases.update(shard.aliases)
    for finding in shard.findings.values():
      merge_findings(merged.findings, _copied(finding, directory))
  merged.save()
  return merged


def shard_dirs(directory: str, jobs: int) -> List[str]:
  return [os.path.join(directory, "jobs", str(i)) for i in range(jobs)]


def existing(directory: str) -> Optional[str]:
  path = os.path.join(directory, "findings.json")
  return path if os.path.exists(path) else None
