// RUN: vmapc-opt %s --arr-expand-math | FileCheck %s

// --arr-expand-math on ranked tensors: the expansions of scalars and vectors
// (arr-expand-math.mlir), with dense splat constants for a static shape and
// tensor.splat of the operand's tensor.dim for a dynamic one (for tanh's
// e^-2|x| too).
// CHECK-LABEL: func.func @tensors(
// CHECK-SAME:    %[[S:.+]]: tensor<8xf32>, %[[D:.+]]: tensor<4x?xf32>
// CHECK-NOT:     {{math\.(exp|log|tanh|powf|fma)|call}}
// CHECK-DAG:     arith.constant dense<1.17549435E-38> : tensor<8xf32>
// CHECK-DAG:     arith.constant dense<0x4338000000000000> : tensor<8xf64>
// CHECK:         arith.cmpf olt, %[[S]], %{{.+}} : tensor<8xf32>
// CHECK:         arith.extf %{{.+}} : tensor<8xf32> to tensor<8xf64>
// CHECK:         math.absf %[[D]] : tensor<4x?xf32>
// CHECK:         %[[DIM:.+]] = tensor.dim %[[D]], %{{.+}} : tensor<4x?xf32>
// CHECK:         tensor.splat %{{.+}}[%[[DIM]]] : tensor<4x?xf32>
// CHECK:         arith.bitcast %{{.+}} : tensor<4x?xf32> to tensor<4x?xi32>
// CHECK:         math.copysign %{{.+}}, %[[D]] : tensor<4x?xf32>
// CHECK-NOT:     {{math\.(exp|log|tanh|powf|fma)|call}}
// CHECK:         return
func.func @tensors(%s: tensor<8xf32>, %d: tensor<4x?xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<4x?xf32>) {
  %0 = math.log %s : tensor<8xf32>
  %1 = math.powf %s, %s : tensor<8xf32>
  %2 = math.tanh %d : tensor<4x?xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<4x?xf32>
}

// The expansions of sin (its f64 constants as tensor.splat for the dynamic
// shape) and of floor on tensors.
// CHECK-LABEL: func.func @more_tensors(
// CHECK-SAME:    %[[S:.+]]: tensor<8xf32>, %[[D:.+]]: tensor<?xf32>
// CHECK-NOT:     {{math\.(sin|floor|fma)|call}}
// CHECK-DAG:     arith.constant dense<0x4B000000> : tensor<8xf32>
// CHECK:         math.absf %[[S]] : tensor<8xf32>
// CHECK:         math.copysign %{{.+}}, %[[S]] : tensor<8xf32>
// CHECK:         arith.extf %[[D]] : tensor<?xf32> to tensor<?xf64>
// CHECK:         %[[DIM:.+]] = tensor.dim %[[D]], %{{.+}} : tensor<?xf32>
// CHECK:         tensor.splat %{{.+}}[%[[DIM]]] : tensor<?xf64>
// CHECK:         arith.bitcast %{{.+}} : tensor<?xf64> to tensor<?xi64>
// CHECK:         arith.truncf %{{.+}} : tensor<?xf64> to tensor<?xf32>
// CHECK-NOT:     {{math\.(sin|floor|fma)|call}}
// CHECK:         return
func.func @more_tensors(%s: tensor<8xf32>, %d: tensor<?xf32>) -> (tensor<8xf32>, tensor<?xf32>) {
  %0 = math.floor %s : tensor<8xf32>
  %1 = math.sin %d : tensor<?xf32>
  return %0, %1 : tensor<8xf32>, tensor<?xf32>
}
