//===- GpuOutlineKernels.cpp - --arr-gpu-outline-kernels ------------------===//
//
// Every bufferized kernel (`sched.kernel`) becomes `gpu.func
// @vmapc_kernel_NAME` of `gpu.module @vmapc_kernels` with the CUDA kernel
// ABI of runtime/include/vmapc/ArtifactFormat.h (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Codegen/BindingAccess.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRGPUOUTLINEKERNELS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

struct ArrGpuOutlineKernelsPass
    : vmapc::impl::ArrGpuOutlineKernelsBase<ArrGpuOutlineKernelsPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Dispatched,
                                 vmapc::Stage::Kernels)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels;
    for (auto fn : module.getOps<func::FuncOp>())
      if (vmapc::sched::isKernel(fn) && !fn.isExternal())
        kernels.push_back(fn);
    if (kernels.empty())
      return;
    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToEnd(module.getBody());
    auto gpuModule =
        gpu::GPUModuleOp::create(b, module.getLoc(), "vmapc_kernels");
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
    // The entries' descriptors, read by the runtime from the GPU module.
    b.setInsertionPointToStart(gpuModule.getBody());
    for (auto global : module.getOps<LLVM::GlobalOp>())
      if (global.getSymName().starts_with("vmapc_entry_"))
        b.clone(*global);
    for (func::FuncOp kernel : kernels) {
      if (failed(convert(kernel, gpuModule)))
        return signalPassFailure();
      kernel.erase();
    }
  }

  /// Moves `kernel` into `gpuModule` as a gpu.func with the kernel ABI.
  LogicalResult convert(func::FuncOp kernel, gpu::GPUModuleOp gpuModule) {
    MLIRContext *ctx = kernel.getContext();
    Location loc = kernel.getLoc();
    // Bindings first, then scalars (index values, passed as i64).
    SmallVector<unsigned> order;
    SmallVector<int64_t> bindingBytes;
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes()))
      if (auto memref = dyn_cast<MemRefType>(type)) {
        std::optional<uint64_t> bytes = vmapc::sched::bindingBytes(memref);
        if (!bytes)
          return kernel.emitOpError("has a binding of dynamic shape");
        bindingBytes.push_back(int64_t(*bytes));
        order.push_back(i);
      }
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      if (isa<MemRefType>(type))
        continue;
      if (!type.isIndex())
        return kernel.emitOpError("has an argument of type ")
               << type << ", neither a binding nor an index scalar";
      order.push_back(i);
    }
    // Scalars are i64 parameters whatever the index bitwidth of the
    // lowering (the ABI's `.param .u64`), cast to index inside.
    SmallVector<Type> types;
    for (unsigned i : order) {
      Type type = kernel.getArgumentTypes()[i];
      types.push_back(type.isIndex() ? IntegerType::get(ctx, 64) : type);
    }

    OpBuilder b(ctx);
    b.setInsertionPointToEnd(gpuModule.getBody());
    std::string name = ("vmapc_kernel_" + kernel.getSymName()).str();
    auto fn =
        gpu::GPUFuncOp::create(b, loc, name, FunctionType::get(ctx, types, {}));
    fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
    for (StringRef attr : {vmapc::sched::SchedDialect::kWorkgroupCountAttrName})
      if (Attribute value = kernel->getAttr(attr))
        fn->setAttr(attr, value);
    fn->setAttr(vmapc::sched::SchedDialect::kBindingBytesAttrName,
                DenseI64ArrayAttr::get(ctx, bindingBytes));
    Block &entry = fn.getBody().front();
    Block &old = kernel.getBody().front();
    IRMapping mapping;
    b.setInsertionPointToStart(&entry);
    for (auto [position, i] : llvm::enumerate(order)) {
      Value arg = entry.getArgument(position);
      if (old.getArgument(i).getType().isIndex())
        arg = arith::IndexCastOp::create(b, loc, b.getIndexType(), arg);
      mapping.map(old.getArgument(i), arg);
    }
    for (Operation &op : old.without_terminator())
      b.clone(op, mapping);
    gpu::ReturnOp::create(b, loc);
    vmapc::setBindingAccess(fn);
    if (failed(
            cloneGlobals(fn, kernel->getParentOfType<ModuleOp>(), gpuModule)))
      return failure();

    return success();
  }

  /// Copies into `gpuModule` every `memref.global` of `host` that `fn`
  /// reads (a literal array of the program), once each under its own name,
  /// so that it is lowered to a global of the device module. Only constants:
  /// a kernel has no host state to share.
  LogicalResult cloneGlobals(gpu::GPUFuncOp fn, ModuleOp host,
                             gpu::GPUModuleOp gpuModule) {
    // Before the kernels, in the order of first use.
    OpBuilder b(gpuModule.getContext());
    b.setInsertionPoint(*gpuModule.getOps<gpu::GPUFuncOp>().begin());
    WalkResult result = fn.walk([&](memref::GetGlobalOp get) {
      StringAttr name = get.getNameAttr().getAttr();
      if (gpuModule.lookupSymbol(name))
        return WalkResult::advance();
      auto global = host.lookupSymbol<memref::GlobalOp>(name);
      if (!global) {
        get.emitOpError("reads ") << get.getNameAttr()
                                  << ", which is not a memref.global of the "
                                     "module";
        return WalkResult::interrupt();
      }
      if (!global.getConstant() || !global.getInitialValue()) {
        get.emitOpError("reads ")
            << get.getNameAttr()
            << ", which is not a constant with an initial value";
        return WalkResult::interrupt();
      }
      b.clone(*global);
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }
};

} // namespace
