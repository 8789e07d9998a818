# A returned literal takes the declared type, shape included: `return 7;`
# in a function declared `-> i32[2]` returns [7, 7].
#
# RUN: rm -rf %t && mkdir -p %t
# RUN: %python %S/make_npy.py %t/x.npy i4 2,2  1 2  3 4
# RUN: vmapc run %s --input %t/x.npy --output %t/y.npy
# RUN: %python %S/dump_npy.py %t/y.npy | FileCheck %s
# CHECK: dtype <i4 shape [2, 2]
# CHECK-NEXT: [7, 7]
# CHECK-NEXT: [7, 7]

fn konst(x: i32[2]) -> i32[2] {
  return 7;
}
export konst_e = vmap(konst, batch=2);
