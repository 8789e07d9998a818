// RUN: vmapc-opt %s --arr-bufferize-kernels | FileCheck %s

// An scf.if that yields a view of a binding (8 rows in place) or a new
// buffer (a padded copy, passes/Codegen/PadSlab.h): one-shot bufferization
// alone types its result with a fully dynamic layout, where the row stride
// is unknown and no row is a vector load. The pass gives it the layout
// both branches share, [16, 1] with the offset unknown, and casts back for
// its users (canonicalization folds the cast into them).
// CHECK-LABEL: func.func private @k_dispatch_0(
// CHECK:         %[[R:.+]] = scf.if %{{.+}} -> (memref<8x16xf32, strided<[16, 1], offset: ?>>) {
// CHECK:           %[[A:.+]] = memref.alloc() {{.+}} : memref<8x16xf32>
// CHECK-NOT:       strided<[?, ?]
// CHECK:           %[[C:.+]] = memref.cast %[[A]] : memref<8x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT:      scf.yield %[[C]]
// CHECK:         } else {
// CHECK-NEXT:      %[[V:.+]] = memref.subview %{{.+}}[%{{.+}}, 0] [8, 16] [1, 1] : memref<64x16xf32> to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT:      scf.yield %[[V]]
// CHECK:         memref.cast %[[R]] : memref<8x16xf32, strided<[16, 1], offset: ?>> to memref<8x16xf32, strided<[?, ?], offset: ?>>

// Two views, at offset 0 and at a dynamic offset: the offset is unknown,
// the strides are kept.
// CHECK:         %[[R2:.+]] = scf.if %{{.+}} -> (memref<8x16xf32, strided<[16, 1], offset: ?>>) {
// CHECK:           memref.subview {{.+}} to memref<8x16xf32, strided<[16, 1]>>
// CHECK:           memref.cast {{.+}} : memref<8x16xf32, strided<[16, 1]>> to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK:         } else {
// CHECK-NEXT:      %[[V2:.+]] = memref.subview {{.+}} to memref<8x16xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT:      scf.yield %[[V2]]

#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func private @k_dispatch_0(%arg0: memref<64x16xf32>, %arg1: memref<64x16xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel, sched.workgroup_count = array<i64: -8, 1, 1>} {
    %cst = arith.constant 0.000000e+00 : f32
    %c8 = arith.constant 8 : index
    %0 = bufferization.to_tensor %arg0 restrict : memref<64x16xf32> to tensor<64x16xf32>
    %1 = bufferization.to_tensor %arg1 restrict writable : memref<64x16xf32> to tensor<64x16xf32>
    %2 = scf.forall (%i) = (0) to (%arg2) step (8) shared_outs(%out = %1) -> (tensor<64x16xf32>) {
      %partial = arith.cmpi slt, %arg2, %c8 : index
      %x = scf.if %partial -> (tensor<8x16xf32>) {
        %e = tensor.empty() : tensor<8x16xf32>
        %f = linalg.fill ins(%cst : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
        scf.yield %f : tensor<8x16xf32>
      } else {
        %s = tensor.extract_slice %0[%i, 0] [8, 16] [1, 1] : tensor<64x16xf32> to tensor<8x16xf32>
        scf.yield %s : tensor<8x16xf32>
      }
      %y = scf.if %partial -> (tensor<8x16xf32>) {
        %s = tensor.extract_slice %0[0, 0] [8, 16] [1, 1] : tensor<64x16xf32> to tensor<8x16xf32>
        %t = tensor.extract_slice %s[0, 0] [8, 16] [1, 1] : tensor<8x16xf32> to tensor<8x16xf32>
        scf.yield %t : tensor<8x16xf32>
      } else {
        %s = tensor.extract_slice %0[%i, 0] [8, 16] [1, 1] : tensor<64x16xf32> to tensor<8x16xf32>
        scf.yield %s : tensor<8x16xf32>
      }
      %o = tensor.extract_slice %out[%i, 0] [8, 16] [1, 1] : tensor<64x16xf32> to tensor<8x16xf32>
      %r = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<8x16xf32>, tensor<8x16xf32>) outs(%o : tensor<8x16xf32>) {
      ^bb0(%a: f32, %b: f32, %c: f32):
        %z = arith.addf %a, %b : f32
        linalg.yield %z : f32
      } -> tensor<8x16xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %r into %out[%i, 0] [8, 16] [1, 1] : tensor<8x16xf32> into tensor<64x16xf32>
      }
    }
    bufferization.materialize_in_destination %2 in writable %arg1 : (tensor<64x16xf32>, memref<64x16xf32>) -> ()
    return
  }
}
