//===- ArrAttrs.td - arr dialect attributes ----------------*- tablegen -*-===//
//
// The typed attributes of the arr dialect.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARR_ATTRS
#define VMAPC_ARR_ATTRS

include "dialect/ArrDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Arr_BufferPlanAttr : AttrDef<Arr_Dialect, "BufferPlan"> {
  let mnemonic = "plan";
  let summary = "The figures of an entry's buffer plan";
  let description = [{
    What `--arr-plan-buffers` reports for an entry (passes/BufferPlan.h), in
    bytes but for the counts: the arena it packed every intermediate into
    (`arena_bytes`), the largest total of buffers live at one point of the
    schedule (`lower_bound`, no packing does better), the least arena any
    packing with offsets aligned to `alignment` can reach
    (`aligned_lower_bound`), the sum of every buffer's size (`naive_sum`,
    one buffer each), the buffers placed in place of an operand
    (`in_place`), the buffers planned (`buffers`) and the alignment of
    every offset (`alignment`, a power of two: the runtime allocates the
    arena at least this aligned).
    ```mlir
    arr.plan = #arr.plan<arena_bytes = 262144, lower_bound = 262144,
                         aligned_lower_bound = 262144, naive_sum = 753664,
                         in_place = 3, buffers = 8, alignment = 64>
    ```
    Byte figures are in [0, 2^62), counts in [0, 2^32), `alignment` a
    power of two in [1, 4096].
  }];
  let parameters = (ins "int64_t":$arena_bytes, "int64_t":$lower_bound,
                        "int64_t":$aligned_lower_bound,
                        "int64_t":$naive_sum, "int64_t":$in_place,
                        "int64_t":$buffers, "int64_t":$alignment);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // VMAPC_ARR_ATTRS
