// RUN: vmapc-opt %s --arr-verify-buffer-plan -split-input-file -verify-diagnostics

// Hand-written plans. Schedule points are the top-level ops of the body,
// counted from 0; a buffer is live from its first to its last access.

// Two buffers live at the same time share bytes [128, 256).
func.func @overlap(%x: memref<64xf32>, %out: memref<64xf32>,
                   %arena: memref<512xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  // expected-note @+1 {{the overlapping buffer is defined here}}
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
  // expected-error @+1 {{buffers overlap while both are live: buffer [128, 384) live [5, 6] overlaps buffer [0, 256) live [4, 7] (defined at arr-verify-buffer-plan.mlir:}}
  %b = memref.view %arena[%c128][] : memref<512xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%x : memref<64xf32>) outs(%b : memref<64xf32>)
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

// A legal in-place pair: %b is first written by an elementwise identity-map
// op that reads %a for the last time, at the same offset and size. No error.
#id = affine_map<(d0) -> (d0)>
func.func @legal_in_place(%x: memref<64xf32>, %out: memref<64xf32>,
                          %arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

// A transpose is not an in-place op: it reads %a out of step with the
// positions it writes.
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @transpose_in_place(%x: memref<8x8xf32>, %out: memref<8x8xf32>,
                              %arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the overlapping buffer is defined here}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<8x8xf32>
  linalg.copy ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  // expected-error @+1 {{illegal in-place reuse (the op reads the earlier buffer through a non-identity map): buffer [0, 256) live [4, 5] overlaps buffer [0, 256) live [2, 4]}}
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.copy ins(%b : memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  return
}

// -----

// A matmul reads rows of %a after writing the first rows of %b.
func.func @matmul_in_place(%x: memref<8x8xf32>, %w: memref<8x8xf32>,
                           %out: memref<8x8xf32>, %arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the overlapping buffer is defined here}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<8x8xf32>
  linalg.copy ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  // expected-error @+1 {{illegal in-place reuse (the later buffer is not first written by an elementwise linalg op)}}
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<8x8xf32>
  linalg.matmul ins(%a, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%b : memref<8x8xf32>)
  linalg.copy ins(%b : memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  return
}

// -----

// An in-place pair whose input is read again afterwards.
#id = affine_map<(d0) -> (d0)>
func.func @in_place_input_read_later(%x: memref<64xf32>, %out: memref<64xf32>,
                                     %arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the overlapping buffer is defined here}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  // expected-error @+1 {{buffers overlap while both are live: buffer [0, 256) live [4, 5] overlaps buffer [0, 256) live [2, 6]}}
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }
  linalg.copy ins(%b : memref<64xf32>) outs(%out : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

// An in-place pair of different sizes.
#id = affine_map<(d0) -> (d0)>
func.func @in_place_size_mismatch(%x: memref<64xf32>, %out: memref<32xf32>,
                                  %arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  // expected-note @+1 {{the overlapping buffer is defined here}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  %s = memref.subview %a[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  // expected-error @+1 {{illegal in-place reuse (an in-place pair must have the same offset and size)}}
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<32xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : memref<32xf32, strided<[1]>>) outs(%b : memref<32xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.copy ins(%b : memref<32xf32>) outs(%out : memref<32xf32>)
  return
}

// -----

// Loop-aware: %a is read on every iteration, so the buffer written inside
// the loop at the same bytes clobbers it for the next iteration.
func.func @loop_overlap(%x: memref<64xf32>, %out: memref<64xf32>,
                        %arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-note @+1 {{the overlapping buffer is defined here}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{illegal in-place reuse (the later buffer is not first written by an elementwise linalg op)}}
    %t = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
    linalg.copy ins(%a : memref<64xf32>) outs(%t : memref<64xf32>)
    linalg.copy ins(%t : memref<64xf32>) outs(%out : memref<64xf32>)
  }
  return
}

// -----

// A staging input is live from the start to its last use.
// expected-note @+1 {{the overlapping buffer is defined here}}
func.func @staging_overlap(%x: memref<64xf32> {arr.staging, arr.staging_offset = 0 : i64},
                           %out: memref<64xf32>, %arena: memref<512xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{buffers overlap while both are live: buffer [0, 256) live [2, 4] overlaps staging slot [0, 256) live [0, 3]}}
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
  linalg.copy ins(%out : memref<64xf32>) outs(%a : memref<64xf32>)
  linalg.copy ins(%x : memref<64xf32>) outs(%out : memref<64xf32>)
  linalg.copy ins(%a : memref<64xf32>) outs(%out : memref<64xf32>)
  return
}

// -----

func.func @past_the_arena(%x: memref<64xf32>, %arena: memref<384xi8> {arr.arena}) {
  %c256 = arith.constant 256 : index
  // expected-error @+1 {{reaches past the arena: bytes [256, 512) of an arena of 384 bytes}}
  %a = memref.view %arena[%c256][] : memref<384xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  return
}

// -----

// expected-error @+1 {{staging slot of argument #0 reaches past the arena: bytes [256, 512) of an arena of 256 bytes}}
func.func @staging_past_the_arena(%x: memref<64xf32> {arr.staging, arr.staging_offset = 256 : i64},
                                  %arena: memref<256xi8> {arr.arena}) {
  return
}

// -----

func.func @alloc_remains(%x: memref<64xf32>, %arena: memref<256xi8> {arr.arena}) {
  // expected-error @+1 {{allocates memory after buffer planning}}
  %a = memref.alloc() : memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  return
}

// -----

// Offsets and sizes are checked, not wrapped around: an end past 2^62.
func.func @view_end_overflows(%x: memref<64xf32>, %arena: memref<256xi8> {arr.arena}) {
  %c = arith.constant 4611686018427387900 : index
  // expected-error @+1 {{'memref.view' op has offset 4611686018427387900 and 256 bytes: a negative offset or an end at 2^62 bytes or more}}
  %a = memref.view %arena[%c][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  return
}

// -----

func.func @view_negative_offset(%x: memref<64xf32>, %arena: memref<256xi8> {arr.arena}) {
  %c = arith.constant -256 : index
  // expected-error @+1 {{'memref.view' op has offset -256 and 256 bytes: a negative offset or an end at 2^62 bytes or more}}
  %a = memref.view %arena[%c][] : memref<256xi8> to memref<64xf32>
  linalg.copy ins(%x : memref<64xf32>) outs(%a : memref<64xf32>)
  return
}

// -----

// A negative staging offset is refused by the arr dialect's attribute
// verifier before the checker runs.
// expected-error @+1 {{'func.func' op 'arr.staging_offset' must be a non-negative integer}}
func.func @staging_negative_offset(%x: memref<64xf32> {arr.staging, arr.staging_offset = -64 : i64},
                                   %arena: memref<256xi8> {arr.arena}) {
  return
}

// -----

func.func @view_too_large(%arena: memref<256xi8> {arr.arena}) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.view' op is a view of the arena without a constant offset and a static shape of fewer than 2^62 bytes}}
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<2147483647x2147483647xf32>
  return
}

// -----

// expected-error @+1 {{arena argument must be a static memref<Nxi8> with N below 2^62, got 'memref<4611686018427387904xi8>'}}
func.func @arena_too_large(%arena: memref<4611686018427387904xi8> {arr.arena}) {
  return
}
