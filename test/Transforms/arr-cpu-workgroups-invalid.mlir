// RUN: vmapc-opt %s -split-input-file --arr-cpu-workgroups=max-scratch-bytes=1024 -verify-diagnostics

// 1024 + 64 bytes of scratch live at once (%a is read after %b is
// allocated), over a limit of 1024.
// expected-error @+1 {{needs 1088 bytes of per-workgroup scratch, more than the limit of 1024 bytes}}
func.func private @too_much_scratch(%out: memref<64xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  scf.forall (%i) = (0) to (64) step (8) {
    %a = memref.alloc() : memref<256xf32>
    %b = memref.alloc() : memref<1xf32>
    %v = memref.load %a[%c0] : memref<256xf32>
    memref.store %v, %b[%c0] : memref<1xf32>
  }
  return
}

// -----

// The same two buffers one after the other share their bytes: 1024.
func.func private @fits_one_after_the_other(%out: memref<64xf32>) attributes {sched.kernel} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  scf.forall (%i) = (0) to (64) step (8) {
    %a = memref.alloc() : memref<256xf32>
    memref.store %cst, %a[%c0] : memref<256xf32>
    %b = memref.alloc() : memref<1xf32>
    memref.store %cst, %b[%c0] : memref<1xf32>
  }
  return
}

// -----

// expected-error @+1 {{has a binding of dynamic shape}}
func.func private @dynamic_binding(%out: memref<?xf32>) attributes {sched.kernel} {
  return
}

// -----

// expected-error @+1 {{has more than one workgroup loop}}
func.func private @two_grids(%out: memref<64xf32>) attributes {sched.kernel} {
  scf.forall (%i) = (0) to (64) step (8) {
  }
  scf.forall (%i) = (0) to (64) step (8) {
  }
  return
}

// -----

func.func private @unbufferized(%out: memref<64xf32>) attributes {sched.kernel} {
  %t = tensor.empty() : tensor<64xf32>
  // expected-error @+1 {{is not a bufferized grid of at most 3 dimensions}}
  %r = scf.forall (%i) = (0) to (64) step (8) shared_outs(%o = %t) -> (tensor<64xf32>) {
  }
  return
}

// -----

func.func private @unbounded(%out: memref<64xf32>, %m: index) attributes {sched.kernel} {
  scf.forall (%i) = (0) to (64) step (8) {
    // expected-error @+1 {{allocates per-workgroup scratch of a size with no known bound}}
    %a = memref.alloc(%m) : memref<?xf32>
  }
  return
}
