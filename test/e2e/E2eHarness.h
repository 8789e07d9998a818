//===- E2eHarness.h - compile, run, compare with the oracle ----*- C++ -*-===//
//
// The end-to-end path of a host program, without files: .arr source →
// `importArr` → `compileForCpu` → `serializeArtifact` →
// `Executable::loadBytes` → `Executable::run`. The reference is the oracle's
// `evaluatePerExample` on a SEPARATE import of the same source (the
// per-example program as the user wrote it, before any pass has run).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_E2E_E2EHARNESS_H
#define VMAPC_TEST_E2E_E2EHARNESS_H

#include "codegen/Compile.h"
#include "frontend/Import.h"
#include "passes/InitAll.h"
#include "test/oracle/Interpreter.h"
#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Runtime.h"
#include "vmapc/cpu/SharedObject.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace vmapc::e2e {

/// `text` with every "{KEY}" replaced by `value`.
inline std::string substitute(std::string text, const std::string &key,
                              const std::string &value) {
  std::string pattern = "{" + key + "}";
  for (size_t at = text.find(pattern); at != std::string::npos;
       at = text.find(pattern, at + value.size()))
    text.replace(at, pattern.size(), value);
  return text;
}

/// A context with everything the compiler's pipelines need.
inline std::unique_ptr<mlir::MLIRContext> makeFullContext() {
  mlir::DialectRegistry registry;
  vmapc::registerCompilerDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  context->printOpOnDiagnostic(false);
  return context;
}

/// Imports `source` (named `bufferName` in diagnostics); null on error, with
/// the diagnostics appended to `diagnostics`.
inline mlir::OwningOpRef<mlir::ModuleOp>
importSource(mlir::MLIRContext &context, const std::string &source,
             const std::string &bufferName, std::string &diagnostics) {
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), llvm::SMLoc());
  llvm::raw_string_ostream os(diagnostics);
  mlir::SourceMgrDiagnosticHandler handler(sourceMgr, &context, os);
  return vmapc::importArr(sourceMgr, &context);
}

/// One program compiled and loaded, with its per-example reference.
struct CompiledProgram {
  std::unique_ptr<mlir::MLIRContext> context;
  /// The module as imported, never passed through any pass: the oracle's.
  mlir::OwningOpRef<mlir::ModuleOp> reference;
  std::unique_ptr<vmapc::Executable> executable;
  /// Bytes of the serialized artifact.
  size_t artifactBytes = 0;
  /// The serialized artifact, to load it on another device.
  std::string artifact;

  mlir::func::FuncOp exported(llvm::StringRef name) {
    return reference->lookupSymbol<mlir::func::FuncOp>(name);
  }
};

/// Where a test runs its programs: a CPU ISA level ("" = compile every
/// level, run the best the host has) and a thread count (0 = the device's
/// default, all hardware threads).
struct DeviceConfig {
  std::string isaLevel;
  unsigned threads = 0;

  /// VMAPC_CPU_ISA and VMAPC_CPU_THREADS, the variables the runtime's CPU
  /// device reads too (test/e2e/CMakeLists.txt runs the tests under several).
  static DeviceConfig fromEnvironment() {
    DeviceConfig config;
    if (const char *isa = std::getenv("VMAPC_CPU_ISA"))
      config.isaLevel = isa;
    if (const char *threads = std::getenv("VMAPC_CPU_THREADS"))
      config.threads = unsigned(std::strtoul(threads, nullptr, 10));
    return config;
  }
  /// The device string, e.g. "cpu:isa=x86-64-v3,threads=2".
  std::string device() const {
    std::string options;
    if (!isaLevel.empty())
      options += "isa=" + isaLevel;
    if (threads)
      options += (options.empty() ? "" : ",") + std::string("threads=") +
                 std::to_string(threads);
    return options.empty() ? "cpu" : "cpu:" + options;
  }
};

/// Whether this CPU runs code of ISA `level` ("x86-64", "x86-64-v3", ...).
inline bool hostRunsIsaLevel(const std::string &level) {
  return vmapc::cpu::hostSupports(level == "x86-64" ? "sse2" : level);
}

/// The ISA levels this CPU runs, lowest first.
inline std::vector<std::string> hostIsaLevels() {
  std::vector<std::string> levels;
  for (const char *level : {"x86-64", "x86-64-v3", "x86-64-v4"})
    if (hostRunsIsaLevel(level))
      levels.push_back(level);
  return levels;
}

/// Compiles `source` for the CPU (only `config`'s ISA level when it names
/// one) and loads it on `config`'s device; returns a failure with every
/// diagnostic on error. `bufferReuse` false compiles with planning off
/// (CompileOptions::bufferReuse).
inline ::testing::AssertionResult
compileProgram(const std::string &source, CompiledProgram &out,
               const DeviceConfig &config = DeviceConfig::fromEnvironment(),
               bool bufferReuse = true) {
  out.context = makeFullContext();
  std::string diagnostics;
  // Two separate imports: one is lowered and compiled, one stays as written.
  mlir::OwningOpRef<mlir::ModuleOp> toCompile =
      importSource(*out.context, source, "e2e.arr", diagnostics);
  if (!toCompile)
    return ::testing::AssertionFailure() << "import failed:\n" << diagnostics;
  out.reference = importSource(*out.context, source, "e2e.arr", diagnostics);
  if (!out.reference)
    return ::testing::AssertionFailure() << "second import failed:\n"
                                         << diagnostics;
  vmapc::Artifact artifact;
  {
    llvm::raw_string_ostream os(diagnostics);
    mlir::ScopedDiagnosticHandler handler(
        out.context.get(), [&](mlir::Diagnostic &d) {
          os << d.getLocation() << ": " << d << "\n";
          return mlir::success();
        });
    vmapc::CompileOptions options;
    if (!config.isaLevel.empty())
      options.isaLevels.push_back(config.isaLevel);
    options.bufferReuse = bufferReuse;
    options.verifyEachPass = true;
    if (mlir::failed(vmapc::compileArtifact(*toCompile, options, artifact)))
      return ::testing::AssertionFailure() << "compileArtifact failed:\n"
                                           << diagnostics;
  }
  std::string bytes;
  vmapc::Status status = vmapc::serializeArtifact(artifact, &bytes);
  if (!status.ok())
    return ::testing::AssertionFailure()
           << "serializeArtifact: " << status.message();
  out.artifactBytes = bytes.size();
  out.artifact = bytes;
  vmapc::Device cpu;
  status = vmapc::Device::open(config.device(), &cpu);
  if (!status.ok())
    return ::testing::AssertionFailure()
           << "open " << config.device() << ": " << status.message();
  status = vmapc::Executable::loadBytes(cpu, bytes.data(), bytes.size(),
                                        &out.executable);
  if (!status.ok())
    return ::testing::AssertionFailure() << "loadBytes: " << status.message();
  return ::testing::AssertionSuccess();
}

/// A suite whose tests share one program, compiled once before the first
/// of them (`Derived::kProgramSource`, on the environment's device) and freed
/// after the last; each test fails at its start if the compile failed. Base is
/// ::testing::Test or a ::testing::TestWithParam.
template <typename Derived, typename Base = ::testing::Test>
class CompiledOnceSuite : public Base {
protected:
  static void SetUpTestSuite() {
    program = new CompiledProgram();
    compiled = compileProgram(Derived::kProgramSource, *program);
  }
  static void TearDownTestSuite() {
    delete program;
    program = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(compiled); }

  static inline CompiledProgram *program = nullptr;
  static inline ::testing::AssertionResult compiled =
      ::testing::AssertionFailure() << "not compiled";
};

/// The runtime's dtype of an oracle dtype.
inline vmapc::DType runtimeDType(oracle::DType dtype) {
  switch (dtype) {
  case oracle::DType::F32:
    return vmapc::DType::F32;
  case oracle::DType::I32:
    return vmapc::DType::I32;
  case oracle::DType::Bool:
    return vmapc::DType::Bool;
  }
  return vmapc::DType::F32;
}

inline oracle::DType oracleDType(vmapc::DType dtype) {
  switch (dtype) {
  case vmapc::DType::I32:
    return oracle::DType::I32;
  case vmapc::DType::Bool:
    return oracle::DType::Bool;
  default:
    return oracle::DType::F32;
  }
}

/// Guard bytes after every output buffer: a run must not touch them.
constexpr size_t kGuardBytes = 64;
constexpr unsigned char kGuardByte = 0xCD;
/// Outputs are pre-filled with this byte so that an unwritten element shows.
constexpr unsigned char kFillByte = 0xAB;

/// Runs `entryName` of `program` on `inputs` (batched, in manifest order)
/// through the runtime. Fills `outputs` (oracle arrays of the batched output
/// shapes for `n` examples). Checks that nothing was written past an output.
inline ::testing::AssertionResult
runEntry(CompiledProgram &program, llvm::StringRef entryName,
         const std::vector<oracle::Array> &inputs, int64_t n,
         std::vector<oracle::Array> &outputs) {
  const vmapc::Entry *entry = nullptr;
  vmapc::Status status = program.executable->findEntry(entryName.str(), &entry);
  if (!status.ok())
    return ::testing::AssertionFailure() << status.message();
  const vmapc::EntryInfo &info = entry->info();
  if (inputs.size() != info.inputs.size())
    return ::testing::AssertionFailure()
           << "entry has " << info.inputs.size() << " inputs";

  std::vector<std::vector<unsigned char>> inStorage;
  std::vector<vmapc::HostArray> inViews;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const oracle::Array &a = inputs[i];
    vmapc::DType dtype = runtimeDType(a.dtype);
    inStorage.emplace_back(a.numElements() * vmapc::dtypeBytes(dtype) + 1);
    a.toBuffer(inStorage.back().data());
    std::vector<int64_t> shape(a.shape.begin(), a.shape.end());
    inViews.push_back({inStorage.back().data(), dtype, vmapc::Shape(shape)});
  }
  std::vector<std::vector<unsigned char>> outStorage;
  std::vector<std::vector<int64_t>> outShapes;
  std::vector<vmapc::MutableHostArray> outViews;
  for (const vmapc::ArgInfo &arg : info.outputs) {
    outShapes.push_back(vmapc::batchedShape(arg, n));
    int64_t count = 1;
    for (int64_t d : outShapes.back())
      count *= d;
    size_t bytes = count * vmapc::dtypeBytes(arg.dtype);
    outStorage.emplace_back(bytes + kGuardBytes, kGuardByte);
    std::memset(outStorage.back().data(), kFillByte, bytes);
  }
  for (size_t i = 0; i < info.outputs.size(); ++i)
    outViews.push_back({outStorage[i].data(), info.outputs[i].dtype,
                        vmapc::Shape(outShapes[i])});

  status = program.executable->run(*entry, inViews, outViews);
  if (!status.ok())
    return ::testing::AssertionFailure()
           << "run '" << entryName.str() << "' on N = " << n << ": "
           << status.message();

  outputs.clear();
  for (size_t i = 0; i < info.outputs.size(); ++i) {
    size_t bytes = outStorage[i].size() - kGuardBytes;
    for (size_t j = bytes; j < outStorage[i].size(); ++j)
      if (outStorage[i][j] != kGuardByte)
        return ::testing::AssertionFailure()
               << "output " << i << " of '" << entryName.str() << "' (N = " << n
               << "): byte " << (j - bytes) << " past its end was written";
    outputs.push_back(
        oracle::Array::fromBuffer(oracleDType(info.outputs[i].dtype),
                                  outShapes[i], outStorage[i].data()));
  }
  return ::testing::AssertionSuccess();
}

/// Random batched inputs of `entryName` for `n` examples: the manifest's
/// batched shape and the reference function's element types, seeds `seed`,
/// `seed + 1`, ... (see oracle::randomArray).
inline std::vector<oracle::Array> randomBatchedInputs(CompiledProgram &program,
                                                      llvm::StringRef entryName,
                                                      int64_t n,
                                                      uint64_t seed) {
  std::vector<oracle::Array> inputs;
  const vmapc::Entry *entry = nullptr;
  if (!program.executable->findEntry(entryName.str(), &entry).ok())
    return inputs;
  mlir::func::FuncOp fn = program.exported(entryName);
  if (!fn)
    return inputs;
  for (size_t i = 0; i < entry->info().inputs.size(); ++i) {
    const vmapc::ArgInfo &arg = entry->info().inputs[i];
    mlir::Type element =
        mlir::cast<mlir::RankedTensorType>(fn.getArgumentTypes()[i])
            .getElementType();
    auto type =
        mlir::RankedTensorType::get(vmapc::batchedShape(arg, n), element);
    inputs.push_back(oracle::randomArray(type, seed + i));
  }
  return inputs;
}

/// Runs `entryName` on `inputs` (n examples) through the runtime and compares
/// every output with the oracle's per-example loop: f32 within 1e-5 relative
/// / 1e-6 absolute, i32 and bool exactly.
inline ::testing::AssertionResult
matchesOracle(CompiledProgram &program, llvm::StringRef entryName,
              const std::vector<oracle::Array> &inputs, int64_t n) {
  mlir::func::FuncOp fn = program.exported(entryName);
  if (!fn)
    return ::testing::AssertionFailure()
           << "no export '" << entryName.str() << "' in the reference module";
  llvm::Expected<std::vector<oracle::Array>> expected =
      oracle::evaluatePerExample(fn, inputs);
  if (!expected)
    return ::testing::AssertionFailure()
           << "oracle: " << llvm::toString(expected.takeError());
  std::vector<oracle::Array> actual;
  ::testing::AssertionResult ran =
      runEntry(program, entryName, inputs, n, actual);
  if (!ran)
    return ran;
  if (actual.size() != expected->size())
    return ::testing::AssertionFailure()
           << actual.size() << " outputs, oracle has " << expected->size();
  for (size_t i = 0; i < actual.size(); ++i) {
    std::string why;
    if (!oracle::allClose((*expected)[i], actual[i], 1e-5, 1e-6, &why))
      return ::testing::AssertionFailure()
             << "'" << entryName.str() << "' output " << i << " at N = " << n
             << ": " << why << "\n  expected " << (*expected)[i].toString()
             << "\n  actual   " << actual[i].toString();
  }
  return ::testing::AssertionSuccess();
}

/// matchesOracle for each N of `sizes`, on random inputs seeded `seed + 10
/// N` (randomBatchedInputs); each failure names its N.
inline void expectMatchesOracleAtSizes(CompiledProgram &program,
                                       llvm::StringRef entryName,
                                       llvm::ArrayRef<int64_t> sizes,
                                       uint64_t seed) {
  for (int64_t n : sizes) {
    SCOPED_TRACE("N = " + std::to_string(n));
    std::vector<oracle::Array> inputs =
        randomBatchedInputs(program, entryName, n, seed + 10 * n);
    EXPECT_TRUE(matchesOracle(program, entryName, inputs, n));
  }
}

/// Whether output 0 of `entryName` on `inputs` (n examples; input 0 mapped
/// on axis 0 with per-example shape `exampleShape`, the others unmapped) is,
/// bit for bit, what each example gives when run alone (N = 1). Output 0
/// must be f32 with its batch axis first.
inline ::testing::AssertionResult
equalsOneByOne(CompiledProgram &program, llvm::StringRef entryName,
               const std::vector<oracle::Array> &inputs, int64_t n,
               const std::vector<int64_t> &exampleShape) {
  std::vector<oracle::Array> all;
  ::testing::AssertionResult ran = runEntry(program, entryName, inputs, n, all);
  if (!ran)
    return ran;
  const size_t width = n ? all[0].values.size() / size_t(n) : 0;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<oracle::Array> one = inputs;
    one[0] = oracle::stackAxis({oracle::sliceAxis(inputs[0], 0, i)}, 0,
                               exampleShape, oracle::DType::F32);
    std::vector<oracle::Array> single;
    ran = runEntry(program, entryName, one, 1, single);
    if (!ran)
      return ran;
    for (size_t k = 0; k < width; ++k)
      if (single[0].values[k] != all[0].values[i * width + k])
        return ::testing::AssertionFailure()
               << "'" << entryName.str() << "' example " << i << " value " << k
               << ": " << single[0].values[k] << " alone, "
               << all[0].values[i * width + k] << " in a batch of " << n;
  }
  return ::testing::AssertionSuccess();
}

/// ceil(n / b).
inline uint64_t ceilDiv(uint64_t n, uint64_t b) { return (n + b - 1) / b; }

/// The launches (dispatches run) of a call of `entry` that walks its
/// schedule for `chunks` chunks: each dispatch once per repeat of the loops
/// around it and per chunk, or once in all if it runs once per call.
inline uint64_t launchesOfCall(const vmapc::EntryInfo &entry, uint64_t chunks) {
  uint64_t launches = 0;
  // The loops open at each command: where their bodies end, and their trip
  // counts' product.
  std::vector<std::pair<size_t, uint64_t>> open;
  for (size_t i = 0; i < entry.schedule.size(); ++i) {
    while (!open.empty() && open.back().first <= i)
      open.pop_back();
    uint64_t repeats = open.empty() ? 1 : open.back().second;
    const vmapc::Command &c = entry.schedule[i];
    if (c.kind == vmapc::Command::Kind::Loop)
      open.push_back({i + 1 + c.bodySize, repeats * c.tripCount});
    else
      launches +=
          repeats * (c.oncePerCall ? std::min<uint64_t>(chunks, 1) : chunks);
  }
  return launches;
}

} // namespace vmapc::e2e

#endif // VMAPC_TEST_E2E_E2EHARNESS_H
