# A syntax error stops `vmapc compile`, `run` and `plan` with
# file:line:col, the source line and a caret under the column; exit status 1
# and no artifact written.
#
# RUN: rm -f %t.vmapc
# RUN: not vmapc compile %s -o %t.vmapc 2>&1 | FileCheck %s
# RUN: not ls %t.vmapc
# RUN: not vmapc plan %s 2>&1 | FileCheck %s
# RUN: not vmapc run %s --input %s --output %t.npy 2>&1 | FileCheck %s
#
# CHECK: syntax-error.arr:[[@LINE+7]]:3: error: expected ';' after 'let y = ...', found 'return'
# CHECK-NEXT: {{^}}  return y * y;
# CHECK-NEXT: {{^}}  ^
# CHECK-NOT: error

fn f(x: f32[3]) -> f32[3] {
  let y = x * 2.0
  return y * y;
}
export e = vmap(f, batch=2);
