//===- ArrOps.td - arr dialect operations ------------------*- tablegen -*-===//
//
// Every op documents its per-example semantics. Its type rule lives in
// TypeInference.cpp (an op whose result types follow from its operands and
// attributes implements InferTypeOpInterface through it), its batching rule
// in BatchingRules.cpp (one generic rule per family, as JAX's defvectorized /
// defbroadcasting / defreducer).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARR_OPS
#define VMAPC_ARR_OPS

include "dialect/ArrDialect.td"
include "dialect/BatchingOpInterface.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/CallInterfaces.td"

def Arr_Tensor : RankedTensorOf<[F32, I32, I1]>;
def Arr_NumericTensor : RankedTensorOf<[F32, I32]>;
def Arr_FloatTensor : RankedTensorOf<[F32]>;
def Arr_IndexTensor : RankedTensorOf<[I32]>;
def Arr_BoolTensor : RankedTensorOf<[I1]>;

def Arr_Batchable : DeclareOpInterfaceMethods<BatchingOpInterface>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Arr_ConstantOp : Arr_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "A constant tensor";
  let description = [{
    ```mlir
    %c = arr.constant dense<1.0> : tensor<64xf32>
    ```
    Has no operands, so it is never batched.
  }];
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise ops: operands and results of one shape (broadcasting is explicit).
// Where the result type is an operand's (SameOperandsAndResultType,
// AllTypesMatch), ODS implements InferTypeOpInterface from the trait.
// Batching rule: JAX's broadcasting rule (batchElementwise).
//===----------------------------------------------------------------------===//

// `inferBody` (given for ops whose result type follows from the operands)
// defines `inferReturnTypes` of an op with InferTypeOpAdaptor.
class Arr_ElementwiseOp<string mnemonic, list<Trait> traits = [],
                        code inferBody = [{}]>
    : Arr_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultShape, Arr_Batchable])> {
  let extraClassDefinition = inferBody # [{
    ::llvm::LogicalResult $cppClass::batch(
        ::vmapc::arr::BatchingContext &ctx, ::mlir::ValueRange operands,
        ::llvm::ArrayRef<::vmapc::arr::BatchDim> operandBatchDims,
        ::llvm::SmallVectorImpl<::mlir::Value> &results,
        ::llvm::SmallVectorImpl<::vmapc::arr::BatchDim> &resultBatchDims) {
      return ::vmapc::arr::batchElementwise(*this, ctx, operands,
          operandBatchDims, results, resultBatchDims);
    }
  }];
}

// `details` (optional) starts the description: what the op computes where
// that needs more than its summary.
class Arr_UnaryOp<string mnemonic, Type type, string what,
                  string details = "">
    : Arr_ElementwiseOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "Elementwise " # what;
  let description = details # [{
    ```mlir
    %y = arr.}] # mnemonic # [{ %x : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins type:$operand);
  let results = (outs type:$result);
  let assemblyFormat = "$operand attr-dict `:` type($result)";
}

def Arr_NegOp : Arr_UnaryOp<"neg", Arr_NumericTensor, "negation `-x`">;
def Arr_ExpOp : Arr_UnaryOp<"exp", Arr_FloatTensor, "natural exponential">;
def Arr_LogOp : Arr_UnaryOp<"log", Arr_FloatTensor, "natural logarithm">;
def Arr_TanhOp : Arr_UnaryOp<"tanh", Arr_FloatTensor, "hyperbolic tangent">;
def Arr_SqrtOp : Arr_UnaryOp<"sqrt", Arr_FloatTensor, "square root">;
def Arr_SinOp : Arr_UnaryOp<"sin", Arr_FloatTensor, "sine", [{
    `sin(x)` of x in radians (`jnp.sin`): NaN for ±inf and NaN, -0.0 for
    -0.0. The CPU's expansion keeps its bound for |x| <= 2^30 (docs/math.md).
  }]>;
def Arr_CosOp : Arr_UnaryOp<"cos", Arr_FloatTensor, "cosine", [{
    `cos(x)` of x in radians (`jnp.cos`): NaN for ±inf and NaN. The CPU's
    expansion keeps its bound for |x| <= 2^30 (docs/math.md).
  }]>;
def Arr_Log1pOp : Arr_UnaryOp<"log1p", Arr_FloatTensor, "log(1 + x)", [{
    `log(1 + x)` computed without rounding 1 + x (`jnp.log1p`), so that it
    keeps its relative accuracy for x near 0: -inf at x = -1, NaN below,
    x itself for ±0.
  }]>;
def Arr_Expm1Op : Arr_UnaryOp<"expm1", Arr_FloatTensor, "exp(x) - 1", [{
    `exp(x) - 1` without the cancellation of the subtraction (`jnp.expm1`):
    accurate relative to the result for x near 0; -1 at -inf, x itself for
    ±0.
  }]>;
def Arr_ErfOp : Arr_UnaryOp<"erf", Arr_FloatTensor, "error function", [{
    `erf(x) = 2 / sqrt(pi) * integral of exp(-t^2) from 0 to x`
    (`jax.scipy.special.erf`, `lax.erf`): odd, ±1 at ±inf.
  }]>;
def Arr_FloorOp : Arr_UnaryOp<"floor", Arr_FloatTensor,
    "rounding down to an integer", [{
    The largest integer not above x, as an f32 (`jnp.floor`); ±0, ±inf and
    NaN stay, -0.5 gives -1.0.
  }]>;
def Arr_CeilOp : Arr_UnaryOp<"ceil", Arr_FloatTensor,
    "rounding up to an integer", [{
    The smallest integer not below x, as an f32 (`jnp.ceil`); ±0, ±inf and
    NaN stay, -0.5 gives -0.0.
  }]>;
def Arr_RoundOp : Arr_UnaryOp<"round", Arr_FloatTensor,
    "rounding to the nearest integer, half to even", [{
    The integer nearest to x, as an f32, a tie going to the even one
    (`jnp.round`, `lax.round` with ROUND_TO_NEAREST_EVEN): 0.5 gives 0.0,
    1.5 and 2.5 give 2.0, -0.5 gives -0.0; ±inf and NaN stay.
  }]>;
def Arr_AbsOp : Arr_UnaryOp<"abs", Arr_NumericTensor, "absolute value `abs(x)`">;
def Arr_SignOp : Arr_UnaryOp<"sign", Arr_NumericTensor,
    "sign `sign(x)`: 1 for x > 0, -1 for x < 0, else x itself (0, -0.0, NaN)">;
def Arr_NotOp : Arr_UnaryOp<"not", Arr_BoolTensor, "logical negation `not x`">;

class Arr_BinaryOp<string mnemonic, string what,
                   Type type = Arr_NumericTensor>
    : Arr_ElementwiseOp<mnemonic, [SameOperandsAndResultType]> {
  let summary = "Elementwise " # what;
  let description = [{
    Both operands have the result's type; the front end broadcasts first.
    ```mlir
    %z = arr.}] # mnemonic # [{ %x, %y : tensor<4x64xf32>
    ```
  }];
  let arguments = (ins type:$lhs, type:$rhs);
  let results = (outs type:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Arr_AddOp : Arr_BinaryOp<"add", "addition `x + y`">;
def Arr_SubOp : Arr_BinaryOp<"sub", "subtraction `x - y`">;
def Arr_MulOp : Arr_BinaryOp<"mul", "multiplication `x * y`">;
def Arr_DivOp : Arr_BinaryOp<"div",
    "division `x / y` (i32: truncating, as C; x / 0 and INT_MIN / -1 "
    "give an unspecified value, never a trap)">;

def Arr_MaximumOp : Arr_BinaryOp<"maximum",
    "maximum `maximum(x, y)` (f32: NaN if either is NaN, as JAX's lax.max)">;
def Arr_MinimumOp : Arr_BinaryOp<"minimum",
    "minimum `minimum(x, y)` (f32: NaN if either is NaN, as JAX's lax.min)">;
def Arr_PowOp : Arr_BinaryOp<"pow", "power `x ** y` (C's powf)",
                             Arr_FloatTensor>;
def Arr_AndOp : Arr_BinaryOp<"and", "logical and `x and y`", Arr_BoolTensor>;
def Arr_OrOp : Arr_BinaryOp<"or", "logical or `x or y`", Arr_BoolTensor>;

def Arr_SelectOp : Arr_ElementwiseOp<"select",
    [AllTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "Elementwise choice `where(c, x, y)`";
  let description = [{
    `c ? x : y` elementwise; all three have one shape (the front end
    broadcasts first).
    ```mlir
    %z = arr.select %c, %x, %y : tensor<64xi1>, tensor<64xf32>
    ```
  }];
  let arguments = (ins Arr_BoolTensor:$cond, Arr_Tensor:$on_true,
                   Arr_Tensor:$on_false);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat =
      "$cond `,` $on_true `,` $on_false attr-dict `:` type($cond) `,` type($result)";
}

def Arr_ConvertOp : Arr_ElementwiseOp<"convert"> {
  let summary = "Elementwise dtype conversion `f32(x)`, `i32(x)`";
  let description = [{
    Between any two of f32, i32 and i1 (bool):
    - f32 to i32 truncates toward zero and saturates at the i32 range; NaN
      gives 0 (XLA's convert);
    - i32 to f32 rounds to nearest even;
    - bool to f32/i32 gives 1 or 0; f32/i32 to bool is `x != 0` (NaN gives
      true, as numpy).
    ```mlir
    %y = arr.convert %x : tensor<3xf32> -> tensor<3xi32>
    ```
  }];
  let arguments = (ins Arr_Tensor:$operand);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` type($operand) `->` type($result)";
  let hasFolder = 1;
}

def Arr_CmpPredicate : I32EnumAttr<"CmpPredicate", "comparison predicate", [
    I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>,
    I32EnumAttrCase<"gt", 2>, I32EnumAttrCase<"ge", 3>,
    I32EnumAttrCase<"eq", 4>, I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::vmapc::arr";
}

def Arr_CmpOp : Arr_ElementwiseOp<"cmp", [SameTypeOperands,
                                         InferTypeOpAdaptor], [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::vmapc::arr::inferCmpOp(location, adaptor.getLhs().getType(),
          adaptor.getRhs().getType(), types);
    }
}]> {
  let summary = "Elementwise comparison, giving bool";
  let description = [{
    Ordered comparison (`<`, `<=`, `>`, `>=`, `==`, `!=`); any NaN operand
    gives false except for `ne`.
    ```mlir
    %b = arr.cmp lt, %x, %y : tensor<64xf32> -> tensor<64xi1>
    ```
  }];
  let arguments = (ins Arr_CmpPredicate:$predicate, Arr_NumericTensor:$lhs,
                   Arr_NumericTensor:$rhs);
  let results = (outs Arr_BoolTensor:$result);
  let assemblyFormat = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

def Arr_BroadcastInDimOp : Arr_Op<"broadcast_in_dim", [Pure, Arr_Batchable]> {
  let summary = "Broadcasts an operand into a larger shape";
  let description = [{
    StableHLO's `broadcast_in_dim`: operand dimension i becomes result
    dimension `dims[i]` (strictly increasing), where it has the result's size
    or size 1 (stretched). Lowered as an indexing map, never materialised
    when its consumer fuses.
    ```mlir
    %y = arr.broadcast_in_dim %x, dims = [1] : (tensor<64xf32>) -> tensor<8x64xf32>
    ```
  }];
  let arguments = (ins Arr_Tensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat =
      "$operand `,` `dims` `=` $dims attr-dict `:` functional-type($operand, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Arr_TransposeOp : Arr_Op<"transpose",
    [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "Permutes the dimensions of a tensor";
  let description = [{
    Result dimension i is operand dimension `perm[i]` (numpy's
    `transpose(x, perm)`).
    ```mlir
    %y = arr.transpose %x, perm = [1, 0] : (tensor<8x64xf32>) -> tensor<64x8xf32>
    ```
  }];
  let arguments = (ins Arr_Tensor:$operand, DenseI64ArrayAttr:$perm);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat =
      "$operand `,` `perm` `=` $perm attr-dict `:` functional-type($operand, $result)";
  let hasFolder = 1;
}

def Arr_ReshapeOp : Arr_Op<"reshape", [Pure, Arr_Batchable]> {
  let summary = "Reshapes a tensor in row-major order";
  let description = [{
    The element count is unchanged.
    ```mlir
    %y = arr.reshape %x : (tensor<8x8xf32>) -> tensor<64xf32>
    ```
  }];
  let arguments = (ins Arr_Tensor:$operand);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat = "$operand attr-dict `:` functional-type($operand, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}


def Arr_ConcatOp : Arr_Op<"concat",
    [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "Concatenates tensors along `dim`";
  let description = [{
    numpy's `concatenate(..., axis=dim)`: one or more operands of one dtype
    and rank whose sizes agree except on `dim`.
    ```mlir
    %y = arr.concat %a, %b dim = 1
           : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<2x7xf32>
    ```
    Batching rule (JAX's `_concatenate_batch_rule`, without its copies):
    batched pieces are moved to the first batched piece's batch dimension;
    unbatched pieces get it through `arr.broadcast_in_dim` (an indexing map
    after lowering, never B copies in memory).
  }];
  let arguments = (ins Variadic<Arr_Tensor>:$pieces, I64Attr:$dim);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat =
      "$pieces `dim` `=` $dim attr-dict `:` functional-type($pieces, $result)";
  let hasFolder = 1;
}

def Arr_SliceOp : Arr_Op<"slice", [Pure, Arr_Batchable]> {
  let summary = "A static strided slice";
  let description = [{
    `result[i0, i1, ...] = operand[start0 + stride0 * i0, start1 + stride1 *
    i1, ...]`: numpy's basic slicing `x[a:b:s, ...]` with the bounds
    resolved. A stride is non-zero and may be negative (`x[::-1]`); every
    index read is in bounds. A result dimension is empty only for a batch
    of 0 examples (the front end rejects empty slices).
    ```mlir
    %y = arr.slice %x, start = [1, 0], stride = [1, 2]
           : (tensor<8x6xf32>) -> tensor<4x3xf32>
    ```
    Batching rule: a full slice of the batch dimension (start 0, stride 1).
  }];
  let arguments = (ins Arr_Tensor:$operand, DenseI64ArrayAttr:$start,
                   DenseI64ArrayAttr:$stride);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat = [{
    $operand `,` `start` `=` $start `,` `stride` `=` $stride attr-dict `:`
    functional-type($operand, $result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Arr_IotaOp : Arr_Op<"iota", [Pure]> {
  let summary = "The index along `dim`";
  let description = [{
    StableHLO's `iota`: element `[i0, i1, ...]` is `i_dim`, as i32 or f32.
    No operands, so it is never batched.
    ```mlir
    %i = arr.iota dim = 0 : tensor<5xi32>
    ```
  }];
  let arguments = (ins I64Attr:$dim);
  let results = (outs Arr_NumericTensor:$result);
  let assemblyFormat = "`dim` `=` $dim attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Indexing: gather and scatter along one axis (JAX's x[i], jnp.take and
// x.at[i]), with leading batch dimensions shared by the operand and the
// indices (tf.gather's batch_dims, StableHLO's operand_batching_dims) so
// that a batched index into a batched operand reads each example's own
// slice. The indices are i32 and computed at run time.
//===----------------------------------------------------------------------===//

def Arr_GatherMode : I32EnumAttr<"GatherMode", "out-of-range rule of a gather", [
    I32EnumAttrCase<"clamp", 0>, I32EnumAttrCase<"clip", 1>,
    I32EnumAttrCase<"fill", 2>]> {
  let cppNamespace = "::vmapc::arr";
}

def Arr_ScatterKind : I32EnumAttr<"ScatterKind", "how a scatter combines", [
    I32EnumAttrCase<"set", 0>, I32EnumAttrCase<"add", 1>,
    I32EnumAttrCase<"mul", 2>, I32EnumAttrCase<"min", 3>,
    I32EnumAttrCase<"max", 4>]> {
  let cppNamespace = "::vmapc::arr";
}

def Arr_GatherOp : Arr_Op<"gather",
    [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "Reads the operand at run-time indices along `axis`";
  let description = [{
    With `n = batch_dims`, the operand's and the indices' first `n`
    dimensions are batch dimensions of equal sizes (`b`), and
    `n <= axis < rank(operand)`. The result has the operand's dtype and the
    shape `operand[:axis] ++ indices[n:] ++ operand[axis+1:]`:
    ```
    result[b, o, j, s] = operand[b, o, index(indices[b, j]), s]
    ```
    where `o` are the operand's dimensions in `[n, axis)`, `j` the indices'
    non-batch dimensions and `s` the operand's dimensions after `axis`.
    `mode` says what an index `i` of a dimension of size `d` reads:
    - `clamp`: JAX's `x[i]`: a negative `i` counts from the end (`i + d`),
      then the index is clamped into `[0, d)`;
    - `clip`: `jnp.take(..., mode='clip')`: `i` clamped into `[0, d)` as
      given (a negative index reads element 0);
    - `fill`: `jnp.take`'s default: a negative `i` counts from the end; an
      index still out of range reads the fill value: NaN (f32), INT32_MIN
      (i32) or true (bool).
    ```mlir
    // x[i] of an f32[10, 64] with a scalar i: one row.
    %r = arr.gather %x[%i], axis = 0, batch_dims = 0, mode = clamp
           : (tensor<10x64xf32>, tensor<i32>) -> tensor<64xf32>
    // jnp.take(table, ids, axis=0): one row per id.
    %e = arr.gather %table[%ids], axis = 0, batch_dims = 0, mode = fill
           : (tensor<1000x64xf32>, tensor<16xi32>) -> tensor<16x64xf32>
    ```
    Batching rule (JAX's `_gather_batching_rule`): batched indices into an
    unbatched operand read the one shared operand (the batch dimension is an
    index dimension, never B copies of the operand); a batched operand with
    unbatched indices gathers along the shifted axis; both batched add a
    batch dimension (`batch_dims + 1`), each example reading its own slice.
  }];
  let arguments = (ins Arr_Tensor:$operand, Arr_IndexTensor:$indices,
                   I64Attr:$axis, I64Attr:$batch_dims,
                   Arr_GatherMode:$mode);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` `axis` `=` $axis `,` `batch_dims` `=`
    $batch_dims `,` `mode` `=` $mode attr-dict `:`
    functional-type(operands, $result)
  }];
}

def Arr_ScatterOp : Arr_Op<"scatter",
    [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "The operand with run-time indices along `axis` updated";
  let description = [{
    JAX's `x.at[i].set(v)` (and `.add`, `.mul`, `.min`, `.max`): the result
    is the operand (same type) with, for every index position `j` of
    `indices` in row-major order,
    ```
    result[b, o, i, s] = combine(result[b, o, i, s], updates[b, o, j, s])
    ```
    where `i = indices[b, j]`, counted from the end when negative; an `i`
    still out of `[0, d)` drops its update. `updates` has the shape a gather
    with the same operand, indices, `axis` and `batch_dims` would give.
    `kind` is the combiner: `set` (the update; of duplicate indices the
    last in index order wins, a rule JAX leaves unspecified), `add`, `mul`,
    `min`, `max` (duplicates combine in index order; `min`/`max` as
    `minimum`/`maximum`).
    ```mlir
    // x.at[i].add(v) of an f32[10] with a scalar i.
    %y = arr.scatter %x[%i], %v, axis = 0, batch_dims = 0, kind = add
           : (tensor<10xf32>, tensor<i32>, tensor<f32>) -> tensor<10xf32>
    ```
    The operand's buffer is updated in place when the operand dies here
    (the lowering's destination is the operand); otherwise bufferization
    copies it first.
    Batching rule (JAX's `_scatter_batching_rule`): unbatched indices keep
    the batch dimension an ordinary dimension of the operand and updates;
    batched indices add a batch dimension (`batch_dims + 1`). An unbatched
    operand with batched updates or indices is broadcast to B copies: each
    example updates its own.
  }];
  let arguments = (ins Arr_Tensor:$operand, Arr_IndexTensor:$indices,
                   Arr_Tensor:$updates, I64Attr:$axis, I64Attr:$batch_dims,
                   Arr_ScatterKind:$kind);
  let results = (outs Arr_Tensor:$result);
  let assemblyFormat = [{
    $operand `[` $indices `]` `,` $updates `,` `axis` `=` $axis `,`
    `batch_dims` `=` $batch_dims `,` `kind` `=` $kind attr-dict `:`
    functional-type(operands, $result)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions. Batching rule: JAX's reducer rule (batchReducer): the batch
// dimension moves to 0 and the reduced dimensions shift past it.
//===----------------------------------------------------------------------===//

class Arr_ReduceOp<string mnemonic, string what>
    : Arr_Op<mnemonic, [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = what # " over the dimensions `dims`";
  let description = [{
    The result is the operand's shape without `dims` (sorted, unique).
    ```mlir
    %s = arr.}] # mnemonic # [{ %x, dims = [1] : (tensor<8x64xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins Arr_NumericTensor:$operand, DenseI64ArrayAttr:$dims);
  let results = (outs Arr_NumericTensor:$result);
  let assemblyFormat =
      "$operand `,` `dims` `=` $dims attr-dict `:` functional-type($operand, $result)";
  let hasFolder = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::vmapc::arr::inferReduceOp(location,
          adaptor.getOperand().getType(), adaptor.getDims(), types);
    }
    ::llvm::LogicalResult $cppClass::batch(
        ::vmapc::arr::BatchingContext &ctx, ::mlir::ValueRange operands,
        ::llvm::ArrayRef<::vmapc::arr::BatchDim> operandBatchDims,
        ::llvm::SmallVectorImpl<::mlir::Value> &results,
        ::llvm::SmallVectorImpl<::vmapc::arr::BatchDim> &resultBatchDims) {
      return ::vmapc::arr::batchReducer(*this, ctx, operands,
          operandBatchDims, results, resultBatchDims);
    }
  }];
}

def Arr_ReduceSumOp : Arr_ReduceOp<"reduce_sum", "Sum">;
def Arr_ReduceMaxOp : Arr_ReduceOp<"reduce_max", "Maximum">;
def Arr_ReduceMinOp : Arr_ReduceOp<"reduce_min", "Minimum">;

class Arr_ArgReduceOp<string mnemonic, string what>
    : Arr_Op<mnemonic, [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "Index of the " # what # " along `axis`";
  let description = [{
    Gives `i32` indices; the lowest index wins ties. The result is the
    operand's shape without `axis`.
    ```mlir
    %i = arr.}] # mnemonic # [{ %x, axis = 0 : (tensor<1000xf32>) -> tensor<i32>
    ```
  }];
  let arguments = (ins Arr_NumericTensor:$operand, I64Attr:$axis);
  let results = (outs Arr_IndexTensor:$result);
  let assemblyFormat =
      "$operand `,` `axis` `=` $axis attr-dict `:` functional-type($operand, $result)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::vmapc::arr::inferArgReduceOp(location,
          adaptor.getOperand().getType(), adaptor.getAxis(), types);
    }
    ::llvm::LogicalResult $cppClass::batch(
        ::vmapc::arr::BatchingContext &ctx, ::mlir::ValueRange operands,
        ::llvm::ArrayRef<::vmapc::arr::BatchDim> operandBatchDims,
        ::llvm::SmallVectorImpl<::mlir::Value> &results,
        ::llvm::SmallVectorImpl<::vmapc::arr::BatchDim> &resultBatchDims) {
      return ::vmapc::arr::batchReducer(*this, ctx, operands,
          operandBatchDims, results, resultBatchDims);
    }
  }];
}

def Arr_ArgMinOp : Arr_ArgReduceOp<"argmin", "minimum">;
def Arr_ArgMaxOp : Arr_ArgReduceOp<"argmax", "maximum">;

//===----------------------------------------------------------------------===//
// Contraction
//===----------------------------------------------------------------------===//

def Arr_DotGeneralOp : Arr_Op<"dot_general",
    [Pure, Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "General tensor contraction (StableHLO dot_general)";
  let description = [{
    Contracts `lhs_contract[i]` of `lhs` with `rhs_contract[i]` of `rhs`,
    pairing batch dimensions `lhs_batch[i]` with `rhs_batch[i]`. Result
    dimensions: the batch dimensions, then lhs's free dimensions, then rhs's,
    each in order. `@` is this op: `a @ b` of two matrices is
    ```mlir
    %c = arr.dot_general %a, %b, lhs_batch = [], rhs_batch = [],
           lhs_contract = [1], rhs_contract = [0]
           : (tensor<8x64xf32>, tensor<64x10xf32>) -> tensor<8x10xf32>
    ```
    Batching rule: JAX's `_dot_general_batch_rule`: two batched operands add
    a batch dimension pair; one batched operand turns its batch dimension into
    a free dimension, so the unbatched side is read in place (a broadcast in
    the indexing map) and never copied.
  }];
  let arguments = (ins Arr_NumericTensor:$lhs, Arr_NumericTensor:$rhs,
                   DenseI64ArrayAttr:$lhs_batch, DenseI64ArrayAttr:$rhs_batch,
                   DenseI64ArrayAttr:$lhs_contract,
                   DenseI64ArrayAttr:$rhs_contract);
  let results = (outs Arr_NumericTensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` `lhs_batch` `=` $lhs_batch `,` `rhs_batch` `=` $rhs_batch
    `,` `lhs_contract` `=` $lhs_contract `,` `rhs_contract` `=` $rhs_contract
    attr-dict `:` functional-type(operands, $result)
  }];
}

//===----------------------------------------------------------------------===//
// Bounded loop
//===----------------------------------------------------------------------===//

def Arr_ForOp : Arr_Op<"for", [IsolatedFromAbove, RecursiveMemoryEffects,
    RecursivelySpeculatable, SingleBlock, AttrSizedOperandSegments,
    Arr_Batchable, InferTypeOpAdaptor]> {
  let summary = "A loop with a static trip count and loop-carried values";
  let description = [{
    JAX's `fori_loop`/`scan` with explicit constants: the body runs
    `trip_count` times (0 or more). Its block arguments are the iteration
    index (`tensor<i32>`, 0 to trip_count - 1), one per const (the same value
    every iteration) and one per carry (the inits on the first iteration,
    then what the previous iteration yielded). The results are the carries
    after the last iteration (the inits when trip_count is 0). The region is
    isolated from above: everything the body reads from outside is a const.
    ```mlir
    %r:2 = arr.for 10 consts(%w : tensor<3xf32>)
             iter_args(%a0, %b0 : tensor<3xf32>, tensor<f32>)
             -> (tensor<3xf32>, tensor<f32>) {
    ^bb0(%i: tensor<i32>, %wc: tensor<3xf32>, %a: tensor<3xf32>, %b: tensor<f32>):
      %a2 = arr.add %a, %wc : tensor<3xf32>
      arr.yield %a2, %b : tensor<3xf32>, tensor<f32>
    }
    ```
    Batching rule (JAX's scan rule): a carry is batched when its init is
    batched or when, assuming the current set of batched carries, the body
    yields a batched value for it; this is iterated to a fixpoint. Batched
    carries live at batch dimension 0 (unbatched yields of a batched carry
    are broadcast there); batched consts are moved to batch dimension 0 once,
    before the loop, and an unbatched const stays unbatched, read in place on
    every iteration.
  }];
  let arguments = (ins I64Attr:$trip_count, Variadic<Arr_Tensor>:$consts,
                   Variadic<Arr_Tensor>:$inits);
  let results = (outs Variadic<Arr_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $trip_count (`consts` `(` $consts^ `:` type($consts) `)`)?
    `iter_args` `(` ($inits^ `:` type($inits))? `)`
    (`->` `(` type($results)^ `)`)? attr-dict-with-keyword
    $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// The body's iteration index argument (tensor<i32>).
    ::mlir::BlockArgument getIndexArgument() { return getBodyBlock().getArgument(0); }
    /// The body's arguments for the consts and for the carries.
    ::mlir::Block::BlockArgListType getConstArguments() {
      return getBodyBlock().getArguments().slice(1, getConsts().size());
    }
    ::mlir::Block::BlockArgListType getCarryArguments() {
      return getBodyBlock().getArguments().drop_front(1 + getConsts().size());
    }
  }];
}

def Arr_YieldOp : Arr_Op<"yield", [Pure, HasParent<"ForOp">,
                                   Terminator]> {
  let summary = "The carries of the next iteration of `arr.for`";
  let description = [{
    One value per carry, of the carry's type.
    ```mlir
    arr.yield %a, %b : tensor<3xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<Arr_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

//===----------------------------------------------------------------------===//
// vmap
//===----------------------------------------------------------------------===//

def Arr_VmapCallOp : Arr_Op<"vmap_call",
    [DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls `vmap(callee, in_axes, out_axes, axis_size)`";
  let description = [{
    JAX's `vmap` applied to a function and called: operand i carries the
    mapped axis at `in_axes[i]` (a non-negative int, or `unit` for an operand
    shared by every example); result j carries it at `out_axes[j]` (or `unit`:
    the result must not depend on a mapped operand). `axis_size` is the size
    of the mapped axis. `--arr-vmap` replaces this op by a call of the batched
    callee.
    ```mlir
    %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 0], out_axes = [0],
           axis_size = 1000 : i64}
           : (tensor<64xf32>, tensor<1000x64xf32>) -> tensor<1000xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee, Variadic<Arr_Tensor>:$args,
                   ArrayAttr:$in_axes, ArrayAttr:$out_axes, I64Attr:$axis_size);
  let results = (outs Variadic<Arr_Tensor>:$results);
  let assemblyFormat = [{
    $callee `(` $args `)` attr-dict `:` functional-type($args, results)
  }];
  let extraClassDeclaration = [{
    /// in_axes and out_axes as optional ints (nullopt for `none`).
    ::llvm::SmallVector<::vmapc::arr::BatchDim> getInAxesList();
    ::llvm::SmallVector<::vmapc::arr::BatchDim> getOutAxesList();
  }];
}

#endif // VMAPC_ARR_OPS
