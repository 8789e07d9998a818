# `vmapc plan` on an MLP-like chain of matmuls and elementwise steps: the
# planner's figures, checked against an independent recomputation from the
# JSON rows (test/Driver/check_plan.py): the arena is smaller than the naive
# sum (memory is shared), at least one buffer is written in place over an
# operand that dies there, and no two buffers live at the same time share
# bytes.
#
# RUN: vmapc plan %s --json %t.json | FileCheck %s
# RUN: %python %S/check_plan.py %t.json | FileCheck %s --check-prefix=FACTS
# RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON

# CHECK: entry predict: 6 buffers over 16 schedule points, offsets aligned to 256 bytes
# CHECK-NEXT: buffer bytes interval offset memory
# CHECK-NEXT: x 4096 [0, 7] {{[0-9]+ *$}}
# CHECK-NEXT: out 2048 [14, 15] {{[0-9]+}} reuses the bytes of {{alloc[0-9]}}
# CHECK-NEXT: alloc0 8192 [8, 13] {{[0-9]+}} written in place over alloc2
# CHECK-NEXT: alloc1 8192 [4, 10] {{[0-9]+ *$}}
# CHECK-NEXT: alloc2 8192 [6, 8] {{[0-9]+ *$}}
# CHECK-NEXT: alloc3 2048 [12, 14] {{[0-9]+}} reuses the bytes of {{x|alloc[0-9]}}
# CHECK-NEXT: arena 20480 bytes, lower bound 20480 bytes (1.000x), naive sum 32768 bytes, 1 in-place write(s)
# CHECK-NOT: entry

# FACTS: entry predict
# FACTS-NEXT: buffers 6, largest buffer 8192 bytes
# FACTS-NEXT: arena 20480 bytes, lower bound 20480 bytes, naive sum 32768 bytes, in place 1
# FACTS-NEXT: recomputed naive sum 32768 bytes, lower bound 20480 bytes, in place 1
# FACTS-NEXT: arena vs naive sum: less
# FACTS-NEXT: arena vs lower bound: equal
# FACTS-NEXT: all buffers inside the arena: yes
# FACTS-NEXT: live buffers sharing bytes: 0
# FACTS-NEXT: offsets aligned: yes

# JSON: "arena_bytes": 20480,
# JSON: "entry": "predict",
# JSON-NEXT: "in_place": 1,
# JSON-NEXT: "lower_bound": 20480,
# JSON-NEXT: "naive_sum": 32768

# 16 examples of 64 features: matmul, bias add, tanh, matmul, multiply,
# matmul, exp, scale (>= 4 elementwise and 3 matmul steps).
fn mlp(x: f32[64], w1: f32[64, 128], b1: f32[128], w2: f32[128, 128],
       w3: f32[128, 32]) -> f32[32] {
  let h = tanh(x @ w1 + b1);
  let g = h @ w2;
  let k = g * h;
  return exp(k @ w3) * 2.0;
}
export predict = vmap(mlp, in_axes=(0, none, none, none, none), batch=16);
