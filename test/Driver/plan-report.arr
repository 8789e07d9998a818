# `vmapc plan` names buffers after the source: a `let` variable (probs,
# total: the front end names the op of a let's value, and the passes keep
# that name in the op's location), else the file:line:col of the op that
# first writes the buffer; repeated names get #2, #3. It explains each
# schedule point and each in-place write in a line, and lists the unmapped
# inputs, which every chunk reads from the caller's arrays.
#
# RUN: vmapc plan %s --json %t.json | FileCheck %s
# RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
# An unmapped input that no dispatch reads is listed too, read at no point.
# RUN: vmapc plan %s --entry unused | FileCheck %s --check-prefix=UNUSED
# Errors: an entry that does not exist, a file that cannot be written.
# RUN: not vmapc plan %s --entry nope 2>&1 | FileCheck %s --check-prefix=NOPE
# RUN: not vmapc plan %s --svg %t.missing/plan.svg 2>&1 | FileCheck %s --check-prefix=NOSVG

fn f(x: f32[64], w: f32[64, 32], b: f32[32]) -> f32[32] {
  let scores = x @ w + b;
  let probs = softmax(scores);
  let total = cumsum(probs);
  return total * 2.0;
}
export e = vmap(f, in_axes=(0, none, none), batch=8);

fn g(x: f32[4], table: f32[100]) -> f32[4] { return x * 2.0; }
export unused = vmap(g, in_axes=(0, none), batch=8);

# The softmax of the scores lives in the arena as probs; cumsum's loop
# carries a running value (total, 32 bytes) next to the array it fills
# (total#2, updated in place every iteration).
# CHECK-LABEL: entry e: 6 buffers over 13 schedule points
# CHECK-NEXT:    buffer bytes interval offset memory
# CHECK-NEXT:    x 2048 [0, 5] {{[0-9]+}} staging slot
# CHECK-NEXT:    out 1024 [11, 12] {{[0-9]+}} staging slot
# CHECK-NEXT:    probs 1024 [5, 10] {{[0-9]+}} alloc0 at plan-report.arr:18:15
# CHECK-NEXT:    total 32 [7, 10] {{[0-9]+}} alloc1 at plan-report.arr:19:15
# CHECK-NEXT:    total#2 1024 [9, 11] {{[0-9]+}} alloc2 at plan-report.arr:19:15{{.*}}; updated in place
# CHECK-NEXT:    plan-report.arr:19:15 32 [10, 10] {{[0-9]+}} alloc3
# CHECK:         in place, point 10: dispatch e_dispatch_4 (in the loop, every iteration) updates total#2 in place: it reads the buffer and writes it back, with no copy
# CHECK-NEXT:    schedule points (the batched program's top-level ops in order; a buffer is live from the first point that uses it to the last, both included):
# CHECK-NEXT:        0-2  a constant (no memory)
# CHECK-NEXT:          3  n, the number of examples in the chunk (no memory)
# CHECK-NEXT:          4  allocation of probs (its arena slot; live from its first use, not from here)
# CHECK-NEXT:          5  dispatch e_dispatch_0 (probs at plan-report.arr:18:15): reads x, w (caller's array) and b (caller's array), writes probs
# CHECK-NEXT:          6  allocation of total (its arena slot; live from its first use, not from here)
# CHECK-NEXT:          7  dispatch e_dispatch_1 (total at plan-report.arr:19:15): writes total
# CHECK-NEXT:          8  allocation of total#2
# CHECK-NEXT:          9  dispatch e_dispatch_2 (total at plan-report.arr:19:15): writes total#2
# CHECK-NEXT:         10  loop of 32 iterations over e_dispatch_3, e_dispatch_4 and e_dispatch_5 (one point: a buffer used inside is live over the whole loop)
# CHECK-NEXT:         11  dispatch e_dispatch_6 (plan-report.arr:20:16): reads total#2, writes out
# CHECK-NEXT:         12  end of the chunk: outputs in staging slots are copied out to the caller's arrays
# CHECK-NEXT:    unmapped inputs, read in place from the caller's arrays (never copied, outside the arena):
# CHECK-NEXT:      w f32[64, 32], 8192 bytes, read at point 5
# CHECK-NEXT:      b f32[32], 128 bytes, read at point 5
# CHECK-LABEL: entry unused:

# JSON:      "buffers": [
# JSON:        "bytes": 1024,
# JSON:        "name": "alloc0",
# JSON:        "role": "intermediate",
# JSON-NEXT:   "source": "probs",
# JSON-NEXT:   "source_location": "plan-report.arr:18:15",
# JSON:        "name": "alloc2",
# JSON:        "role": "in place",
# JSON-NEXT:   "source": "total#2",
# JSON-NEXT:   "source_location": "plan-report.arr:19:15",
# JSON:      "points": [
# JSON:        "first": 0,
# JSON-NEXT:   "last": 2,
# JSON-NEXT:   "what": "a constant (no memory)"
# JSON:      "schedule_length": 13,
# JSON-NEXT: "unmapped_inputs": [
# JSON-NEXT:   {
# JSON-NEXT:     "bytes": 8192,
# JSON-NEXT:     "name": "w",
# JSON-NEXT:     "read_at": [
# JSON-NEXT:       5
# JSON-NEXT:     ],
# JSON-NEXT:     "type": "f32[64, 32]"
# JSON:      "writes_in_place": [
# JSON-NEXT:   "point 10: dispatch e_dispatch_4 (in the loop, every iteration) updates total#2 in place: it reads the buffer and writes it back, with no copy"

# UNUSED:      unmapped inputs, read in place from the caller's arrays (never copied, outside the arena):
# UNUSED-NEXT:   table f32[100], 400 bytes, read at no point

# NOPE: vmapc: error: unknown entry 'nope'; entries are: e, unused
# NOSVG: vmapc: error: cannot write '{{.*}}.missing/plan.svg': No such file or directory
