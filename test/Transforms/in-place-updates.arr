# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-print-schedules -o /dev/null | FileCheck %s
# RUN: vmapc plan %s | FileCheck %s --check-prefix=PLAN

# Updates in place (docs/language.md, "In-place updates"): a scatter whose
# operand dies there writes the operand's buffer; a loop carry updated with
# .at[] keeps one buffer and is updated in it every iteration, with no copy
# in the loop body; an operand still read after the update is copied first.

# A histogram: the loop body is one dispatch that updates the carry's buffer
# (arena+OFFSET, read and written), no copy per iteration.
fn scatter_form(x: i32[100]) -> f32[16] {
  for t in range(100) carry (h = zeros((16,))) { yield h.at[x[t]].add(1.0); }
  return h;
}
# CHECK-LABEL: entry scatter_form_e (batch 8):
# CHECK-NEXT:    dispatch scatter_form_e_dispatch_0 {{.*}}(arena+[[H:[0-9]+]])
# CHECK-NEXT:    loop 100
# CHECK-NEXT:      dispatch scatter_form_e_dispatch_1 {{.*}}(input 0, arena+[[H]]) scalars(i0)
# CHECK-NEXT:    dispatch scatter_form_e_copy_0 {{.*}}(arena+[[H]], output 0)

# The same histogram written without indexing (where over iota): the body
# computes the next carry into a buffer of its own and copies it into the
# carry, one copy dispatch per iteration.
fn where_form(x: i32[100]) -> f32[16] {
  for t in range(100) carry (h = zeros((16,))) {
    yield where(iota(16) == x[t], h + 1.0, h);
  }
  return h;
}
# CHECK-LABEL: entry where_form_e (batch 8):
# CHECK:         loop 100
# CHECK-NEXT:      dispatch where_form_e_dispatch_1
# CHECK-NEXT:      dispatch where_form_e_copy_0

# The loop's result dies at the update after the loop: that update writes
# the loop's buffer too.
fn dies(x: i32[100], i: i32) -> f32[16] {
  for t in range(100) carry (h = zeros((16,))) { yield h.at[x[t]].add(1.0); }
  return h.at[i].set(-1.0);
}
# CHECK-LABEL: entry dies_e (batch 8):
# CHECK:         loop 100
# CHECK-NEXT:      dispatch dies_e_dispatch_1 {{.*}}(input 0, arena+[[H:[0-9]+]]) scalars(i0)
# CHECK-NEXT:    dispatch dies_e_dispatch_2 {{.*}}(input 1, arena+[[H]])
# CHECK-NOT:     dispatch dies_e_copy_{{.*}}(arena+[[H]], arena

# Read after the update: the update writes a copy; the later read gets the
# loop's buffer, unchanged.
fn read_later(x: i32[100], i: i32) -> (f32[16], f32[16]) {
  for t in range(100) carry (h = zeros((16,))) { yield h.at[x[t]].add(1.0); }
  return (h.at[i].set(-1.0), h * 2.0);
}
# CHECK-LABEL: entry read_later_e (batch 8):
# CHECK:         loop 100
# CHECK-NEXT:      dispatch read_later_e_dispatch_1 {{.*}}(input 0, output 0) scalars(i0)
# CHECK-NEXT:    dispatch read_later_e_copy_0 {{.*}}(output 0, arena+[[C:[0-9]+]])
# CHECK-NEXT:    dispatch read_later_e_dispatch_2 {{.*}}(input 1, arena+[[C]])
# CHECK-NEXT:    dispatch read_later_e_dispatch_3 {{.*}}(output 0, output 1)

export scatter_form_e = vmap(scatter_form, batch=8);
export where_form_e = vmap(where_form, batch=8);
export dies_e = vmap(dies, in_axes=(0, none), batch=8);
export read_later_e = vmap(read_later, in_axes=(0, none), batch=8);

# The plan counts each update in place once (the dispatch in the loop
# once), none for the update of a copy.
# PLAN-LABEL: entry scatter_form_e:
# PLAN:         alloc0 {{.*}} updated in place
# PLAN:         1 in-place write(s)
# PLAN-LABEL: entry where_form_e:
# PLAN:         0 in-place write(s)
# PLAN-LABEL: entry dies_e:
# PLAN:         alloc0 {{.*}} updated in place by 2 dispatches
# PLAN:         2 in-place write(s)
# PLAN-LABEL: entry read_later_e:
# PLAN:         out0 {{.*}} updated in place
# PLAN-NOT:     updated in place
# PLAN:         1 in-place write(s)
