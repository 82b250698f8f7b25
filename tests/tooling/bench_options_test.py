"""bench/run_benchmark.py's --only: benchmarks by name, the old one-letter keys still accepted
(docs and notes quote them), and a word it does not know refused naming what is valid."""

import importlib.util
import os
import sys

import pytest

from tests.support.repo import ROOT

BENCH = os.path.join(ROOT, "bench")


def _load(name: str):
  spec = importlib.util.spec_from_file_location(name, os.path.join(BENCH, f"{name}.py"))
  assert spec is not None and spec.loader is not None
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


@pytest.fixture(scope="module")
def run_benchmark():
  # It imports suite_ratios beside it, as a script finds it: given it first, by name.
  saved = sys.modules.get("suite_ratios")
  sys.modules["suite_ratios"] = _load("suite_ratios")
  try:
    yield _load("run_benchmark")
  finally:
    if saved is None:
      sys.modules.pop("suite_ratios", None)
    else:
      sys.modules["suite_ratios"] = saved


def test_names_and_old_keys_select_the_same_benchmarks(run_benchmark):
  assert run_benchmark.selected_sections("file,warm,long_trace,resnet50") == {"1", "W", "L", "R"}
  assert run_benchmark.selected_sections("1,W,L,R") == {"1", "W", "L", "R"}
  assert run_benchmark.selected_sections("localize, V") == {"7", "V"}
  assert run_benchmark.selected_sections("localize_resnet50,7r") == {"7r"}


def test_every_benchmark_has_a_name_and_the_default_runs_them_all(run_benchmark):
  keys = [key for key, _ in run_benchmark.SECTION_NAMES.values()]
  assert len(set(keys)) == len(keys)
  assert run_benchmark.selected_sections(",".join(run_benchmark.SECTION_NAMES)) == set(keys)


@pytest.mark.parametrize("only", ["bogus", "file,warmcache", ",", ""])
def test_an_unknown_or_empty_selection_is_one_error_naming_the_valid_names(run_benchmark, only):
  with pytest.raises(ValueError) as raised:
    run_benchmark.selected_sections(only)
  message = str(raised.value)
  assert "\n" not in message and "--only" in message and "long_trace" in message
