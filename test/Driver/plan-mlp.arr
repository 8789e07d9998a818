# `vmapc plan` on an MLP-like chain of matmuls and elementwise steps: the
# planner's figures, checked against an independent recomputation from the
# JSON rows (test/Driver/check_plan.py). Every step is row-wise, so the whole
# chain is one dispatch whose workgroups keep their rows' intermediates on
# the stack: the arena holds only the staging slots of x and the result, and
# no two buffers live at the same time share bytes. (In-place writes and
# reuse are tested on hand-written plans in
# test/Transforms/arr-plan-buffers.mlir.)
#
# RUN: vmapc plan %s --json %t.json | FileCheck %s
# RUN: %python %S/check_plan.py %t.json | FileCheck %s --check-prefix=FACTS
# RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
# RUN: vmapc plan %s --svg %t.svg > /dev/null
# RUN: FileCheck %s --input-file=%t.svg --check-prefix=SVG
# RUN: grep -c '<rect ' %t.svg | FileCheck %s --check-prefix=RECTS

# CHECK: entry predict: 2 buffers over 3 schedule points, offsets aligned to 64 bytes
# CHECK-NEXT: buffer bytes interval offset memory
# CHECK-NEXT: x 4096 [0, 1] {{[0-9]+}} staging slot{{$}}
# CHECK-NEXT: out 2048 [1, 2] {{[0-9]+}} staging slot{{$}}
# CHECK-NEXT: arena 6144 bytes, lower bound 6144 bytes (1.000x), naive sum 6144 bytes, 0 in-place write(s)
# CHECK-NEXT: aligned lower bound 6144 bytes at 64-byte alignment; placed by size
# CHECK-NOT: entry

# FACTS: entry predict
# FACTS-NEXT: buffers 2, largest buffer 4096 bytes
# FACTS-NEXT: arena 6144 bytes, lower bound 6144 bytes, naive sum 6144 bytes, in place 0
# FACTS-NEXT: recomputed naive sum 6144 bytes, lower bound 6144 bytes, in place 0
# FACTS-NEXT: arena vs naive sum: equal
# FACTS-NEXT: arena vs lower bound: equal
# FACTS-NEXT: all buffers inside the arena: yes
# FACTS-NEXT: live buffers sharing bytes: 0
# FACTS-NEXT: offsets aligned: yes

# The picture (report/PlanReport.h) has a panel per entry and a rectangle per
# buffer: 940 px across 3 schedule points; down, 420 px for 6144 bytes, of
# which each of the 2 bands gets 18 and the other 384 go by bytes (x's 4096:
# 18 + 256). Rectangles: the background, 2 buffers, 5 legend swatches.
# SVG: <svg xmlns="http://www.w3.org/2000/svg" width="1200"
# SVG: entry predict: arena 6144 bytes, lower bound 6144 bytes
# SVG: <rect class="buffer" data-entry="predict" data-id="x" x="120.00" y="48.00" width="626.67" height="274.00" {{.*}}><title>x: 4096 bytes at offset 0, live [0, 1], staging; staging slot of input memref&lt;16x64xf32&gt;</title></rect>
# SVG-NEXT: >x, 4096 B</text>
# SVG: </svg>
# RECTS: 8

# JSON: "arena_bytes": 6144,
# JSON: "entry": "predict",
# JSON-NEXT: "in_place": 0,
# JSON-NEXT: "lower_bound": 6144,
# JSON-NEXT: "naive_sum": 6144

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
