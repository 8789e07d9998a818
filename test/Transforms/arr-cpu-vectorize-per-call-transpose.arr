# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64-v4 --mlir-print-ir-after=arr-cpu-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=V4
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-cpu-kernel-pipeline=isa=x86-64 --mlir-print-ir-after=arr-cpu-vectorize -o /dev/null 2>&1 | FileCheck %s --check-prefix=SSE

# The dot products of each query with a shared set read the set through a
# transposed copy, [64, 40], made once per call by its own kernel
# (--arr-pack-operands rule 2, --arr-hoist-per-call). That kernel's rows
# are slabs of 8 (4 at SSE2) and its register tiles 8 x 8 (4 x 4), also at
# AVX-512, whose 16 x 16 tiles were four times the code: each tile is one
# register transpose. (Rows of one were a strided gather of a column.)

fn dots(q: f32[64], set: f32[40, 64]) -> f32[40] {
  return set @ q;
}
export f = vmap(dots, in_axes=(0, none), batch=16);

# V4-LABEL: func.func private @f_dispatch_0(
# V4-SAME:      sched.workgroup_count = array<i64: 1, 1, 1>
# V4:         scf.for %{{.+}} = %c0 to %c64 step %c8
# V4:           scf.for %{{.+}} = %c0 to %c40 step %c8
# V4:             vector.transfer_read {{.+}} : tensor<40x64xf32>, vector<8x8xf32>
# V4-NEXT:        vector.transpose %{{.+}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
# V4-NOT:       vector<16x16xf32>
# V4-LABEL: func.func private @f_dispatch_2(

# SSE-LABEL: func.func private @f_dispatch_0(
# SSE:         scf.for %{{.+}} = %c0 to %c64 step %c4
# SSE:           scf.for %{{.+}} = %c0 to %c40 step %c4
# SSE:             vector.transpose %{{.+}}, [1, 0] : vector<4x4xf32> to vector<4x4xf32>
# SSE-LABEL: func.func private @f_dispatch_2(
