# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v4 --mlir-print-ir-after=arr-cpu-vectorize -o /dev/null 2>&1 | FileCheck %s

# An elementwise op that reads a value per row (a row's max, broadcast along
# the row: attention's softmax) is tiled like any elementwise op, a row at a
# time in 4 vectors with the row's value splatted. The per-row input is
# contiguous along the rows, but it does not read along the output's
# innermost loop, so it is not the other side of a transpose: before, it
# took 16 x 16 register tiles at AVX-512 (a broadcast and a vector.transpose
# of 16 rows, and 16 exps unrolled in one loop body), which took attention's
# x86-64-v4 compile from 125 to 170 ms for no run-time gain.

fn shift_exp(s: f32[128]) -> f32[128] {
  return exp(s - max(s));
}
fn rows(x: f32[32, 128]) -> f32[32, 128] {
  return vmap(shift_exp)(x);
}
export g = vmap(rows, batch=4);

# CHECK-LABEL: func.func private @g_dispatch_0(
# CHECK-NOT:     vector.transpose
# CHECK:         scf.for %[[ROW:[^ ]+]] = %c0 to %c32 step %c1 iter_args({{.+}}) -> (tensor<1x32x128xf32>)
# CHECK-NEXT:      scf.for %{{.+}} = %c0 to %c128 step %c64 iter_args
# CHECK-NOT:     vector.transpose
# CHECK:             %[[MAX:.+]] = vector.transfer_read %{{.+}}[%c0, %[[ROW]]]{{.*}} vector<f32>
# CHECK-NEXT:        %[[SPLAT:.+]] = vector.broadcast %[[MAX]] : vector<f32> to vector<64xf32>
# CHECK-NEXT:        %[[SHIFTED:.+]] = arith.subf %{{.+}}, %[[SPLAT]] {{.*}}: vector<64xf32>
# CHECK-NEXT:        math.exp %[[SHIFTED]] : vector<64xf32>
# CHECK-NOT:     vector.transpose
# CHECK:         return
