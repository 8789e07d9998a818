# The kernels' LLVM pipeline (codegen/CpuObject.cpp) leaves a loop over a
# contraction's column tiles rolled (vmapc-keep-tile-loops-rolled,
# codegen/KernelLoopPasses.h): at x86-64-v3 the 32 columns are two tiles of
# 16, and the row-tile loop of 4 x 16 accumulators (4 multiplies of
# <16 x float> a step) is in the optimized module once, not once per column
# tile. LLVM's own options reach the pipeline: --print-after prints the
# module after each of its two global DCEs, and --time-passes times its
# passes.
#
# RUN: vmapc compile %s --cpu-isa=x86-64-v3 -j 1 -o %t.vmapc --print-after=globaldce --print-module-scope 2>&1 >/dev/null | FileCheck %s
# RUN: vmapc compile %s --cpu-isa=x86-64-v3 -j 1 -o %t.vmapc --time-passes 2>&1 >/dev/null | FileCheck %s --check-prefix=TIME

fn layer(x: f32[64], w: f32[64, 32]) -> f32[32] {
  return x @ w;
}
export f = vmap(layer, in_axes=(0, none), batch=256);

# CHECK:           IR Dump After GlobalDCEPass
# CHECK-COUNT-4:   fmul contract <16 x float>
# CHECK-NOT:       fmul contract <16 x float>
# CHECK:           IR Dump After GlobalDCEPass
# CHECK-COUNT-4:   fmul contract <16 x float>
# CHECK-NOT:       fmul contract <16 x float>
# The mark has no operand (an `i32 0` would read as false to the unroller).
# CHECK:           = !{!"llvm.loop.unroll.disable"}

# TIME: Pass execution timing report
# TIME: LoopFullUnrollPass
