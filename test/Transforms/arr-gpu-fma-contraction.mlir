// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads --arr-gpu-fma-contraction | FileCheck %s
// RUN: vmapc-opt %s --arr-gpu-outline-kernels --arr-gpu-workgroup-ids --arr-gpu-promote-scratch --arr-gpu-block-size --arr-gpu-reductions --arr-gpu-contraction-tiles --arr-gpu-distribute-threads | FileCheck %s --check-prefix=BEFORE
// RUN: not vmapc-opt %s --arr-gpu-fma-contraction 2>&1 | FileCheck %s --check-prefix=NOT-OUTLINED

// --arr-gpu-fma-contraction after the distribution passes: every op of a
// kernel with fast-math flags gets `contract` (NVPTX fuses a multiply and
// the add that takes it into fma.rn.f32; on a division or exp it changes
// nothing), keeping the flags it has (nnan here); integer ops and casts
// have no flags and are left alone. It runs last so that the ops the
// distribution passes made are marked too: the partial sums and the shuffle
// combinations of a block reduction. Host functions are not kernels: their
// ops stay as they are.

// BEFORE-LABEL: func.func @host(
// BEFORE-NEXT:    arith.mulf %{{.+}}, %{{.+}} : f32
// BEFORE-LABEL: gpu.func @vmapc_kernel_fma(
// BEFORE:         %[[M:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// BEFORE-NEXT:    arith.addf %[[M]], %{{.+}} fastmath<nnan> : f32
// BEFORE-LABEL: gpu.func @vmapc_kernel_sums(
// BEFORE:         gpu.shuffle xor
// BEFORE-NEXT:    arith.addf %{{.+}}, %{{.+}} : f32

// CHECK-LABEL: func.func @host(
// CHECK-NEXT:    %[[M:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK-NEXT:    return %[[M]] : f32
func.func @host(%a: f32, %b: f32) -> f32 {
  %m = arith.mulf %a, %b : f32
  return %m : f32
}

// CHECK-LABEL: gpu.func @vmapc_kernel_fma(
// CHECK:         scf.for
// CHECK:           %[[X:.+]] = memref.load
// CHECK-NEXT:      %[[Y:.+]] = memref.load
// CHECK-NEXT:      %[[M:.+]] = arith.mulf %[[X]], %[[Y]] fastmath<contract> : f32
// CHECK-NEXT:      %[[S:.+]] = arith.addf %[[M]], %[[Y]] fastmath<nnan,contract> : f32
// CHECK-NEXT:      %[[D:.+]] = arith.divf %[[S]], %[[X]] fastmath<contract> : f32
// CHECK-NEXT:      %[[E:.+]] = math.exp %[[D]] fastmath<contract> : f32
// CHECK-NEXT:      %[[I:.+]] = arith.fptosi %[[E]] : f32 to i32
// CHECK-NEXT:      %[[J:.+]] = arith.addi %[[I]], %[[I]] : i32
// CHECK-NEXT:      arith.sitofp %[[J]] : i32 to f32
func.func private @fma(%x: memref<256xf32>, %y: memref<256xf32>, %out: memref<256xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x, %y : memref<256xf32>, memref<256xf32>) outs(%out : memref<256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %m, %b fastmath<nnan> : f32
    %d = arith.divf %s, %a : f32
    %e = math.exp %d : f32
    %i = arith.fptosi %e : f32 to i32
    %j = arith.addi %i, %i : i32
    %f = arith.sitofp %j : i32 to f32
    linalg.yield %f : f32
  }
  return
}

// A block-shared row sum: each thread's partial sum, the 5 combinations
// after the shuffles of each warp, the 5 of warp 0, and the final add of
// the row's value: 1 + 5 + 5 + 1 adds, all marked.
// CHECK-LABEL: gpu.func @vmapc_kernel_sums(
// CHECK:           scf.for {{.+}} iter_args
// CHECK-NEXT:        memref.load
// CHECK-NEXT:        arith.addf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-COUNT-5:   arith.addf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-COUNT-5:   arith.addf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK:             memref.load %{{.+}}[%{{.+}}] : memref<4xf32>
// CHECK-NEXT:        arith.addf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK-NOT:     arith.addf
// CHECK:         gpu.return
func.func private @sums(%x: memref<4x1000xf32>, %out: memref<4xf32>) attributes {sched.kernel} {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x1000xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// NOT-OUTLINED: error: 'func.func' op is a kernel not yet outlined: 'arr-gpu-fma-contraction' runs on the gpu.funcs of gpu.module @vmapc_kernels; run --arr-gpu-outline-kernels first
// NOT-OUTLINED-NEXT: func.func private @fma(
