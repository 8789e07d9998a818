//===- CpuObjectTest.cpp - unit tests of codegen/CpuObject.h -------------===//
//
// codegen/CpuObject.h links a kernel object against libm and libc only when
// it calls something other than memcpy, memmove and memset; either way the
// shared object must load with dlopen and compute what its IR says. Its LLVM
// pipeline unrolls scalar loops at run time, not those MLIR vectorized.
//
//===----------------------------------------------------------------------===//

#include "codegen/CpuObject.h"
#include "passes/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dlfcn.h>

using namespace mlir;

namespace {

/// The shared object that emitCpuObjectFile and linkCpuSharedObject make of
/// `source` (LLVM dialect) at ISA level x86-64; fails the test on an error.
std::string sharedObjectOf(const char *source) {
  DialectRegistry registry;
  vmapc::registerCompilerDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  EXPECT_TRUE(module);
  if (!module)
    return {};
  vmapc::initializeCpuTarget();
  std::string bytes;
  FailureOr<std::string> object =
      vmapc::emitCpuObjectFile(*module, "x86-64", /*withLevelSymbol=*/true);
  EXPECT_TRUE(succeeded(object));
  if (failed(object))
    return {};
  EXPECT_TRUE(succeeded(vmapc::linkCpuSharedObject(*module, *object, &bytes)));
  return bytes;
}

/// The libraries the ELF shared object `bytes` names (its DT_NEEDED
/// entries, read through .dynstr).
std::vector<std::string> neededLibraries(const std::string &bytes) {
  auto file = llvm::object::ELF64LEFile::create(bytes);
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return {};
  }
  auto entries = file->dynamicEntries();
  auto sections = file->sections();
  if (!entries || !sections) {
    ADD_FAILURE() << "no dynamic section";
    llvm::consumeError(entries.takeError());
    llvm::consumeError(sections.takeError());
    return {};
  }
  llvm::StringRef strings;
  for (const auto &section : *sections) {
    auto name = file->getSectionName(section);
    if (name && *name == ".dynstr") {
      auto contents = file->getSectionContents(section);
      if (contents)
        strings = llvm::toStringRef(*contents);
      else
        llvm::consumeError(contents.takeError());
    } else if (!name) {
      llvm::consumeError(name.takeError());
    }
  }
  std::vector<std::string> names;
  for (const auto &entry : *entries)
    if (entry.getTag() == llvm::ELF::DT_NEEDED &&
        entry.getVal() < strings.size())
      names.push_back(strings.drop_front(entry.getVal()).data());
  return names;
}

/// `bytes` written to a temporary file and loaded with dlopen; closed and
/// removed when it goes out of scope.
struct LoadedObject {
  explicit LoadedObject(const std::string &bytes) {
    int fd;
    if (llvm::sys::fs::createTemporaryFile("vmapc-test", "so", fd, path)) {
      ADD_FAILURE() << "cannot create a temporary file";
      return;
    }
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << bytes;
    }
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      ADD_FAILURE() << dlerror();
  }
  ~LoadedObject() {
    if (handle)
      dlclose(handle);
    llvm::sys::fs::remove(path);
  }
  void *symbol(const char *name) const {
    return handle ? dlsym(handle, name) : nullptr;
  }
  llvm::SmallString<128> path;
  void *handle = nullptr;
};

TEST(CpuObject, AnObjectThatOnlyCopiesNeedsNoLibrary) {
  std::string bytes = sharedObjectOf(R"mlir(
llvm.func @copy(%dst: !llvm.ptr, %src: !llvm.ptr, %n: i64) {
  "llvm.intr.memcpy"(%dst, %src, %n) <{isVolatile = false}>
      : (!llvm.ptr, !llvm.ptr, i64) -> ()
  llvm.return
}
)mlir");
  ASSERT_FALSE(bytes.empty());
  EXPECT_TRUE(neededLibraries(bytes).empty());
  LoadedObject object(bytes);
  auto copy = reinterpret_cast<void (*)(void *, const void *, int64_t)>(
      object.symbol("copy"));
  ASSERT_NE(copy, nullptr);
  char source[300], destination[300] = {};
  for (int i = 0; i < 300; ++i)
    source[i] = char(i * 7 + 1);
  copy(destination, source, 300);
  EXPECT_EQ(std::memcmp(destination, source, 300), 0);
}

TEST(CpuObject, AnObjectThatCallsLibmIsLinkedAgainstIt) {
  std::string bytes = sharedObjectOf(R"mlir(
llvm.func @erff(f32) -> f32
llvm.func @erf_of(%x: f32) -> f32 {
  %y = llvm.call @erff(%x) : (f32) -> f32
  llvm.return %y : f32
}
)mlir");
  ASSERT_FALSE(bytes.empty());
  std::vector<std::string> needed = neededLibraries(bytes);
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libm.so.6"), needed.end());
  LoadedObject object(bytes);
  auto erfOf = reinterpret_cast<float (*)(float)>(object.symbol("erf_of"));
  ASSERT_NE(erfOf, nullptr);
  EXPECT_EQ(erfOf(0.5f), std::erf(0.5f));
}

/// The stores in `function`: all, or those of a vector value.
int stores(const llvm::Function &function, bool ofVectors) {
  int count = 0;
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block)
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&instruction))
        count +=
            !ofVectors || store->getValueOperand()->getType()->isVectorTy();
  return count;
}

TEST(CpuObject, LoopsOfVectorCodeAreNotUnrolledAtRunTime) {
  // Loops of a run-time trip count n: one as the MLIR pipeline leaves a
  // vectorized row loop (a vector of 8 lanes per step), one of copies of
  // the first 256 bytes of 512-byte rows, and one scalar that no vectorizer
  // takes (a histogram's increments).
  const char *source = R"ll(
define void @vector_rows(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %from = getelementptr <8 x float>, ptr %in, i64 %i
  %x = load <8 x float>, ptr %from, align 4
  %y = fmul <8 x float> %x, splat (float 2.0)
  %to = getelementptr <8 x float>, ptr %out, i64 %i
  store <8 x float> %y, ptr %to, align 4
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define void @copy_rows(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %row = mul nuw nsw i64 %i, 512
  %from = getelementptr i8, ptr %in, i64 %row
  %offset = mul nuw nsw i64 %i, 256
  %to = getelementptr i8, ptr %out, i64 %offset
  call void @llvm.memcpy.p0.p0.i64(ptr align 64 %to, ptr align 4 %from, i64 256, i1 false)
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}

define void @histogram(ptr noalias %counts, ptr noalias %bins, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %from = getelementptr i32, ptr %bins, i64 %i
  %bin = load i32, ptr %from, align 4
  %index = sext i32 %bin to i64
  %to = getelementptr i32, ptr %counts, i64 %index
  %count = load i32, ptr %to, align 4
  %more = add i32 %count, 1
  store i32 %more, ptr %to, align 4
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)ll";
  vmapc::initializeCpuTarget();
  for (const char *level : {"x86-64", "x86-64-v3", "x86-64-v4"}) {
    SCOPED_TRACE(level);
    llvm::LLVMContext context;
    llvm::SMDiagnostic diagnostic;
    std::unique_ptr<llvm::Module> module =
        llvm::parseAssemblyString(source, diagnostic, context);
    ASSERT_TRUE(module) << diagnostic.getMessage().str();
    llvm::Error error = vmapc::optimizeCpuKernels(*module, level);
    ASSERT_FALSE(error) << llvm::toString(std::move(error));
    // MLIR's vector loop stays one store per step, marked for the unroller.
    const llvm::Function *vectorRows = module->getFunction("vector_rows");
    ASSERT_NE(vectorRows, nullptr);
    EXPECT_EQ(stores(*vectorRows, /*ofVectors=*/true), 1);
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, nullptr);
    EXPECT_NE(text.find("llvm.loop.unroll.runtime.disable"), std::string::npos);
    // So does a loop of row copies (LLVM's loop idiom pass makes them of
    // MLIR's vector loads and stores): one memcpy per step.
    const llvm::Function *copyRows = module->getFunction("copy_rows");
    ASSERT_NE(copyRows, nullptr);
    int copies = 0;
    for (const llvm::BasicBlock &block : *copyRows)
      for (const llvm::Instruction &instruction : block)
        copies += llvm::isa<llvm::MemCpyInst>(instruction);
    EXPECT_EQ(copies, 1);
    // The scalar loop is unrolled at run time: several increments a step
    // (and the remainder's).
    const llvm::Function *histogram = module->getFunction("histogram");
    ASSERT_NE(histogram, nullptr);
    EXPECT_GT(stores(*histogram, /*ofVectors=*/false), 2);
  }
}

} // namespace
