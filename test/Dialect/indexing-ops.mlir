// RUN: vmapc-opt %s | vmapc-opt | FileCheck %s

// arr.gather and arr.scatter print and parse back; their result types come
// from the type rule (inferGatherOp, inferScatterOp).

// CHECK-LABEL: func.func @gathers
// CHECK: arr.gather %{{.+}}[%{{.+}}], axis = 0, batch_dims = 0, mode = clamp : (tensor<10x64xf32>, tensor<i32>) -> tensor<64xf32>
// CHECK: arr.gather %{{.+}}[%{{.+}}], axis = 1, batch_dims = 0, mode = fill : (tensor<10x64xf32>, tensor<3x2xi32>) -> tensor<10x3x2xf32>
// CHECK: arr.gather %{{.+}}[%{{.+}}], axis = 2, batch_dims = 1, mode = clip : (tensor<4x10x64xf32>, tensor<4x5xi32>) -> tensor<4x10x5xf32>
func.func @gathers(%x: tensor<10x64xf32>, %i: tensor<i32>, %ids: tensor<3x2xi32>,
                   %bx: tensor<4x10x64xf32>, %bi: tensor<4x5xi32>)
    -> (tensor<64xf32>, tensor<10x3x2xf32>, tensor<4x10x5xf32>) {
  %row = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp
           : (tensor<10x64xf32>, tensor<i32>) -> tensor<64xf32>
  %cols = arr.gather %x[%ids], axis = 1, batch_dims = 0, mode = fill
           : (tensor<10x64xf32>, tensor<3x2xi32>) -> tensor<10x3x2xf32>
  %each = arr.gather %bx[%bi], axis = 2, batch_dims = 1, mode = clip
           : (tensor<4x10x64xf32>, tensor<4x5xi32>) -> tensor<4x10x5xf32>
  return %row, %cols, %each : tensor<64xf32>, tensor<10x3x2xf32>, tensor<4x10x5xf32>
}

// CHECK-LABEL: func.func @scatters
// CHECK: arr.scatter %{{.+}}[%{{.+}}], %{{.+}}, axis = 0, batch_dims = 0, kind = add : (tensor<10xf32>, tensor<i32>, tensor<f32>) -> tensor<10xf32>
// CHECK: arr.scatter %{{.+}}[%{{.+}}], %{{.+}}, axis = 1, batch_dims = 1, kind = set : (tensor<4x8xi1>, tensor<4x3xi32>, tensor<4x3xi1>) -> tensor<4x8xi1>
// CHECK: arr.scatter %{{.+}}[%{{.+}}], %{{.+}}, axis = 0, batch_dims = 0, kind = max : (tensor<6x2xi32>, tensor<5xi32>, tensor<5x2xi32>) -> tensor<6x2xi32>
func.func @scatters(%x: tensor<10xf32>, %i: tensor<i32>, %v: tensor<f32>,
                    %m: tensor<4x8xi1>, %mi: tensor<4x3xi32>, %mv: tensor<4x3xi1>,
                    %h: tensor<6x2xi32>, %hi: tensor<5xi32>, %hv: tensor<5x2xi32>)
    -> (tensor<10xf32>, tensor<4x8xi1>, tensor<6x2xi32>) {
  %a = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = add
         : (tensor<10xf32>, tensor<i32>, tensor<f32>) -> tensor<10xf32>
  %b = arr.scatter %m[%mi], %mv, axis = 1, batch_dims = 1, kind = set
         : (tensor<4x8xi1>, tensor<4x3xi32>, tensor<4x3xi1>) -> tensor<4x8xi1>
  %c = arr.scatter %h[%hi], %hv, axis = 0, batch_dims = 0, kind = max
         : (tensor<6x2xi32>, tensor<5xi32>, tensor<5x2xi32>) -> tensor<6x2xi32>
  return %a, %b, %c : tensor<10xf32>, tensor<4x8xi1>, tensor<6x2xi32>
}
