//===- BufferizeKernels.cpp - one-shot bufferization of each kernel -------===//
//
// `--arr-bufferize-kernels`: a kernel's bindings are memrefs already; its
// body, tiled (and vectorized) on tensors, is bufferized by upstream
// one-shot bufferization, after upstream empty-tensor elimination has let
// each result be computed in its output binding. What remains allocated is
// per-workgroup scratch (a fused producer's tile that no register holds);
// `--arr-cpu-workgroups` puts it on the worker's stack. An scf.if that
// yields buffers of different layouts gets the most static layout they
// share (refineIfResultLayouts).
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRBUFFERIZEKERNELS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// The layout of `type` as strides and an offset, if it has one.
std::optional<std::pair<SmallVector<int64_t>, int64_t>>
stridesAndOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return std::nullopt;
  return std::make_pair(strides, offset);
}

/// One-shot bufferization gives an scf.if whose branches yield memrefs of
/// different layouts a result of a fully dynamic layout (every stride and
/// the offset unknown), and vector code then cannot load a row of it as a
/// vector. Each such result gets instead the most static layout that both
/// branches' buffers have (a slab read in place or from its padded copy,
/// passes/Codegen/PadSlab.h: the same row stride, the offset unknown); its
/// users get it through a memref.cast, which canonicalization folds into
/// them.
void refineIfResultLayouts(RewriterBase &rewriter, func::FuncOp kernel) {
  kernel.walk([&](scf::IfOp ifOp) {
    if (!ifOp.elseBlock())
      return;
    for (OpResult result : ifOp.getResults()) {
      auto type = dyn_cast<MemRefType>(result.getType());
      if (!type)
        continue;
      unsigned index = result.getResultNumber();
      SmallVector<OpOperand *> yielded;
      std::optional<std::pair<SmallVector<int64_t>, int64_t>> joined;
      for (Block *block : {ifOp.thenBlock(), ifOp.elseBlock()}) {
        OpOperand &operand = block->getTerminator()->getOpOperand(index);
        Value buffer = operand.get();
        if (auto cast = buffer.getDefiningOp<memref::CastOp>())
          buffer = cast.getSource();
        auto layout = stridesAndOffset(cast<MemRefType>(buffer.getType()));
        if (!layout)
          return;
        if (!joined) {
          joined = layout;
        } else {
          for (auto [a, b] : llvm::zip_equal(joined->first, layout->first))
            if (a != b)
              a = ShapedType::kDynamic;
          if (joined->second != layout->second)
            joined->second = ShapedType::kDynamic;
        }
        yielded.push_back(&operand);
      }
      auto refined =
          MemRefType::get(type.getShape(), type.getElementType(),
                          StridedLayoutAttr::get(type.getContext(),
                                                 joined->second, joined->first),
                          type.getMemorySpace());
      if (refined == type)
        continue;
      for (OpOperand *operand : yielded) {
        Value buffer = operand->get();
        auto dynamicCast = buffer.getDefiningOp<memref::CastOp>();
        if (dynamicCast)
          buffer = dynamicCast.getSource();
        rewriter.setInsertionPoint(operand->getOwner());
        Value castBuffer = buffer.getType() == refined
                               ? buffer
                               : memref::CastOp::create(rewriter, ifOp.getLoc(),
                                                        refined, buffer)
                                     .getResult();
        rewriter.modifyOpInPlace(operand->getOwner(),
                                 [&] { operand->set(castBuffer); });
        if (dynamicCast && dynamicCast->use_empty())
          rewriter.eraseOp(dynamicCast);
      }
      rewriter.modifyOpInPlace(ifOp, [&] { result.setType(refined); });
      rewriter.setInsertionPointAfter(ifOp);
      auto back = memref::CastOp::create(rewriter, ifOp.getLoc(), type, result);
      rewriter.replaceAllUsesExcept(result, back, back);
    }
  });
}

struct ArrBufferizeKernelsPass
    : vmapc::impl::ArrBufferizeKernelsBase<ArrBufferizeKernelsPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (auto kernel : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::sched::isKernel(kernel) || kernel.isExternal())
        continue;
      if (failed(bufferization::eliminateEmptyTensors(rewriter, kernel)))
        return signalPassFailure();
      bufferization::OneShotBufferizationOptions options;
      options.bufferizeFunctionBoundaries = false;
      bufferization::BufferizationState state;
      if (failed(bufferization::runOneShotBufferize(kernel, options, state)))
        return signalPassFailure();
      refineIfResultLayouts(rewriter, kernel);
    }
  }
};
} // namespace
