# RUN: vmapc-opt %s -mlir-print-debuginfo | FileCheck %s
# Locations of slices, transposes, builtins and loops: a slice at its '[', .T at
# its '.', a builtin at its name, arr.for at 'for', arr.yield at 'yield',
# the index and carry block arguments at their names.

fn f(x: f32[4, 3]) -> (f32[3, 4], f32) {
  for i in range(2) carry (a = 0.0) {
    yield a + maximum(x[0, 1], 1.0);
  }
  return (x.T, a);
}

# A loop of one carry, and the op of the carry's initial value, are named
# after the carry (NameLoc "a"), as `let` names its value's op.
# CHECK: arr.constant {{.*}} loc(#[[INIT:.+]])
# CHECK: arr.for 2 {{.*}} {
# CHECK: ^bb0(%{{.+}}: tensor<i32> loc("{{.*}}locations-slices-loops.arr":7:7), %{{.+}}: tensor<4x3xf32> {{.*}}, %{{.+}}: tensor<f32> loc("{{.*}}locations-slices-loops.arr":7:28)):
# CHECK: arr.slice {{.*}} loc(#[[SLICE:.+]])
# CHECK: arr.maximum {{.*}} loc(#[[MAX:.+]])
# CHECK: arr.yield {{.*}} loc(#[[YIELD:.+]])
# CHECK: } loc(#[[FOR:.+]])
# CHECK: arr.transpose {{.*}} loc(#[[T:.+]])
# CHECK-DAG: #[[SLICE]] = loc("{{.*}}locations-slices-loops.arr":8:24)
# CHECK-DAG: #[[MAX]] = loc("{{.*}}locations-slices-loops.arr":8:15)
# CHECK-DAG: #[[YIELD]] = loc("{{.*}}locations-slices-loops.arr":8:5)
# CHECK-DAG: #[[FOR]] = loc("a"(#[[FORPOS:.+]]))
# CHECK-DAG: #[[FORPOS]] = loc("{{.*}}locations-slices-loops.arr":7:3)
# CHECK-DAG: #[[INIT]] = loc("a"(#[[INITPOS:.+]]))
# CHECK-DAG: #[[INITPOS]] = loc("{{.*}}locations-slices-loops.arr":7:32)
# CHECK-DAG: #[[T]] = loc("{{.*}}locations-slices-loops.arr":10:12)
