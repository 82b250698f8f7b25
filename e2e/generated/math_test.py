"""Elementwise tf.math functions as generated tests (IREE's later API): each function with
static dims, with dynamic dims (`None`, inputs drawn at the static shape) and, where TensorFlow
takes complex inputs, with complex64. One test class per (function, variant), so that the
expected-failure lists name each one."""

from pyiree_tf_support import tf_test_utils
from pyiree_tf_support import tf_utils
import tensorflow.compat.v2 as tf

SHAPE = [2, 3]


def positive(shape, dtype):
  """Inputs in [0.1, 2): for functions defined on positive numbers."""
  return tf_utils.uniform(shape, dtype, low=0.1, high=2.0)


def nonzero(shape, dtype):
  """Inputs in [1, 5): divisors."""
  return tf_utils.uniform(shape, dtype, low=1.0, high=5.0)


# function -> (number of arguments, generator, dtypes that are tested, complex too).
FUNCTIONS = {
    "abs": (1, None, [tf.float32, tf.int32], True),
    "add": (2, None, [tf.float32, tf.int32], True),
    "ceil": (1, None, [tf.float32], False),
    "cos": (1, None, [tf.float32], True),
    "exp": (1, None, [tf.float32], True),
    "floormod": (2, nonzero, [tf.float32], False),
    "log": (1, positive, [tf.float32], True),
    "maximum": (2, None, [tf.float32, tf.int32], False),
    "multiply": (2, None, [tf.float32, tf.int32], True),
    "negative": (1, None, [tf.float32, tf.int32], True),
    "round": (1, None, [tf.float32], False),
    "rsqrt": (1, positive, [tf.float32], True),
    "sigmoid": (1, None, [tf.float32], True),
    "sign": (1, None, [tf.float32, tf.int32], True),
    "sqrt": (1, positive, [tf.float32], True),
    "tanh": (1, None, [tf.float32], True),
}

VARIANTS = ("static", "dynamic", "complex")

# (function, variant) left out, with why. round with dynamic dims fails at runtime on every IREE
# backend with a transient-buffer error (the same one FloormodDynamicTest lists), but on Vulkan it
# passed in 1 of 6 runs: a verdict that changes between runs cannot be listed either way.
LEFT_OUT = {("round", "dynamic"): "IREE runtime transient-buffer error, not reproducible on Vulkan"}


def specs(function: str, variant: str):
  arguments, generator, dtypes, takes_complex = FUNCTIONS[function]
  if variant == "complex":
    if not takes_complex:
      return []
    dtypes = [tf.complex64]
  generators = {"uniform" if generator is None else generator.__name__:
                generator or tf_test_utils.DEFAULT_INPUT_GENERATOR}
  return tf_test_utils.unit_test_specs_from_signatures(
      signature_shapes=[[SHAPE] * arguments], signature_dtypes=dtypes,
      input_generators=generators)


def function_unit_test(function: str, spec, dynamic: bool):
  signature = spec.input_signature
  if dynamic:
    signature = tf_utils.apply_function(signature, tf_utils.make_dims_dynamic)
  return tf_test_utils.tf_function_unit_test(
      input_signature=signature, static_signature=spec.input_signature,
      input_generator=spec.generator(), name=f"{function}__{spec.unit_test_name}",
      rtol=1e-5, atol=1e-5)(lambda *args: getattr(tf.math, function)(*args))


def make_test_class(function: str, variant: str, function_specs):
  """A TestModule of the function's specs and a test class with one test per spec."""

  def __init__(self):
    tf_test_utils.TestModule.__init__(self)
    for spec in function_specs:
      unit_test = function_unit_test(function, spec, dynamic=variant == "dynamic")
      setattr(self, unit_test.__name__, unit_test)

  title = "".join(part.title() for part in function.split("_")) + variant.title()
  module_class = type(f"{title}Module", (tf_test_utils.TestModule,), {"__init__": __init__})

  def test_init(self, *args, **kwargs):
    tf_test_utils.TracedModuleTestCase.__init__(self, *args, **kwargs)
    self._modules = tf_test_utils.compile_tf_module(
        module_class, exported_names=module_class.get_tf_function_unit_tests())

  test_class = type(f"{title}Test", (tf_test_utils.TracedModuleTestCase,),
                    {"__init__": test_init, "__module__": __name__})
  test_class.generate_unit_tests(module_class)
  return test_class


def define_test_classes() -> None:
  """A test class per (function, variant) with specs, as a global of this file (so that
  absltest and pytest find it; no other global names a class)."""
  for function in FUNCTIONS:
    for variant in VARIANTS:
      if (function, variant) in LEFT_OUT:
        continue
      function_specs = specs(function, variant)
      if function_specs:
        test_class = make_test_class(function, variant, function_specs)
        globals()[test_class.__name__] = test_class


define_test_classes()

if __name__ == "__main__":
  tf.test.main()
