//===- CpuObjectTest.cpp - unit tests of codegen/CpuObject.h -------------===//
//
// codegen/CpuObject.h links a kernel object against libm and libc only when
// it calls something other than memcpy, memmove and memset; either way the
// shared object must load with dlopen and compute what its IR says.
//
//===----------------------------------------------------------------------===//

#include "codegen/CpuObject.h"
#include "passes/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
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

} // namespace
