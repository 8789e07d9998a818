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
# RUN: vmapc plan %s --svg %t.svg > /dev/null
# RUN: FileCheck %s --input-file=%t.svg --check-prefix=SVG
# RUN: grep -c '<rect ' %t.svg | FileCheck %s --check-prefix=RECTS

# CHECK: entry predict: 7 buffers over 17 schedule points, offsets aligned to 256 bytes
# CHECK-NEXT: buffer bytes interval offset memory
# CHECK-NEXT: x 4096 [0, 4] {{[0-9]+ *$}}
# CHECK-NEXT: out 2048 [15, 16] {{[0-9]+}} reuses the bytes of {{alloc[0-9]}}
# CHECK-NEXT: alloc0 8192 [3, 6] {{[0-9]+ *$}}
# CHECK-NEXT: alloc1 8192 [6, 11] {{[0-9]+}} written in place over alloc0
# CHECK-NEXT: alloc2 8192 [8, 11] {{[0-9]+}} reuses the bytes of x
# CHECK-NEXT: alloc3 8192 [11, 14] {{[0-9]+}} written in place over alloc2
# CHECK-NEXT: alloc4 2048 [13, 15] {{[0-9]+}} reuses the bytes of {{x|alloc[0-9]}}
# CHECK-NEXT: arena 16384 bytes, lower bound 16384 bytes (1.000x), naive sum 40960 bytes, 2 in-place write(s)
# CHECK-NOT: entry

# FACTS: entry predict
# FACTS-NEXT: buffers 7, largest buffer 8192 bytes
# FACTS-NEXT: arena 16384 bytes, lower bound 16384 bytes, naive sum 40960 bytes, in place 2
# FACTS-NEXT: recomputed naive sum 40960 bytes, lower bound 16384 bytes, in place 2
# FACTS-NEXT: arena vs naive sum: less
# FACTS-NEXT: arena vs lower bound: equal
# FACTS-NEXT: all buffers inside the arena: yes
# FACTS-NEXT: live buffers sharing bytes: 0
# FACTS-NEXT: offsets aligned: yes

# The picture has a frame per entry and a rectangle per buffer, 640 pixels across
# 17 schedule points and 240 down 16384 bytes (alloc1 [6, 11] at offset 0).
# SVG: <svg xmlns="http://www.w3.org/2000/svg"
# SVG: predict: arena 16384 bytes, lower bound 16384 bytes
# SVG: <rect x="{{[0-9.]+}}" y="24.0" width="225.9" height="120.0" {{.*}}<title>alloc1: 8192 bytes at offset 0, live [6, 11]</title></rect>
# SVG: </svg>
# RECTS: 8

# JSON: "arena_bytes": 16384,
# JSON: "entry": "predict",
# JSON-NEXT: "in_place": 2,
# JSON-NEXT: "lower_bound": 16384,
# JSON-NEXT: "naive_sum": 40960

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
