// RUN: vmapc-opt %s --arr-to-nvvm-pipeline=serialize=false -split-input-file -verify-diagnostics

// A reduction with no parallel dimension has no threads to map to: rather
// than run its loop on the host, over device memory, the pipeline stops.
func.func @total(%in: memref<64xf32>, %out: memref<f32>) {
  // expected-error @+1 {{'scf.for' op would run on the host: it was not mapped to a GPU kernel}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : memref<64xf32>) outs(%out : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Every buffer must be in the arena: the GPU program allocates nothing.
func.func @alloc(%in: memref<256xf32>, %out: memref<256xf32>) {
  // expected-error @+1 {{'memref.alloc' op allocates outside the arena}}
  %tmp = memref.alloc() : memref<256xf32>
  linalg.copy ins(%in : memref<256xf32>) outs(%tmp : memref<256xf32>)
  linalg.copy ins(%tmp : memref<256xf32>) outs(%out : memref<256xf32>)
  return
}
