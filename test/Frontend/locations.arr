# RUN: vmapc-opt %s -mlir-print-debuginfo | FileCheck %s
# Every op carries the file:line:col of the source construct it comes from:
# a binary op its operator, a call its callee, a statement its keyword, a
# function and its parameters their names.

fn f(a: f32[3], b: f32[3]) -> f32 {
  let d = a - b;
  return sum(d * d);
}

export e = vmap(f, batch=4);

# CHECK-LABEL: func.func private @f(
# CHECK-SAME: %{{.+}}: tensor<3xf32> loc("{{.*}}locations.arr":6:6), %{{.+}}: tensor<3xf32> loc("{{.*}}locations.arr":6:17)
# CHECK: arr.sub {{.*}} loc(#[[SUB:.+]])
# CHECK: arr.mul {{.*}} loc(#[[MUL:.+]])
# CHECK: arr.reduce_sum {{.*}} loc(#[[SUM:.+]])
# CHECK: return {{.*}} loc(#[[RET:.+]])
# CHECK: } loc(#[[F:.+]])
# CHECK-LABEL: func.func @e(
# CHECK: arr.vmap_call @f{{.*}} loc(#[[CALL:.+]])
# The op whose value a `let` names carries that name (a NameLoc around its
# position) for `vmapc plan`; diagnostics still point at the position.
# CHECK-DAG: #[[SUB]] = loc("d"(#[[SUBPOS:.+]]))
# CHECK-DAG: #[[SUBPOS]] = loc("{{.*}}locations.arr":7:13)
# CHECK-DAG: #[[MUL]] = loc("{{.*}}locations.arr":8:16)
# CHECK-DAG: #[[SUM]] = loc("{{.*}}locations.arr":8:10)
# CHECK-DAG: #[[RET]] = loc("{{.*}}locations.arr":8:3)
# CHECK-DAG: #[[F]] = loc("{{.*}}locations.arr":6:4)
# CHECK-DAG: #[[CALL]] = loc("{{.*}}locations.arr":11:12)
