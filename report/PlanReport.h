//===- PlanReport.h - the plan for people: text, JSON, SVG --*- C++ -*-===//
//
// What `vmapc plan` prints and draws (and what a Python binding can call):
// an entry's BufferPlan (passes/BufferPlan.h) with names from the source and
// a line of explanation per schedule point and per in-place write.
//
// Names. A buffer is named after the source:
//   - a staging slot after its argument (`q`, `out`);
//   - an allocation after the `let` variable or loop carry whose value it
//     first holds (the front end wraps that op's location in a NameLoc that
//     the passes keep; inside an inlined function, the variable of the call
//     when the function's own op has none), else after the file:line:col of
//     the op that first writes it (`knn_digits.arr:7:10`), else the
//     planner's id (`alloc0`). Repeated names get `#2`, `#3`, ...
//
// Roles (the picture's legend, the JSON's "role"):
//   staging       the slot a chunk of a mapped input or output is copied
//                 through when it cannot be passed in place;
//   intermediate  an allocation with bytes of its own;
//   in place      an allocation written over an operand that dies there, or
//                 updated in place by a dispatch that reads and writes it;
//   donated       a donated input's staging slot, which its output shares;
//   once per call an allocation written by dispatches that run once per call
//                 (`sched.once_per_call`: the kNN's transposed references,
//                 packed weights), live over the whole schedule: a constant
//                 of the call, outside what XLA's temp bytes count.
//
// The picture (writePlanSvg), one panel per entry, 1200 px wide, text of 12
// px: schedule points across (one column each, ticked and numbered), arena
// offsets down (ticked at every buffer boundary, in bytes); each buffer a
// rectangle over the columns of its closed live interval and the bytes
// [offset, offset + bytes), coloured by role, with a <title> (name, id,
// bytes, offset, interval, role, what the planner says) and, where it fits,
// a label "name, N B". The offset axis is monotone but not linear: every
// band between two neighbouring boundaries is at least 18 px high (a 48-byte
// buffer stays readable next to a megabyte), the rest is shared in
// proportion to bytes. The lower bound is a dashed line at its offset. Two
// rectangles overlap only where the plan says they share bytes at a point:
// an in-place write (the operand's last point is the result's first) or a
// donation. Buffers whose label does not fit are listed under the panel.
//
// Every rectangle (buffers and legend swatches) carries a <title>; a
// buffer's rectangle has class="buffer", data-entry and data-id (the
// planner's id, the JSON's "name").
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_REPORT_PLANREPORT_H
#define VMAPC_REPORT_PLANREPORT_H

#include "passes/BufferPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmapc {

/// How a buffer holds its bytes (the legend).
enum class BufferRole { Staging, Intermediate, InPlace, Donated, OncePerCall };

/// "staging", "intermediate", "in place", "donated", "once per call".
const char *bufferRoleName(BufferRole role);

/// One row of the plan, for people.
struct ReportBuffer {
  /// The planner's id: the argument's name, or `alloc<K>`.
  std::string id;
  /// The name after the source (see the file comment).
  std::string name;
  /// file:line:col (the file's base name) of the op that first writes the
  /// buffer; empty for a staging slot or where the op has no location.
  std::string location;
  BufferRole role = BufferRole::Intermediate;
};

/// What runs at one schedule point (a top-level op of the entry), in words.
struct SchedulePoint {
  int64_t first = 0;
  /// The last point with the same words (constants in a row are one line).
  int64_t last = 0;
  std::string what;
};

/// An input that is not mapped (in_axes none): every chunk reads the
/// caller's array itself, at the same address, without a copy and outside
/// the arena.
struct UnmappedInput {
  std::string name;
  /// "f32[1000, 64]".
  std::string type;
  int64_t bytes = 0;
  /// The schedule points that read it.
  std::vector<int64_t> readAt;
};

/// An entry's plan with its names and explanations.
struct PlanReport {
  std::string entry;
  BufferPlan plan;
  /// One per plan.buffers row, in the same order.
  std::vector<ReportBuffer> buffers;
  std::vector<SchedulePoint> points;
  /// One line per in-place write and per donation.
  std::vector<std::string> inPlaceWrites;
  std::vector<UnmappedInput> unmappedInputs;
};

/// Builds the report of `entry` (the bufferized entry the plan was computed
/// on, before applyBufferPlan) from its `plan`.
PlanReport buildPlanReport(mlir::func::FuncOp entry, BufferPlan plan);

/// The text of `vmapc plan`: a header line, the table of buffers, the
/// figures, a line per in-place write, a line per schedule point and the
/// unmapped inputs.
void printPlanText(llvm::raw_ostream &os, const PlanReport &report);

/// The JSON object of one entry (`vmapc plan --json` writes an array of
/// them): the figures; per buffer the planner's fields ("name" is the id)
/// with "source" (the name), "source_location" and "role"; "points", the
/// lines of "writes_in_place" and "unmapped_inputs".
llvm::json::Object planToJson(const PlanReport &report);

/// The picture of `reports`, one panel per entry (see the file comment).
void writePlanSvg(llvm::raw_ostream &os, llvm::ArrayRef<PlanReport> reports);

} // namespace vmapc

#endif // VMAPC_REPORT_PLANREPORT_H
