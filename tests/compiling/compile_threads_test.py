"""Compiles that occupy every CPU run single-threaded (three at once on 2 CPUs: ~10% faster).

A batch (`iree_compile.batch`) of at least as many compiles at once as there are CPUs gives
each iree-compile `--mlir-disable-threading`, outside the cache key, without changing a byte of
its output; a lone compile keeps its threads, and a flag the user gave is not repeated. The
class set-up batches its concurrent compiles, `--compile_jobs=1` does not. Real iree-compile;
the commands are read by wrapping (not replacing) `iree_compile.run`.
"""

import os
import tempfile
from typing import List, Sequence

from absl.testing import absltest
import tensorflow as tf

from pyiree_tf_support.compiling import compiler
from pyiree_tf_support.compiling import iree_compile
from pyiree_tf_support.core.run_settings import RunSettings
from pyiree_tf_support.harness import class_setup

_INPUT = """
func.func @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

FLAG = iree_compile.SINGLE_THREADED_FLAG


class Doubler(tf.Module):

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def double(self, x):
    return x + x


class Tripler(tf.Module):  # another input: identical compiles happen once per process.

  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def triple(self, x):
    return x * 3.0


def _cpus() -> int:
  return len(os.sched_getaffinity(0))


class CompileThreadsTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.commands: List[Sequence[str]] = []
    real = iree_compile.run

    def recording(command, stdin, timeout):
      self.commands.append(list(command))
      return real(command, stdin, timeout)

    iree_compile.run = recording
    self.addCleanup(setattr, iree_compile, "run", real)

  def _compile(self, flags=()) -> bytes:
    request = compiler.CompileRequest(_INPUT, ("vmvx",), tuple(flags))
    return compiler.compile_request(request, "Doubler for vmvx")

  def test_a_batch_filling_every_cpu_compiles_single_threaded_with_the_same_output(self):
    alone = self._compile()
    with iree_compile.batch(_cpus()):
      batched = self._compile()
    self.assertNotIn(FLAG, self.commands[0])
    self.assertIn(FLAG, self.commands[1])
    self.assertEqual(alone, batched)
    self.assertFalse(iree_compile.single_threaded())  # the batch is over.

  def test_a_smaller_batch_keeps_the_threads(self):
    with iree_compile.batch(max(1, _cpus() - 1)):
      self._compile()
    self.assertNotIn(FLAG, self.commands[0])

  def test_a_users_own_flag_is_given_once(self):
    with iree_compile.batch(_cpus()):
      self._compile([FLAG])
    self.assertEqual(self.commands[0].count(FLAG), 1)

  def test_the_flag_is_not_in_the_cache_key_nor_the_rerun_command(self):
    request = compiler.CompileRequest(_INPUT, ("vmvx",))
    with iree_compile.batch(_cpus()):
      key = request.key()
      command = compiler.rerun_command(request, "reproducer.mlir")
    self.assertEqual(key, request.key())
    self.assertNotIn(FLAG, command)

  def _set_up(self, module_class, compile_jobs):
    settings = RunSettings(target_backends=("iree_vmvx", "iree_llvmcpu"),
                           artifacts_dir=tempfile.mkdtemp(), compile_jobs=compile_jobs)
    setup = class_setup.set_up_class(module_class, [], settings)
    for target in setup.targets:
      if target.module is not None:
        self.addCleanup(target.module.close)
    return setup

  @absltest.skipIf(_cpus() > 2, "the set-up compiles two distinct targets at once")
  def test_the_set_up_batches_its_concurrent_compiles(self):
    self._set_up(Doubler, compile_jobs=None)
    self.assertLen(self.commands, 2)
    self.assertTrue(all(FLAG in command for command in self.commands), self.commands)

  def test_compile_jobs_1_compiles_with_threads(self):
    self._set_up(Tripler, compile_jobs=1)
    self.assertLen(self.commands, 2)
    self.assertFalse(any(FLAG in command for command in self.commands), self.commands)


if __name__ == "__main__":
  absltest.main()
