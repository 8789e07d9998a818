// RUN: vmapc-opt %s --arr-bufferize-entries | FileCheck %s

// concat((exp(x) * 2, exp(x) + 1)) after --arr-form-dispatches and
// --arr-outputs-to-destinations. The entry is bufferized: its arguments
// become memrefs, exp(x), which crosses dispatches, an allocation, and each
// dispatch writes its init's buffer (both pieces the output itself, in
// destination-passing style). The kernels keep their bodies on tensors.

// CHECK-LABEL: func.func private @e_dispatch_0(
// CHECK-SAME:      %{{.+}}: memref<8x16xf32>, %{{.+}}: memref<8x16xf32>, %{{.+}}: index {sched.num_examples}) attributes {sched.kernel}
// CHECK:         bufferization.to_tensor
// CHECK:         linalg.generic {{.+}} outs(%{{.+}} : tensor<8x16xf32>)
// CHECK:           math.exp
// CHECK:         bufferization.materialize_in_destination
// CHECK-LABEL: func.func private @e_dispatch_1(
// CHECK:         linalg.generic {{.+}} outs(%{{.+}} : tensor<8x16xf32>)
// CHECK-LABEL: func.func private @e_dispatch_2(
// CHECK:         linalg.generic {{.+}} outs(%{{.+}} : tensor<8x16xf32>)

// CHECK-LABEL: func.func @e(
// CHECK-SAME:      %[[X:[a-z0-9]+]]: memref<8x16xf32> {arr.name = "x", arr.staging}, %[[OUT:[a-z0-9]+]]: memref<8x32xf32> {arr.name = "out", arr.output, arr.staging})
// CHECK-NEXT:    %[[N:.+]] = sched.num_examples : index
// CHECK-NEXT:    %[[Y:.+]] = memref.alloc() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK-NEXT:    sched.dispatch @e_dispatch_0(%[[X]] : memref<8x16xf32>) outs(%[[Y]] : memref<8x16xf32>) scalars(%[[N]]){{$}}
// CHECK-NEXT:    sched.dispatch @e_dispatch_1(%[[Y]] : memref<8x16xf32>) outs(%[[OUT]] : memref<8x32xf32>) scalars(%[[N]]){{$}}
// CHECK-NEXT:    sched.dispatch @e_dispatch_2(%[[Y]] : memref<8x16xf32>) outs(%[[OUT]] : memref<8x32xf32>) scalars(%[[N]]){{$}}
// CHECK-NOT:     tensor
// CHECK:         return

#map = affine_map<(d0, d1) -> (d0, d1)>
module {
  func.func private @e_dispatch_0(%arg0: memref<8x16xf32>, %arg1: memref<8x16xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel} {
    %0 = bufferization.to_tensor %arg0 restrict : memref<8x16xf32> to tensor<8x16xf32>
    %1 = bufferization.to_tensor %arg1 restrict writable : memref<8x16xf32> to tensor<8x16xf32>
    %2 = tensor.empty() : tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8x16xf32>) outs(%1 : tensor<8x16xf32>) attrs =  {sched.batch_loop = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %4 = math.exp %in : f32
      linalg.yield %4 : f32
    } -> tensor<8x16xf32>
    bufferization.materialize_in_destination %3 in writable %arg1 : (tensor<8x16xf32>, memref<8x16xf32>) -> ()
    return
  }
  func.func private @e_dispatch_1(%arg0: memref<8x16xf32>, %arg1: memref<8x32xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel} {
    %cst = arith.constant 2.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<8x16xf32> to tensor<8x16xf32>
    %1 = tensor.empty() : tensor<8x16xf32>
    %subview = memref.subview %arg1[0, 0] [8, 16] [1, 1] : memref<8x32xf32> to memref<8x16xf32, strided<[32, 1]>>
    %2 = bufferization.to_tensor %subview restrict writable : memref<8x16xf32, strided<[32, 1]>> to tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8x16xf32>) outs(%2 : tensor<8x16xf32>) attrs =  {sched.batch_loop = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %4 = arith.mulf %in, %cst : f32
      linalg.yield %4 : f32
    } -> tensor<8x16xf32>
    bufferization.materialize_in_destination %3 in writable %subview : (tensor<8x16xf32>, memref<8x16xf32, strided<[32, 1]>>) -> ()
    return
  }
  func.func private @e_dispatch_2(%arg0: memref<8x16xf32>, %arg1: memref<8x32xf32>, %arg2: index {sched.num_examples}) attributes {sched.kernel} {
    %cst = arith.constant 1.000000e+00 : f32
    %0 = bufferization.to_tensor %arg0 restrict : memref<8x16xf32> to tensor<8x16xf32>
    %1 = tensor.empty() : tensor<8x16xf32>
    %subview = memref.subview %arg1[0, 16] [8, 16] [1, 1] : memref<8x32xf32> to memref<8x16xf32, strided<[32, 1], offset: 16>>
    %2 = bufferization.to_tensor %subview restrict writable : memref<8x16xf32, strided<[32, 1], offset: 16>> to tensor<8x16xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<8x16xf32>) outs(%2 : tensor<8x16xf32>) attrs =  {sched.batch_loop = 0 : i64} {
    ^bb0(%in: f32, %out: f32):
      %4 = arith.addf %in, %cst : f32
      linalg.yield %4 : f32
    } -> tensor<8x16xf32>
    bufferization.materialize_in_destination %3 in writable %subview : (tensor<8x16xf32>, memref<8x16xf32, strided<[32, 1], offset: 16>>) -> ()
    return
  }
  func.func @e(%arg0: tensor<8x16xf32> {arr.name = "x", arr.staging, bufferization.writable = false}, %arg1: tensor<8x32xf32> {arr.name = "out", arr.output, arr.staging, bufferization.writable = true}) attributes {arr.batch = 8 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
    %0 = sched.num_examples : index
    %1 = tensor.empty() : tensor<8x16xf32>
    %2 = sched.dispatch @e_dispatch_0(%arg0 : tensor<8x16xf32>) outs(%1 : tensor<8x16xf32>) scalars(%0) -> tensor<8x16xf32>
    %3 = tensor.empty() : tensor<8x32xf32>
    %4 = sched.dispatch @e_dispatch_1(%2 : tensor<8x16xf32>) outs(%arg1 : tensor<8x32xf32>) scalars(%0) -> tensor<8x32xf32>
    %5 = sched.dispatch @e_dispatch_2(%2 : tensor<8x16xf32>) outs(%4 : tensor<8x32xf32>) scalars(%0) -> tensor<8x32xf32>
    %6 = bufferization.materialize_in_destination %5 in %arg1 : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
    return
  }
}
