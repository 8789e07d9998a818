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

    Discardable attributes (declared and verified here), which carry an
    entry point from the front end to the artifact:
    - `arr.batch` (i64 in [0, 2^31 - 1], on a public `func.func` with a
      body): the function is an entry point (an `export`) and B its static
      batch size. `isEntry` tells entries.
    - `arr.in_axes`, `arr.out_axes` (arrays of i64 or unit, on an entry):
      per input and per output, where its batch axis is (unit: none, an
      input shared by every example or an output that does not depend on
      one).
    - `arr.name` (string, on an entry's arguments and results): the name the
      host program knows it by (the source's parameter names, `out`,
      `out0`, ...).
    - `arr.output` (unit, on an entry argument, after
      `--arr-outputs-to-destinations`): the argument is an output buffer.
    - `arr.staging` (unit, on an entry argument, after
      `--arr-outputs-to-destinations`): the buffer is staged (its batch axis
      is not the leading one; the runtime transposes it).
    - `arr.arena` (unit, on an entry argument, after `--arr-plan-buffers`):
      the argument is the arena every intermediate lives in.
    - `arr.staging_offset` (i64 >= 0, on a staged argument, after
      `--arr-plan-buffers`): where in the arena its staging buffer lives.
    - `arr.plan` (`#arr.plan<...>`, on an entry, after `--arr-plan-buffers`):
      the buffer plan's figures.
    - `arr.donated_from` (i64 >= 0, on an entry's result, and on its output
      argument after `--arr-outputs-to-destinations`): the output takes the
      bytes of this input (`donate=` in the export, JAX's donate_argnums):
      it is computed into the input's buffer, which the caller passes as
      both (docs/runtime.md, "Donation").
  }];
  let cppNamespace = "::vmapc::arr";
  let hasConstantMaterializer = 1;
  let hasCanonicalizer = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let extraClassDeclaration = [{
    static constexpr ::llvm::StringLiteral kBatchAttrName = "arr.batch";
    static constexpr ::llvm::StringLiteral kInAxesAttrName = "arr.in_axes";
    static constexpr ::llvm::StringLiteral kOutAxesAttrName = "arr.out_axes";
    static constexpr ::llvm::StringLiteral kNameAttrName = "arr.name";
    static constexpr ::llvm::StringLiteral kOutputAttrName = "arr.output";
    static constexpr ::llvm::StringLiteral kStagingAttrName = "arr.staging";
    static constexpr ::llvm::StringLiteral kArenaAttrName = "arr.arena";
    static constexpr ::llvm::StringLiteral kStagingOffsetAttrName =
        "arr.staging_offset";
    static constexpr ::llvm::StringLiteral kPlanAttrName = "arr.plan";
    static constexpr ::llvm::StringLiteral kDonatedFromAttrName =
        "arr.donated_from";
  }];
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
