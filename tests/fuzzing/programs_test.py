"""The fuzzer's generated programs without TensorFlow: special values in the inputs and in the
written source, the op table's dtype, rank, size-0 and shape rules, signatures by localized
dispatch and by a runtime error's message, shard bookkeeping and an interrupted module's
counts."""

import ast
import dataclasses
import os
import tempfile

from absl.testing import absltest
import numpy as np

from pyiree_tf_support.fuzzing import findings
from pyiree_tf_support.fuzzing import ops
from pyiree_tf_support.fuzzing import programs
from pyiree_tf_support.fuzzing import shards
from pyiree_tf_support.fuzzing import signatures
from pyiree_tf_support.localizing import events
from pyiree_tf_support.reporting.verdicts import Status


def _read_back(text: str) -> np.ndarray:
  """A `_literal`'s array, evaluated as the generated test file evaluates it."""
  return eval(text, {"np": np})  # our own generated text.


class SpecialValuesTest(absltest.TestCase):

  def test_inputs_hold_every_kind_of_special_value_when_asked(self):
    rng = np.random.default_rng(0)
    program = programs.Program("f", ("add", "cast_f32_to_u8", "add_u8"), (3, 5))
    drawn = [programs.inputs(rng, program, special=0.5) for _ in range(20)]
    floats = np.concatenate([d[0].ravel() for d in drawn])
    self.assertTrue(np.isnan(floats).any())
    self.assertTrue(np.isposinf(floats).any() and np.isneginf(floats).any())
    self.assertTrue((np.signbit(floats) & (floats == 0)).any())  # -0.0
    tiny = np.finfo(np.float32).tiny
    self.assertTrue(((floats != 0) & (np.abs(floats) < tiny)).any())  # subnormals
    self.assertIn(np.finfo(np.float32).max, floats)
    narrow = np.concatenate([d[-1].ravel() for d in drawn])
    self.assertEqual(narrow.dtype, np.uint8)
    self.assertIn(255, narrow)
    self.assertEqual(program.input_names(),
                     ("x", "y", "w_u8"))

  def test_no_special_values_keep_the_earlier_stream(self):
    # The default inputs of a static 3x4 program are what the table's first version drew.
    first = programs.inputs(np.random.default_rng(3))
    again = programs.inputs(np.random.default_rng(3), programs.Program("f", ("add",)))
    self.assertEqual([a.dtype.name for a in first], ["float32", "float32", "int32", "bool"])
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])

  def test_special_values_read_back_exactly_from_the_written_source(self):
    values = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e-45,
                       np.finfo(np.float32).max, np.finfo(np.float32).tiny], np.float32)
    back = _read_back(programs._literal(values))
    np.testing.assert_array_equal(back, values)
    np.testing.assert_array_equal(np.signbit(back), np.signbit(values))
    ints = np.array([np.iinfo(np.int32).min, np.iinfo(np.int32).max], np.int32)
    literal = programs._literal(ints)
    np.testing.assert_array_equal(_read_back(literal), ints)


class OpTableTest(absltest.TestCase):

  def test_every_op_keeps_the_shape_and_says_its_domain(self):
    for op in ops.OPS.values():
      self.assertIn(op.domain, ("ieee", "clipped", "no_nan", "in_range"), op.name)
      self.assertIn(op.takes, ops.OTHER_INPUT, op.name)
      if op.domain == "in_range":
        self.assertIn("is_nan", op.template, op.name)
      if op.domain == "clipped":
        self.assertIn("clip_by_value", op.template, op.name)

  def test_the_table_covers_the_issue_s_families(self):
    names = set(ops.OPS)
    for family in ("matmul", "einsum", "conv2d", "avg_pool", "max_pool", "reshape",
                   "transpose", "slice_pad", "strided_slice", "gather", "concat", "cond",
                   "while_loop", "cast_f32_to_u8", "cast_f32_to_u32", "cast_f32_to_i8",
                   "cast_f32_to_i16", "cast_f32_to_f16", "cast_f32_to_f64", "cast_f32_to_bf16",
                   "cast_f32_to_c64", "cast_c64_to_c128", "scatter_update", "scatter_add"):
      self.assertIn(family, names)

  def test_every_generated_chain_fits_the_dtypes_and_its_source_parses(self):
    rng = np.random.default_rng(0)
    for index in range(300):
      program = programs.generate(rng, "f", programs.op_names(None), shape=(3, 5),
                                  dynamic=index % 2 == 0, state=programs.STATES[index % 3])
      dtype = ops.F32
      for op in program.typed_steps():
        self.assertEqual(op.takes, dtype, (index, program))
        self.assertFalse(program.dynamic and op.static, (index, program))
        dtype = op.gives
      ast.parse(programs.class_source("M", [program]))

  def test_f64_ops_are_left_out_where_a_target_demotes_f64(self):
    self.assertNotIn("cast_f32_to_f64", programs.op_names(None, ["iree_vulkan"]))
    self.assertIn("cast_f32_to_f64", programs.op_names(None, ["iree_llvmcpu", "iree_vmvx"]))
    with self.assertRaisesRegex(ValueError, "runs on iree_llvmcpu, iree_vmvx only, not "
                                            "iree_vulkan"):
      programs.op_names("add_f64", ["iree_vulkan"])

  def test_stateful_programs_keep_a_variable_and_are_called_three_times(self):
    program = programs.Program("f2", ("abs",), state="cond")
    source = programs.class_source("M", [program])
    self.assertIn("self.f2_state = tf.Variable(0.0", source)
    self.assertIn("tf.cond(s > 0.0, lambda: self.f2_state.assign_add(s)", source)
    self.assertEqual(program.calls(), 3)
    dynamic = programs.Program("f", ("add",), (3, 4), dynamic=True)
    self.assertIn("tf.TensorSpec([None, 4], tf.float32)", programs.function_source(dynamic))


class BreadthRulesTest(absltest.TestCase):
  """Ranks 0-4, size-0 dims, bfloat16, complex and the scatters: the rules each is drawn by."""

  def test_shapes_of_every_rank_and_size_0_parse_and_bad_ones_say_what_is_valid(self):
    self.assertEqual(programs.parse_shapes("scalar,5,?x3,2x3x2,?x2x3,2x2x3x2,0x3"),
                     [((), False), ((5,), False), ((3, 3), True), ((2, 3, 2), False),
                      ((3, 2, 3), True), ((2, 2, 3, 2), False), ((0, 3), False)])
    for bad in ("2x2x2x2x2", "3x?", "3x1", ""):
      with self.assertRaisesRegex(findings.FuzzError, "is not scalar or 1 to 4 sizes"):
        programs.parse_shapes(bad)
    self.assertEqual(programs.parse_sizes(["0", "2"]), (0, 2))
    with self.assertRaisesRegex(findings.FuzzError, "--dynamic_sizes=-1 is not"):
      programs.parse_sizes(["-1"])

  def test_every_drawn_op_is_written_for_the_rank_and_sizes_it_gets(self):
    rng = np.random.default_rng(0)
    for shape, dynamic in programs.parse_shapes(programs.DEFAULT_SHAPES):
      for _ in range(60):
        program = programs.generate(rng, "f", programs.op_names(None), shape=shape,
                                    dynamic=dynamic, empty=dynamic)
        for op in program.typed_steps():
          self.assertIn(len(shape), op.ranks, (shape, program))
          self.assertFalse(op.sized and (dynamic or 0 in shape), (shape, program))
        self.assertEqual(programs.function_source(program).count("tf.TensorSpec("
                                                                 f"{[None] * dynamic}"[:-1]),
                         len(program.input_names()), program)

  def test_a_none_dim_draws_size_0_calls(self):
    rng = np.random.default_rng(0)
    program = programs.Program("f", ("add",), (3, 4), dynamic=True)
    rows = {programs.inputs(rng, program, 0.0, (0, 2))[0].shape[0] for _ in range(20)}
    self.assertEqual(rows, {0, 2})
    self.assertIn("np.zeros([0, 4], np.float32)",
                  programs.module_source("M", [program], [("f", (np.zeros([0, 4], np.float32),
                                                                 np.zeros([0, 4], np.float32)))],
                                         1e-4, 1e-4))

  def test_bfloat16_and_complex_stay_inside_and_widen_in_the_float64_twin(self):
    complex_chain = programs.Program("f", ("complex_c64", "multiply_c64"))
    source = programs.function_source(complex_chain)
    self.assertIn("tf.complex(tf.clip_by_value(tf.where(tf.math.is_nan(v)", source)
    self.assertIn("v = tf.math.real(v) + tf.math.imag(v)  # complex64 stays inside", source)
    self.assertEqual(complex_chain.input_names(), ("x", "y"))
    twin = programs.function_source(programs.Program("f", ("cast_f32_to_bf16",
                                                           "cast_bf16_to_f32",
                                                           "cast_f32_to_c64")), "float64")
    for narrow in ("float32", "bfloat16", "complex64"):
      self.assertNotIn(f"tf.{narrow}", twin)
    bf16 = programs.Program("f", ("cast_f32_to_bf16", "add_bf16"))
    self.assertIn("v = tf.cast(v, tf.float32)  # bfloat16 stays inside",
                  programs.function_source(bf16))
    self.assertEqual(bf16.tolerances(1e-4, 1e-4), (programs.BF16_TOLERANCE,) * 2)

  def test_dtypes_a_backend_refuses_wholesale_are_left_out_of_its_table(self):
    self.assertNotIn("add_bf16", programs.op_names(None, ["iree_vmvx"]))
    self.assertIn("add_bf16", programs.op_names(None, ["iree_llvmcpu"]))
    self.assertNotIn("multiply_c128", programs.op_names(None, ["iree_vulkan"]))
    self.assertNotIn("multiply_c64", programs.op_names(None, ["iree_vmvx"]))
    self.assertIn("multiply_c128", programs.op_names(None, ["iree_llvmcpu"]))

  def test_float16_is_left_out_of_vmvx_s_table(self):
    # Campaign seed 20261201: vmvx failed every f16 op (truncf, extf, vm.add.f32 on i32), 12 hits.
    f16_ops = [name for name, op in ops.OPS.items() if ops.F16 in (op.takes, op.gives)]
    self.assertEqual(len(f16_ops), 6)
    for name in f16_ops:
      self.assertNotIn(name, programs.op_names(None, ["iree_vmvx"]))
      self.assertIn(name, programs.op_names(None, ["iree_llvmcpu"]))
      self.assertIn(name, programs.op_names(None, ["iree_vulkan"]))
    with self.assertRaisesRegex(ValueError, "cast_f32_to_f16, which runs on iree_llvmcpu, "
                                            "iree_vulkan only, not iree_vmvx"):
      programs.op_names("cast_f32_to_f16", ["iree_vmvx"])

  def test_scatter_indices_are_in_range_and_updates_unique_by_construction(self):
    update, add = ops.OPS["scatter_update"], ops.OPS["scatter_add"]
    self.assertIn("tf.math.floormod(tf.range(tf.shape({v})[0] // 2)", update.template)
    self.assertIn("tf.math.floormod({n}[:, :1], tf.shape({v})[0])", add.template)
    self.assertEqual((update.ranks, update.sized, add.ranks, add.sized), ((2,), True, (2,), True))


class ReductionInputsTest(absltest.TestCase):

  def test_a_candidate_without_the_add_of_y_is_called_without_y(self):
    original = programs.Program("f1", ("add", "cast_f32_to_u8", "add_u8"))
    candidate = original.with_steps(("cast_f32_to_u8",))
    x, y, u = (np.full((3, 4), v, np.float32) for v in (1, 2, 3))
    self.assertEqual(original.input_names(), ("x", "y", "w_u8"))
    (kept,) = programs.inputs_for(candidate, original, (x, y, u))
    self.assertIs(kept, x)


class SignatureTest(absltest.TestCase):

  def test_a_localized_dispatch_gives_the_signature_whatever_the_chain(self):
    failure = (Status.MISMATCH, "values")
    kinds = signatures.dispatch_kinds(
        "f0_dispatch_0::f0_dispatch_0_elementwise_3x4_f32xi32")
    self.assertEqual(kinds, "elementwise_f32xi32")
    self.assertEqual(signatures.dispatch_kinds("f3_dispatch_2::f3_dispatch_2_generic_Dx4_f32"),
                     "generic_f32")
    self.assertEqual(signatures.dispatch_kinds("f1_dispatch_0::f1_dispatch_0_elementwise_"
                                               "3x5_f32xi8xi8"), "elementwise_f32xi8")
    one = signatures.signature(*failure, "iree_vmvx", ["cast_f32_to_i32"], kinds)
    two = signatures.signature(*failure, "iree_vmvx", ["add", "cast_f32_to_i32"], kinds)
    self.assertEqual(one, two)
    self.assertIn("elementwise_f32xi32", one)
    self.assertNotEqual(signatures.signature(*failure, "iree_vmvx", ["cast_f32_to_i32"]),
                        signatures.signature(*failure, "iree_vmvx", ["add", "cast_f32_to_i32"]))

  def test_a_mismatch_outside_every_dispatch_is_keyed_by_its_state_not_its_chain(self):
    # Campaign seed 20261201: conditional_assign's bug on llvm-cpu made three rows, reduced to
    # no op, to cast_f32_to_u8 and to cast_f32_to_u32 (a cast kept the state's sum positive);
    # the localizer put each outside any dispatch (the global load before the scf.if).
    self.assertEqual(signatures.OUTSIDE, events.Kind.OUTSIDE.value)
    outside = {"verdict": events.Kind.OUTSIDE.value, "suspect": "iree_llvmcpu"}
    kinds = signatures.localized_kinds(outside, "cond")
    failure = (Status.MISMATCH, "values")
    rows = {signatures.signature(*failure, "iree_llvmcpu", chain, kinds)
            for chain in ([], ["cast_f32_to_u8"], ["cast_f32_to_u32"])}
    self.assertLen(rows, 1)
    self.assertIn("outside_dispatches_state_cond", rows.pop())
    self.assertNotEqual(kinds, signatures.localized_kinds(outside, "assign"))
    self.assertEqual(signatures.localized_kinds(outside, ""), "outside_dispatches")
    dispatch = {"verdict": events.Kind.DISPATCH.value,
                "dispatch": {"key": "f0_dispatch_0::f0_dispatch_0_elementwise_3x4_f32xi32"}}
    self.assertEqual(signatures.localized_kinds(dispatch, "cond"), "elementwise_f32xi32")
    for verdict in (events.Kind.DRIFT, events.Kind.TARGET_INDEPENDENT, events.Kind.NONE):
      self.assertEqual(signatures.localized_kinds({"verdict": verdict.value}, "cond"), "")
    self.assertEqual(signatures.localized_kinds({"verdict": "error"}, "cond"), "")


  def test_a_runtime_error_s_signature_is_its_message_whatever_the_function_and_ops(self):
    def key(name):
      return (f"BackendRuntimeError: call N ({name}) raised BackendRuntimeError: call to "
              f"'{name}' failed: Vulkan dispatch binding N resolved to an empty buffer range")
    one = signatures.signature(Status.RUNTIME_ERROR, key("f0"), "iree_vulkan", ["tanh"])
    two = signatures.signature(Status.RUNTIME_ERROR, key("f2"), "iree_vulkan", ["abs"])
    self.assertEqual(one, two)
    other = signatures.signature(Status.RUNTIME_ERROR, key("f0").replace("empty", "full"),
                                 "iree_vulkan", ["tanh"])
    self.assertNotEqual(one, other)


class ShardsTest(absltest.TestCase):

  def test_shards_are_disjoint_and_cover_the_campaign(self):
    seen = []
    for index in range(3):
      campaign = findings.Campaign("d", 1, ("add",), ("iree_vmvx",), shard=f"{index}/3")
      seen += [campaign.module_index(p) for p in range(4)]
    self.assertEqual(sorted(seen), list(range(12)))
    share = shards._share
    self.assertEqual([share(7, i, 3) for i in range(3)], [3, 2, 2])

  def test_bad_shapes_and_shards_say_what_is_valid(self):
    with self.assertRaisesRegex(findings.FuzzError, "--shapes names 3y4"):
      programs.parse_shapes("3x4,3y4")
    with self.assertRaisesRegex(findings.FuzzError, "--shard=3/3 is not I/N"):
      shards.parse_shard("3/3")
    self.assertEqual(programs.parse_shapes("?x4"), [((3, 4), True)])

  def test_an_interrupted_module_s_hits_are_counted_once_on_resume(self):
    directory = os.path.join(tempfile.mkdtemp(), "c")
    campaign = findings.Campaign(directory, 5, ("add",), ("iree_vmvx",), modules=1, hits=3)
    old = findings.Finding("old", "MISMATCH", "iree_vmvx", "values", ("add",), 3, 0, 5, "t",
                           True, ())
    campaign.findings["old"] = old
    campaign.unfinished = campaign.counts()  # module 1 starts, then is interrupted:
    campaign.hits = 5
    campaign.findings["old"] = dataclasses.replace(old, hits=4)
    campaign.findings["new"] = dataclasses.replace(old, signature="new", hits=1, first_module=1)
    campaign.save()
    again = findings.Campaign.load(directory)
    again.restart_unfinished()  # what --resume does before running module 1 again
    self.assertEqual((again.modules, again.hits, again.unfinished), (1, 3, {}))
    self.assertEqual({n: f.hits for n, f in again.findings.items()}, {"old": 3, "new": 0})

  def test_merge_sums_counts_and_deduplicates_by_signature(self):
    root = tempfile.mkdtemp()
    parts = []
    for index, (hits, first) in enumerate(((3, 4), (2, 1))):
      directory = os.path.join(root, str(index))
      test_file = os.path.join(directory, "findings", "sig_a", "sig_a_test.py")
      campaign = findings.Campaign(directory, 5, ("add",), ("iree_vmvx",), modules=2,
                                   functions=16, hits=hits + 1, seconds=60.0,
                                   shard=f"{index}/2")
      campaign.findings["sig_a"] = findings.Finding(
          "sig_a", "MISMATCH", "iree_vmvx", "values", ("add",) * (index + 1), hits, first, 5,
          test_file, True, ())
      only = os.path.join(directory, "findings", f"only_{index}", f"only_{index}_test.py")
      campaign.findings[f"only_{index}"] = findings.Finding(
          f"only_{index}", "MISMATCH", "iree_vmvx", "values", ("add",), 1, first, 5,
          only, True, ())
      for path in (test_file, only):  # each finding's test file in its own dir, as written.
        os.makedirs(os.path.dirname(path))
        with open(path, "w") as f:
          f.write(f"# shard {index}\n")
      campaign.save()
      parts.append(directory)
    merged = findings.merge(os.path.join(root, "merged"), parts)
    self.assertEqual((merged.modules, merged.functions, merged.hits), (4, 32, 7))
    self.assertEqual(sorted(merged.findings), ["only_0", "only_1", "sig_a"])
    row = merged.findings["sig_a"]
    self.assertEqual((row.hits, row.first_module, row.variants), (5, 1, ("add",)))
    with open(row.test_file) as f:
      self.assertEqual(f.read(), "# shard 1\n")  # the earliest hit's, copied next to the table
    self.assertTrue(row.test_file.startswith(os.path.join(root, "merged", "findings")))
    again = findings.Campaign.load(os.path.join(root, "merged"))
    self.assertEqual(again.findings["sig_a"].hits, 5)


if __name__ == "__main__":
  absltest.main()
