//===- CopiesToLinalg.cpp - --arr-copies-to-linalg ------------------------===//
//
// memref.copy as linalg.copy: all of them for the GPU pipeline (a copy
// becomes a kernel), only strided ones for the CPU pipeline (see Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRCOPIESTOLINALG
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

struct ArrCopiesToLinalgPass
    : vmapc::impl::ArrCopiesToLinalgBase<ArrCopiesToLinalgPass> {
  using ArrCopiesToLinalgBase::ArrCopiesToLinalgBase;

  void runOnOperation() override {
    auto isIdentity = [](Value v) {
      return cast<MemRefType>(v.getType()).getLayout().isIdentity();
    };
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!stridedOnly || !isIdentity(copy.getSource()) ||
          !isIdentity(copy.getTarget()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
