//===- vmapc.cpp - the vmapc driver: compile, run, plan -------------------===//
//
//   vmapc compile FILE.arr -o FILE.vmapc
//   vmapc run FILE.arr|FILE.vmapc [--entry NAME] --input a.npy ... --output
//   y.npy ...
//   vmapc plan FILE.arr [--entry NAME] [--json FILE] [--svg FILE]
//
// A thin main over the front end (frontend/), the compiler (codegen/, passes/),
// the plan report (report/) and the runtime (runtime/).
//
//===----------------------------------------------------------------------===//

#include "codegen/Compile.h"
#include "dialect/ArrDialect.h"
#include "frontend/Import.h"
#include "passes/BufferPlan.h"
#include "passes/Codegen/TileSizes.h"
#include "passes/InitAll.h"
#include "passes/Pipelines.h"
#include "report/PlanReport.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/Npy.h"
#include "vmapc/Runtime.h"
#include "vmapc/vmapc_runtime.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory vmapcCategory("vmapc options");

static cl::SubCommand
    compileCmd("compile", "Compile a .arr program into a .vmapc artifact");
static cl::SubCommand
    runCmd("run",
           "Run an entry of a .arr program or .vmapc artifact on .npy files");
static cl::SubCommand
    planCmd("plan", "Print the buffer plan of each entry of a .arr program");

static cl::opt<std::string> programFile(cl::Positional, cl::Required,
                                        cl::desc("<FILE.arr>"),
                                        cl::sub(compileCmd), cl::sub(planCmd),
                                        cl::cat(vmapcCategory));
static cl::opt<std::string> runFile(cl::Positional, cl::Required,
                                    cl::desc("<FILE.arr or FILE.vmapc>"),
                                    cl::sub(runCmd), cl::cat(vmapcCategory));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Output .vmapc file (default: the input's name "
                        "with .vmapc)"),
               cl::value_desc("file"), cl::sub(compileCmd),
               cl::cat(vmapcCategory));
static cl::list<std::string> cpuIsaLevels(
    "cpu-isa",
    cl::desc("Build CPU code for this ISA level only (x86-64, x86-64-v3, "
             "x86-64-v4; repeatable; default: all three)"),
    cl::value_desc("level"), cl::sub(compileCmd), cl::sub(runCmd),
    cl::cat(vmapcCategory));
static cl::opt<unsigned> compileThreads(
    "j",
    cl::desc("Compile the CPU code objects (one per ISA level, its kernels "
             "in up to 4 parts) on this many threads (default 0: one per "
             "hardware thread); the artifact is the same for any count"),
    cl::value_desc("threads"), cl::init(0), cl::Prefix, cl::sub(compileCmd),
    cl::sub(runCmd), cl::cat(vmapcCategory));
static cl::opt<std::string> targetList(
    "target",
    cl::desc("What code to build: cpu, cuda, or cpu,cuda (one artifact that "
             "runs on either device; default: cpu, or cuda for `run "
             "--device=cuda...` of a .arr)"),
    cl::value_desc("list"), cl::sub(compileCmd), cl::sub(runCmd),
    cl::cat(vmapcCategory));
static cl::opt<std::string>
    cudaArch("cuda-arch",
             cl::desc("NVIDIA architecture of the CUDA code (default: "
                      "sm_90); the toolkit is $CUDA_HOME or /usr/local/cuda"),
             cl::value_desc("sm_XY"), cl::init("sm_90"), cl::sub(compileCmd),
             cl::sub(runCmd), cl::cat(vmapcCategory));
static cl::opt<int64_t> arenaAlignment(
    "arena-alignment",
    cl::desc("Align every offset in the arena to this many bytes, a power of "
             "two from 1 to 4096 (default: 64 for the CPU, 256 with CUDA)"),
    cl::value_desc("bytes"), cl::init(0), cl::sub(compileCmd), cl::sub(runCmd),
    cl::sub(planCmd), cl::cat(vmapcCategory));
static cl::opt<bool> noBufferReuse(
    "no-buffer-reuse",
    cl::desc("Turn buffer planning off: every buffer gets its own bytes in "
             "the arena (no reuse over time, no in-place writes)"),
    cl::sub(compileCmd), cl::sub(runCmd), cl::sub(planCmd),
    cl::cat(vmapcCategory));
static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every compiler pass, not only at the end "
             "of each pipeline (slower; names the pass that broke it)"),
    cl::sub(compileCmd), cl::sub(runCmd), cl::cat(vmapcCategory));
static cl::opt<std::string> deviceName(
    "device",
    cl::desc("Device to run on: cpu, cpu:threads=K,isa=LEVEL, or cuda[:N] "
             "(an NVIDIA GPU; default: cpu, every hardware thread, the best "
             "ISA level)"),
    cl::value_desc("name"), cl::init("cpu"), cl::sub(runCmd),
    cl::cat(vmapcCategory));
static cl::opt<std::string>
    entryName("entry",
              cl::desc("Entry to run or plan (default: the only one "
                       "when running; all when planning)"),
              cl::value_desc("name"), cl::sub(runCmd), cl::sub(planCmd),
              cl::cat(vmapcCategory));
static cl::list<std::string>
    inputArrays("input",
                cl::desc("An input .npy, in declaration order, or "
                         "NAME=file.npy for the input named NAME"),
                cl::value_desc("file.npy"), cl::sub(runCmd),
                cl::cat(vmapcCategory));
static cl::list<std::string>
    outputArrays("output",
                 cl::desc("An output .npy, in declaration order, or "
                          "NAME=file.npy for the output named NAME"),
                 cl::value_desc("file.npy"), cl::sub(runCmd),
                 cl::cat(vmapcCategory));
static cl::opt<int64_t> numExamplesOption(
    "num-examples",
    cl::desc("Number of examples N (>= 0) for an entry that maps no input; "
             "for other entries N is the size of the mapped inputs' batch "
             "axis, and a --num-examples that differs is an error"),
    cl::value_desc("N"), cl::init(-1), cl::sub(runCmd), cl::cat(vmapcCategory));
static cl::opt<std::string>
    svgFile("svg",
            cl::desc("Also draw the plan as SVG: schedule points across, arena "
                     "offsets down, a labelled rectangle per buffer"),
            cl::value_desc("file"), cl::sub(planCmd), cl::cat(vmapcCategory));
static cl::opt<std::string> jsonFile("json",
                                     cl::desc("Also write the plan as JSON"),
                                     cl::value_desc("file"), cl::sub(planCmd),
                                     cl::cat(vmapcCategory));

/// Prints `vmapc: error: message` and returns 1.
static int fail(const llvm::Twine &message) {
  llvm::errs() << "vmapc: error: " << message << "\n";
  return 1;
}

/// Parses a .arr file; diagnostics go to stderr with the source line. An
/// artifact or any other binary file is refused before the front end would
/// quote its bytes.
static OwningOpRef<ModuleOp> importFile(MLIRContext &context,
                                        llvm::SourceMgr &sourceMgr,
                                        const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    (void)fail(path + ": cannot open: " + file.getError().message());
    return nullptr;
  }
  unsigned id = sourceMgr.AddNewSourceBuffer(std::move(*file), llvm::SMLoc());
  llvm::StringRef text = sourceMgr.getMemoryBuffer(id)->getBuffer();
  if (text.starts_with(llvm::StringRef(vmapc::kArtifactMagic,
                                       sizeof(vmapc::kArtifactMagic)))) {
    (void)fail("'" + path +
               "' is a compiled artifact; this command takes "
               ".arr source (`vmapc run` also takes artifacts)");
    return nullptr;
  }
  if (text.contains('\0')) {
    (void)fail("'" + path + "' is not a text file (.arr source expected)");
    return nullptr;
  }
  return vmapc::importArr(sourceMgr, &context);
}

/// Whether every --cpu-isa level is one the compiler knows; prints the known
/// ones otherwise (an option's error, before any file is read).
static bool checkCpuIsaLevels() {
  for (const std::string &level : cpuIsaLevels) {
    if (vmapc::VectorIsa::named(level))
      continue;
    std::string known;
    for (const vmapc::VectorIsa &isa : vmapc::VectorIsa::all())
      known += (known.empty() ? "" : ", ") + isa.name;
    (void)fail("--cpu-isa=" + level + ": unknown ISA level (" + known + ")");
    return false;
  }
  return true;
}

/// Checks --arena-alignment when it is given (0 is not a default then).
static bool checkArenaAlignment() {
  std::string why;
  if (arenaAlignment.getNumOccurrences() == 0 ||
      vmapc::isValidArenaAlignment(arenaAlignment, &why))
    return true;
  (void)fail("--arena-alignment=" + std::to_string(arenaAlignment) + ": " +
             why);
  return false;
}

/// Sets `manager` up as MLIR's timing options say (--mlir-timing,
/// --mlir-timing-display=list|tree, --mlir-output-format=text|json, as in
/// mlir-opt; disabled without --mlir-timing); it prints its report to
/// stderr when destroyed.
static void configureTiming(DefaultTimingManager &manager) {
  applyDefaultTimingManagerCLOptions(manager);
}

/// Compiles `path` (.arr) into an artifact in memory, timed under `timing`.
static bool compileFile(const std::string &path, vmapc::Artifact &artifact,
                        TimingScope &timing) {
  if (!checkCpuIsaLevels())
    return false;
  DialectRegistry registry;
  vmapc::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  TimingScope parseTimer = timing.nest("Parse .arr");
  OwningOpRef<ModuleOp> module = importFile(context, sourceMgr, path);
  if (!module)
    return false;
  parseTimer.stop();
  if (!checkArenaAlignment())
    return false;
  vmapc::CompileOptions options;
  options.isaLevels.assign(cpuIsaLevels.begin(), cpuIsaLevels.end());
  options.arenaAlignment = arenaAlignment;
  options.bufferReuse = !noBufferReuse;
  options.verifyEachPass = verifyEach;
  options.threads = compileThreads;
  options.cudaChip = cudaArch;
  std::string targets = targetList;
  if (targets.empty())
    targets = llvm::StringRef(deviceName).starts_with("cuda") && runCmd ? "cuda"
                                                                        : "cpu";
  options.cpu = false;
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(targets).split(names, ',');
  for (llvm::StringRef name : names) {
    if (name == "cpu") {
      options.cpu = true;
    } else if (name == "cuda") {
      options.cuda = true;
    } else {
      (void)fail("unknown target '" + name + "' in --target=" + targets +
                 " (cpu, cuda, or cpu,cuda)");
      return false;
    }
  }
  if (!llvm::StringRef(cudaArch).starts_with("sm_")) {
    (void)fail("--cuda-arch=" + cudaArch + " is not an sm_XY architecture");
    return false;
  }
  return succeeded(vmapc::compileArtifact(*module, options, artifact, timing));
}

static int runCompile() {
  DefaultTimingManager timingManager;
  configureTiming(timingManager);
  TimingScope timing = timingManager.getRootScope();
  vmapc::Artifact artifact;
  if (!compileFile(programFile, artifact, timing))
    return 1;
  TimingScope writeTimer = timing.nest("Write artifact");
  llvm::SmallString<128> output(outputFile);
  if (output.empty()) {
    output = programFile;
    llvm::sys::path::replace_extension(output, "vmapc");
  }
  vmapc::Status status = vmapc::writeArtifactFile(artifact, output.str().str());
  if (!status.ok())
    return fail(status.message());
  return 0;
}

/// N, the number of examples: the size of the mapped inputs' batch axis (the
/// runtime checks every shape against it), or --num-examples for an entry
/// that maps no input. Fails (with a message in `error`) when --num-examples
/// is negative or disagrees with the mapped inputs, or when neither gives N.
static std::optional<int64_t>
numExamples(const vmapc::EntryInfo &entry,
            const std::vector<vmapc::NpyArray> &inputs, std::string &error) {
  bool given = numExamplesOption.getNumOccurrences() > 0;
  if (given && numExamplesOption < 0) {
    error = "--num-examples must be at least 0, got " +
            std::to_string(numExamplesOption);
    return std::nullopt;
  }
  bool anyMapped = false;
  for (auto [info, array] : llvm::zip(entry.inputs, inputs)) {
    anyMapped |= info.isMapped();
    if (!info.isMapped() || array.shape.size() != info.shape.size() + 1)
      continue;
    int64_t n = array.shape[info.mappedAxis];
    if (given && numExamplesOption != n) {
      error = "--num-examples " + std::to_string(numExamplesOption) +
              " disagrees with N = " + std::to_string(n) + " from input '" +
              info.name + "' (its axis " + std::to_string(info.mappedAxis) +
              "); leave --num-examples out for an entry that maps inputs";
      return std::nullopt;
    }
    return n;
  }
  if (given)
    return numExamplesOption;
  if (anyMapped)
    return 0; // The runtime reports the malformed mapped input.
  error = "entry '" + entry.name +
          "' maps no input, so the inputs do not say how many examples to "
          "run; give --num-examples N";
  return std::nullopt;
}

/// "a, b, c": the names of `args`.
static std::string argNamesOf(const std::vector<vmapc::ArgInfo> &args) {
  std::string names;
  for (const vmapc::ArgInfo &a : args)
    names += (names.empty() ? "" : ", ") + a.name;
  return names.empty() ? "none" : names;
}

/// The files of `--input` or `--output` (`given`) in the entry's order of
/// `args`: as given, or by name when each is NAME=FILE. Fails with a
/// message for an unknown or repeated name, a name missing, or the two
/// forms mixed.
static std::optional<std::vector<std::string>>
filesByName(const std::vector<std::string> &given,
            const std::vector<vmapc::ArgInfo> &args, llvm::StringRef option,
            llvm::StringRef entry, std::string &error) {
  auto nameOf = [&](llvm::StringRef text) -> std::optional<size_t> {
    size_t eq = text.find('=');
    if (eq == llvm::StringRef::npos)
      return std::nullopt;
    llvm::StringRef name = text.take_front(eq);
    for (size_t i = 0; i < args.size(); ++i)
      if (args[i].name == name)
        return i;
    return std::nullopt;
  };
  size_t named = llvm::count_if(
      given, [&](const std::string &g) { return nameOf(g).has_value(); });
  if (named == 0)
    return given;
  std::vector<std::string> files(args.size());
  for (const std::string &g : given) {
    std::optional<size_t> i = nameOf(g);
    if (!i) {
      size_t eq = g.find('=');
      error = eq != std::string::npos
                  ? "unknown name '" + g.substr(0, eq) + "' in " +
                        option.str() + " " + g + " (entry '" + entry.str() +
                        "' has " + argNamesOf(args) + ")"
                  : "give every " + option.str() +
                        " as NAME=FILE or every one by position, not both "
                        "(got '" +
                        g + "'; entry '" + entry.str() + "' has " +
                        argNamesOf(args) + ")";
      return std::nullopt;
    }
    if (!files[*i].empty()) {
      error = option.str() + " names '" + args[*i].name + "' twice";
      return std::nullopt;
    }
    files[*i] = g.substr(args[*i].name.size() + 1);
  }
  for (size_t i = 0; i < args.size(); ++i)
    if (files[i].empty()) {
      error = "no " + option.str() + " for '" + args[i].name + "' of entry '" +
              entry.str() + "'";
      return std::nullopt;
    }
  return files;
}

static int runRun() {
  vmapc::Device device;
  vmapc::Status status = vmapc::Device::open(deviceName, &device);
  if (!status.ok())
    return fail(status.message());
  std::unique_ptr<vmapc::Executable> executable;
  if (llvm::StringRef(runFile).ends_with(".arr")) {
    vmapc::Artifact artifact;
    {
      // The report is printed here, before the run.
      DefaultTimingManager timingManager;
      configureTiming(timingManager);
      TimingScope timing = timingManager.getRootScope();
      if (!compileFile(runFile, artifact, timing))
        return 1;
    }
    std::string bytes;
    status = vmapc::serializeArtifact(artifact, &bytes);
    if (status.ok())
      status = vmapc::Executable::loadBytes(device, bytes.data(), bytes.size(),
                                            &executable);
    status = status.withPrefix(runFile + ": ");
  } else {
    // The runtime's message names the file.
    status = vmapc::Executable::loadFile(device, runFile, &executable);
  }
  if (!status.ok())
    return fail(status.message());

  const vmapc::Entry *entry = nullptr;
  if (entryName.empty()) {
    if (executable->numEntries() != 1)
      return fail("the artifact has " + llvm::Twine(executable->numEntries()) +
                  " entries; choose one with --entry");
    entry = &executable->entry(0);
  } else if (!(status = executable->findEntry(entryName, &entry)).ok()) {
    return fail(status.message());
  }
  const vmapc::EntryInfo &info = entry->info();
  if (inputArrays.size() != info.inputs.size())
    return fail("entry '" + info.name + "' takes " +
                llvm::Twine(info.inputs.size()) +
                (info.inputs.size() == 1 ? " input" : " inputs") + ", got " +
                llvm::Twine(inputArrays.size()) + " --input files");
  if (outputArrays.size() != info.outputs.size())
    return fail("entry '" + info.name + "' has " +
                llvm::Twine(info.outputs.size()) +
                (info.outputs.size() == 1 ? " output" : " outputs") + ", got " +
                llvm::Twine(outputArrays.size()) + " --output files");

  std::string orderError;
  std::optional<std::vector<std::string>> inputFiles =
      filesByName(inputArrays, info.inputs, "--input", info.name, orderError);
  if (!inputFiles)
    return fail(orderError);
  std::optional<std::vector<std::string>> outputFiles = filesByName(
      outputArrays, info.outputs, "--output", info.name, orderError);
  if (!outputFiles)
    return fail(orderError);
  std::vector<vmapc::NpyArray> inputs(inputArrays.size());
  std::vector<vmapc::HostArray> inputViews;
  for (auto [path, array] : llvm::zip(*inputFiles, inputs)) {
    if (!(status = vmapc::readNpy(path, &array)).ok())
      return fail(status.message());
    inputViews.push_back(array.view());
  }
  std::string error;
  std::optional<int64_t> n = numExamples(info, inputs, error);
  if (!n)
    return fail(error);
  // The outputs are allocated here: sizes past the runtime's limit or past
  // the memory this process may use, one by one or together, are an error
  // before anything is allocated or run, and a failed allocation is an error
  // too (HostBuffer), never an abort in the allocator.
  std::vector<std::vector<int64_t>> outputShapes;
  std::optional<uint64_t> totalBytes = 0;
  std::string examples = " of " + std::to_string(*n) + " examples";
  for (const vmapc::ArgInfo &out : info.outputs) {
    outputShapes.push_back(vmapc::batchedShape(out, *n));
    const std::vector<int64_t> &shape = outputShapes.back();
    std::optional<uint64_t> bytes =
        vmapc::arrayBytes(out.dtype, shape.data(), shape.size());
    std::string what = "output '" + out.name + "'" + examples;
    if (!bytes)
      return fail(what + " would take 2^62 bytes or more");
    if (!(status = vmapc::checkHostMemory(*bytes, what)).ok())
      return fail(status.message());
    totalBytes = vmapc::checkedAddBytes(*totalBytes, *bytes);
    if (!totalBytes)
      return fail("the outputs" + examples + " would take 2^62 bytes or more");
  }
  if (!(status = vmapc::checkHostMemory(*totalBytes, "the outputs" + examples))
           .ok())
    return fail(status.message());
  std::vector<vmapc::NpyArray> outputs(info.outputs.size());
  for (auto [out, shape, array] :
       llvm::zip(info.outputs, outputShapes, outputs))
    if (!(status = vmapc::NpyArray::zeros(out.dtype, shape, &array)).ok())
      return fail(status.message());
  std::vector<vmapc::MutableHostArray> outputViews;
  for (vmapc::NpyArray &array : outputs)
    outputViews.push_back(array.mutableView());
  if (!(status = executable->run(*entry, inputViews, outputViews)).ok())
    return fail(status.message());
  for (auto [path, array] : llvm::zip(*outputFiles, outputs))
    if (!(status = vmapc::writeNpy(path, array.dtype, array.shape,
                                   array.data.data()))
             .ok())
      return fail(status.message());
  return 0;
}

static int runPlan() {
  DefaultTimingManager timingManager;
  configureTiming(timingManager);
  TimingScope timing = timingManager.getRootScope();
  DialectRegistry registry;
  vmapc::registerCompilerDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  TimingScope parseTimer = timing.nest("Parse .arr");
  OwningOpRef<ModuleOp> module = importFile(context, sourceMgr, programFile);
  if (!module || !checkArenaAlignment())
    return 1;
  parseTimer.stop();
  TimingScope planTimer = timing.nest("Plan (arr to planned buffers)");
  PassManager pm(&context);
  vmapc::buildArrToLinalgPipeline(pm);
  vmapc::buildArrBufferizePipeline(pm, /*plan=*/false);
  pm.enableTiming(planTimer);
  if (failed(pm.run(*module)))
    return 1;
  planTimer.stop();
  llvm::json::Array json;
  std::vector<vmapc::PlanReport> reports;
  bool found = false;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!vmapc::arr::isEntry(fn))
      continue;
    if (!entryName.empty() && fn.getSymName() != entryName)
      continue;
    found = true;
    vmapc::BufferPlanOptions planOptions;
    if (arenaAlignment.getNumOccurrences())
      planOptions.alignment = arenaAlignment;
    planOptions.reuse = !noBufferReuse;
    FailureOr<vmapc::BufferPlan> plan =
        vmapc::computeBufferPlan(fn, planOptions);
    if (failed(plan))
      return 1;
    reports.push_back(vmapc::buildPlanReport(fn, std::move(*plan)));
    vmapc::printPlanText(llvm::outs(), reports.back());
    json.push_back(vmapc::planToJson(reports.back()));
  }
  if (!found && entryName.empty()) {
    // As `vmapc compile` says it: at the file, with what to add.
    (void)module->emitError("the program exports no entry; add `export NAME "
                            "= vmap(f, in_axes=..., batch=B);`");
    return 1;
  }
  if (!found) {
    // As the runtime says it (`vmapc run`): the entries there are.
    std::string entries;
    for (auto fn : module->getOps<func::FuncOp>())
      if (vmapc::arr::isEntry(fn))
        entries += (entries.empty() ? "" : ", ") + fn.getSymName().str();
    return fail("unknown entry '" + entryName + "'; entries are: " + entries);
  }
  if (!jsonFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(jsonFile, ec);
    if (ec)
      return fail("cannot write '" + jsonFile + "': " + ec.message());
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(json))) << "\n";
  }
  if (!svgFile.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(svgFile, ec);
    if (ec)
      return fail("cannot write '" + svgFile + "': " + ec.message());
    vmapc::writePlanSvg(os, reports);
  }
  return 0;
}

/// `vmapc --version`: vmapc's version (the runtime it links has the same),
/// the artifact format it writes and reads, and LLVM's.
static void printVersion(llvm::raw_ostream &os) {
  os << "vmapc version " << vmapc_version() << "\n"
     << "  artifact format version " << vmapc::kFormatVersion << "\n"
     << "  LLVM version " << LLVM_VERSION_STRING << "\n";
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  cl::SetVersionPrinter(printVersion);
  // MLIR's timing options (mlir-opt's). Subcommands take top-level options;
  // --help hides them with LLVM's, so the overview names them.
  registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions(vmapcCategory);
  cl::ParseCommandLineOptions(
      argc, argv,
      "vmapc: a vmap-style batching compiler\n\n"
      "  Every command also takes MLIR's timing options: --mlir-timing "
      "prints the time of\n  each phase and pass to stderr (a CPU level's "
      "threads merged under its name:\n  user time adds up, wall time is "
      "the longest thread's); --mlir-timing-display=\n  list|tree (default "
      "tree); --mlir-output-format=text|json (default text).\n");
  if (compileCmd)
    return runCompile();
  if (runCmd)
    return runRun();
  if (planCmd)
    return runPlan();
  return fail("give a command: compile, run or plan (see --help)");
}
