# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline | FileCheck %s
#
# Inputs are read-only: the runtime may hand the entry the caller's own
# memory (an unmapped input, or a whole chunk of a mapped one). A loop carry
# initialised from an input is copied into the arena and updated there; no
# op writes through an input argument.

fn f(x: f32[64], w: f32[64]) -> f32[64] {
  for i in range(4) carry (acc = w) {
    yield acc * 2.0;
  }
  for j in range(3) carry (b = x) {
    yield tanh(b);
  }
  return acc * b;
}
export e = vmap(f, in_axes=(0, none), batch=4);

# CHECK-LABEL: func.func @e(
# CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<4x64xf32> {{{[^}]*}}arr.staging{{[^}]*}}}, %[[W:[a-z0-9]+]]: memref<64xf32> {arr.name = "w"}, %[[OUT:[a-z0-9]+]]: memref<4x64xf32>{{.*}}, %[[ARENA:[a-z0-9]+]]: memref<2304xi8> {arr.arena})
# CHECK-NOT:     outs(%[[X]]
# CHECK-NOT:     outs(%[[W]]
# CHECK:         %[[ACC:.+]] = memref.view %[[ARENA]]
# CHECK:         sched.dispatch @{{[a-z0-9_]+}}(%[[W]] : memref<64xf32>) outs(%[[ACC]] : memref<64xf32>)
# CHECK:         scf.for
# CHECK:         }
# CHECK-NEXT:    %[[B:.+]] = memref.view %[[ARENA]]
# CHECK-NEXT:    sched.dispatch @{{[a-z0-9_]+}}(%[[X]] : memref<4x64xf32>) outs(%[[B]] : memref<4x64xf32>)
# CHECK-NOT:     outs(%[[X]]
# CHECK-NOT:     outs(%[[W]]
# CHECK:         return
