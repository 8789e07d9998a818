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

// expected-error @+1 {{allocates buffers in a private function; inline it into the entry before planning}}
func.func private @helper(%x: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  linalg.copy ins(%a : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

func.func @yielded(%x: memref<4xf32>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> memref<4xf32> {
    %a = memref.alloc() : memref<4xf32>
    linalg.copy ins(%acc : memref<4xf32>) outs(%a : memref<4xf32>)
    // expected-error @+1 {{yields a buffer allocated inside its region, which one static arena slot cannot hold across iterations}}
    scf.yield %a : memref<4xf32>
  }
  linalg.copy ins(%r : memref<4xf32>) outs(%out : memref<4xf32>)
  return
}
