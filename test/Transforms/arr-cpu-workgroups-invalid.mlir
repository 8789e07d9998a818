// RUN: vmapc-opt %s -split-input-file --arr-cpu-workgroups=max-scratch-bytes=1024 -verify-diagnostics

// 1024 + 64 bytes of scratch, over a limit of 1024.
// expected-error @+1 {{needs 1088 bytes of per-workgroup scratch, more than the limit of 1024 bytes}}
func.func private @too_much_scratch(%out: memref<64xf32>) attributes {sched.kernel} {
  scf.forall (%i) = (0) to (64) step (8) {
    %a = memref.alloc() : memref<256xf32>
    %b = memref.alloc() : memref<1xf32>
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
