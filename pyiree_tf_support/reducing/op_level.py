"""The op level of a reduction: one function's StableHLO ops cut to the fewest that fail the same
way, as a standalone program with its inputs, the trusted outputs and a script.

A mismatch, after the function and call levels left one stateless call:
1. a trusted IREE backend (the localizer's order) runs the function returning every op's
   result (the probe; once, or PROBE_BYTES of results per run for a big one): the value each
   intermediate has where the program is right. It is used only when its results agree with
   the reference's (else the next is tried);
2. the program is cut after the first diverging value: a bisection over the ops the outputs
   need, each candidate returning one op's results computed by the ops it needs alone;
3. delta debugging over the ops left (the cut op always kept): a removed op's results become
   inputs of the function fed the probe's values, and ops nothing kept needs go with it;
4. each constant kept becomes a splat of its first element, and each dynamic dimension of the
   inputs the smallest size (1, 2, 4, ...) that still fails; as values change here, the
   expected outputs are the trusted backend's run of that candidate.
Every candidate is compiled for the suspect (through the compile cache) and run with
iree-run-module in a child process (no device in this process: Vulkan's lavapipe and
TensorFlow cannot share one); it is kept only while `failures.same_failure` holds for it, the
suspect's outputs measured against the expected ones as a call's are against the reference.

A compile error: delta debugging over all the function's ops, each candidate returning the
results nothing kept uses (so no kept op is dead), compiled only.

Deterministic: the same input and flags give the same candidates in the same order. The time
budget (`deadline`) ends the search with the smallest program found so far.

Memory is a small multiple of the largest tensor T, whatever the number of ops or candidates
(docs/reducing.md, Memory): every value iree-run-module reads or writes is a file, written a
block at a time and read back memory-mapped (comparing/mapped_arrays.py), its pages dropped
after each use; the probe's values stay on disk, mapped; of the candidates judged only whether
each failed is kept, and the arrays of the last one that did (mapped). Before, every output
was read whole and every judged candidate's inputs and outputs kept: on a [4096, 4096] f32
chain the reduce command peaked 19 T above its baseline.
"""

import dataclasses
import os
import re
import shlex
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from pyiree_tf_support.comparing import comparison
from pyiree_tf_support.comparing import mapped_arrays
from pyiree_tf_support.comparing import tolerances
from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling.vmfb_cache import CompileCache
from pyiree_tf_support.core import backends
from pyiree_tf_support.core import quoting
from pyiree_tf_support.core import safe_files
from pyiree_tf_support.core import timeouts
from pyiree_tf_support.reducing import failures
from pyiree_tf_support.reducing import ops
from pyiree_tf_support.reducing import search
from pyiree_tf_support.reporting import repro
from pyiree_tf_support.reporting import verdicts

SCRIPT_NAME = "reduced.py"
REFERENCE = "the reference"  # `trusted` of a program judged against the reference's outputs
PROGRAM_NAME = "reduced.mlir"


@dataclasses.dataclass(frozen=True)
class Side:
  """A backend as the op level compiles and runs it: its spec and its full compile flags."""
  spec: backends.BackendSpec
  name: str  # as the user named it
  flags: Tuple[str, ...]

  def command_flags(self) -> List[str]:
    return [f"--iree-hal-target-backends={t}" for t in self.spec.compiler_targets] + list(
        self.flags)


@dataclasses.dataclass(frozen=True)
class OpReduction:
  """What the op level made: the program, its inputs, the trusted outputs and the suspect's,
  sizes before and after; or, with `program` empty, why it did not run (`note`)."""
  note: str
  ops_before: int = 0
  ops: int = 0
  program: str = ""
  function: str = ""
  trusted: str = ""
  inputs: Tuple[np.ndarray, ...] = ()
  expected: Tuple[np.ndarray, ...] = ()
  got: Tuple[np.ndarray, ...] = ()
  error: str = ""  # a compile error's text
  difference: str = ""  # a mismatch's expected vs got, under the run's tolerances
  tried: int = 0
  timed_out: bool = False
  script: str = ""
  command: str = ""  # the iree-compile command line of the reduced program
  state: str = ""  # for a stateful call: how its state was made part of the program


@dataclasses.dataclass(frozen=True)
class _State:
  """One candidate: the ops kept, the values returned, constants made splats, and the sizes
  dynamic dimensions were cut to (size before -> after)."""
  kept: Tuple[int, ...]
  outputs: Tuple[ops.Ref, ...]
  splats: Tuple[Tuple[int, object], ...] = ()
  sizes: Tuple[Tuple[int, int], ...] = ()
  # (old static shape, new shape, where the new one starts in the old) or ().
  reshape: Union[Tuple[()], Tuple[ops.Shape, ops.Shape, ops.Shape]] = ()
  # Input values replaced: (input position, flat element index or -1 for all, the value).
  values: Tuple[Tuple[int, int, object], ...] = ()


class Runner:
  """Compiles candidates (compile cache) and runs them with iree-run-module in a child."""

  def __init__(self, work_dir: str, cache: Optional[CompileCache], limits: timeouts.Timeouts,
               deadline: float):
    self.work_dir, self.cache, self.limits, self.deadline = work_dir, cache, limits, deadline
    self.run_tool = repro.iree_run_module_binary()
    self.tried = 0
    self.timed_out = False
    self.written: List[np.ndarray] = []  # the last run's inputs, mapped from their files

  def past_deadline(self) -> bool:
    if time.monotonic() > self.deadline:
      self.timed_out = True
    return self.timed_out

  def compile(self, text: str, side: Side) -> bytes:
    request = compiler.CompileRequest(text, side.spec.compiler_targets, side.flags)
    return compiler.compile_request(request, f"a reduced program for {side.spec.name}",
                                    cache=self.cache, timeout=self.limits.compile)

  def run(self, vmfb: bytes, side: Side, function: str, inputs: Sequence[np.ndarray],
          count: int, place: str = "") -> Tuple[Optional[List[np.ndarray]], str]:
    """(the outputs, '') or (None, why the run failed). The outputs are memory-mapped from
    files in `work_dir/<place or the side's name>/`, which the next run there replaces (a new
    file each time: a mapped one stays as it was); `written` holds the inputs as mapped from
    the files they were written to."""
    if self.run_tool is None:
      return None, "iree-run-module was not found next to this Python"
    run_dir = os.path.join(self.work_dir, place or side.spec.name)
    safe_files.make_dirs(run_dir)
    module = os.path.join(run_dir, "candidate.vmfb")
    safe_files.write_bytes(module, vmfb)
    arguments = [self.run_tool, f"--device={side.spec.driver}", f"--module={module}",
                 f"--function={function}"]
    self.written = []
    for index, array in enumerate(inputs):
      kind, name = save_value(run_dir, f"input_{index}", array).split("=@")
      arguments.append(f"--input={kind}=@{os.path.join(run_dir, name)}")
      self.written.append(mapped_arrays.raw(os.path.join(run_dir, name), np.asarray(array).dtype,
                                            np.shape(array)))
    outputs = [os.path.join(run_dir, f"output_{i}.npy") for i in range(count)]
    arguments += [f"--output=@{path}" for path in outputs]
    for path in outputs:
      if os.path.exists(path):
        os.remove(path)
    load, call = self.limits.load.seconds(len(vmfb)), self.limits.call.seconds(len(vmfb))
    limit = None if load is None or call is None else load + call
    try:
      done = subprocess.run(arguments, capture_output=True, timeout=limit, check=False)
    except subprocess.TimeoutExpired:
      return None, f"iree-run-module did not finish in {limit:g} s"
    if done.returncode != 0:
      tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]
      return None, f"iree-run-module failed: {tail[0] if tail else done.returncode}"
    return [mapped_arrays.load(path) for path in outputs], ""


def save_value(directory: str, stem: str, array: np.ndarray) -> str:
  """repro.save_value's `<stem>.bin` and flag, written a block at a time (a 64 MiB mapped
  tensor's `tobytes` held it twice); ValueError for a dtype iree-run-module has no type for."""
  array = np.asarray(array)
  reason = repro.untyped_reason([array], "values")
  if reason:
    raise ValueError(reason)
  name = stem + ".bin"
  safe_files.write_with(os.path.join(directory, name),
                        lambda f: mapped_arrays.write_raw(f, array))
  shape = "x".join(str(d) for d in array.shape)
  return f"{shape + 'x' if shape else ''}{repro.element_type(array.dtype)}=@{name}"


def _save_npy(path: str, array: np.ndarray) -> None:
  """np.save a block at a time (of a mapped array, its pages dropped as they are written)."""

  def fill(f) -> None:
    header = {"descr": np.lib.format.dtype_to_descr(np.asarray(array).dtype),
              "fortran_order": False, "shape": tuple(np.shape(array))}
    np.lib.format.write_array_header_1_0(f, header)
    mapped_arrays.write_raw(f, array)

  safe_files.write_with(path, fill)


def _compare(expected: Sequence[np.ndarray], got: Sequence[np.ndarray], side: Side,
             policy: tolerances.TolerancePolicy) -> List[comparison.Mismatch]:
  """comparison.compare of the outputs under `side`'s tolerances; the mapped pages read for it
  dropped after."""
  names = (side.name, side.spec.name) + side.spec.aliases
  try:
    return comparison.compare(tuple(expected), tuple(got), "outputs",
                              lambda dtype: policy.for_dtype(dtype, names))
  finally:
    mapped_arrays.release_pages(*expected, *got)


def _all_equal(array: np.ndarray, value: object) -> bool:
  """Whether every element is `value`, a chunk at a time."""
  flat = np.asarray(array).reshape(-1)
  step = mapped_arrays.CHUNK_ELEMENTS
  try:
    return all(bool(np.all(flat[i:i + step] == value)) for i in range(0, flat.size, step))
  finally:
    mapped_arrays.release_pages(array)


def _first_differing(want: np.ndarray, got: np.ndarray) -> int:
  """The flat index of the first element of `got` off `want` (np.isclose's defaults for floats),
  a chunk at a time; -1 when none is."""
  flat_want, flat_got = np.asarray(want).reshape(-1), np.asarray(got).reshape(-1)
  step = mapped_arrays.CHUNK_ELEMENTS
  try:
    for start in range(0, flat_want.size, step):
      w, g = flat_want[start:start + step], flat_got[start:start + step]
      wrong = ~np.isclose(g, w, equal_nan=True) if want.dtype.kind == "f" else g != w
      if wrong.any():
        return start + int(np.argmax(wrong))
    return -1
  finally:
    mapped_arrays.release_pages(want, got)


_ELEMENTS = 16  # the elements of one input tried one by one (the rest only as a whole)


def _ladder(dtype: np.dtype) -> List[float]:
  """Simple values in the order a reader finds them simplest: 0, 1, -1, 2, -2, halves."""
  if dtype.kind == "b":
    return [False, True]
  if dtype.kind == "u":
    return [0, 1, 2, 3, 4]
  if dtype.kind == "i":
    return [0, 1, -1, 2, -2, 3, -3, 4, -4]
  return [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 1.5, -1.5, 3.0, -3.0, 2.5, -2.5, 4.0, -4.0]


def _rank(value: float, ladder: Sequence[float]) -> int:
  return ladder.index(value) if value in ladder else len(ladder)


def _tensor_results(function: ops.Function) -> Tuple[ops.Ref, ...]:
  return tuple(r for index in range(len(function.ops)) for r in function.results_of(index)
               if ops.is_value(function.type_of(r)))


def _is_splat(array: np.ndarray) -> bool:
  flat = array.reshape(-1)
  return flat.size <= 1 or _all_equal(flat, flat[0])


class _Mismatch:
  """The search of a mismatch: candidates judged against the trusted values."""

  def __init__(self, text: str, function: ops.Function, failure: failures.Failure,
               suspect: Side, trusted: Side, values: Dict[ops.Ref, np.ndarray],
               runner: Runner, policy: tolerances.TolerancePolicy):
    self.text, self.function, self.failure = text, function, failure
    self.suspect, self.trusted, self.values, self.runner = suspect, trusted, values, runner
    self.policy = policy
    # Whether each candidate judged fails the same way; the arrays of the last one that did.
    self.known: Dict[_State, bool] = {}
    self.last: Optional[Tuple[_State, Tuple[tuple, tuple, tuple]]] = None

  def inputs(self, state: _State, refs: Sequence[ops.Ref]) -> List[np.ndarray]:
    arrays = [self.values[r] for r in refs]
    for before, after in state.sizes:
      arrays = [self._cut(self.function.type_of(r), a, before, after)
                for r, a in zip(refs, arrays)]
    if state.reshape:
      old, new, start = state.reshape
      window = tuple(slice(s, s + n) for s, n in zip(start, new))
      arrays = [a[window] if a.shape == old else a for a in arrays]
    for position, element, value in state.values:
      if element < 0:  # a broadcast view: written a block at a time, never whole.
        arrays[position] = np.broadcast_to(np.asarray(value, arrays[position].dtype),
                                           arrays[position].shape)
        continue
      changed = np.array(arrays[position], copy=True)
      changed.reshape(-1)[element] = value
      arrays[position] = changed
    return arrays

  @staticmethod
  def _cut(type_text: str, array: np.ndarray, before: int, after: int) -> np.ndarray:
    dims = type_text[len("tensor<"):].split("x")[:-1]
    index = tuple(slice(0, after) if d == "?" and array.shape[i] == before else slice(None)
                  for i, d in enumerate(dims))
    return array[index] if dims else array

  def outcome(self, state: _State) -> Optional[Tuple[tuple, tuple, tuple]]:
    """(inputs, expected, got) when `state` fails as the original did, else None. Only the
    last failing candidate's arrays are kept (mapped): another one known to fail is run again
    when its arrays are asked for (deterministic)."""
    if self.last is not None and self.last[0] == state:
      return self.last[1]
    if state in self.known and not self.known[state]:
      return None
    if state not in self.known and self.runner.past_deadline():
      self.known[state] = False
      return None
    if state not in self.known:
      self.runner.tried += 1
    found = self._judge(state)
    self.known[state] = found is not None
    if found is not None:
      self.last = (state, found)
    return found

  def _judge(self, state: _State) -> Optional[Tuple[tuple, tuple, tuple]]:
    try:
      text, refs = ops.build(self.text, self.function, state.kept, state.outputs,
                             dict(state.splats), state.reshape[:2] or None)
      inputs = self.inputs(state, refs)
      vmfb = self.runner.compile(text, self.suspect)
    except (ops.OpsError, compiler.CompileError, KeyError):
      return None
    got, error = self.runner.run(vmfb, self.suspect, self.function.name, inputs,
                                 len(state.outputs))
    if got is None:
      return None
    inputs = self.runner.written  # as written, mapped: a changed input's copy goes.
    if state.splats or state.sizes or state.reshape or state.values:  # values changed: the
      # trusted backend says what is right.
      try:
        expected, error = self.runner.run(self.runner.compile(text, self.trusted), self.trusted,
                                          self.function.name, inputs, len(state.outputs))
      except compiler.CompileError:
        return None
      if expected is None:
        return None
    else:
      expected = [self.values[r] for r in state.outputs]
    found = _compare(expected, got, self.suspect, self.policy)
    outcome = verdicts.Outcome(
        self.failure.backend, verdicts.Status.MISMATCH if found else verdicts.Status.PASS,
        call_method=self.failure.method, mismatches=tuple(found))
    if not failures.same_failure(self.failure, outcome):
      return None
    return tuple(inputs), tuple(expected), tuple(got)

  def normalized(self, kept: Sequence[int], outputs: Sequence[ops.Ref]) -> Tuple[int, ...]:
    return tuple(self.function.slice_of(outputs, within=kept))

  def reduce(self) -> Optional[_State]:
    function = self.function
    state = _State(self.normalized(range(len(function.ops)), function.returns),
                   function.returns)
    if self.outcome(state) is None:
      return None
    # 2. The first output that fails alone, then the cut after the first diverging value: a
    # bisection over the ops that output needs.
    for ref in function.returns:
      alone = _State(self.normalized(state.kept, (ref,)), (ref,))
      if ref[0] != "arg" and len(function.returns) > 1 and self.outcome(alone) is not None:
        state = alone
        break
    positions = [i for i in state.kept
                 if any(ops.is_value(function.type_of(r))
                        for r in function.results_of(i))]

    def cut(position: int) -> _State:
      outputs = tuple(r for r in function.results_of(positions[position])
                      if ops.is_value(function.type_of(r)))
      return _State(self.normalized(state.kept, outputs), outputs)

    if positions and self.outcome(cut(len(positions) - 1)) is not None:
      low, high = -1, len(positions) - 1
      while high - low > 1:
        middle = (low + high) // 2
        if self.outcome(cut(middle)) is not None:
          high = middle
        else:
          low = middle
      state = cut(high)
    # 3. Delta debugging over the ops left; the op making the outputs stays.
    last = max(r[0] for r in state.outputs if r[0] != "arg")
    outputs = state.outputs
    kept = search.minimize(
        [i for i in state.kept if i != last] + [last],
        lambda subset: self.outcome(_State(self.normalized(subset, outputs), outputs))
        is not None, keep_last=True)
    state = _State(self.normalized(kept, outputs), outputs)
    # 4. Constants to splats, then dynamic dimensions to the smallest size that still fails.
    for index in state.kept:
      if function.ops[index].name != ops.CONSTANT:
        continue
      value = self.values.get((index, 0))
      if value is None or _is_splat(value) or value.dtype.kind not in "biuf":
        continue
      first = value.reshape(-1)[0].item()
      candidate = dataclasses.replace(state, splats=state.splats + ((index, first),))
      if self.outcome(candidate) is not None:
        state = candidate
    return self._simpler_values(self._shrink(state))

  def _simpler_values(self, state: _State) -> _State:
    """Each input's values made simpler while the failure holds, as the examples engine's
    shrinking does: the whole input one value of `_LADDER` (fewer distinct values), else each
    of its first `_ELEMENTS` elements the first of the ladder, or the value truncated, that
    still fails. Deterministic; each candidate's expected outputs are the trusted backend's."""
    found = self.outcome(state)
    if found is None:
      return state
    for position, array in enumerate(found[0]):
      if array.dtype.kind not in "biuf" or array.size == 0:
        continue
      ladder = _ladder(array.dtype)
      whole = [v for v in ladder[:4] if not _all_equal(array, v)]
      for value in whole:
        candidate = dataclasses.replace(state, values=state.values + ((position, -1, value),))
        if self.outcome(candidate) is not None:
          state = candidate
          break
      else:
        for element in range(min(array.size, _ELEMENTS)):
          current = array.reshape(-1)[element].item()
          simpler = [v for v in ladder if abs(v) < abs(current)]
          if array.dtype.kind == "f" and np.isfinite(current) and \
              float(np.trunc(current)) != current:
            simpler.append(float(np.trunc(current)))
          for value in sorted(set(simpler), key=lambda v: (_rank(v, ladder), v)):
            candidate = dataclasses.replace(
                state, values=state.values + ((position, element, value),))
            if self.outcome(candidate) is not None:
              state = candidate
              break
          if self.runner.past_deadline():
            return state
    return state

  def _shrink(self, state: _State) -> _State:
    refs = ops.inputs_of(self.function, state.kept, state.outputs)
    sizes = sorted({self.values[r].shape[i] for r in refs
                    for i, d in enumerate(self.function.type_of(r)[len("tensor<"):]
                                          .split("x")[:-1]) if d == "?"}, reverse=True)
    for size in sizes:
      smaller = 1
      while smaller < size:
        candidate = dataclasses.replace(state, sizes=state.sizes + ((size, smaller),))
        if self.outcome(candidate) is not None:
          state = candidate
          break
        smaller *= 2
    return self._shrink_static(state)

  def _first_wrong(self, state: _State, shape: Tuple[int, ...]) -> Tuple[int, ...]:
    """The index of the first wrong element of the first wrong output of `shape`."""
    found = self.outcome(state)
    if found is not None:
      for want, got in zip(found[1], found[2]):
        if want.shape == shape == got.shape and want.dtype == got.dtype:
          first = _first_differing(want, got)
          if first >= 0:
            return tuple(int(i) for i in np.unravel_index(first, shape))
    return tuple(0 for _ in shape)

  def _shrink_static(self, state: _State) -> _State:
    """One static shape shared by every value of the kept ops (elementwise ops): each of its
    dims cut to the smallest of 1, 2, 4, ... that still fails, the window starting at the
    first wrong element."""
    function = self.function
    refs = set(ops.inputs_of(function, state.kept, state.outputs))
    refs.update(r for i in state.kept for r in function.results_of(i))
    shapes = {ops.shape_of(function.type_of(r)) for r in refs}
    if len(shapes) != 1 or any(function.ops[i].regions for i in state.kept):
      return state
    (old,) = shapes
    if old is None:
      return state
    first = self._first_wrong(state, old)
    new = list(old)
    for axis, size in enumerate(old):
      smaller = 1
      while smaller < size:
        shape = tuple(new[:axis] + [smaller] + new[axis + 1:])
        start = tuple(min(f, o - n) for f, o, n in zip(first, old, shape))
        candidate = dataclasses.replace(state, reshape=(old, shape, start))
        if self.outcome(candidate) is not None:
          state, new = candidate, list(shape)
          break
        smaller *= 2
    return state


def _probe(text: str, function: ops.Function, trusted: Side, arguments: Sequence[np.ndarray],
           reference: Sequence[np.ndarray], runner: Runner,
           policy: tolerances.TolerancePolicy) -> Tuple[Optional[Dict[ops.Ref, np.ndarray]], str]:
  """Every op's result as `trusted` computes it from the call's inputs, or (None, why not).
  The results are returned PROBE_BYTES (or the largest one) at a time, each group by the ops it
  needs alone: returned at once, a [4096, 4096] f32 chain's nine results made iree-run-module
  peak 16 T above its baseline."""
  outputs = tuple(dict.fromkeys(_tensor_results(function) + function.returns))
  groups = _probe_groups(function, outputs)
  values: Dict[ops.Ref, np.ndarray] = {}
  for number, group in enumerate(groups):
    kept = range(len(function.ops)) if len(groups) == 1 else function.slice_of(group)
    try:
      probe, refs = ops.build(text, function, kept, group)
      vmfb = runner.compile(probe, trusted)
    except ops.OpsError as e:
      return None, str(e)
    except compiler.CompileError as e:
      return None, f"{trusted.spec.name} does not compile it ({e.reason})"
    inputs = [arguments[r[1]] for r in refs]
    runner.tried += 1
    # A place of its own: its values stay on disk, mapped, while the candidates run.
    got, error = runner.run(vmfb, trusted, function.name, inputs, len(group),
                            place=f"probe_{trusted.spec.name}_{number}")
    mapped_arrays.release_pages(*inputs)
    if got is None:
      return None, f"{trusted.spec.name}: {error}"
    values.update(zip(group, got))
  values.update({("arg", i): np.asarray(a) for i, a in enumerate(arguments)})
  wrong = _compare([np.asarray(r) for r in reference],
                   [values[r] for r in function.returns[:len(reference)]], trusted, policy)
  if wrong:
    return None, (f"{trusted.spec.name} is wrong too ("
                  f"{comparison.describe(wrong[0]).splitlines()[0]})")
  return values, ""


# The probe's results returned by one run at most (or the largest one alone): a small module's
# all at once, as before; a big one's a tensor or so at a time.
PROBE_BYTES = 64 << 20
_BITS = re.compile(r"(\d+)>$")


def _probe_groups(function: ops.Function, outputs: Sequence[ops.Ref]
                  ) -> List[Tuple[ops.Ref, ...]]:
  """`outputs` in order, cut into runs of at most max(PROBE_BYTES, the largest) bytes (a value
  of a dynamic shape counts as none: its size is known only once run)."""
  sizes = []
  for ref in outputs:
    type_text = function.type_of(ref)
    shape, bits = ops.shape_of(type_text), _BITS.search(type_text)
    sizes.append(0 if shape is None or bits is None else
                 int(np.prod(shape, dtype=np.int64)) * max(1, int(bits.group(1)) // 8))
  budget = max([PROBE_BYTES] + sizes)
  groups: List[List[ops.Ref]] = []
  total = budget + 1
  for ref, size in zip(outputs, sizes):
    if total + size > budget:
      groups.append([])
      total = 0
    groups[-1].append(ref)
    total += size
  return [tuple(g) for g in groups]


def reduce_mismatch(text: str, function_name: str, failure: failures.Failure, suspect: Side,
                    trusted: Sequence[Side], arguments: Sequence[np.ndarray],
                    reference: Sequence[np.ndarray], work_dir: str,
                    cache: Optional[CompileCache], policy: tolerances.TolerancePolicy,
                    limits: timeouts.Timeouts, deadline: float) -> OpReduction:
  """The op level of a mismatch of `function_name` called with `arguments` (flat), whose
  reference outputs are `reference` (flat: the first results; a threaded stateful function
  returns its globals after them, judged against the trusted values only); `trusted`: the
  backends to take values from, in order (the first whose results agree with the reference
  is used)."""
  try:
    function = ops.parse(text, function_name)
  except ops.OpsError as e:
    return OpReduction(f"not at the op level: {e}")
  runner = Runner(work_dir, cache, limits, deadline)
  reasons = []
  for side in trusted:
    values, reason = _probe(text, function, side, arguments, reference, runner, policy)
    if values is None:
      reasons.append(reason)
      continue
    searching = _Mismatch(text, function, failure, suspect, side, values, runner, policy)
    state = searching.reduce()
    if state is None and runner.timed_out:
      reasons.append("the time budget ended before the op level could start")
      break
    if state is None:
      reasons.append(f"the function alone does not fail the same way against {side.spec.name}")
      continue
    program, refs = ops.build(text, function, state.kept, state.outputs, dict(state.splats),
                              state.reshape[:2] or None)
    found = searching.outcome(state)
    if found is None:  # the budget ended before the last candidate was judged.
      reasons.append("the time budget ended before the op level was judged")
      break
    inputs, expected, got = found
    difference = comparison.describe_all(_compare(expected, got, suspect, policy))
    return OpReduction("", len(function.ops), len(state.kept), program, function_name,
                       side.spec.name, inputs, expected, got, tried=runner.tried,
                       timed_out=runner.timed_out, difference=difference)
  return OpReduction("not at the op level: " + "; ".join(reasons), len(function.ops),
                     len(function.ops), tried=runner.tried, timed_out=runner.timed_out)


def as_called(text: str, function_name: str, failure: failures.Failure, suspect: Side,
              arguments: Sequence[np.ndarray], reference: Sequence[np.ndarray], work_dir: str,
              cache: Optional[CompileCache], policy: tolerances.TolerancePolicy,
              limits: timeouts.Timeouts, deadline: float, note: str) -> OpReduction:
  """The program as it is (`text`, one call of `function_name` fed `arguments`), judged on the
  suspect against the reference's outputs: the standalone form of a failure no smaller program
  shows (one that needs its globals). `note`: why the ops were not cut, for the report."""
  runner = Runner(work_dir, cache, limits, deadline)
  ops_count = len(ops.parse(text, function_name).ops)
  runner.tried += 1
  try:
    vmfb = runner.compile(text, suspect)
  except compiler.CompileError as e:
    return OpReduction(f"not at the op level: {note}; the program does not compile alone "
                       f"({e.reason})", ops_count, ops_count, tried=runner.tried)
  got, error = runner.run(vmfb, suspect, function_name, arguments, len(reference))
  if got is None:
    return OpReduction(f"not at the op level: {note}; {error}", ops_count, ops_count,
                       tried=runner.tried)
  found = _compare([np.asarray(r) for r in reference], got, suspect, policy)
  outcome = verdicts.Outcome(
      failure.backend, verdicts.Status.MISMATCH if found else verdicts.Status.PASS,
      call_method=failure.method, mismatches=tuple(found))
  if not failures.same_failure(failure, outcome):
    return OpReduction(f"not at the op level: {note}; run alone with iree-run-module it does "
                       "not fail the same way", ops_count, ops_count, tried=runner.tried)
  return OpReduction("", ops_count, ops_count, text, function_name, REFERENCE,
                     tuple(runner.written),
                     tuple(np.asarray(r) for r in reference), tuple(got), tried=runner.tried,
                     difference=comparison.describe_all(found), state=note)


def reduce_compile_error(text: str, function_name: str, failure: failures.Failure,
                         suspect: Side, work_dir: str, cache: Optional[CompileCache],
                         limits: timeouts.Timeouts, deadline: float) -> OpReduction:
  """The fewest ops of `function_name` that still fail to compile the same way."""
  try:
    function = ops.parse(text, function_name)
  except ops.OpsError as e:
    return OpReduction(f"not at the op level: {e}")
  runner = Runner(work_dir, cache, limits, deadline)
  known: Dict[Tuple[int, ...], Optional[Tuple[str, str]]] = {}

  def fails(kept: Sequence[int]) -> Optional[Tuple[str, str]]:
    kept = tuple(sorted(kept))
    if kept not in known:
      known[kept] = None
      if kept and not runner.past_deadline():
        runner.tried += 1
        try:
          candidate, _ = ops.build(text, function, kept, function.leaves(kept))
          runner.compile(candidate, suspect)
        except ops.OpsError:
          pass
        except compiler.CompileError as e:
          outcome = verdicts.Outcome(failure.backend, verdicts.Status.COMPILE_ERROR, str(e))
          if failures.same_failure(failure, outcome):
            known[kept] = (candidate, str(e))
    return known[kept]

  everything = tuple(range(len(function.ops)))
  if fails(everything) is None:
    why = ("the time budget ended before the op level could start" if runner.timed_out else
           "the function's ops returned as results do not fail to compile the same way")
    return OpReduction(f"not at the op level: {why}", len(function.ops), len(function.ops),
                       tried=runner.tried, timed_out=runner.timed_out)
  kept = search.minimize(list(everything), lambda subset: fails(subset) is not None)
  found = fails(kept) or fails(everything)
  if found is None:  # `known` holds what every op fails with (checked above).
    raise AssertionError("the failure of every op is no longer known")
  program, error = found
  return OpReduction("", len(function.ops), len(kept), program, function_name,
                     error=error, tried=runner.tried, timed_out=runner.timed_out)


SCRIPT = '''#!{python}
{docstring}
import os, subprocess, sys
import numpy as np
HERE = os.path.dirname(os.path.abspath(__file__))
COMPILE = {compile_tool!r}
RUN = {run_tool!r}
FLAGS = {flags!r}
DEVICE = {device!r}
FUNCTION = {function!r}
INPUTS = {inputs!r}  # (raw bytes file, its shape and element type)
EXPECTED = {expected!r}  # the trusted backend's outputs
TOLERANCES = {tolerances!r}  # dtype name: (rtol, atol), the library's table
vmfb = os.path.join(HERE, "reduced.vmfb")
done = subprocess.run([COMPILE, os.path.join(HERE, "reduced.mlir"),
                       "--iree-input-type=stablehlo_xla", *FLAGS, "-o", vmfb],
                      capture_output=True, text=True)
if done.returncode != 0:
  errors = [l for l in done.stderr.splitlines() if "error:" in l] or done.stderr.splitlines()
  print("compile error: " + (errors[0] if errors else f"exit status {{done.returncode}}"))
  sys.exit(1)
if not EXPECTED:
  print("compiles")
  sys.exit(0)
outputs = [os.path.join(HERE, f"got_{{i}}.npy") for i in range(len(EXPECTED))]
subprocess.run([RUN, f"--device={{DEVICE}}", f"--module={{vmfb}}", f"--function={{FUNCTION}}",
                *[f"--input={{kind}}=@{{os.path.join(HERE, name)}}" for name, kind in INPUTS],
                *[f"--output=@{{f}}" for f in outputs]], check=True, stdout=subprocess.DEVNULL)


def wrong(want, got):
  """The elements of `got` off `want` under the dtype's tolerance; None: another shape or dtype."""
  if want.shape != got.shape or want.dtype != got.dtype:
    return None
  if want.dtype.name not in TOLERANCES:
    return got != want
  rtol, atol = TOLERANCES[want.dtype.name]
  return ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


diverges = False
for i, name in enumerate(EXPECTED):
  want, got = np.load(os.path.join(HERE, name)), np.load(outputs[i])
  mask = wrong(want, got)
  if mask is None:
    print(f"output {{i}}: expected {{want.dtype}}{{list(want.shape)}}, got "
          f"{{got.dtype}}{{list(got.shape)}}")
  elif mask.any():
    at = np.unravel_index(int(np.argmax(mask)), mask.shape)
    print(f"output {{i}}: {{int(mask.sum())}} of {{mask.size}} elements differ, e.g. at "
          f"{{[int(j) for j in at]}}: expected {{want[at].item()!r}}, got {{got[at].item()!r}}")
  diverges = diverges or mask is None or bool(mask.any())
print("DIVERGES" if diverges else "same")
sys.exit(1 if diverges else 0)
'''


def write(result: OpReduction, directory: str, suspect: Side,
          policy: tolerances.TolerancePolicy, named: Optional[str] = None) -> OpReduction:
  """Writes reduced.mlir, its inputs (.npy, and the raw bytes iree-run-module reads), the
  trusted outputs (expected_N.npy) and reduced.py into `directory`; returns `result` with the
  script's path and the compile command, in `named` (default `directory`): where the files
  will be once the directory they were written in is published there."""
  safe_files.write_text(os.path.join(directory, PROGRAM_NAME), result.program)
  inputs = []
  for index, array in enumerate(result.inputs):
    _save_npy(os.path.join(directory, f"input_{index}.npy"), array)
    value = save_value(directory, f"input_{index}", array)
    inputs.append((value.split("=@")[1], value.split("=@")[0]))
  expected = []
  for index, array in enumerate(result.expected):
    expected.append(f"expected_{index}.npy")
    _save_npy(os.path.join(directory, expected[-1]), array)
  names = (suspect.name, suspect.spec.name) + suspect.spec.aliases
  table = {}
  for name in tolerances.DEFAULT_TOLERANCES:
    if name == "bfloat16":
      continue
    tolerance = policy.for_dtype(np.dtype(name), names)
    table[name] = (tolerance.rtol, tolerance.atol)
  compile_tool = _compile_tool()
  title = (f"The reduced program of {result.function} on {suspect.spec.name}: "
           + ("its compile error." if result.error else
              f"its outputs against {result.trusted}'s."))
  prints = ("the compile error (exit 1) or `compiles`" if result.error
            else "DIVERGES (exit 1) or same (exit 0); a compile error exits 1 too")
  script = SCRIPT.format(
      python=sys.executable, docstring=quoting.docstring(
          f"{title}\nNeeds numpy and IREE's tools only (absolute paths); prints {prints}."),
      compile_tool=compile_tool, run_tool=repro.iree_run_module_binary() or "iree-run-module",
      flags=suspect.command_flags(), device=suspect.spec.driver, function=result.function,
      inputs=inputs, expected=expected, tolerances=table)

  def executable(f) -> None:
    f.write(script.encode("utf-8"))
    os.fchmod(f.fileno(), 0o755)

  safe_files.write_with(os.path.join(directory, SCRIPT_NAME), executable)
  named = named or directory
  command = shlex.join([compile_tool, os.path.join(named, PROGRAM_NAME),
                        "--iree-input-type=stablehlo_xla", *suspect.command_flags(),
                        "-o", os.path.join(named, "reduced.vmfb")])
  return dataclasses.replace(result, script=os.path.join(named, SCRIPT_NAME), command=command)


def _compile_tool() -> str:
  try:
    from iree.compiler.tools import binaries
    return os.path.normpath(binaries.find_tool("iree-compile"))
  except Exception:  # a runtime-only machine: the name.
    return "iree-compile"

