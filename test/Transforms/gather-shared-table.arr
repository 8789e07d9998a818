# RUN: vmapc-opt %s --arr-vmap --inline --symbol-dce --canonicalize | FileCheck %s
# RUN: vmapc plan %s | FileCheck %s --check-prefix=PLAN

# An embedding lookup under vmap: batched ids into a table shared by every
# example (in_axes none). JAX's gather batching rule reads the one table:
# the batch dimension becomes an index dimension of one arr.gather, the
# table is not broadcast, and the plan holds no B-fold copy of it (256
# examples x 1000 x 64 f32 would be 65536000 bytes): only the staging slots
# of the ids (256 x 16 i32) and of the output (256 x 16 x 64 f32); the
# table is read in place.

fn embed(table: f32[1000, 64], ids: i32[16]) -> f32[16, 64] {
  return take(table, ids, axis=0);
}
export embed_e = vmap(embed, in_axes=(none, 0), batch=256);

# CHECK-LABEL: func.func @embed_e(
# CHECK-SAME:      %[[T:.+]]: tensor<1000x64xf32> {arr.name = "table"}, %[[I:.+]]: tensor<256x16xi32> {arr.name = "ids"})
# CHECK-NOT:     arr.broadcast_in_dim
# CHECK:         %[[E:.+]] = arr.gather %[[T]][%[[I]]], axis = 0, batch_dims = 0, mode = fill : (tensor<1000x64xf32>, tensor<256x16xi32>) -> tensor<256x16x64xf32>
# CHECK-NEXT:    return %[[E]]

# PLAN:      entry embed_e: 2 buffers over 3 schedule points
# PLAN:        ids 16384 
# PLAN-NEXT:   out 1048576 
# PLAN-NEXT:   arena 1064960 bytes, lower bound 1064960 bytes
