//===- CpuObject.cpp - LLVM dialect to a loadable shared object -----------===//

#include "codegen/CpuObject.h"
#include "codegen/ExternalTool.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "vmapc/ArtifactFormat.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

LogicalResult vmapc::emitCpuSharedObject(ModuleOp module, StringRef level,
                                         std::string *sharedObject) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "vmapc");
  if (!llvmModule)
    return module.emitError("cannot translate the module to LLVM IR");
  // What the object is compiled for, which the loader checks against the
  // manifest's level for it (ArtifactFormat.h, kCodeLevelSymbol).
  auto *levelText =
      llvm::ConstantDataArray::getString(llvmContext, level, /*AddNull=*/true);
  new llvm::GlobalVariable(*llvmModule, levelText->getType(),
                           /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, levelText,
                           vmapc::kCodeLevelSymbol);

  // LLVM knows the psABI levels as CPU names: the code uses what the level
  // guarantees (SSE2; AVX2 + FMA; AVX-512) and nothing the host happens to
  // have.
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return module.emitError("no x86-64 target in LLVM: ") << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, level, "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());

  auto optimize = makeOptimizingTransformer(3, 0, machine.get());
  if (llvm::Error err = optimize(llvmModule.get()))
    return module.emitError("LLVM optimisation failed: ")
           << llvm::toString(std::move(err));

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return module.emitError("LLVM cannot emit an x86-64 object");
    codegen.run(*llvmModule);
  }

  // Link with the system compiler driver: `cc -shared -o SO OBJ -lm`.
  llvm::ErrorOr<std::string> cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return module.emitError(
        "no system C compiler driver `cc` on PATH to link the shared object "
        "(apt-get install gcc)");
  auto commandLine = [&](StringRef obj, StringRef so) {
    return llvm::SmallVector<StringRef>{*cc, "-shared", "-o", so, obj, "-lm"};
  };
  ExternalToolRun link{*cc,
                       "o",
                       "so",
                       commandLine,
                       "linking the shared object failed: ",
                       "cannot read the linked shared object"};
  FailureOr<std::string> so =
      runExternalTool(module, link, StringRef(object.data(), object.size()));
  if (failed(so))
    return failure();
  *sharedObject = std::move(*so);
  return success();
}
