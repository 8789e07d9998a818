# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups | FileCheck %s --check-prefix=CPU
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups=max-workgroup-scratch=49152 | FileCheck %s --check-prefix=GPU48K
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups=max-workgroup-scratch=8016 | FileCheck %s --check-prefix=TWO
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups=max-workgroup-scratch=8015 | FileCheck %s --check-prefix=ONE
# RUN: vmapc-opt %s --arr-to-linalg-pipeline --arr-bufferize-pipeline --arr-emit-entry-descriptors --arr-erase-schedules --arr-tile-workgroups=max-workgroup-scratch=1 | FileCheck %s --check-prefix=ONE
#
# Softmax over 1000 classes, one dispatch: a workgroup keeps, per example,
# its row of exp (4000 bytes) and the row's max and sum (4 bytes each; their
# fills are the max's and sum's own buffers): 4008 bytes. The CPU's work
# per workgroup asks for 64 rows, 256512 bytes, within the CPU's default of
# 256 KiB (262144).
# CPU: sched.workgroup_count = array<i64: -64, 1, 1>
#
# An artifact that also holds CUDA code caps it at 48 KiB (a block's shared
# memory, 4 blocks per SM): 8 rows, 32064 bytes (16 rows would be 64128).
# GPU48K: sched.workgroup_count = array<i64: -8, 1, 1>
#
# The tile halves until it fits: 2 rows take 8016 bytes exactly; one byte
# less leaves one row, which is where it stops even when a row alone does
# not fit.
# TWO: sched.workgroup_count = array<i64: -2, 1, 1>
# ONE: sched.workgroup_count = array<i64: -1, 1, 1>

fn softmax_row(x: f32[1000]) -> f32[1000] {
  let e = exp(x - max(x));
  return e / sum(e);
}
export softmax_batch = vmap(softmax_row, batch=256);
