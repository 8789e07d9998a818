//===- SchedOps.td - sched dialect operations --------------*- tablegen -*-===//

#ifndef VMAPC_SCHED_OPS
#define VMAPC_SCHED_OPS

include "dialect/SchedDialect.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Sched_NumExamplesOp : Sched_Op<"num_examples", [Pure]> {
  let summary = "The number of examples n of the chunk being run";
  let description = [{
    In an entry: the number of examples the runtime runs through the entry
    in this chunk, 1 <= n <= B (the entry's batch size).
    ```mlir
    %n = sched.num_examples : index
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
}

def Sched_DispatchOp : Sched_Op<"dispatch", [AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs a kernel over its grid of workgroups";
  let description = [{
    Launches `kernel` on its bindings: the `ins` (read only), then the
    `outs` (written; destination-passing style: on tensors each result is
    the new value of the corresponding init, on memrefs the op writes the
    buffers and has no results), then the `scalars`. The kernel is a
    private `func.func` marked `sched.kernel` whose arguments have the
    memref form of these operand types, in this order.
    ```mlir
    %r = sched.dispatch @classify_dispatch_0(%q, %refs : tensor<256x64xf32>, tensor<1000x64xf32>)
           outs(%init : tensor<256xi32>) scalars(%n) -> tensor<256xi32>
    ```
    All operands are whole buffers (never views), so that the runtime binds
    each to one pointer: an input or output of the entry, or an offset in
    the arena.
  }];
  let arguments = (ins FlatSymbolRefAttr:$kernel,
                       Variadic<AnyShaped>:$inputs,
                       Variadic<AnyShaped>:$outputs,
                       Variadic<Index>:$scalars);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let assemblyFormat = [{
    $kernel `(` ($inputs^ `:` type($inputs))? `)`
    `outs` `(` ($outputs^ `:` type($outputs))? `)`
    (`scalars` `(` $scalars^ `)`)? attr-dict (`->` type($results)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MutableOperandRange getDpsInitsMutable() {
      return getOutputsMutable();
    }
  }];
}

#endif // VMAPC_SCHED_OPS
