// RUN: vmapc-opt %s -split-input-file --arr-emit-cpu-kernels -verify-diagnostics | FileCheck %s

// A kernel with two bindings (1024 and 64 bytes), one scalar (n) and the
// three workgroup ids, in the bare-pointer convention. It becomes internal
// and loses its sched attributes; the C entry point vmapc_kernel_k loads
// the bindings from its first array and the scalar from its second, and
// passes the ids through. Its descriptor: magic "VMK5" (0x354b4d56), 2
// bindings, 1 scalar, 0 (u32 each, as little-endian i64 words: 0x354b4d56 |
// 2 << 32 = 9484062038, then 1), the grid (-8, 1, 1), the scratch bytes,
// the launch (a block of 1 x 1 x 1, 0 shared bytes: u32 pairs 1 | 1 << 32 =
// 4294967297, then 1), then the bytes of each binding and its access (1
// read, 2 write).

// CHECK-LABEL: llvm.func internal @k(
// CHECK-SAME:      %{{.+}}: !llvm.ptr, %{{.+}}: !llvm.ptr, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64) {
// CHECK-LABEL: llvm.func @vmapc_kernel_k(
// CHECK-SAME:      %[[BINDINGS:[a-z0-9]+]]: !llvm.ptr, %[[SCALARS:[a-z0-9]+]]: !llvm.ptr, %[[X:[a-z0-9]+]]: i64, %[[Y:[a-z0-9]+]]: i64, %[[Z:[a-z0-9]+]]: i64)
// CHECK-NEXT:    %[[P0:.+]] = llvm.getelementptr %[[BINDINGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[A:.+]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[P1:.+]] = llvm.getelementptr %[[BINDINGS]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NEXT:    %[[B:.+]] = llvm.load %[[P1]] : !llvm.ptr -> !llvm.ptr
// CHECK-NEXT:    %[[PN:.+]] = llvm.getelementptr %[[SCALARS]][0] : (!llvm.ptr) -> !llvm.ptr, i64
// CHECK-NEXT:    %[[N:.+]] = llvm.load %[[PN]] : !llvm.ptr -> i64
// CHECK-NEXT:    llvm.call @k(%[[A]], %[[B]], %[[N]], %[[X]], %[[Y]], %[[Z]])
// CHECK-NEXT:    llvm.return
// CHECK:       llvm.mlir.global external constant @vmapc_kernel_k_descriptor(dense<[9484062038, 1, -8, 1, 1, 128, 4294967297, 1, 1024, 64, 1, 2]> : tensor<12xi64>) {{.+}} : !llvm.array<12 x i64>
// Functions that are not kernels get no entry point.
// CHECK-LABEL: llvm.func @helper(
// CHECK-NOT:   vmapc_kernel_helper
llvm.func @k(%a: !llvm.ptr, %b: !llvm.ptr, %n: i64, %x: i64, %y: i64, %z: i64) attributes {sched.kernel, sched.binding_bytes = array<i64: 1024, 64>, sched.binding_access = array<i64: 1, 2>, sched.scratch_bytes = 128 : i64, sched.workgroup_count = array<i64: -8, 1, 1>} {
  llvm.return
}
llvm.func @helper(%a: !llvm.ptr) {
  llvm.return
}

// -----

// A kernel without a scalar: an empty scalar array is never read. Without a
// grid, it is one workgroup: its descriptor says 1 x 1 x 1.
// CHECK-LABEL: llvm.func @vmapc_kernel_copy(
// CHECK-SAME:      %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %[[CX:[a-z0-9]+]]: i64, %[[CY:[a-z0-9]+]]: i64, %[[CZ:[a-z0-9]+]]: i64)
// CHECK-NOT:     -> i64
// CHECK:         llvm.call @copy(%{{.+}}, %{{.+}}, %[[CX]], %[[CY]], %[[CZ]])
// CHECK-SAME: : (!llvm.ptr, !llvm.ptr, i64, i64, i64) -> ()
// CHECK:       @vmapc_kernel_copy_descriptor(dense<[9484062038, 0, 1, 1, 1, 0, 4294967297, 1, 16, 16, 1, 2]>
llvm.func @copy(%a: !llvm.ptr, %b: !llvm.ptr, %x: i64, %y: i64, %z: i64) attributes {sched.kernel, sched.binding_bytes = array<i64: 16, 16>, sched.binding_access = array<i64: 1, 2>} {
  llvm.return
}

// -----

// Missing workgroup ids.
// expected-error @+1 {{kernel must take pointers (bindings), then i64s (scalars and 3 workgroup ids), and return nothing}}
llvm.func @no_ids(%a: !llvm.ptr, %x: i64) attributes {sched.kernel, sched.binding_bytes = array<i64: 16>} {
  llvm.return
}

// -----

// expected-error @+1 {{has no 'sched.binding_bytes' for its 2 bindings}}
llvm.func @no_sizes(%a: !llvm.ptr, %b: !llvm.ptr, %x: i64, %y: i64, %z: i64) attributes {sched.kernel, sched.binding_bytes = array<i64: 16>} {
  llvm.return
}

// -----

// expected-error @+1 {{has no 'sched.binding_bytes' and 'sched.binding_access' of one size for its descriptor}}
llvm.func @no_access(%a: !llvm.ptr, %x: i64, %y: i64, %z: i64) attributes {sched.kernel, sched.binding_bytes = array<i64: 16>, sched.workgroup_count = array<i64: 1, 1, 1>} {
  llvm.return
}
