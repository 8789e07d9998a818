# RUN: not vmapc-opt %s 2>&1 | FileCheck %s
# RUN: not vmapc-opt %s -o /dev/null
# An error names the file, line and column, then shows the source line and a
# caret under the column, and the tool exits with a non-zero status.

fn sqdist(a: f32[64], b: f32[3]) -> f32 {
  let d = a - b;
  return sum(d * d);
}

# CHECK: {{.*}}diagnostic-format.arr:7:13: error: shapes f32[64] and f32[3] cannot broadcast (dimension sizes 64 and 3 differ and neither is 1)
# CHECK-NEXT: {{^}}  let d = a - b;
# CHECK-NEXT: {{^}}            ^
# Only the first error is reported.
# CHECK-NOT: error:
fn g(x: f32) -> f32 { return y; }
