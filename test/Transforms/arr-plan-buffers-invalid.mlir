// RUN: vmapc-opt %s --arr-plan-buffers -split-input-file -verify-diagnostics

func.func @dynamic(%n: index, %out: memref<?xf32>) {
  // expected-error @+1 {{has a dynamic shape; the arena planner needs static shapes}}
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.copy ins(%a : memref<?xf32>) outs(%out : memref<?xf32>)
  return
}

// -----

func.func @escapes(%x: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  // expected-error @+1 {{returns a buffer that the planner would place in the arena}}
  return %a : memref<4xf32>
}

// -----

func.func @clone(%x: memref<4xf32>, %out: memref<4xf32>) {
  // expected-error @+1 {{allocates memory that the buffer planner cannot place}}
  %a = bufferization.clone %x : memref<4xf32> to memref<4xf32>
  linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

func.func @over_aligned(%out: memref<4xf32>) {
  // expected-error @+1 {{needs alignment 4096, more than the arena alignment 256}}
  %a = memref.alloc() {alignment = 4096 : i64} : memref<4xf32>
  linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
