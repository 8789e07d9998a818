//===- SplitKernelsTest.cpp - unit tests of splitKernels ------------------===//
//
// codegen/SplitKernels.h cuts a level's module into parts of whole kernels
// that compile on their own and link into one shared object. These tests
// check which symbols each part keeps, that the parts' objects link into a
// shared object whose kernels compute what the IR says, and the cases that
// must not be split.
//
//===----------------------------------------------------------------------===//

#include "codegen/SplitKernels.h"
#include "codegen/CpuObject.h"
#include "passes/InitAll.h"
#include "vmapc/ArtifactFormat.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <set>
#include <string>

using namespace mlir;

namespace {

/// A wrapper @NAME(x) that returns body(x), where the internal body adds
/// 1.0 to x `adds` times (`adds` + 2 ops) and, with `readsTable`, adds the
/// first element of the global @table.
std::string kernel(const std::string &name, int adds, bool readsTable = false) {
  std::string text = "llvm.func internal @" + name +
                     "_body(%x: f32) -> f32 attributes {sym_visibility = "
                     "\"private\"} {\n  %one = llvm.mlir.constant(1.0 : f32) "
                     ": f32\n  %v0 = llvm.fadd %x, %one : f32\n";
  std::string last = "%v0";
  for (int i = 1; i < adds; ++i) {
    std::string next = "%v" + std::to_string(i);
    text += "  " + next + " = llvm.fadd " + last + ", %one : f32\n";
    last = next;
  }
  if (readsTable) {
    text += "  %t = llvm.mlir.addressof @table : !llvm.ptr\n"
            "  %e = llvm.load %t : !llvm.ptr -> f32\n"
            "  %r = llvm.fadd " +
            last + ", %e : f32\n";
    last = "%r";
  }
  text += "  llvm.return " + last + " : f32\n}\n";
  text += "llvm.func @" + name + "(%x: f32) -> f32 {\n  %y = llvm.call @" +
          name + "_body(%x) : (f32) -> f32\n  llvm.return %y : f32\n}\n";
  return text;
}

/// Whether `op` is one of the kernels below: an exported function with a
/// body.
bool isWrapper(Operation *op) {
  auto function = dyn_cast<LLVM::LLVMFuncOp>(op);
  return function && !function.isExternal() && function.isPublic();
}

/// The names of the top-level symbols of `module`.
std::set<std::string> symbolsOf(ModuleOp module) {
  std::set<std::string> names;
  for (Operation &op : module.getBody()->getOperations())
    if (auto name =
            op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName()))
      names.insert(name.str());
  return names;
}

struct SplitKernelsTest : testing::Test {
  SplitKernelsTest() : context(registry()) {}
  static DialectRegistry registry() {
    DialectRegistry registry;
    vmapc::registerCompilerDialects(registry);
    return registry;
  }
  OwningOpRef<ModuleOp> parse(const std::string &source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return module;
  }
  MLIRContext context;
};

/// A private table two kernels read (copied into each part), a descriptor
/// no kernel refers to (part 0's), and kernels of 40, 10 and 25 adds.
std::string threeKernels(const std::string &tableLinkage) {
  return "llvm.mlir.global " + tableLinkage +
         " constant @table(dense<[2.0, 3.0]> : tensor<2xf32>) "
         ": !llvm.array<2 x f32>\n"
         "llvm.mlir.global external constant @descriptor(dense<[7, 8]> : "
         "tensor<2xi64>) : !llvm.array<2 x i64>\n" +
         kernel("small", 10, /*readsTable=*/true) + kernel("large", 40) +
         kernel("medium", 25, /*readsTable=*/true);
}

TEST_F(SplitKernelsTest, PartsHoldWholeKernelsLargestFirst) {
  OwningOpRef<ModuleOp> module = parse(threeKernels("private"));
  ASSERT_TRUE(module);
  auto parts = vmapc::splitKernels(*module, isWrapper, /*maxParts=*/2,
                                   /*minPartOps=*/1);
  ASSERT_EQ(parts.size(), 2u);
  // The largest kernel first, to part 0; the medium one to the empty part
  // 1; the small one to the lighter part, 1.
  EXPECT_EQ(symbolsOf(*parts[0]),
            (std::set<std::string>{"large", "large_body", "descriptor"}));
  EXPECT_EQ(symbolsOf(*parts[1]),
            (std::set<std::string>{"small", "small_body", "medium",
                                   "medium_body", "table"}));

  // The parts' objects, linked, make one shared object with every kernel
  // and the level's symbol (part 0's).
  vmapc::initializeCpuTarget();
  std::vector<std::string> objects;
  for (auto [index, part] : llvm::enumerate(parts)) {
    FailureOr<std::string> object =
        vmapc::emitCpuObjectFile(*part, "x86-64", index == 0);
    ASSERT_TRUE(succeeded(object));
    objects.push_back(std::move(*object));
  }
  std::string bytes;
  ASSERT_TRUE(succeeded(vmapc::linkCpuSharedObject(*module, objects, &bytes)));
  llvm::SmallString<128> path;
  int fd;
  ASSERT_FALSE(
      llvm::sys::fs::createTemporaryFile("vmapc-test", "so", fd, path));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
  }
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  llvm::sys::fs::remove(path);
  ASSERT_NE(handle, nullptr) << dlerror();
  using Kernel = float (*)(float);
  auto small = reinterpret_cast<Kernel>(dlsym(handle, "small"));
  auto medium = reinterpret_cast<Kernel>(dlsym(handle, "medium"));
  auto large = reinterpret_cast<Kernel>(dlsym(handle, "large"));
  auto level =
      static_cast<const char *>(dlsym(handle, vmapc::kCodeLevelSymbol));
  ASSERT_TRUE(small && medium && large && level);
  EXPECT_EQ(small(0.5f), 12.5f);  // 0.5 + 10 + 2
  EXPECT_EQ(medium(0.5f), 27.5f); // 0.5 + 25 + 2
  EXPECT_EQ(large(0.5f), 40.5f);
  EXPECT_STREQ(level, "x86-64");
  dlclose(handle);
}

TEST_F(SplitKernelsTest, PartsDependOnlyOnTheModule) {
  OwningOpRef<ModuleOp> module = parse(threeKernels("private"));
  ASSERT_TRUE(module);
  auto once = vmapc::splitKernels(*module, isWrapper, 3, 1);
  auto again = vmapc::splitKernels(*module, isWrapper, 3, 1);
  ASSERT_EQ(once.size(), 3u);
  ASSERT_EQ(again.size(), 3u);
  for (auto [a, b] : llvm::zip(once, again)) {
    std::string textA, textB;
    llvm::raw_string_ostream osA(textA), osB(textB);
    a->print(osA);
    b->print(osB);
    EXPECT_EQ(textA, textB);
  }
  EXPECT_EQ(symbolsOf(*once[0]),
            (std::set<std::string>{"large", "large_body", "descriptor"}));
  EXPECT_EQ(symbolsOf(*once[1]),
            (std::set<std::string>{"medium", "medium_body", "table"}));
  EXPECT_EQ(symbolsOf(*once[2]),
            (std::set<std::string>{"small", "small_body", "table"}));
}

TEST_F(SplitKernelsTest, APublicDefinitionTwoPartsNeedIsNotSplit) {
  // In three parts, the two kernels that read a public table are in
  // different ones: a copy in each object would be a duplicate symbol, so
  // the module stays whole.
  OwningOpRef<ModuleOp> module = parse(threeKernels("external"));
  ASSERT_TRUE(module);
  EXPECT_TRUE(vmapc::splitKernels(*module, isWrapper, 3, 1).empty());
  // In two parts they share part 1.
  EXPECT_EQ(vmapc::splitKernels(*module, isWrapper, 2, 1).size(), 2u);
  // In one part with both of its readers, it is no obstacle.
  std::string source = "llvm.mlir.global external constant @table(dense<[2.0, "
                       "3.0]> : tensor<2xf32>) : !llvm.array<2 x f32>\n" +
                       kernel("large", 40) + kernel("small", 10, true);
  OwningOpRef<ModuleOp> other = parse(source);
  ASSERT_TRUE(other);
  EXPECT_EQ(vmapc::splitKernels(*other, isWrapper, 2, 1).size(), 2u);
}

TEST_F(SplitKernelsTest, SmallModulesAndSingleKernelsStayWhole) {
  OwningOpRef<ModuleOp> module = parse(threeKernels("private"));
  ASSERT_TRUE(module);
  // About 100 ops: under two parts of 60 ops (over two of 40).
  EXPECT_TRUE(vmapc::splitKernels(*module, isWrapper, 4, 60).empty());
  EXPECT_EQ(vmapc::splitKernels(*module, isWrapper, 4, 40).size(), 2u);
  EXPECT_TRUE(
      vmapc::splitKernels(*module, isWrapper, /*maxParts=*/1, 1).empty());
  OwningOpRef<ModuleOp> single = parse(kernel("only", 600));
  ASSERT_TRUE(single);
  EXPECT_TRUE(vmapc::splitKernels(*single, isWrapper).empty());
}

} // namespace
