"""Tests generated from signatures, as IREE's later (2020-11) API wrote them: `UnitTestSpec`s
built as cartesian products, `tf_function_unit_test` marking a tf.function as a test, and
`TestModule` finding those on a module.

A marked function carries its `UnitTestSpec`: the signature its inputs are drawn from, the
generator (or fixed arguments) and the tolerances. `add_unit_tests` (the later API's
`TracedModuleTestCase.generate_unit_tests`) turns each into a test method; an input engine
can read the same spec to draw other inputs.
"""

import copy
import dataclasses
import inspect
import itertools
import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import tensorflow as tf

from pyiree_tf_support import tf_utils


def default_input_generator(shape: Sequence[int], dtype: Any) -> np.ndarray:
  """What a generated test's inputs are drawn from unless it names another: the later API's
  `uniform`, [-1, 1) (tf_utils.uniform keeps 2020's [0, 1))."""
  return tf_utils.uniform(shape, dtype, low=-1.0, high=1.0)


default_input_generator.__name__ = "uniform"  # the later API's test names say "uniform".

# The attribute of a tf.function that holds its UnitTestSpec.
SPEC_ATTRIBUTE = "_pyiree_unit_test_spec"


@dataclasses.dataclass(frozen=True)
class UnitTestSpec:
  """One generated test: its name, the signature its inputs have, and where they come from
  (`input_args` as given, else `input_generator(shape, dtype)` per tf.TensorSpec, the default
  generator when neither is given). `kwargs`: keyword arguments of the function under test
  (e.g. `axis`); `atol`/`rtol`: the comparison's tolerances (None: the library's table)."""
  unit_test_name: str
  input_signature: Any
  input_generator: Optional[tf_utils.InputGenerator] = None
  input_args: Optional[Sequence[Any]] = None
  kwargs: Optional[Dict[str, Any]] = None
  atol: Optional[float] = None
  rtol: Optional[float] = None

  def __post_init__(self):
    object.__setattr__(self, "unit_test_name",
                       tf_utils.remove_special_characters(self.unit_test_name))
    object.__setattr__(self, "kwargs", dict(self.kwargs or {}))
    if self.input_generator is not None and self.input_args is not None:
      raise ValueError(f"UnitTestSpec '{self.unit_test_name}': give input_generator or "
                       "input_args, not both.")

  def with_name(self, new_name: str) -> "UnitTestSpec":
    return dataclasses.replace(self, unit_test_name=new_name)

  def generator(self) -> tf_utils.InputGenerator:
    return self.input_generator or default_input_generator

  def generate_args(self) -> list:
    """The positional arguments of one call: a copy of `input_args` (tensors as numpy arrays),
    or values drawn from the signature by the generator (numpy's seeded generator)."""
    if self.input_args is not None:
      args = copy.deepcopy(list(self.input_args))
      return tf_utils.apply_function(args, lambda x: x.numpy() if tf.is_tensor(x) else x)
    return list(tf_utils.generate_inputs(list(self.input_signature), self.generator()))

  def tolerances(self) -> Dict[str, float]:
    """The `rtol=`/`atol=` a traced call takes (only those given)."""
    return {k: v for k, v in (("rtol", self.rtol), ("atol", self.atol)) if v is not None}

  def __str__(self) -> str:
    return self.unit_test_name


def _product(named: Mapping[str, Sequence[Any]]) -> List[Dict[str, Any]]:
  """Every combination of the values of `named`, in order: {'a': [1, 2], 'b': [3]} ->
  [{'a': 1, 'b': 3}, {'a': 2, 'b': 3}]."""
  return [dict(zip(named, values)) for values in itertools.product(*named.values())]


def _named_kwargs(kwargs_to_values: Optional[Mapping[str, Sequence[Any]]]
                  ) -> Dict[str, Dict[str, Any]]:
  """Each combination of keyword values, named 'a_1__b_3' ('' for no keywords)."""
  kwargs_to_values = dict(kwargs_to_values or {})
  for key, values in kwargs_to_values.items():
    if isinstance(values, str) or not isinstance(values, Sequence):
      raise TypeError(f"kwargs_to_values[{key!r}] must be a sequence of values, got "
                      f"{type(values).__name__}.")
  return {"__".join(f"{k}_{v}" for k, v in combination.items()): combination
          for combination in _product(kwargs_to_values)}


def _dtype_name(dtype: tf.DType) -> str:
  """'float32' -> 'f32', 'complex64' -> 'c64', 'int8' -> 'i8', 'bool' -> 'bool'."""
  return re.sub(r"([a-z])[a-z]*([0-9]+)", r"\1\2", dtype.name)


def _generators_by_name(input_generators: Union[Sequence[Callable], Mapping[str, Callable]]
                        ) -> Dict[str, Callable]:
  if isinstance(input_generators, Mapping):
    return dict(input_generators)
  if not isinstance(input_generators, Sequence):
    raise TypeError("input_generators must be a sequence of generators or a dict naming them, "
                    f"got {type(input_generators).__name__}.")
  named, indices = {}, {}
  for index, generator in enumerate(input_generators):
    name = getattr(generator, "__name__", "<lambda>")
    if name == "<lambda>":
      raise TypeError(f"input_generators[{index}] is a lambda, which has no name for the test: "
                      "pass a dict {name: generator} instead.")
    if name in named and named[name] is not generator:  # one would silently replace the other.
      raise ValueError(f"input_generators[{indices[name]}] and [{index}] are both named "
                       f"'{name}', which names their tests: pass a dict {{name: generator}} "
                       "instead.")
    named[name], indices[name] = generator, index
  return named


def _distinct_names(function: str, specs: Sequence[UnitTestSpec], parts: Sequence[str]
                    ) -> List[UnitTestSpec]:
  """`specs`, refused (ValueError naming both) when two get one test name: names keep only
  [a-zA-Z0-9_], so `axis=-1` and `axis=1` are both 'axis_1', and the test made second would
  replace the first without a word. `parts` says what each spec was made of."""
  seen: Dict[str, str] = {}
  for spec, made_of in zip(specs, parts):
    if spec.unit_test_name in seen:
      raise ValueError(f"{function}: the specs of {seen[spec.unit_test_name]} and of {made_of} "
                       f"both get the test name '{spec.unit_test_name}' (names keep only "
                       "[a-zA-Z0-9_]), so one test would replace the other: make them in two "
                       "calls and give one another name with spec.with_name(...).")
    seen[spec.unit_test_name] = made_of
  return list(specs)


def unit_test_specs_from_signatures(
    signature_shapes: Sequence[Sequence[Sequence[int]]],
    signature_dtypes: Sequence[tf.DType] = (tf.float32,),
    input_generators: Union[Sequence[Callable], Mapping[str, Callable]] = (
        default_input_generator,),
    kwargs_to_values: Optional[Mapping[str, Sequence[Any]]] = None) -> List[UnitTestSpec]:
  """One spec per (signature, dtype, generator, keyword combination), named by its parts:
  '2x3_4__f32__uniform__axis_1' (a signature's shapes joined by '_', a shape's dims by 'x')."""
  shapes_by_name = {}
  for i, shapes in enumerate(signature_shapes):
    if not isinstance(shapes, Sequence):
      raise TypeError(f"signature_shapes[{i}] must be a sequence of shapes, got "
                      f"{type(shapes).__name__}.")
    for j, shape in enumerate(shapes):
      if not isinstance(shape, Sequence) or not all(isinstance(d, int) for d in shape):
        raise TypeError(f"signature_shapes[{i}][{j}] must be a sequence of ints, got {shape!r}.")
    shapes_by_name["_".join("x".join(map(str, shape)) for shape in shapes)] = shapes
  for i, dtype in enumerate(signature_dtypes):
    if not isinstance(dtype, tf.DType):
      raise TypeError(f"signature_dtypes[{i}] must be a tf.DType, got {dtype!r}.")
  dtypes_by_name = {_dtype_name(dtype): dtype for dtype in signature_dtypes}
  generators = _generators_by_name(input_generators)
  parts = [shapes_by_name, dtypes_by_name, generators, _named_kwargs(kwargs_to_values)]
  specs, made_of = [], []
  for names in itertools.product(*(list(p) for p in parts)):
    shapes, dtype, generator, kwargs = (part[name] for part, name in zip(parts, names))
    specs.append(UnitTestSpec("__".join(n for n in names if n),
                              [tf.TensorSpec(shape, dtype) for shape in shapes],
                              input_generator=generator, kwargs=kwargs))
    made_of.append(f"shapes {list(shapes)}, {dtype.name}, generator '{names[2]}', kwargs "
                   f"{kwargs}")
  return _distinct_names("unit_test_specs_from_signatures", specs, made_of)


def _spec_of(value: Any) -> tf.TensorSpec:
  return tf.TensorSpec.from_tensor(tf.convert_to_tensor(value))


def unit_test_specs_from_args(
    names_to_input_args: Mapping[str, Sequence[Any]],
    kwargs_to_values: Optional[Mapping[str, Sequence[Any]]] = None) -> List[UnitTestSpec]:
  """One spec per (named fixed arguments, keyword combination), its signature read from the
  arguments."""
  specs, made_of = [], []
  for (args_name, args), (kwargs_name, kwargs) in itertools.product(
      names_to_input_args.items(), _named_kwargs(kwargs_to_values).items()):
    specs.append(UnitTestSpec("__".join(n for n in (args_name, kwargs_name) if n),
                              tf_utils.apply_function(list(args), _spec_of),
                              input_args=args, kwargs=kwargs))
    made_of.append(f"args {args_name!r}, kwargs {kwargs}")
  return _distinct_names("unit_test_specs_from_args", specs, made_of)


def tf_function_unit_test(input_generator: Optional[tf_utils.InputGenerator] = None,
                          input_args: Optional[Sequence[Any]] = None,
                          atol: Optional[float] = None,
                          rtol: Optional[float] = None,
                          name: Optional[str] = None,
                          static_signature: Optional[Sequence[tf.TensorSpec]] = None,
                          **tf_function_kwargs) -> Callable[[Callable], Any]:
  """Decorator: a tf.function (built with `tf_function_kwargs`, e.g. `input_signature`) that
  `generate_unit_tests` makes a test of, called with `input_args` or inputs drawn from its
  signature (`static_signature` for a signature with `None` dims) by `input_generator`
  (default: uniform in [-1, 1)), compared with `atol`/`rtol`. `name` names a lambda."""
  if input_generator is not None and input_args is not None:
    raise ValueError("tf_function_unit_test: give input_generator or input_args, not both.")

  def decorate(function):
    function_name = name or getattr(function, "__name__", "<lambda>")
    if function_name == "<lambda>":
      raise ValueError("tf_function_unit_test: a lambda needs name='...' (the test's name).")
    compiled = tf.function(**tf_function_kwargs)(function)
    compiled.__name__ = function_name
    signature = static_signature or tf_function_kwargs.get("input_signature")
    if signature is None:
      if input_args is None:
        raise ValueError(f"tf_function_unit_test({function_name}): inputs are drawn from the "
                         "signature: give input_signature=[tf.TensorSpec(...), ...] or "
                         "input_args.")
      signature = tf_utils.apply_function(list(input_args), _spec_of)
    setattr(compiled, SPEC_ATTRIBUTE, UnitTestSpec(
        function_name, list(signature), input_generator, input_args, atol=atol, rtol=rtol))
    return compiled

  return decorate


def add_unit_tests(case_class: type, module_class: type) -> None:
  """A test method `test_<name>` on `case_class` per tf_function_unit_test of `module_class` (a
  TestModule, built after seeding as every construction is), calling `compare_backends` once
  with its spec's inputs and tolerances. The method and its trace carry the spec as
  `unit_test_spec`."""
  tf_utils.set_random_seed()
  for name, spec in unit_tests_of(module_class()).items():
    method_name = f"test_{name}"
    if method_name in vars(case_class):
      raise ValueError(f"{case_class.__name__}.generate_unit_tests: {method_name} exists already "
                       f"(two tf_function_unit_tests named '{name}'?).")

    def trace(module, name=name, spec=spec):
      getattr(module, name)(*spec.generate_args(), **spec.tolerances())

    def unit_test(self, trace=trace):
      self.compare_backends(trace)

    trace.__name__ = name
    unit_test.__name__ = method_name
    trace.unit_test_spec = unit_test.unit_test_spec = spec
    setattr(case_class, method_name, unit_test)


def unit_tests_of(instance: tf.Module) -> Dict[str, UnitTestSpec]:
  """The tf_function_unit_tests of a module instance, by attribute name (set in `__init__` or
  decorated methods of its class), in name order."""
  found = {}
  for attribute in sorted(dir(instance)):
    if attribute.startswith("__"):
      continue
    spec = getattr(inspect.getattr_static(instance, attribute, None), SPEC_ATTRIBUTE, None)
    if spec is None:
      spec = getattr(inspect.getattr_static(type(instance), attribute, None), SPEC_ATTRIBUTE,
                     None)
    if spec is not None:
      found[attribute] = spec
  return found


class TestModule(tf.Module):
  """A tf.Module whose tf_function_unit_tests `generate_unit_tests` turns into tests."""

  @classmethod
  def get_tf_function_unit_tests(cls) -> List[str]:
    """The names of the module's tf_function_unit_tests (it is built once to find them)."""
    tf_utils.set_random_seed()
    names = list(unit_tests_of(cls()))
    if not names:
      raise ValueError(f"{cls.__name__} has no tf_function_unit_test: decorate its functions "
                       "with @tf_test_utils.tf_function_unit_test(...).")
    return names

  @classmethod
  def get_unit_test_specs(cls) -> Dict[str, UnitTestSpec]:
    """Each tf_function_unit_test's spec, by name."""
    tf_utils.set_random_seed()
    return unit_tests_of(cls())
