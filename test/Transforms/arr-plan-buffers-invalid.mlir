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

// -----

// (2^31 - 1)^2 f32s: about 2^64 bytes, which an unchecked product of the
// shape would wrap around to a small or negative size.
func.func @too_large(%out: memref<4xf32>) {
  // expected-error @+1 {{'memref.alloc' op of type 'memref<2147483647x2147483647xf32>' is past the size limits: it needs 2^62 bytes or more}}
  %a = memref.alloc() : memref<2147483647x2147483647xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<2147483647x2147483647xf32>
  memref.store %v, %out[%c0] : memref<4xf32>
  return
}

// -----

// Two buffers of just under 2^62 bytes each, live at once.
// expected-error @+1 {{the buffers of this function need an arena of 2^62 bytes or more (the size limit of one arena); the largest buffer is memref<1073741824x2147483647xi16>, first used by memref.load at}}
func.func @arena_too_large(%out: memref<4xi16>) {
  %a = memref.alloc() : memref<1073741824x2147483647xi16>
  %b = memref.alloc() : memref<1073741824x2147483647xi16>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<1073741824x2147483647xi16>
  %w = memref.load %b[%c0, %c0] : memref<1073741824x2147483647xi16>
  %s = arith.addi %v, %w : i16
  memref.store %s, %out[%c0] : memref<4xi16>
  return
}

// -----

func.func @staging_too_large(%x: memref<2147483647x2147483647xf32> {arr.staging}, %out: memref<4xf32>) {
  return
}
// expected-error @-3 {{staging argument #0 of type 'memref<2147483647x2147483647xf32>' is past the size limits: it needs 2^62 bytes or more}}
