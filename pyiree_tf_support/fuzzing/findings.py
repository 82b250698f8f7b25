"""A campaign's state and findings (DIR/findings.json, DIR/findings.md), and their merge.

A campaign may be one shard of a larger one (`shard` "I/N": the modules whose index is I modulo
N, generated from the same seed as the whole campaign would, so shards never overlap and
together are the campaign a single process would run). `merge` adds shards up: counts summed,
one row per signature with the hits of every shard, the first hit the earliest module, each
finding's test file copied next to the merged table. Why by signature: a hundred hits of one
bug in eight shards are still one row.

A shard's dir is read as data, never followed: its findings.json passes the schema check
(`state_schema`) before anything is used, each finding's test file is read from the shard's own
findings/<signature>/ (wherever the row says the shard once wrote it: a shard moved or unzipped
elsewhere merges whole, and a row naming /etc/shadow copies nothing), without following a link,
and written below the merge's own dir only. Each module is counted once: a shard named twice, a
copy of one, shards whose modules overlap, a merge's own dir as a shard, or a merge as a shard
are refused in one line, as is a --out holding a campaign of its own (merging would overwrite
its state).
"""

import dataclasses
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from pyiree_tf_support.core import safe_files
from pyiree_tf_support.fuzzing import state_schema

FORMAT = state_schema.FORMAT


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
    return state_schema.parse_shard(self.shard, "shard")

  def modules_run(self) -> Set[int]:
    """The campaign-wide indices of the modules this campaign (or shard) has finished."""
    return {self.module_index(position) for position in range(self.modules)}

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
    """DIR's state, every field checked (`state_schema`): FuzzError naming the file and the
    field that is missing or wrong. The file is read without following a link below DIR."""
    path = os.path.join(directory, "findings.json")
    try:
      data = json.loads(safe_files.read_bytes(path, root=directory))
    except (OSError, ValueError) as e:
      cause = e.strerror if isinstance(e, OSError) and e.strerror else e
      raise FuzzError(f"{what}: {path} cannot be read ({cause}); name a campaign's directory "
                      "(one --out was given).") from None
    try:
      state_schema.check(data)
    except state_schema.SchemaError as e:
      raise FuzzError(f"{what}: {path}: {e}; a campaign's state is written by the fuzzer "
                      "(start a new --out rather than edit it).") from None
    campaign = cls(directory, data["seed"], tuple(data["ops"]), tuple(data["targets"]),
                   data["modules"], data["functions"], data["hits"], data["precision"],
                   float(data["seconds"]), shard=data.get("shard", ""),
                   generation=data.get("generation", {}), aliases=data.get("aliases", {}),
                   merged_from=tuple(data.get("merged_from", ())),
                   unfinished=data.get("unfinished", {}))
    known = {field.name for field in dataclasses.fields(Finding)}
    for entry in data["findings"]:
      entry = {name: value for name, value in entry.items() if name in known}
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


def _same_dir(first: str, second: str) -> bool:
  try:
    return os.path.samefile(first, second)
  except OSError:
    return False


def _each_module_once(directory: str, shards: Sequence[Campaign]) -> None:
  """FuzzError unless every module of the merge comes from one shard alone: a merged table
  counting one module's hits twice would tell a user a bug is twice as frequent as it is."""
  for position, shard in enumerate(shards):
    if shard.merged_from:
      raise FuzzError(f"merge: {shard.directory} is a merge of {len(shard.merged_from)} shards, "
                      "not a shard: name the shards it was made of (each module counts once).")
    if _same_dir(shard.directory, directory):
      raise FuzzError(f"merge: {shard.directory} is --out itself; merge it into another --out "
                      "(its own state would be overwritten).")
    for other in shards[:position]:
      if _same_dir(other.directory, shard.directory):
        raise FuzzError(f"merge: {shard.directory} is named twice; name each shard once.")
      if other.shard_of() == shard.shard_of():
        index, count = shard.shard_of()
        raise FuzzError(f"merge: {other.directory} and {shard.directory} are both shard "
                        f"{index}/{count} of seed {shard.seed} (a copy, or one shard run "
                        "twice): their modules would count twice; name each shard once.")
      common = other.modules_run() & shard.modules_run()
      if common:
        raise FuzzError(f"merge: {other.directory} (shard {other.shard or '0/1'}) and "
                        f"{shard.directory} (shard {shard.shard or '0/1'}) both ran module "
                        f"{min(common)} of seed {shard.seed}; only disjoint shards merge "
                        "(--shard=I/N of one N).")


def _not_a_campaign(directory: str) -> None:
  """FuzzError when `directory` holds a campaign of its own: a merge there would replace its
  state by the shards' (a merge's own earlier result may be merged again)."""
  if existing(directory) and not Campaign.load(directory, "merge --out").merged_from:
    raise FuzzError(f"merge: --out {directory} holds a campaign of its own, not a merge; "
                    "merging there would overwrite its state: name another --out.")


def _test_source(shard: Campaign, finding: Finding) -> Tuple[str, bytes]:
  """The path below findings/ of `finding`'s test file and its bytes, read from the shard's own
  findings/<signature>/ without following a link (whatever dir the row names)."""
  relative = os.path.join(finding.signature, os.path.basename(finding.test_file))
  source = os.path.join(shard.directory, "findings", relative)
  try:
    return relative, safe_files.read_bytes(source, root=shard.directory)
  except OSError as e:
    cause = e.strerror if e.strerror and not isinstance(e, safe_files.ArtifactsDirError) else e
    raise FuzzError(f"merge: {shard.directory}: the test file of finding {finding.signature} "
                    f"cannot be read as {source} ({cause}); a shard merges with its findings/ "
                    "dir (move or unzip the shard's whole dir).") from None


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
  """The campaign made of the shards in `shard_dirs`, saved in `directory`: every shard is
  checked and every test file read before anything is written."""
  shards: List[Campaign] = [Campaign.load(d, "merge") for d in shard_dirs]
  if not shards:
    raise FuzzError("merge names the shard directories to merge, e.g. merge --out=DIR A B.")
  for other in shards[1:]:
    _same_campaign(shards[0], other)
  _each_module_once(directory, shards)
  _not_a_campaign(directory)
  sources = [(finding, _test_source(shard, finding))
             for shard in shards for finding in shard.findings.values()]
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
  kept: Dict[str, Tuple[int, str, bytes]] = {}  # the test file of each row's first hit
  for finding, (relative, source) in sources:
    target = os.path.join(directory, "findings", relative)
    merge_findings(merged.findings, dataclasses.replace(finding, test_file=target))
    if finding.signature not in kept or finding.first_module < kept[finding.signature][0]:
      kept[finding.signature] = (finding.first_module, target, source)
  for _, target, source in kept.values():
    safe_files.write_bytes(target, source)  # the merge's own modes, as any file it writes.
  merged.save()
  return merged


def shard_dirs(directory: str, jobs: int) -> List[str]:
  return [os.path.join(directory, "jobs", str(i)) for i in range(jobs)]


def existing(directory: str) -> Optional[str]:
  path = os.path.join(directory, "findings.json")
  return path if os.path.exists(path) else None
