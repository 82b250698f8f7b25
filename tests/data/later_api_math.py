"""A test file in the style of IREE's later (2020-11) generated tests: its own flags, tests
generated from UnitTestSpecs in main, `app.run(main)`. Only its import line names this library.
(Not named *_test.py: tests run it with the flags they need; Bazel tests copy it as one.)
`erf` fails on every IREE backend (compile error), for failing configurations."""

from absl import app
from absl import flags
import numpy as np
from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

FLAGS = flags.FLAGS

FUNCTIONS_TO_SPECS = {
    "abs": tf_test_utils.unit_test_specs_from_signatures(
        signature_shapes=[[[2, 3]]], signature_dtypes=[tf.float32, tf.int32, tf.complex64]),
    "erf": tf_test_utils.unit_test_specs_from_signatures(signature_shapes=[[[4]]]),
    "add": tf_test_utils.unit_test_specs_from_signatures(
        signature_shapes=[[[2, 3], [2, 3]]], signature_dtypes=[tf.float32]),
    "reduce_sum": tf_test_utils.unit_test_specs_from_signatures(
        signature_shapes=[[[2, 3]]], kwargs_to_values={"axis": [None, 1]}),
    "maximum": tf_test_utils.unit_test_specs_from_args(
        names_to_input_args={"arange": [tf_utils.ndarange([4], np.float32),
                                        tf.constant([3., 0., 5., 1.])]}),
}
for name, specs in FUNCTIONS_TO_SPECS.items():
  FUNCTIONS_TO_SPECS[name] = [spec.with_name(f"{name}__{spec.unit_test_name}") for spec in specs]

flags.DEFINE_list("functions", ["abs", "add"], f"Any of {list(FUNCTIONS_TO_SPECS)}.")
flags.DEFINE_bool("dynamic_dims", False, "Compile the functions with dynamic dims.")
flags.DEFINE_bool("test_complex", False, "Test signatures with complex types too.")


def create_function_unit_test(function_name, spec):
  function = getattr(tf.math, function_name)
  signature = spec.input_signature
  if tf_utils.is_complex(signature):
    function, signature = tf_utils.rewrite_complex_signature(function, signature)

  def wrapped(*args):
    return function(*args, **spec.kwargs)

  if FLAGS.dynamic_dims:
    signature = tf_utils.apply_function(signature, tf_utils.make_dims_dynamic)
  return tf_test_utils.tf_function_unit_test(
      input_signature=signature, input_generator=spec.input_generator,
      input_args=spec.input_args, name=spec.unit_test_name, rtol=1e-5, atol=1e-5)(wrapped)


class MathModule(tf_test_utils.TestModule):

  def __init__(self):
    super().__init__()
    for function in FLAGS.functions:
      for spec in FUNCTIONS_TO_SPECS[function]:
        if not FLAGS.test_complex and tf_utils.is_complex(spec.input_signature):
          continue
        setattr(self, spec.unit_test_name, create_function_unit_test(function, spec))


class MathTest(tf_test_utils.TracedModuleTestCase):

  def __init__(self, *args, **kwargs):
    super().__init__(*args, **kwargs)
    self._modules = tf_test_utils.compile_tf_module(
        MathModule, exported_names=MathModule.get_tf_function_unit_tests())


def main(argv):
  del argv  # Unused.
  if hasattr(tf, "enable_v2_behavior"):
    tf.enable_v2_behavior()
  MathTest.generate_unit_tests(MathModule)
  tf.test.main()


if __name__ == "__main__":
  app.run(main)
