// RUN: vmapc-opt %s -split-input-file --arr-gpu-workgroups=max-shared-bytes=4096 -verify-diagnostics
// RUN: not vmapc-opt %s -split-input-file --arr-gpu-workgroups=threads-per-block=100 2>&1 | FileCheck %s --check-prefix=THREADS

// THREADS: error: threads-per-block must be a multiple of 32 in [32, 1024], not 100

// Two 4096-byte scratch buffers live at once (one op reads the one and
// writes the other): 8192 bytes, over a block's 4096.
// expected-error @+1 {{needs 8192 bytes of shared memory per block, more than the 4096 a block may have}}
func.func private @too_much_shared(%out: memref<64xf32>) attributes {sched.kernel} {
  scf.forall (%i) = (0) to (64) step (8) {
    %a = memref.alloc() : memref<1024xf32>
    %b = memref.alloc() : memref<1024xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<1024xf32>) outs(%b : memref<1024xf32>) {
    ^bb0(%x: f32, %y: f32):
      linalg.yield %x : f32
    }
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

func.func private @unbounded_scratch(%out: memref<64xf32>, %n: index) attributes {sched.kernel} {
  // expected-error @+1 {{allocates per-workgroup scratch of a size with no known bound}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

func.func private @copy_left(%a: memref<64xf32>, %b: memref<64xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{is left in a GPU kernel (arr-copies-to-linalg runs before arr-gpu-outline-kernels)}}
  memref.copy %a, %b : memref<64xf32> to memref<64xf32>
  return
}

// -----

// A kernel has no host state to share: it reads constant globals only.
memref.global "private" @mutable : memref<4xf32> = dense<0.0>

func.func private @reads_mutable_global(%out: memref<4xf32>) attributes {sched.kernel} {
  // expected-error @+1 {{reads @mutable, which is not a constant with an initial value}}
  %g = memref.get_global @mutable : memref<4xf32>
  memref.copy %g, %out : memref<4xf32> to memref<4xf32>
  return
}
