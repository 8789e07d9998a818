// RUN: vmapc-opt %s -split-input-file --arr-tile-workgroups -verify-diagnostics | FileCheck %s

// A root with a batch loop needs the chunk's number of examples to bound it.
#map = affine_map<(d0, d1) -> (d0, d1)>
// expected-error @+1 {{has a batch loop but no 'sched.num_examples' argument}}
func.func private @k(%arg0: memref<8x16xf32>, %arg1: memref<8x16xf32>) attributes {sched.kernel} {
  %0 = bufferization.to_tensor %arg0 restrict : memref<8x16xf32> to tensor<8x16xf32>
  %1 = bufferization.to_tensor %arg1 restrict writable : memref<8x16xf32> to tensor<8x16xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8x16xf32>) outs(%1 : tensor<8x16xf32>) attrs = {sched.batch_loop = 0 : i64} {
  ^bb0(%in: f32, %out: f32):
    %3 = math.exp %in : f32
    linalg.yield %3 : f32
  } -> tensor<8x16xf32>
  bufferization.materialize_in_destination %2 in writable %arg1 : (tensor<8x16xf32>, memref<8x16xf32>) -> ()
  return
}

// -----

// A kernel with nothing to tile (a copy) runs as one workgroup.
// CHECK-LABEL: func.func private @copy(
// CHECK-SAME:      sched.workgroup_count = array<i64: 1, 1, 1>
// CHECK-NEXT:    memref.copy
func.func private @copy(%arg0: memref<8xf32>, %arg1: memref<8xf32>) attributes {sched.kernel} {
  memref.copy %arg0, %arg1 : memref<8xf32> to memref<8xf32>
  return
}
