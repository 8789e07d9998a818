# RUN: not vmapc-opt %s 2>&1 | FileCheck %s
# A line with non-ASCII characters (here in a comment before the error)
# gets no caret from LLVM, which cannot know their width: a note shows the
# line again with a caret counted in characters.

fn f(x: f32) -> f32 { let π = 3.14; return x; }

# CHECK: {{.*}}diagnostic-format-non-ascii.arr:6:27: error: unexpected character 'π' (U+03C0); only ASCII is allowed outside comments
# CHECK-NEXT: {{^}}fn f(x: f32) -> f32 { let π = 3.14; return x; }
# CHECK-NEXT: {{.*}}diagnostic-format-non-ascii.arr:6:27: note: here:
# CHECK-NEXT: {{^}}fn f(x: f32) -> f32 { let π = 3.14; return x; }
# CHECK-NEXT: {{^}}                          ^
