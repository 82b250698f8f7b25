"""A campaign dir read back as data (`--resume`, `fuzz merge`), without TensorFlow: a
findings.json is checked field by field (one line naming the file and the field), a name from it
never leaves the dir it is joined to, a test file is copied only from the shard's own
findings/<signature>/ (a moved shard merges whole), every module is counted once, and one
process at a time holds a campaign dir."""

import json
import os
import shutil
import tempfile
from typing import Dict

from absl.testing import absltest

from pyiree_tf_support.core import safe_files
from pyiree_tf_support.fuzzing import campaign_lock
from pyiree_tf_support.fuzzing import findings
from pyiree_tf_support.fuzzing import shards
from pyiree_tf_support.fuzzing.findings import FuzzError


def _shard(directory: str, shard: str = "0/2", modules: int = 2, signature: str = "sig_a",
           first: int = 0) -> findings.Campaign:
  """A shard as the fuzzer leaves it: its state, and one finding's test file in its own dir."""
  test_file = os.path.join(directory, "findings", signature, f"{signature}_test.py")
  campaign = findings.Campaign(directory, 5, ("add",), ("iree_vmvx",), modules=modules,
                               functions=8 * modules, hits=2, seconds=60.0, shard=shard)
  campaign.findings[signature] = findings.Finding(
      signature, "MISMATCH", "iree_vmvx", "values", ("add",), 2, first, 5, test_file, True, ())
  os.makedirs(os.path.dirname(test_file))
  with open(test_file, "w") as f:
    f.write(f"# {directory}\n")
  campaign.save()
  return campaign


def _edit(directory: str, change) -> None:
  """Rewrites DIR/findings.json as a hand edit would: `change` gets the parsed dict."""
  path = os.path.join(directory, "findings.json")
  with open(path) as f:
    data = json.load(f)
  change(data)
  with open(path, "w") as f:
    json.dump(data, f)


def _tree(directory: str) -> Dict[str, bytes]:
  """Every file below `directory` (relative path -> contents)."""
  found = {}
  for folder, _, names in os.walk(directory):
    for name in names:
      with open(os.path.join(folder, name), "rb") as f:
        found[os.path.relpath(os.path.join(folder, name), directory)] = f.read()
  return found


class Base(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.root = tempfile.mkdtemp()
    self.addCleanup(shutil.rmtree, self.root, True)
    self.out = safe_files.open_root(os.path.join(self.root, "merged"), "The campaign dir")

  def assert_refused(self, expected: str, *shard_dirs: str) -> str:
    """`merge` of `shard_dirs` is one line naming `expected`, and --out is left as it was."""
    before = _tree(self.out)
    with self.assertRaises(FuzzError) as raised:
      findings.merge(self.out, list(shard_dirs))
    message = str(raised.exception)
    self.assertNotIn("\n", message)
    self.assertIn(expected, message)
    self.assertEqual(_tree(self.out), before, "merge wrote into --out before refusing")
    return message


class NamesTest(Base):

  def test_a_signature_holding_dot_dot_is_refused_and_nothing_is_written_outside(self):
    shard = os.path.join(self.root, "shard")
    _shard(shard, signature="sig_a")
    victim = os.path.join(self.root, "victim")
    os.makedirs(victim)
    with open(os.path.join(victim, "bashrc"), "w") as f:
      f.write("mine\n")
    # A row whose signature climbs out of --out/findings/ to ROOT/victim.
    _edit(shard, lambda d: d["findings"][0].update(signature="../../victim",
                                                   test_file="x/bashrc"))
    message = self.assert_refused("findings[0].signature", shard)
    self.assertIn(os.path.join(shard, "findings.json"), message)
    self.assertEqual(_tree(victim), {"bashrc": b"mine\n"})

  def test_every_name_becoming_a_path_component_is_checked(self):
    for bad in ("../x", "a/b", "..", "", "x\0y", "a" * 201, "a..b", ".hidden"):
      for field, change in (
          ("findings[0].signature", lambda d, b=bad: d["findings"][0].update(signature=b)),
          ("findings[0].test_file's file name",  # its last component: the one merge reads
           lambda d, b=bad: d["findings"][0].update(test_file="/x/" + b)),
          ("aliases['k']", lambda d, b=bad: d.update(aliases={"k": b}))):
        if "/" in bad and "test_file" in field:
          continue
        with self.subTest(bad=bad, field=field):
          directory = os.path.join(tempfile.mkdtemp(dir=self.root), "c")
          _shard(directory)
          _edit(directory, change)
          for what in ("--resume", "merge"):
            with self.assertRaisesRegex(FuzzError, f"^{what}: .*findings.json: "):
              findings.Campaign.load(directory, what)
          with self.assertRaises(FuzzError) as raised:
            findings.Campaign.load(directory)
          self.assertIn(field, str(raised.exception))

  def test_signatures_the_fuzzer_writes_are_plain_names(self):
    from pyiree_tf_support.fuzzing import signatures
    from pyiree_tf_support.reporting.verdicts import Status
    name = signatures.signature(Status.COMPILE_ERROR, "error: 'a.b' op x" * 20, "iree_vmvx",
                                ("add",) * 30)
    directory = os.path.join(self.root, "c")
    _shard(directory, signature=name)
    self.assertIn(name, findings.Campaign.load(directory).findings)


class TestFilesTest(Base):

  def test_a_test_file_outside_the_shard_is_never_copied(self):
    secret = os.path.join(self.root, "shadow")
    with open(secret, "w") as f:
      f.write("root:secret\n")
    os.chmod(secret, 0o600)
    shard = os.path.join(self.root, "shard")
    _shard(shard)
    _edit(shard, lambda d: d["findings"][0].update(test_file=secret))
    self.assert_refused("cannot be read as " + os.path.join(shard, "findings", "sig_a", "shadow"),
                        shard)
    self.assertNotIn(b"root:secret\n", _tree(self.out).values())

  def test_a_link_in_the_shard_to_a_file_outside_is_not_followed(self):
    secret = os.path.join(self.root, "shadow")
    with open(secret, "w") as f:
      f.write("root:secret\n")
    shard = os.path.join(self.root, "shard")
    campaign = _shard(shard)
    test_file = campaign.findings["sig_a"].test_file
    os.remove(test_file)
    os.symlink(secret, test_file)
    self.assert_refused("symlink", shard)
    self.assertNotIn(b"root:secret\n", _tree(self.out).values())

  def test_a_moved_shard_merges_with_its_test_files(self):
    # Bazel's outputs.zip unzipped elsewhere: the rows name where the shard was written.
    written = os.path.join(self.root, "remote", "shard")
    _shard(written)
    moved = os.path.join(self.root, "unzipped")
    os.rename(written, moved)
    merged = findings.merge(self.out, [moved])
    row = merged.findings["sig_a"]
    self.assertEqual(row.test_file, os.path.join(self.out, "findings", "sig_a", "sig_a_test.py"))
    with open(row.test_file) as f:
      self.assertEqual(f.read(), f"# {written}\n")

  def test_a_shard_missing_a_listed_test_file_is_refused(self):
    shard = os.path.join(self.root, "shard")
    shutil.rmtree(os.path.dirname(_shard(shard).findings["sig_a"].test_file))
    self.assert_refused("the test file of finding sig_a cannot be read", shard)


class SchemaTest(Base):

  CHANGES = (
      ("hits is str '3', expected an integer >= 0", lambda d: d.update(hits="3")),
      ("seed is missing", lambda d: d.pop("seed")),
      ("findings[0].hits is str '2'", lambda d: d["findings"][0].update(hits="2")),
      ("findings[0].confirmed is int 1, expected true or false",
       lambda d: d["findings"][0].update(confirmed=1)),
      ("findings[0].ops[0] is int 3", lambda d: d["findings"][0].update(ops=[3])),
      ("findings[0].first_module is missing", lambda d: d["findings"][0].pop("first_module")),
      ("modules is bool True", lambda d: d.update(modules=True)),
      ("seconds is float nan", lambda d: d.update(seconds=float("nan"))),
      ("shard is str '2/2'", lambda d: d.update(shard="2/2")),
      ("findings is dict", lambda d: d.update(findings={})),
      ("generation.functions_per_module is int 0",
       lambda d: d.update(generation={"functions_per_module": 0})),
      ("unfinished.finding_hits['sig_a'] is null",
       lambda d: d.update(unfinished={"hits": 1, "precision": 0,
                                      "finding_hits": {"sig_a": None}})),
      ("unfinished is neither {} nor", lambda d: d.update(unfinished={"hits": 1})),
      ("findings[1].signature 'sig_a' is listed twice",
       lambda d: d["findings"].append(dict(d["findings"][0]))),
      ("format is str 'x'", lambda d: d.update(format="x")),
  )

  def test_a_hand_edited_state_is_one_line_naming_the_file_and_the_field(self):
    for expected, change in self.CHANGES:
      with self.subTest(expected=expected):
        directory = os.path.join(tempfile.mkdtemp(dir=self.root), "c")
        _shard(directory)
        _edit(directory, change)
        for what in ("--resume", "merge"):
          with self.assertRaises(FuzzError) as raised:
            findings.Campaign.load(directory, what)
          message = str(raised.exception)
          self.assertTrue(message.startswith(
              f"{what}: {os.path.join(directory, 'findings.json')}: "), message)
          self.assertIn(expected, message)
          self.assertNotIn("\n", message)

  def test_a_truncated_state_is_one_line(self):
    directory = os.path.join(self.root, "c")
    _shard(directory)
    path = os.path.join(directory, "findings.json")
    with open(path) as f:
      text = f.read()
    with open(path, "w") as f:
      f.write(text[:len(text) // 2])
    with self.assertRaisesRegex(FuzzError, "^--resume: .*findings.json cannot be read"):
      findings.Campaign.load(directory)
    with open(path, "w") as f:
      f.write("[]")
    with self.assertRaisesRegex(FuzzError, "findings.json: the file holds list \\[\\], expected "
                                "an object"):
      findings.Campaign.load(directory)

  def test_a_saved_campaign_loads_back_whole(self):
    directory = os.path.join(self.root, "c")
    campaign = _shard(directory, shard="1/3")
    campaign.unfinished = campaign.counts()
    campaign.aliases = {"by_ops": "sig_a"}
    campaign.generation = {"shapes": "3x4", "special_values": 0.05, "stateful": 0.2,
                           "states": ["assign"], "functions_per_module": 2,
                           "dynamic_sizes": [0, 2]}
    campaign.save()
    self.assertEqual(findings.Campaign.load(directory), campaign)


class EachModuleOnceTest(Base):

  def test_disjoint_shards_add_up(self):
    first, second = (os.path.join(self.root, name) for name in ("a", "b"))
    _shard(first, "0/2", first=2)
    _shard(second, "1/2", first=1)
    merged = findings.merge(self.out, [first, second])
    self.assertEqual((merged.modules, merged.hits, merged.findings["sig_a"].hits), (4, 4, 4))
    self.assertEqual(merged.findings["sig_a"].first_module, 1)
    with open(merged.findings["sig_a"].test_file) as f:
      self.assertEqual(f.read(), f"# {second}\n")  # the first hit's test file

  def test_a_shard_named_twice_copied_or_overlapping_is_refused(self):
    first = os.path.join(self.root, "a")
    _shard(first, "0/2")
    copy = os.path.join(self.root, "copy")
    shutil.copytree(first, copy)
    quarter = os.path.join(self.root, "quarter")
    _shard(quarter, "0/4", modules=1)  # module 0, which shard 0/2 ran too
    whole = os.path.join(self.root, "whole")
    _shard(whole, "", modules=1)
    self.assert_refused(f"{first} is named twice", first, first)
    self.assert_refused("are both shard 0/2 of seed 5", first, copy)
    self.assert_refused("both ran module 0 of seed 5", first, quarter)
    self.assert_refused("both ran module 0 of seed 5", quarter, whole)

  def test_a_merge_into_a_shard_or_of_a_merge_or_over_a_campaign_is_refused(self):
    first, second = (os.path.join(self.root, name) for name in ("a", "b"))
    _shard(first, "0/2")
    _shard(second, "1/2")
    before = _tree(first)
    with self.assertRaisesRegex(FuzzError, f"merge: {first} is --out itself"):
      findings.merge(first, [first, second])
    self.assertEqual(_tree(first), before)
    findings.merge(self.out, [first, second])
    other = safe_files.open_root(os.path.join(self.root, "other"), "The campaign dir")
    with self.assertRaisesRegex(FuzzError, "is a merge of 2 shards, not a shard"):
      findings.merge(other, [self.out, second])
    # A merge's own result merges again; a campaign of its own is not overwritten.
    self.assertEqual(findings.merge(self.out, [first, second]).modules, 4)
    with self.assertRaisesRegex(FuzzError, "holds a campaign of its own, not a merge"):
      findings.merge(second, [first])
    self.assertEqual(_tree(first), before)


class ResumeTest(absltest.TestCase):

  def test_a_campaign_resumes_only_with_the_jobs_it_ran_with(self):
    root = tempfile.mkdtemp()
    one = findings.Campaign(os.path.join(root, "one"), 1, ("add",), ("iree_vmvx",))
    with self.assertRaisesRegex(FuzzError, "ran with one job \\(no --jobs\\); resume it "
                                "without --jobs"):
      shards.check_resumable(one, 2)
    shards.check_resumable(one, 1)
    jobs = findings.Campaign(one.directory, 1, ("add",), ("iree_vmvx",),
                             merged_from=tuple(findings.shard_dirs("/moved/dir", 3)))
    with self.assertRaisesRegex(FuzzError, "ran with --jobs=3; resume it with --jobs=3"):
      shards.check_resumable(jobs, 1)
    shards.check_resumable(jobs, 3)
    merged = findings.Campaign(one.directory, 1, ("add",), ("iree_vmvx",),
                               merged_from=("/a", "/b"))
    with self.assertRaisesRegex(FuzzError, "is a merge of 2 shards, not a campaign"):
      shards.check_resumable(merged, 2)


class LockTest(absltest.TestCase):

  def test_a_second_holder_is_refused_naming_the_first_s_pid(self):
    directory = safe_files.open_root(tempfile.mkdtemp(), "The campaign dir")
    with campaign_lock.held(directory, "--out"):
      with self.assertRaises(FuzzError) as raised:
        with campaign_lock.held(directory, "merge --out"):
          pass
      message = str(raised.exception)
      self.assertTrue(message.startswith(f"merge --out: {directory} is in use"), message)
      self.assertIn(f"pid {os.getpid()}", message)
    with campaign_lock.held(directory, "--out"):  # released at the end of its block
      pass

  def test_a_link_at_the_lock_is_replaced_not_followed(self):
    directory = safe_files.open_root(tempfile.mkdtemp(), "The campaign dir")
    target = os.path.join(tempfile.mkdtemp(), "elsewhere")
    with open(target, "w") as f:
      f.write("kept\n")
    os.symlink(target, os.path.join(directory, campaign_lock.LOCK_NAME))
    with campaign_lock.held(directory, "--out"):
      pass
    with open(target) as f:
      self.assertEqual(f.read(), "kept\n")


if __name__ == "__main__":
  absltest.main()
