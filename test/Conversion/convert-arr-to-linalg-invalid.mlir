// RUN: vmapc-opt %s --convert-arr-to-linalg -split-input-file -verify-diagnostics

func.func @sqdist(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %d = arr.sub %a, %b : tensor<4xf32>
  %s = arr.reduce_sum %d, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}

// An arr.vmap_call is replaced by --arr-vmap (passes/Stages.h); the lowering
// refuses it, naming what to run first.
func.func @unbatched(%q: tensor<4xf32>, %r: tensor<3x4xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'convert-arr-to-linalg' runs on batched arr, no arr.vmap_call (the output of --arr-vmap) up to linalg on tensors (the output of --arr-to-linalg-pipeline); this IR is arr with arr.vmap_call (the front end's output): run --arr-vmap first}}
  %d = arr.vmap_call @sqdist(%q, %r) {in_axes = [unit, 0], out_axes = [0], axis_size = 3 : i64} : (tensor<4xf32>, tensor<3x4xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}
