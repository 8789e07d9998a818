// RUN: vmapc-opt %s -split-input-file --arr-convert-kernels-to-llvm -verify-diagnostics | FileCheck %s

// One conversion for every dialect a CPU kernel holds after
// convert-scf-to-cf: memrefs become bare pointers in the signature (the
// kernel ABI of arr-emit-cpu-kernels), a rank-1 transfer becomes a load
// (upstream's vector lowering before the conversion), a reduction is
// reassociated, math and arith ops and branches become LLVM's, and no
// unrealized cast is left.

// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME:    %[[IN:.*]]: !llvm.ptr, %[[OUT:.*]]: !llvm.ptr, %[[N:.*]]: i64)
// CHECK-NOT:     unrealized_conversion_cast
// CHECK:         llvm.br ^[[HEAD:.*]](
// CHECK:       ^[[HEAD]](%[[I:.*]]: i64
// CHECK:         llvm.icmp "slt" %[[I]], %[[N]]
// CHECK:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK:         llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> vector<8xf32>
// CHECK:         llvm.intr.sqrt(%{{.*}}) : (vector<8xf32>) -> vector<8xf32>
// CHECK:         llvm.fmul %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK:         "llvm.intr.vector.reduce.fadd"(%{{.*}}, %{{.*}}) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<8xf32>) -> f32
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK:         llvm.return
// CHECK-NOT:     unrealized_conversion_cast
func.func @kernel(%in: memref<64x8xf32>, %out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = ub.poison : f32
  %zero = arith.constant 0.0 : f32
  cf.br ^head(%c0 : index)
^head(%i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit
^body:
  %row = vector.transfer_read %in[%i, %c0], %pad {in_bounds = [true]} : memref<64x8xf32>, vector<8xf32>
  %root = math.sqrt %row : vector<8xf32>
  %square = arith.mulf %root, %row : vector<8xf32>
  %sum = vector.reduction <add>, %square, %zero : vector<8xf32> into f32
  memref.store %sum, %out[%i] : memref<64xf32>
  %next = arith.addi %i, %c1 : index
  cf.br ^head(%next : index)
^exit:
  return
}

// -----

// An op no pattern converts (here an scf.for, which convert-scf-to-cf would
// have lowered) leaves casts between its index and LLVM's i64: an error at
// the op, not a module that LLVM's translation rejects later.

func.func @unlowered_loop(%out: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // expected-error @+1 {{'scf.for' op has no conversion to the LLVM dialect}}
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %i, %out[%i] : memref<4xindex>
  }
  return
}
