//===- PlanReportTest.cpp - unit tests of the plan report ----------------===//
//
// report/PlanReport.h on a hand-written bufferized entry whose plan has an
// in-place write (which `vmapc plan` cannot show on a .arr program today:
// its dispatches are not linalg ops): names from NameLoc and file:line:col,
// the lines that explain the write and the unmapped input, and the picture,
// where the in-place pair is the only one whose rectangles overlap.
//
//===----------------------------------------------------------------------===//

#include "report/PlanReport.h"

#include "dialect/ArrDialect.h"
#include "passes/InitAll.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <regex>

using namespace mlir;

namespace {

// x + b into h (named by its NameLoc), exp(h) into r (unnamed: r is called
// after its file:line:col) over h's bytes, -r into out. Points: 0 alloc h,
// 1 add, 2 alloc r, 3 exp, 4 neg, 5 return.
constexpr const char *kEntry = R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @e(%x: memref<8x16xf32> {arr.name = "x", arr.staging},
             %b: memref<16xf32> {arr.name = "b"},
             %out: memref<8x16xf32> {arr.name = "out", arr.output, arr.staging})
    attributes {arr.batch = 8 : i64, arr.in_axes = [0, unit],
                arr.out_axes = [0]} {
  %h = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id, #row, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<8x16xf32>, memref<16xf32>)
      outs(%h : memref<8x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } loc("h"("dir/t.arr":3:11))
  %r = memref.alloc() : memref<8x16xf32>
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<8x16xf32>) outs(%r : memref<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } loc("dir/t.arr":4:10)
  linalg.generic {indexing_maps = [#id, #id],
                  iterator_types = ["parallel", "parallel"]}
      ins(%r : memref<8x16xf32>) outs(%out : memref<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}
)mlir";

class PlanReportTest : public ::testing::Test {
protected:
  PlanReportTest() {
    DialectRegistry registry;
    vmapc::registerCompilerDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kEntry, &context);
    auto entry = cast<func::FuncOp>(module->getBody()->front());
    FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(entry);
    EXPECT_TRUE(succeeded(plan));
    if (succeeded(plan))
      report = vmapc::buildPlanReport(entry, std::move(*plan));
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  vmapc::PlanReport report;
};

TEST_F(PlanReportTest, NamesRolesAndExplanations) {
  ASSERT_EQ(report.buffers.size(), 4u);
  // Staging slots, then allocations in walk order.
  EXPECT_EQ(report.buffers[0].name, "x");
  EXPECT_EQ(report.buffers[0].role, vmapc::BufferRole::Staging);
  EXPECT_EQ(report.buffers[1].name, "out");
  EXPECT_EQ(report.buffers[2].id, "alloc0");
  EXPECT_EQ(report.buffers[2].name, "h");
  EXPECT_EQ(report.buffers[2].location, "t.arr:3:11");
  EXPECT_EQ(report.buffers[2].role, vmapc::BufferRole::Intermediate);
  EXPECT_EQ(report.buffers[3].id, "alloc1");
  EXPECT_EQ(report.buffers[3].name, "t.arr:4:10");
  EXPECT_EQ(report.buffers[3].role, vmapc::BufferRole::InPlace);
  EXPECT_EQ(report.plan.buffers[3].inPlaceSource, 2);
  EXPECT_EQ(report.plan.buffers[3].offset, report.plan.buffers[2].offset);

  ASSERT_EQ(report.inPlaceWrites.size(), 1u);
  EXPECT_EQ(report.inPlaceWrites[0],
            "point 3: linalg.generic writes t.arr:4:10 over the bytes of h, "
            "which it reads for the last time there, element by element "
            "(each element is read before it is written)");
  ASSERT_EQ(report.unmappedInputs.size(), 1u);
  EXPECT_EQ(report.unmappedInputs[0].name, "b");
  EXPECT_EQ(report.unmappedInputs[0].type, "f32[16]");
  EXPECT_EQ(report.unmappedInputs[0].bytes, 64);
  EXPECT_EQ(report.unmappedInputs[0].readAt, std::vector<int64_t>{1});

  std::string text;
  llvm::raw_string_ostream os(text);
  vmapc::printPlanText(os, report);
  EXPECT_NE(text.find("      2  allocation of t.arr:4:10"), std::string::npos)
      << text;
  EXPECT_NE(text.find("written in place over h"), std::string::npos) << text;
  EXPECT_NE(text.find("    b f32[16], 64 bytes, read at point 1\n"),
            std::string::npos)
      << text;
}

TEST_F(PlanReportTest, PictureOverlapsOnlyInPlace) {
  std::string svg;
  llvm::raw_string_ostream os(svg);
  vmapc::writePlanSvg(os, report);
  // Every rectangle has a title.
  size_t rects = 0, titled = 0;
  for (size_t at = svg.find("<rect"); at != std::string::npos;
       at = svg.find("<rect", at + 1)) {
    ++rects;
    size_t end = svg.find("</rect>", at);
    size_t close = svg.find("/>", at);
    if (end != std::string::npos &&
        (close == std::string::npos || end < close) &&
        svg.substr(at, end - at).find("<title>") != std::string::npos)
      ++titled;
  }
  EXPECT_EQ(rects, titled);
  EXPECT_EQ(rects, 4u /*buffers*/ + 5u /*legend*/ + 1u /*background*/);

  std::regex rect("data-id=\"([a-z0-9]+)\" x=\"([0-9.]+)\" y=\"([0-9.]+)\" "
                  "width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
  struct Box {
    std::string id;
    double x, y, w, h;
  };
  std::vector<Box> boxes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect);
       it != std::sregex_iterator(); ++it)
    boxes.push_back({(*it)[1], std::stod((*it)[2]), std::stod((*it)[3]),
                     std::stod((*it)[4]), std::stod((*it)[5])});
  ASSERT_EQ(boxes.size(), 4u);
  std::vector<std::string> overlapping;
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size(); ++j) {
      const Box &a = boxes[i], &b = boxes[j];
      double w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
      double h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
      if (w > 0.05 && h > 0.05)
        overlapping.push_back(a.id + "/" + b.id);
    }
  // h and r share bytes at point 3 (one column), and nothing else does.
  EXPECT_EQ(overlapping, std::vector<std::string>{"alloc0/alloc1"});
  // Labels with name and bytes, and the lower bound's line and figure.
  EXPECT_NE(svg.find(">h, 512 B</text>"), std::string::npos) << svg;
  EXPECT_NE(svg.find(">lower bound</text>"), std::string::npos);
  EXPECT_NE(svg.find(std::to_string(report.plan.lowerBound) + " B</text>"),
            std::string::npos);
  for (const char *role :
       {"staging", "intermediate", "in place", "donated", "once per call"})
    EXPECT_NE(svg.find(std::string("<title>legend: ") + role + "</title>"),
              std::string::npos)
        << role;
}

} // namespace
