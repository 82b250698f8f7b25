"""An idle Vulkan device (lavapipe) keeps two threads polling until it is destroyed.

IREE's runtime alone: compile one function for vulkan-spirv, call it once, idle 2 s with the
device live, then 2 s after releasing it; print the CPU seconds of each and each busy thread.
"""
import gc
import os
import sys
import time

import iree.compiler
import iree.runtime
import numpy as np

IDLE_SECONDS = 2.0
SPIN_CPU_SECONDS = 0.2  # An idle process uses ~0; a live device here uses 0.8-4 (load-dependent).


def cpu() -> float:
  times = os.times()
  return times.user + times.system


def busy_threads() -> str:
  busy = []
  for tid in sorted(os.listdir("/proc/self/task"), key=int):
    with open(f"/proc/self/task/{tid}/stat") as f:
      name, fields = f.read().split(" (", 1)[1].rsplit(") ", 1)
    ticks = int(fields.split()[11]) + int(fields.split()[12])
    if ticks:
      busy.append(f"{tid} '{name}' {ticks} ticks")
  return ", ".join(busy)


def idle_cpu() -> float:
  before = cpu()
  time.sleep(IDLE_SECONDS)
  return cpu() - before


device_flag = sys.argv[1] if len(sys.argv) > 1 else "--device=vulkan"
vmfb = iree.compiler.compile_str(
    "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
    "  %0 = arith.addf %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
    target_backends=["vulkan-spirv"], input_type="auto")
device = iree.runtime.get_device(device_flag.split("=", 1)[1], cache=False)
config = iree.runtime.Config(device=device)
context = iree.runtime.SystemContext(config=config)
context.add_vm_module(iree.runtime.VmModule.copy_buffer(context.instance, vmfb))
context.modules.module.f(np.ones([4], np.float32))
live = idle_cpu()
print(f"live device, {IDLE_SECONDS:g} s idle: {live:.2f} CPU-s, "
      f"{len(os.listdir('/proc/self/task'))} threads; busy: {busy_threads()}")
del context, config, device
gc.collect()
released = idle_cpu()
print(f"released, {IDLE_SECONDS:g} s idle: {released:.2f} CPU-s, "
      f"{len(os.listdir('/proc/self/task'))} threads")
if live > SPIN_CPU_SECONDS and released < SPIN_CPU_SECONDS:
  print(f"FIRST_ERROR: an idle Vulkan device used more than {SPIN_CPU_SECONDS} CPU-s in "
        f"{IDLE_SECONDS:g} s (IREE's queue completion threads poll in lavapipe), ~0 once released")
  sys.exit(1)
print("NO FAILURE")
