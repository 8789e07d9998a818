//===- TestOps.td - test-only ops --------------------------*- tablegen -*-===//
//
// Ops that exist only for tests, registered by vmapc-opt (as upstream's
// test dialect): `arr_test.opaque` has no batching rule, to check that
// `--arr-vmap` reports a missing rule instead of guessing.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_OPS
#define VMAPC_TEST_OPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def ArrTest_Dialect : Dialect {
  let name = "arr_test";
  let summary = "Test-only ops for vmapc";
  let cppNamespace = "::vmapc::arr_test";
}

def ArrTest_OpaqueOp : Op<ArrTest_Dialect, "opaque", [Pure]> {
  let summary = "A pure op with no batching rule";
  let arguments = (ins AnyRankedTensor:$operand);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat =
      "$operand attr-dict `:` functional-type($operand, $result)";
}

#endif // VMAPC_TEST_OPS
