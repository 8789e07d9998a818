// The options of --arr-plan-buffers: `reuse=false` turns planning off
// (every buffer its own aligned offset, no in-place write; the checker
// passes), `alignment` is a power of two from 1 to 4096, and anything else
// is an error that says so.
//
// RUN: vmapc-opt %s --arr-plan-buffers --arr-verify-buffer-plan | FileCheck %s --check-prefix=REUSE
// RUN: vmapc-opt %s --arr-plan-buffers=reuse=false --arr-verify-buffer-plan | FileCheck %s --check-prefix=NOREUSE
// RUN: vmapc-opt %s --arr-plan-buffers=alignment=256 --arr-verify-buffer-plan | FileCheck %s --check-prefix=A256
// RUN: not vmapc-opt %s --arr-plan-buffers=alignment=0 -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not vmapc-opt %s --arr-plan-buffers=alignment=48 -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOTPOW2
// RUN: not vmapc-opt %s --arr-plan-buffers=alignment=8192 -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOOBIG

// %a = exp(%x) (96 bytes, live over points [1, 3]); %b = -%a, in place of
// %a ([3, 8]); %c (40 bytes, [5, 7]) is live with %b; out = %b. Exactly,
// 96 + 40 = 136 bytes are live at once; with 64-byte offsets the slot of
// %a and %b lacks 32 bytes to a multiple of 64 and %c 24: %c goes below
// (least padding first), and the arena is the aligned lower bound 64 + 96.

// REUSE-LABEL: func.func @chain(
// REUSE-SAME: %[[ARENA:[a-z0-9]+]]: memref<160xi8> {arr.arena})
// REUSE-SAME: arr.plan = #arr.plan<arena_bytes = 160, lower_bound = 136, aligned_lower_bound = 160, naive_sum = 232, in_place = 1, buffers = 3, alignment = 64>
// REUSE-DAG: %[[C0:.+]] = arith.constant 0 : index
// REUSE-DAG: %[[C64:.+]] = arith.constant 64 : index
// REUSE: %[[A:.+]] = memref.view %[[ARENA]][%[[C64]]][] : memref<160xi8> to memref<24xf32>
// REUSE: %[[B:.+]] = memref.view %[[ARENA]][%[[C64]]][] : memref<160xi8> to memref<24xf32>
// REUSE: %[[C:.+]] = memref.view %[[ARENA]][%[[C0]]][] : memref<160xi8> to memref<10xf32>

// Planning off: %a, %b, %c one after another at 0, 128 and 256; %a and %b
// (192 bytes) are live together at point 3.
// NOREUSE-LABEL: func.func @chain(
// NOREUSE-SAME: %[[ARENA:[a-z0-9]+]]: memref<296xi8> {arr.arena})
// NOREUSE-SAME: arr.plan = #arr.plan<arena_bytes = 296, lower_bound = 192, aligned_lower_bound = 224, naive_sum = 232, in_place = 0, buffers = 3, alignment = 64>
// NOREUSE-DAG: %[[C0:.+]] = arith.constant 0 : index
// NOREUSE-DAG: %[[C128:.+]] = arith.constant 128 : index
// NOREUSE-DAG: %[[C256:.+]] = arith.constant 256 : index
// NOREUSE: memref.view %[[ARENA]][%[[C0]]][] : memref<296xi8> to memref<24xf32>
// NOREUSE: memref.view %[[ARENA]][%[[C128]]][] : memref<296xi8> to memref<24xf32>
// NOREUSE: memref.view %[[ARENA]][%[[C256]]][] : memref<296xi8> to memref<10xf32>

// A256-LABEL: func.func @chain(
// A256-SAME: memref<296xi8> {arr.arena})
// A256-SAME: arr.plan = #arr.plan<arena_bytes = 296, lower_bound = 136, aligned_lower_bound = 296, naive_sum = 232, in_place = 1, buffers = 3, alignment = 256>

// ZERO: error: arr-plan-buffers: arena alignment must be a power of two from 1 to 4096 bytes, got 0
// NOTPOW2: error: arr-plan-buffers: arena alignment must be a power of two from 1 to 4096 bytes, got 48
// TOOBIG: error: arr-plan-buffers: arena alignment must be a power of two from 1 to 4096 bytes, got 8192
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: memref<24xf32>, %y: memref<10xf32>,
                 %out: memref<24xf32> {arr.output}) {
  %a = memref.alloc() : memref<24xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<24xf32>) outs(%a : memref<24xf32>) {
  ^bb0(%i: f32, %o: f32):
    %e = math.exp %i : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<24xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<24xf32>) outs(%b : memref<24xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }
  %c = memref.alloc() : memref<10xf32>
  linalg.copy ins(%y : memref<10xf32>) outs(%c : memref<10xf32>)
  %cs = memref.subview %b[0] [10] [1] : memref<24xf32> to memref<10xf32, strided<[1]>>
  linalg.add ins(%cs, %c : memref<10xf32, strided<[1]>>, memref<10xf32>) outs(%c : memref<10xf32>)
  linalg.copy ins(%b : memref<24xf32>) outs(%out : memref<24xf32>)
  return
}
