//===- CpuObject.cpp - LLVM dialect to a loadable shared object -----------===//

#include "codegen/CpuObject.h"
#include "codegen/ExternalTool.h"
#include "codegen/KernelLoopPasses.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "vmapc/ArtifactFormat.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;

/// LLVM's optimisation of the kernels: O2's function simplification and
/// loop vectorizer, without the passes that find nothing in code the MLIR
/// pipeline has already vectorized, tiled and peeled. What LLVM adds is the
/// clean-up of the lowering (descriptors, address arithmetic, invariants
/// out of loops), full unrolling of short constant loops (the DP-SGD step
/// 10% slower without; not of a loop over vector loops,
/// vmapc-keep-tile-loops-rolled), and the vectorization of the loops MLIR
/// leaves scalar (the histogram's: 5x slower without), unrolled at run time
/// (the histogram 35% slower on one thread without). The loops MLIR vectorized
/// are not unrolled at run time (vmapc-keep-vector-loops-rolled): their
/// register tiles are unrolled already, and copies of a row loop only gave the
/// code generator more to do (MLP 64-32-10 at x86-64-v3: its last layer's bias
/// add, a row of 10 lanes a step, unrolled 4 times, took 23% of the code
/// generator's time and 6% of the optimizer's; the loop's step kernel: its
/// padded slab's row copies, made `memcpy`s by the loop idiom pass and
/// unrolled 8 times, half of the code generator's time; no bench program's
/// run time changed, bench/RESULTS.md, 2026-12-06 seventh session). A row's
/// later passes get prefetches of the next row and of the rows that later
/// loops store (vmapc-prefetch-next-row; KernelLoopPasses.h has both passes
/// and the figures).
///
/// The passes are O2's (`opt -passes='default<O2>' -print-pipeline-passes`,
/// LLVM 22) in O2's order, less: SLP vectorization, interleaving and the
/// partial unrolling of loops with a known trip count (none of them changed
/// a bench program's run time; partial unrolling took 20% of the code
/// generator's time); the passes for what the kernels never hold
/// (coroutines, OpenMP, switches, libcalls, tail calls, attributes across
/// calls, globals); the scalar passes that found nothing in the bench's
/// kernels (jump threading, correlated propagation, reassociation,
/// constraint elimination, SCCP, BDCE, ADCE, merged loads and stores, loop
/// unswitching, loop distribution, loop load elimination); and four of O2's
/// eight InstCombines, keeping the ones after mem2reg, after GVN (without it
/// the kNN runs 1.7x slower), after the loop vectorizer and after the
/// unroller. Against O2 on the bench's 16 programs at x86-64-v3: 29% less
/// time in the optimizer, 17% less in the code generator, every program's
/// run time within 5%, this machine's noise (bench/RESULTS.md, 2026-12-05
/// night).
static constexpr llvm::StringLiteral kKernelPipeline =
    // Per function: the MLIR lowering's descriptors and allocas to SSA.
    "function("
    "simplifycfg,sroa<modify-cfg>,early-cse,mem2reg,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "simplifycfg,"
    // Loops over register-tile loops marked to stay rolled.
    "vmapc-keep-tile-loops-rolled),"
    // Each kernel inlined into its exported wrapper, then simplified with
    // its loops rotated, their invariants hoisted and constant trip counts
    // unrolled.
    "cgscc(devirt<4>(inline,function<no-rerun>("
    "sroa<modify-cfg>,early-cse<memssa>,simplifycfg,"
    "loop-mssa("
    "loop-instsimplify,loop-simplifycfg,licm<no-allowspeculation>,"
    "loop-rotate,licm<allowspeculation>),"
    "simplifycfg,"
    "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full),"
    "sroa<modify-cfg>,vector-combine,gvn,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "memcpyopt,dse,"
    "loop-mssa(licm<allowspeculation>),"
    "simplifycfg<hoist-common-insts;sink-common-insts>))),"
    "globaldce,"
    // The loops MLIR left scalar vectorized and unrolled at run time; those
    // it vectorized kept rolled, their rows prefetched a row ahead (and the
    // rows later loops store, for a write).
    "function("
    "loop(loop-rotate,loop-deletion),inject-tli-mappings,"
    "vmapc-keep-vector-loops-rolled,vmapc-prefetch-next-row,"
    "loop-vectorize<interleave-forced-only>,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "simplifycfg<no-keep-loops;hoist-common-insts;sink-common-insts>,"
    "vector-combine,loop-unroll<O2;no-partial>,sroa<preserve-cfg>,"
    "instcombine<max-iterations=1;no-verify-fixpoint>,"
    "loop-mssa(licm<allowspeculation>),"
    "simplifycfg),"
    "globaldce";

static llvm::Error optimizeKernels(llvm::Module &module,
                                   llvm::TargetMachine &machine) {
  // The tuning the kernels had under O2 (no SLP, no interleaving), for
  // whatever the pipeline's text leaves unsaid.
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = true;
  tuning.LoopVectorization = true;
  tuning.LoopInterleaving = false;
  tuning.SLPVectorization = false;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  // LLVM's own instrumentation, so that its options reach this pipeline:
  // `vmapc compile --time-passes` times its passes beside the code
  // generator's, `--print-after-all` and `--print-after=PASS` print the IR
  // (with `-j 1`, one level at a time: each thread prints its own).
  llvm::PassInstrumentationCallbacks callbacks;
  llvm::StandardInstrumentations instrumentations(module.getContext(),
                                                  /*DebugLogging=*/false);
  instrumentations.registerCallbacks(callbacks, &modules);
  llvm::PassBuilder builder(&machine, tuning, std::nullopt, &callbacks);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  vmapc::registerKernelLoopPasses(builder);
  llvm::ModulePassManager pipeline;
  // The text is this file's, the pass names LLVM's: an error here is a
  // build against another LLVM, not the user's.
  if (llvm::Error error = builder.parsePassPipeline(pipeline, kKernelPipeline))
    return error;
  pipeline.run(module, modules);
  return llvm::Error::success();
}

/// Whether every symbol `object` (an x86-64 ELF relocatable) leaves
/// undefined is one of libc's memcpy, memmove and memset, which LLVM emits
/// for copies and fills. Such an object is linked against no library: the
/// dynamic loader binds those three in the process that dlopens it, and
/// every process has libc. Reading libc's and libm's symbol tables is most
/// of a link: `-lm -lc` take ld from 4 to 22 ms per object here, 18 ms of
/// each ISA level's compile. An object that calls anything else (a libm
/// function the math expansion left) is linked against both.
static FailureOr<bool> readsOnlyMemoryFunctions(StringRef object) {
  static constexpr StringRef kMemoryFunctions[] = {"memcpy", "memmove",
                                                   "memset"};
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(
          llvm::MemoryBufferRef(object, "kernels.o"));
  if (!file) {
    llvm::consumeError(file.takeError());
    return failure();
  }
  for (const llvm::object::SymbolRef &symbol : (*file)->symbols()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    llvm::Expected<StringRef> name = symbol.getName();
    if (!flags || !name) {
      llvm::consumeError(flags.takeError());
      llvm::consumeError(name.takeError());
      return failure();
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) &&
        !llvm::is_contained(kMemoryFunctions, *name))
      return false;
  }
  return true;
}

/// LLVM's x86-64 TargetMachine for the ISA level `level`, with `module`'s
/// triple and data layout set to its. LLVM knows the psABI levels as CPU
/// names: the code uses what the level guarantees (SSE2; AVX2 + FMA;
/// AVX-512) and nothing the host happens to have.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createCpuTargetMachine(llvm::Module &module, StringRef level) {
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("no x86-64 target in LLVM: " + error);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, level, "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  return machine;
}

llvm::Error vmapc::optimizeCpuKernels(llvm::Module &module, StringRef level) {
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createCpuTargetMachine(module, level);
  if (!machine)
    return machine.takeError();
  return optimizeKernels(module, **machine);
}

void vmapc::initializeCpuTarget() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
}

FailureOr<std::string> vmapc::emitCpuObjectFile(ModuleOp module,
                                                StringRef level,
                                                bool withLevelSymbol,
                                                TimingScope timing) {
  llvm::LLVMContext llvmContext;
  TimingScope translation = timing.nest("Translate to LLVM IR");
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "vmapc");
  if (!llvmModule)
    return module.emitError("cannot translate the module to LLVM IR");
  translation.stop();
  // What the object is compiled for, which the loader checks against the
  // manifest's level for it (ArtifactFormat.h, kCodeLevelSymbol).
  if (withLevelSymbol) {
    auto *levelText = llvm::ConstantDataArray::getString(llvmContext, level,
                                                         /*AddNull=*/true);
    new llvm::GlobalVariable(*llvmModule, levelText->getType(),
                             /*isConstant=*/true,
                             llvm::GlobalValue::ExternalLinkage, levelText,
                             vmapc::kCodeLevelSymbol);
  }

  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> machine =
      createCpuTargetMachine(*llvmModule, level);
  if (!machine)
    return module.emitError(llvm::toString(machine.takeError()));

  TimingScope optimization = timing.nest("LLVM optimization");
  if (llvm::Error error = optimizeKernels(*llvmModule, **machine))
    return module.emitError("LLVM rejects the kernel pass pipeline: ")
           << llvm::toString(std::move(error));
  optimization.stop();

  llvm::SmallVector<char, 0> object;
  {
    TimingScope codegenTimer = timing.nest("LLVM code generation");
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return module.emitError("LLVM cannot emit an x86-64 object");
    codegen.run(*llvmModule);
  }
  return std::string(object.data(), object.size());
}

LogicalResult vmapc::linkCpuSharedObject(Operation *op,
                                         ArrayRef<std::string> objects,
                                         std::string *sharedObject) {
  // Link with the system linker: `ld -shared -o SO OBJ...`, plus
  // `--as-needed -lm -lc --no-undefined` unless the objects need only
  // libc's memory functions (readsOnlyMemoryFunctions). The kernels need no
  // start files (no constructors, no C++), so the compiler driver `cc`,
  // which finds and adds them, only costs time: 37 ms against ld's 8 ms per
  // ISA level on this machine, a third of a small program's compile.
  // --no-undefined turns a call LLVM emitted into a library the object does
  // not name into a link error, not a dlopen error.
  llvm::ErrorOr<std::string> ld = llvm::sys::findProgramByName("ld");
  if (!ld)
    return op->emitError(
        "no system linker `ld` on PATH to link the shared object "
        "(apt-get install binutils)");
  bool memoryOnly = true;
  for (const std::string &object : objects) {
    FailureOr<bool> only = readsOnlyMemoryFunctions(object);
    if (failed(only))
      return op->emitError("LLVM emitted an object it cannot read back");
    memoryOnly = memoryOnly && *only;
  }
  auto commandLine = [&](ArrayRef<StringRef> objectFiles, StringRef so) {
    llvm::SmallVector<StringRef> args{
        *ld,          "-shared", "-m",    "elf_x86_64", "--hash-style=gnu",
        "--build-id", "-z",      "relro", "-z",         "now",
        "-o",         so};
    args.append(objectFiles.begin(), objectFiles.end());
    if (!memoryOnly)
      args.append({"--as-needed", "-lm", "-lc", "--no-undefined"});
    return args;
  };
  ExternalToolRun link{*ld,
                       "o",
                       "so",
                       commandLine,
                       "linking the shared object failed: ",
                       "cannot read the linked shared object"};
  SmallVector<StringRef> inputs(objects.begin(), objects.end());
  FailureOr<std::string> so = runExternalTool(op, link, inputs);
  if (failed(so))
    return failure();
  *sharedObject = std::move(*so);
  return success();
}
