// RUN: vmapc-opt %s -split-input-file -arr-emit-entry-descriptors -verify-diagnostics | FileCheck %s

// One global per entry, named after its C symbol: magic ("VMAPCDSC"),
// version 2, B = 4, arena 256 bytes (the plan's), 2 inputs, 2 outputs, the
// schedule's digest (scheduleDigest: of the arguments, their staging
// offsets and the schedule, here empty); then per argument its bytes per
// example and mapped axis: x f32[3] at axis 0 (12 bytes), w f32[3, 2]
// unmapped (24 bytes, -1), out f32[2] at axis 1 of [2, 4] (8 bytes), flag
// bool unmapped (1 byte). The private helper gets none.

// CHECK-LABEL: func.func @e(
// CHECK:       llvm.mlir.global external constant @vmapc_entry_e_descriptor(dense<[4851296279508110678, 2, 4, 256, 2, 2, [[DIGEST:-?[0-9]+]], 12, 0, 24, -1, 8, 1, 1, -1]> : tensor<15xi64>) {addr_space = 0 : i32, alignment = 8 : i64} : !llvm.array<15 x i64>
// CHECK-NOT:   _descriptor
func.func @e(%x: memref<4x3xf32> {arr.staging, arr.staging_offset = 0 : i64},
             %w: memref<3x2xf32>,
             %out: memref<2x4xf32> {arr.output, arr.staging, arr.staging_offset = 64 : i64},
             %flag: memref<i1> {arr.output},
             %arena: memref<256xi8> {arr.arena})
    attributes {arr.batch = 4 : i64, arr.in_axes = [0, unit], arr.out_axes = [1, unit],
                arr.plan = #arr.plan<arena_bytes = 256, lower_bound = 128, aligned_lower_bound = 128, naive_sum = 512, in_place = 0, buffers = 0, alignment = 64>} {
  return
}
func.func private @helper(%x: memref<4xf32>) {
  return
}

// -----

// The same entry with out's staging slot elsewhere: another digest.

// CHECK-LABEL: func.func @e(
// CHECK-NOT:   [[DIGEST]]
// CHECK:       @vmapc_entry_e_descriptor(dense<[4851296279508110678, 2, 4, 256, 2, 2, {{-?[0-9]+}}, 12, 0, 24, -1, 8, 1, 1, -1]>
func.func @e(%x: memref<4x3xf32> {arr.staging, arr.staging_offset = 0 : i64},
             %w: memref<3x2xf32>,
             %out: memref<2x4xf32> {arr.output, arr.staging, arr.staging_offset = 128 : i64},
             %flag: memref<i1> {arr.output},
             %arena: memref<256xi8> {arr.arena})
    attributes {arr.batch = 4 : i64, arr.in_axes = [0, unit], arr.out_axes = [1, unit],
                arr.plan = #arr.plan<arena_bytes = 256, lower_bound = 128, aligned_lower_bound = 128, naive_sum = 512, in_place = 0, buffers = 0, alignment = 64>} {
  return
}

// -----

// An unplanned entry: the pass names what to run first (passes/Stages.h).
// expected-error @+1 {{'arr-emit-entry-descriptors' runs on planned entries, with an arr.arena argument (the output of --arr-bufferize-pipeline); this IR is bufferized entries, on memrefs (the output of --arr-bufferize-pipeline=plan=false): run --arr-plan-buffers first}}
func.func @unplanned(%x: memref<4x3xf32>) attributes {arr.batch = 4 : i64, arr.in_axes = [0]} {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 has no batch dimension 4 at axis 1}}
func.func @wrong_axis(%x: memref<4x3xf32>, %arena: memref<64xi8> {arr.arena})
    attributes {arr.batch = 4 : i64, arr.in_axes = [1],
                arr.plan = #arr.plan<arena_bytes = 64, lower_bound = 0, aligned_lower_bound = 0, naive_sum = 0, in_place = 0, buffers = 0, alignment = 64>} {
  return
}

// -----

// expected-error @+1 {{'func.func' op argument 0 has element type 'f64', not one of f32, i32, bool}}
func.func @f64(%x: memref<4xf64>, %arena: memref<64xi8> {arr.arena})
    attributes {arr.batch = 4 : i64, arr.in_axes = [0],
                arr.plan = #arr.plan<arena_bytes = 64, lower_bound = 0, aligned_lower_bound = 0, naive_sum = 0, in_place = 0, buffers = 0, alignment = 64>} {
  return
}
