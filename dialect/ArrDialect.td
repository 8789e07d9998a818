//===- ArrDialect.td - the arr dialect ---------------------*- tablegen -*-===//
//
// The `arr` dialect: per-example array programs on ranked tensors with value
// semantics, written by the .arr front end and batched by `--arr-vmap`.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARR_DIALECT
#define VMAPC_ARR_DIALECT

include "mlir/IR/OpBase.td"

def Arr_Dialect : Dialect {
  let name = "arr";
  let summary = "A small, statically shaped array language with vmap";
  let description = [{
    Values are ranked, statically shaped tensors of `f32`, `i32` or `i1`
    (`bool`); a scalar is a 0-d tensor. Broadcasting is explicit
    (`arr.broadcast_in_dim`). `arr.vmap_call` applies JAX's `vmap` to a
    function; `--arr-vmap` rewrites it into batched code with one batching
    rule per op (`BatchingOpInterface`).
  }];
  let cppNamespace = "::vmapc::arr";
  let hasConstantMaterializer = 1;
}

// Every operand and result of an arr op is statically shaped and within the
// size limits of dialect/Limits.h (dimensions at most 2^31 - 1, fewer than
// 2^62 bytes), so that no size computed from the IR can overflow.
def Arr_WithinSizeLimits : NativeOpTrait<"WithinSizeLimits"> {
  let cppNamespace = "::vmapc::arr";
}

class Arr_Op<string mnemonic, list<Trait> traits = []>
    : Op<Arr_Dialect, mnemonic, !listconcat(traits, [Arr_WithinSizeLimits])>;

#endif // VMAPC_ARR_DIALECT
