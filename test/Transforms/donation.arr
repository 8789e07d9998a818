# RUN: vmapc-opt %s --arr-vmap --inline --symbol-dce --canonicalize --convert-arr-to-linalg --arr-outputs-to-destinations | FileCheck %s --check-prefix=DEST
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-print-schedules -o /dev/null | FileCheck %s
# RUN: vmapc plan %s | FileCheck %s --check-prefix=PLAN

# donate= (JAX's donate_argnums; docs/runtime.md, "Donation"): the output
# that takes a donated input's bytes is computed in the input's buffer. An
# update of the donated input is then in place, in the caller's memory or
# the input's staging slot: no copy of x, no output buffer, no arena.

fn bump(x: f32[16], i: i32) -> f32[16] { return x.at[i].add(1.0); }
export bump_e = vmap(bump, in_axes=(0, 0), donate=(0,), batch=8);

# The output is written into x's argument, which is writable; the output's
# own argument is left unused and has no staging slot. The scatter starts
# from x itself (no copy of a donated input).
# DEST-LABEL: func.func @bump_e(
# DEST-SAME:      %[[X:.+]]: tensor<8x16xf32> {arr.name = "x", arr.staging, bufferization.writable = true}
# DEST-SAME:      %[[OUT:.+]]: tensor<8x16xf32> {arr.donated_from = 0 : i64, arr.name = "out", arr.output, bufferization.writable = true})
# DEST-NOT:     linalg.copy
# DEST:         %[[R:.+]] = linalg.generic {{.+}} outs(%[[X]] : tensor<8x16xf32>)
# DEST:         bufferization.materialize_in_destination %[[R]] in %[[X]]

# One dispatch reads and writes x; nothing else runs.
# CHECK-LABEL: entry bump_e (batch 8):
# CHECK-NEXT:    dispatch bump_e_dispatch_0 {{.*}}(input 1, input 0) scalars(n)
# CHECK-NOT:     dispatch

# The plan: x updated in place, the donated bytes counted (8 x 16 f32).
# PLAN-LABEL: entry bump_e:
# PLAN:         x 512 {{.*}} updated in place
# PLAN:         1 in-place write(s)
# PLAN-NEXT:    donated 512 bytes: outputs computed in their donated inputs' buffers
