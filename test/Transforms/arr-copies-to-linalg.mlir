// RUN: vmapc-opt %s --pass-pipeline='builtin.module(func.func(arr-copies-to-linalg))' | FileCheck %s
// RUN: vmapc-opt %s --pass-pipeline='builtin.module(func.func(arr-copies-to-linalg{strided-only=1}))' | FileCheck %s --check-prefix=STRIDED

// Every memref.copy becomes a linalg.copy (the GPU path: a copy becomes a
// kernel); with strided-only (the CPU path) only a copy whose source or
// target has a non-identity layout does, and a contiguous one stays for
// llvm.memcpy.

// CHECK-LABEL: func.func @copies(
// CHECK-SAME:    %[[A:[^:]+]]: memref<4xf32>, %[[B:[^:]+]]: memref<4xf32>, %[[C:[^:]+]]: memref<8xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[B]] : memref<4xf32>)
// CHECK:         %[[S:.+]] = memref.subview %[[C]][4] [4] [1]
// CHECK:         linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[S]] : memref<4xf32, strided<[1], offset: 4>>)
// CHECK:         linalg.copy ins(%[[S]] : memref<4xf32, strided<[1], offset: 4>>) outs(%[[B]] : memref<4xf32>)

// STRIDED-LABEL: func.func @copies(
// STRIDED-SAME:    %[[A:[^:]+]]: memref<4xf32>, %[[B:[^:]+]]: memref<4xf32>, %[[C:[^:]+]]: memref<8xf32>)
// STRIDED:         memref.copy %[[A]], %[[B]] : memref<4xf32> to memref<4xf32>
// STRIDED:         %[[S:.+]] = memref.subview %[[C]][4] [4] [1]
// STRIDED:         linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[S]] : memref<4xf32, strided<[1], offset: 4>>)
// STRIDED:         linalg.copy ins(%[[S]] : memref<4xf32, strided<[1], offset: 4>>) outs(%[[B]] : memref<4xf32>)
// STRIDED-NOT:     memref.copy
func.func @copies(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<8xf32>) {
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  %s = memref.subview %c[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  memref.copy %a, %s : memref<4xf32> to memref<4xf32, strided<[1], offset: 4>>
  memref.copy %s, %b : memref<4xf32, strided<[1], offset: 4>> to memref<4xf32>
  return
}
