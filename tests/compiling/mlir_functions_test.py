"""Compiler locations in iree_input.mlir are mapped to the exported functions (TF methods) that
hold them, through private callees; other functions can be hidden without moving any line."""

from absl.testing import absltest
from absl.testing import parameterized

from pyiree_tf_support.compiling import mlir_functions
from pyiree_tf_support.core import mlir_symbols

# Line numbers matter: the tests name lines of this text.
MODULE = """module {
  ml_program.global public mutable @vars.v(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
  func.func @double(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @inner(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @mhlo.erf(%arg0) {mhlo.attributes = {}} \
: (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @outer(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @inner(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func @erf(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %s = stablehlo.constant dense<"}{"> : tensor<!stablehlo.token>
    %0 = func.call @outer(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func public @also_erf(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @inner(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    ml_program.global_store @vars.v = %0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
}
"""


class FunctionsOfTest(absltest.TestCase):

  def test_spans_visibility_and_callees(self):
    spans = {s.name: s for s in mlir_functions.functions_of(MODULE)}
    self.assertEqual(
        [(s.name, s.first_line, s.last_line, s.public) for s in spans.values()],
        [("double", 3, 6, True), ("inner", 7, 10, False), ("outer", 11, 14, False),
         ("erf", 15, 19, True), ("also_erf", 20, 24, True), ("declared", 25, 25, False)])
    self.assertEqual(spans["outer"].callees, ("inner",))
    self.assertEqual(spans["erf"].callees, ("outer",))
    self.assertEqual(spans["double"].callees, ())  # @vars.v and @mhlo.erf are not functions.

  def test_exported_functions_are_the_public_ones(self):
    self.assertEqual(mlir_functions.exported_functions(MODULE), ("double", "erf", "also_erf"))


class LocationsTest(parameterized.TestCase):

  @parameterized.named_parameters(
      ("error_line", "<stdin>:9:10: error: failed to legalize", ((9, 10),)),
      ("loc_in_op_text", 'op loc("<stdin>":8:10)', ((8, 10),)),
      ("callsite_chain", 'loc(callsite("<stdin>":8:10 at "<stdin>":12:5))', ((8, 10), (12, 5))),
      ("note_repeating_a_location", "<stdin>:8:10: error: x\n<stdin>:8:10: note: see", ((8, 10),)),
      ("no_location", "error: unknown", ()),
  )
  def test_locations_in(self, diagnostics, expected):
    self.assertEqual(mlir_functions.locations_in(diagnostics), expected)

  @parameterized.named_parameters(
      ("in_an_exported_function", [4], ("double",)),
      ("private_callee_names_every_exporting_caller", [8], ("erf", "also_erf")),
      ("chain_of_private_callees", [12], ("erf",)),
      ("called_from_note_adds_its_function", [8, 16], ("erf", "also_erf")),
      ("outside_every_function", [1, 2], ()),
      ("first_and_last_line_belong_to_the_function", [15, 19], ("erf",)),
  )
  def test_exported_functions_at(self, lines, expected):
    self.assertEqual(mlir_functions.exported_functions_at(MODULE, lines), expected)


class OnlyExportingTest(absltest.TestCase):

  def _changed(self, text):
    old_lines, new_lines = MODULE.splitlines(), text.splitlines()
    self.assertLen(new_lines, len(old_lines))  # every line keeps its number.
    return [i + 1 for i, (a, b) in enumerate(zip(old_lines, new_lines)) if a != b]

  def test_removes_the_other_functions_without_moving_lines(self):
    # A sibling's body is gone, not just made private: IREE's StableHLO preprocessing runs on
    # private functions too, so a bad sibling would fail every method compiled "alone".
    text = mlir_functions.only_exporting(MODULE, ["erf"])
    self.assertEqual(mlir_functions.exported_functions(text), ("erf",))
    self.assertEqual(self._changed(text), [3, 4, 5, 6, 20, 21, 22, 23, 24])
    new_lines = text.splitlines()
    self.assertTrue(all(not new_lines[i - 1] for i in self._changed(text)))
    self.assertEqual([s.name for s in mlir_functions.functions_of(text)],
                     ["inner", "outer", "erf", "declared"])  # erf's callees stay; and what
    # nothing exported reaches (the compiler drops it, as it did from the whole module).
    self.assertIn("ml_program.global public mutable @vars.v", text)  # globals stay.

  def test_a_kept_function_keeps_only_what_it_reaches(self):
    text = mlir_functions.only_exporting(MODULE, ["double"])
    self.assertEqual([s.name for s in mlir_functions.functions_of(text)], ["double", "declared"])
    self.assertNotIn("mhlo.erf", text)
    self.assertEqual(self._changed(text), list(range(7, 25)))

  def test_a_called_exported_sibling_keeps_its_body_made_private(self):
    calling = MODULE.replace("    %0 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>",
                             "    %0 = call @erf(%arg0) : (tensor<4xf32>) -> tensor<4xf32>")
    text = mlir_functions.only_exporting(calling, ["double"])
    spans = {s.name: s for s in mlir_functions.functions_of(text)}
    self.assertEqual(list(spans), ["double", "inner", "outer", "erf", "declared"])
    self.assertFalse(spans["erf"].public)
    self.assertEqual(text.splitlines()[14],
                     "  func.func private @erf(%arg0: tensor<4xf32>) -> tensor<4xf32> {")

  def test_functions_named_outside_every_function_stay(self):
    # e.g. an initializer op at module level that calls a private function.
    named = MODULE.replace("  func.func private @declared(tensor<4xf32>) -> tensor<4xf32>\n",
                           "  util.initializer { call @inner_init() : () -> () }\n"
                           "  func.func private @inner_init() {\n"
                           "    %0 = call @inner(%cst) : (tensor<4xf32>) -> tensor<4xf32>\n"
                           "    return\n  }\n")
    text = mlir_functions.only_exporting(named, ["double"])
    self.assertEqual([s.name for s in mlir_functions.functions_of(text)],
                     ["double", "inner", "inner_init"])

  def test_every_name_kept_is_identity(self):
    self.assertEqual(mlir_functions.only_exporting(MODULE, ["double", "erf", "also_erf"]), MODULE)

  def test_unknown_name_is_an_error(self):
    with self.assertRaisesRegex(ValueError, "No exported function named inner"):
      mlir_functions.only_exporting(MODULE, ["inner"])


QUOTED = """module {
  func.func @"gr\\C3\\B6\\C3\\9Fe"(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    return %arg0 : tensor<2xf32>
  }
  func.func @plain(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = call @"gr\\C3\\B6\\C3\\9Fe"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}"""


class NonAsciiNamesTest(parameterized.TestCase):
  """Names are data: MLIR's quoted spelling of a symbol is the name it stands for."""

  @parameterized.parameters(("größe", '"gr\\C3\\B6\\C3\\9Fe"'), ("plain", "plain"),
                            ("a b", '"a b"'), ('q"\\', '"q\\22\\5C"'), ("v.x$1", "v.x$1"))
  def test_spelling_and_back(self, name, spelled):
    self.assertEqual(mlir_symbols.spelling(name), spelled)
    self.assertEqual(mlir_symbols.name_of(spelled), name)

  def test_functions_are_named_as_in_python(self):
    self.assertEqual(mlir_functions.exported_functions(QUOTED), ("größe", "plain"))
    kept = mlir_functions.only_exporting(QUOTED, ["plain"])  # plain calls größe.
    self.assertIn('func.func private @"gr\\C3\\B6\\C3\\9Fe"(', kept)
    alone = mlir_functions.only_exporting(QUOTED, ["größe"])
    self.assertEqual(mlir_functions.exported_functions(alone), ("größe",))
    self.assertNotIn("@plain", alone)

if __name__ == "__main__":
  absltest.main()
