"""Test files that tests write to disk and run as a user would (absltest, pytest, Bazel).

One home for the template many tests repeat: a one-method module whose method returns `body`
(an expression of its float32[4] argument `a`), and a TracedModuleTestCase calling it once.
"""

ONE_METHOD_TEST = '''
import numpy as np
import tensorflow as tf
from pyiree_tf_support import tf_test_utils

class {name}Module(tf.Module):
  @tf.function(input_signature=[tf.TensorSpec([4], tf.float32)])
  def f(self, a):
    return {body}

@tf_test_utils.compile_module({name}Module)
class {name}Test(tf_test_utils.TracedModuleTestCase):
  def test_f(self):
    self.compare_backends(lambda module: module.f(np.arange(4, dtype=np.float32)))

if __name__ == "__main__":
  tf.test.main()
'''


def one_method_test(name: str, body: str) -> str:
  """The text of a test file named for `name` whose module's method returns `body`."""
  return ONE_METHOD_TEST.format(name=name, body=body)
