//===- BatchingInvariantTest.cpp - batched program == per-example loop ----===//
//
// The batching invariant (docs/design.md "Testing"): for an
// exported entry `vmap(f, in_axes, out_axes, batch=B)`, the program that
// `--arr-vmap`, `inline` and `canonicalize` make of it, interpreted directly,
// equals f evaluated on each example with the results stacked along out_axes.
// Programs are written as arr IR with the batch size substituted for {B};
// B runs over 0, 1, 2 and 7 (docs/design.md asks for 0 too).
//
//===----------------------------------------------------------------------===//

#include "test/oracle/Interpreter.h"
#include "test/oracle/RandomPrograms.h"
#include "test/oracle/TestUtil.h"

#include "dialect/Batching.h"
#include "passes/Passes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace vmapc::oracle;
using vmapc::oracle::test::makeContext;
using vmapc::oracle::test::parse;
using vmapc::oracle::test::randomProgram;
using vmapc::oracle::test::substitute;

namespace {

struct Program {
  const char *name;
  const char *exported;
  const char *source;
};

// A gather and a scatter inside a vmap over rows, so that batching the inner
// vmap gives batch_dims = 1 and batching the export's gives batch_dims = 2
// (both operands batched at both levels), or batch_dims = 1 with only the
// operand or only the indices batched at the export's level. `s` is
// unmapped by the inner vmap: there, only the operand is batched.
constexpr const char *kNestedIndexing = R"mlir(
func.func private @inner(%row: tensor<5xf32>, %ix: tensor<2xi32>, %s: tensor<i32>) -> (tensor<2xf32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>) {
  %three2 = arr.constant dense<3> : tensor<2xi32>
  %ix3 = arr.div %ix, %three2 : tensor<2xi32>
  %g = arr.gather %row[%ix3], axis = 0, batch_dims = 0, mode = fill : (tensor<5xf32>, tensor<2xi32>) -> tensor<2xf32>
  %ones = arr.constant dense<1.0> : tensor<2xf32>
  %u = arr.scatter %row[%ix3], %ones, axis = 0, batch_dims = 0, kind = add : (tensor<5xf32>, tensor<2xi32>, tensor<2xf32>) -> tensor<5xf32>
  %three = arr.constant dense<3> : tensor<i32>
  %s3 = arr.div %s, %three : tensor<i32>
  %e = arr.gather %row[%s3], axis = 0, batch_dims = 0, mode = clamp : (tensor<5xf32>, tensor<i32>) -> tensor<f32>
  %ne = arr.neg %e : tensor<f32>
  %v = arr.scatter %u[%s3], %ne, axis = 0, batch_dims = 0, kind = min : (tensor<5xf32>, tensor<i32>, tensor<f32>) -> tensor<5xf32>
  return %g, %u, %e, %v : tensor<2xf32>, tensor<5xf32>, tensor<f32>, tensor<5xf32>
}
func.func private @outer(%x: tensor<3x5xf32>, %idx: tensor<3x2xi32>, %s: tensor<i32>) -> (tensor<3x2xf32>, tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>) {
  %r:4 = arr.vmap_call @inner(%x, %idx, %s) {in_axes = [0 : i64, 0 : i64, unit], out_axes = [0 : i64, 0 : i64, 0 : i64, 0 : i64], axis_size = 3 : i64} : (tensor<3x5xf32>, tensor<3x2xi32>, tensor<i32>) -> (tensor<3x2xf32>, tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x2xf32>, tensor<3x5xf32>, tensor<3xf32>, tensor<3x5xf32>
}
func.func @nested_both(%x: tensor<{B}x3x5xf32>, %idx: tensor<3x2x{B}xi32>, %s: tensor<{B}xi32>) -> (tensor<{B}x3x2xf32>, tensor<3x{B}x5xf32>, tensor<{B}x3xf32>, tensor<3x5x{B}xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, 2 : i64, 0 : i64], arr.out_axes = [0 : i64, 1 : i64, 0 : i64, 2 : i64]} {
  %r:4 = arr.vmap_call @outer(%x, %idx, %s) {in_axes = [0 : i64, 2 : i64, 0 : i64], out_axes = [0 : i64, 1 : i64, 0 : i64, 2 : i64], axis_size = {B} : i64} : (tensor<{B}x3x5xf32>, tensor<3x2x{B}xi32>, tensor<{B}xi32>) -> (tensor<{B}x3x2xf32>, tensor<3x{B}x5xf32>, tensor<{B}x3xf32>, tensor<3x5x{B}xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<{B}x3x2xf32>, tensor<3x{B}x5xf32>, tensor<{B}x3xf32>, tensor<3x5x{B}xf32>
}
func.func @nested_operand(%x: tensor<3x{B}x5xf32>, %idx: tensor<3x2xi32>, %s: tensor<i32>) -> (tensor<{B}x3x2xf32>, tensor<{B}x3x5xf32>, tensor<3x{B}xf32>, tensor<{B}x3x5xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit, unit], arr.out_axes = [0 : i64, 0 : i64, 1 : i64, 0 : i64]} {
  %r:4 = arr.vmap_call @outer(%x, %idx, %s) {in_axes = [1 : i64, unit, unit], out_axes = [0 : i64, 0 : i64, 1 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<3x{B}x5xf32>, tensor<3x2xi32>, tensor<i32>) -> (tensor<{B}x3x2xf32>, tensor<{B}x3x5xf32>, tensor<3x{B}xf32>, tensor<{B}x3x5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<{B}x3x2xf32>, tensor<{B}x3x5xf32>, tensor<3x{B}xf32>, tensor<{B}x3x5xf32>
}
func.func @nested_indices(%x: tensor<3x5xf32>, %idx: tensor<{B}x3x2xi32>, %s: tensor<{B}xi32>) -> (tensor<3x2x{B}xf32>, tensor<{B}x3x5xf32>, tensor<{B}x3xf32>, tensor<{B}x3x5xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [unit, 0 : i64, 0 : i64], arr.out_axes = [2 : i64, 0 : i64, 0 : i64, 0 : i64]} {
  %r:4 = arr.vmap_call @outer(%x, %idx, %s) {in_axes = [unit, 0 : i64, 0 : i64], out_axes = [2 : i64, 0 : i64, 0 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<3x5xf32>, tensor<{B}x3x2xi32>, tensor<{B}xi32>) -> (tensor<3x2x{B}xf32>, tensor<{B}x3x5xf32>, tensor<{B}x3xf32>, tensor<{B}x3x5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x2x{B}xf32>, tensor<{B}x3x5xf32>, tensor<{B}x3xf32>, tensor<{B}x3x5xf32>
}
)mlir";

// The front end's convention: per-example functions are private; the export
// is public, carries arr.batch / arr.in_axes / arr.out_axes and its body is
// one arr.vmap_call of the per-example function.
const Program kPrograms[] = {
    // All-pairs squared distances and argmin: kNN (refs unmapped).
    {"knn", "classify", R"mlir(
func.func private @sqdist(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d = arr.sub %a, %b : tensor<16xf32>
  %m = arr.mul %d, %d : tensor<16xf32>
  %s = arr.reduce_sum %m, dims = [0] : (tensor<16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @nearest(%q: tensor<16xf32>, %refs: tensor<50x16xf32>) -> tensor<i32> {
  %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 50 : i64} : (tensor<16xf32>, tensor<50x16xf32>) -> tensor<50xf32>
  %i = arr.argmin %d, axis = 0 : (tensor<50xf32>) -> tensor<i32>
  return %i : tensor<i32>
}
func.func @classify(%q: tensor<{B}x16xf32> {arr.name = "q"}, %refs: tensor<50x16xf32> {arr.name = "refs"}) -> (tensor<{B}xi32> {arr.name = "out"}) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [0 : i64]} {
  %r = arr.vmap_call @nearest(%q, %refs) {in_axes = [0 : i64, unit], out_axes = [0 : i64], axis_size = {B} : i64} : (tensor<{B}x16xf32>, tensor<50x16xf32>) -> tensor<{B}xi32>
  return %r : tensor<{B}xi32>
}
)mlir"},
    // vmap(vmap(sqdist)) with the examples stacked along out axis 1.
    {"pairwise_out_axis_1", "pairwise", R"mlir(
func.func private @sqdist(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<f32> {
  %d = arr.sub %a, %b : tensor<16xf32>
  %m = arr.mul %d, %d : tensor<16xf32>
  %s = arr.reduce_sum %m, dims = [0] : (tensor<16xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @row(%q: tensor<16xf32>, %refs: tensor<30x16xf32>) -> tensor<30xf32> {
  %d = arr.vmap_call @sqdist(%q, %refs) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 30 : i64} : (tensor<16xf32>, tensor<30x16xf32>) -> tensor<30xf32>
  return %d : tensor<30xf32>
}
func.func @pairwise(%q: tensor<{B}x16xf32>, %refs: tensor<30x16xf32>) -> tensor<30x{B}xf32> attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [1 : i64]} {
  %r = arr.vmap_call @row(%q, %refs) {in_axes = [0 : i64, unit], out_axes = [1 : i64], axis_size = {B} : i64} : (tensor<{B}x16xf32>, tensor<30x16xf32>) -> tensor<30x{B}xf32>
  return %r : tensor<30x{B}xf32>
}
)mlir"},
    // An MLP: dot_general, add, tanh; weights unmapped.
    {"mlp", "predict", R"mlir(
func.func private @mlp(%x: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>, %b2: tensor<4xf32>) -> tensor<4xf32> {
  %h0 = arr.dot_general %x, %w1, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %h1 = arr.add %h0, %b1 : tensor<16xf32>
  %h = arr.tanh %h1 : tensor<16xf32>
  %y0 = arr.dot_general %h, %w2, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<16xf32>, tensor<16x4xf32>) -> tensor<4xf32>
  %y = arr.add %y0, %b2 : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @predict(%x: tensor<{B}x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>, %b2: tensor<4xf32>) -> tensor<{B}x4xf32> attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit, unit, unit, unit], arr.out_axes = [0 : i64]} {
  %r = arr.vmap_call @mlp(%x, %w1, %b1, %w2, %b2) {in_axes = [0 : i64, unit, unit, unit, unit], out_axes = [0 : i64], axis_size = {B} : i64} : (tensor<{B}x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<{B}x4xf32>
  return %r : tensor<{B}x4xf32>
}
)mlir"},
    // Per-example weights mapped on axis 2 (both dot_general sides batched).
    {"mlp_ensemble_axis_2", "ensemble", R"mlir(
func.func private @layer(%x: tensor<8xf32>, %w: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
  %h0 = arr.dot_general %x, %w, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %h1 = arr.add %h0, %b : tensor<16xf32>
  %h = arr.tanh %h1 : tensor<16xf32>
  return %h : tensor<16xf32>
}
func.func @ensemble(%x: tensor<{B}x8xf32>, %w: tensor<8x16x{B}xf32>, %b: tensor<16xf32>) -> tensor<{B}x16xf32> attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, 2 : i64, unit], arr.out_axes = [0 : i64]} {
  %r = arr.vmap_call @layer(%x, %w, %b) {in_axes = [0 : i64, 2 : i64, unit], out_axes = [0 : i64], axis_size = {B} : i64} : (tensor<{B}x8xf32>, tensor<8x16x{B}xf32>, tensor<16xf32>) -> tensor<{B}x16xf32>
  return %r : tensor<{B}x16xf32>
}
)mlir"},
    // Reductions over an axis, argmax, exp/log; three results.
    {"reduce_argmax", "stats", R"mlir(
func.func private @rowstats(%x: tensor<5x6xf32>) -> (tensor<5xf32>, tensor<5xi32>, tensor<f32>) {
  %m = arr.reduce_max %x, dims = [1] : (tensor<5x6xf32>) -> tensor<5xf32>
  %a = arr.argmax %x, axis = 1 : (tensor<5x6xf32>) -> tensor<5xi32>
  %e = arr.exp %x : tensor<5x6xf32>
  %s = arr.reduce_sum %e, dims = [0, 1] : (tensor<5x6xf32>) -> tensor<f32>
  %l = arr.log %s : tensor<f32>
  return %m, %a, %l : tensor<5xf32>, tensor<5xi32>, tensor<f32>
}
func.func @stats(%x: tensor<{B}x5x6xf32>) -> (tensor<{B}x5xf32>, tensor<{B}x5xi32>, tensor<{B}xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64], arr.out_axes = [0 : i64, 0 : i64, 0 : i64]} {
  %m, %a, %l = arr.vmap_call @rowstats(%x) {in_axes = [0 : i64], out_axes = [0 : i64, 0 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<{B}x5x6xf32>) -> (tensor<{B}x5xf32>, tensor<{B}x5xi32>, tensor<{B}xf32>)
  return %m, %a, %l : tensor<{B}x5xf32>, tensor<{B}x5xi32>, tensor<{B}xf32>
}
)mlir"},
    // The same per-example function mapped on axis 1, results on mixed axes.
    {"reduce_argmax_axis_1", "stats1", R"mlir(
func.func private @rowstats(%x: tensor<5x6xf32>) -> (tensor<5xf32>, tensor<6xi32>, tensor<f32>) {
  %m = arr.reduce_min %x, dims = [1] : (tensor<5x6xf32>) -> tensor<5xf32>
  %a = arr.argmin %x, axis = 0 : (tensor<5x6xf32>) -> tensor<6xi32>
  %s = arr.reduce_sum %x, dims = [0, 1] : (tensor<5x6xf32>) -> tensor<f32>
  return %m, %a, %s : tensor<5xf32>, tensor<6xi32>, tensor<f32>
}
func.func @stats1(%x: tensor<5x{B}x6xf32>) -> (tensor<5x{B}xf32>, tensor<{B}x6xi32>, tensor<{B}xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64], arr.out_axes = [1 : i64, 0 : i64, 0 : i64]} {
  %m, %a, %s = arr.vmap_call @rowstats(%x) {in_axes = [1 : i64], out_axes = [1 : i64, 0 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<5x{B}x6xf32>) -> (tensor<5x{B}xf32>, tensor<{B}x6xi32>, tensor<{B}xf32>)
  return %m, %a, %s : tensor<5x{B}xf32>, tensor<{B}x6xi32>, tensor<{B}xf32>
}
)mlir"},
    // A nested vmap_call inside the vmapped function (over columns, in
    // axis 1), a broadcast of a scalar, a comparison, a bool result on out
    // axis 1.
    {"nested_vmap", "colstats", R"mlir(
func.func private @lse(%v: tensor<4xf32>) -> tensor<f32> {
  %m = arr.reduce_max %v, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %mb = arr.broadcast_in_dim %m, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %d = arr.sub %v, %mb : tensor<4xf32>
  %e = arr.exp %d : tensor<4xf32>
  %s = arr.reduce_sum %e, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  %l = arr.log %s : tensor<f32>
  %r = arr.add %l, %m : tensor<f32>
  return %r : tensor<f32>
}
func.func private @cols(%x: tensor<4x6xf32>) -> (tensor<6xf32>, tensor<6xi1>) {
  %c = arr.vmap_call @lse(%x) {in_axes = [1 : i64], out_axes = [0 : i64], axis_size = 6 : i64} : (tensor<4x6xf32>) -> tensor<6xf32>
  %t = arr.transpose %x, perm = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %n = arr.reduce_sum %t, dims = [1] : (tensor<6x4xf32>) -> tensor<6xf32>
  %g = arr.cmp gt, %c, %n : tensor<6xf32> -> tensor<6xi1>
  return %c, %g : tensor<6xf32>, tensor<6xi1>
}
func.func @colstats(%x: tensor<{B}x4x6xf32>) -> (tensor<{B}x6xf32>, tensor<6x{B}xi1>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64], arr.out_axes = [0 : i64, 1 : i64]} {
  %c, %g = arr.vmap_call @cols(%x) {in_axes = [0 : i64], out_axes = [0 : i64, 1 : i64], axis_size = {B} : i64} : (tensor<{B}x4x6xf32>) -> (tensor<{B}x6xf32>, tensor<6x{B}xi1>)
  return %c, %g : tensor<{B}x6xf32>, tensor<6x{B}xi1>
}
)mlir"},
    // i32 arithmetic with an unmapped operand: truncating division, neg,
    // mul, reshape, cmp; an out axis of 2.
    {"i32_unmapped_operand", "intops", R"mlir(
func.func private @ints(%x: tensor<6xi32>, %y: tensor<6xi32>) -> (tensor<3x2xi32>, tensor<6xi1>) {
  %q = arr.div %x, %y : tensor<6xi32>
  %n = arr.neg %q : tensor<6xi32>
  %p = arr.mul %n, %x : tensor<6xi32>
  %r = arr.reshape %p : (tensor<6xi32>) -> tensor<3x2xi32>
  %b = arr.cmp le, %x, %y : tensor<6xi32> -> tensor<6xi1>
  return %r, %b : tensor<3x2xi32>, tensor<6xi1>
}
func.func @intops(%x: tensor<{B}x6xi32>, %y: tensor<6xi32>) -> (tensor<3x2x{B}xi32>, tensor<{B}x6xi1>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [2 : i64, 0 : i64]} {
  %r, %b = arr.vmap_call @ints(%x, %y) {in_axes = [0 : i64, unit], out_axes = [2 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<{B}x6xi32>, tensor<6xi32>) -> (tensor<3x2x{B}xi32>, tensor<{B}x6xi1>)
  return %r, %b : tensor<3x2x{B}xi32>, tensor<{B}x6xi1>
}
)mlir"},
    // Shape ops on an input mapped on axis 1 with an unmapped operand that
    // broadcast_in_dim stretches; transpose, reshape, reduce_min, argmin,
    // sqrt, a dot_general of the example with its own transpose.
    {"shapes_axis_1", "shapes", R"mlir(
func.func private @shape_ops(%x: tensor<3x4xf32>, %v: tensor<1x4xf32>) -> (tensor<12xf32>, tensor<4xf32>, tensor<4xi32>, tensor<3x3xf32>) {
  %vb = arr.broadcast_in_dim %v, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<3x4xf32>
  %s = arr.add %x, %vb : tensor<3x4xf32>
  %t = arr.transpose %s, perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %r = arr.reshape %t : (tensor<4x3xf32>) -> tensor<12xf32>
  %m = arr.reduce_min %t, dims = [1] : (tensor<4x3xf32>) -> tensor<4xf32>
  %i = arr.argmin %s, axis = 0 : (tensor<3x4xf32>) -> tensor<4xi32>
  %xx = arr.mul %x, %x : tensor<3x4xf32>
  %a = arr.sqrt %xx : tensor<3x4xf32>
  %g = arr.dot_general %a, %t, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
  return %r, %m, %i, %g : tensor<12xf32>, tensor<4xf32>, tensor<4xi32>, tensor<3x3xf32>
}
func.func @shapes(%x: tensor<3x{B}x4xf32>, %v: tensor<1x4xf32>) -> (tensor<{B}x12xf32>, tensor<4x{B}xf32>, tensor<{B}x4xi32>, tensor<{B}x3x3xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit], arr.out_axes = [0 : i64, 1 : i64, 0 : i64, 0 : i64]} {
  %r, %m, %i, %g = arr.vmap_call @shape_ops(%x, %v) {in_axes = [1 : i64, unit], out_axes = [0 : i64, 1 : i64, 0 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<3x{B}x4xf32>, tensor<1x4xf32>) -> (tensor<{B}x12xf32>, tensor<4x{B}xf32>, tensor<{B}x4xi32>, tensor<{B}x3x3xf32>)
  return %r, %m, %i, %g : tensor<{B}x12xf32>, tensor<4x{B}xf32>, tensor<{B}x4xi32>, tensor<{B}x3x3xf32>
}
)mlir"},
    // abs, sign, maximum, minimum, pow, select and convert with unmapped
    // operands (y, b) next to
    // operands mapped on axes 1 and 0: abs sign not maximum minimum pow and
    // or select convert; a select whose condition is unbatched and one whose
    // values are; a result of unbatched operands only (out axis unit).
    {"new_elementwise_unmapped_operands", "elem", R"mlir(
func.func private @elem_one(%x: tensor<4x3xf32>, %y: tensor<4x3xf32>, %k: tensor<4x3xi32>, %b: tensor<4x3xi1>) -> (tensor<4x3xf32>, tensor<4x3xi32>, tensor<4x3xi1>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %a = arr.abs %x : tensor<4x3xf32>
  %s = arr.sign %y : tensor<4x3xf32>
  %m = arr.maximum %a, %y : tensor<4x3xf32>
  %n = arr.minimum %x, %s : tensor<4x3xf32>
  %p = arr.pow %a, %y : tensor<4x3xf32>
  %c = arr.cmp gt, %x, %y : tensor<4x3xf32> -> tensor<4x3xi1>
  %nb = arr.not %b : tensor<4x3xi1>
  %and = arr.and %c, %nb : tensor<4x3xi1>
  %or = arr.or %c, %b : tensor<4x3xi1>
  %sel = arr.select %and, %m, %p : tensor<4x3xi1>, tensor<4x3xf32>
  %sel2 = arr.select %b, %x, %y : tensor<4x3xi1>, tensor<4x3xf32>
  %ten = arr.constant dense<10.0> : tensor<4x3xf32>
  %xs = arr.mul %x, %ten : tensor<4x3xf32>
  %xi = arr.convert %xs : tensor<4x3xf32> -> tensor<4x3xi32>
  %ka = arr.abs %k : tensor<4x3xi32>
  %ks = arr.sign %k : tensor<4x3xi32>
  %kmax = arr.maximum %ka, %xi : tensor<4x3xi32>
  %kmin = arr.minimum %kmax, %ks : tensor<4x3xi32>
  %oi = arr.convert %or : tensor<4x3xi1> -> tensor<4x3xi32>
  %ksum = arr.add %kmin, %oi : tensor<4x3xi32>
  %kf = arr.convert %k : tensor<4x3xi32> -> tensor<4x3xf32>
  %f = arr.add %sel, %sel2 : tensor<4x3xf32>
  %f2 = arr.add %f, %kf : tensor<4x3xf32>
  %xb = arr.convert %xi : tensor<4x3xi32> -> tensor<4x3xi1>
  %o2 = arr.and %or, %xb : tensor<4x3xi1>
  %u = arr.pow %s, %s : tensor<4x3xf32>
  return %f2, %ksum, %o2, %n, %u : tensor<4x3xf32>, tensor<4x3xi32>, tensor<4x3xi1>, tensor<4x3xf32>, tensor<4x3xf32>
}
func.func @elem(%x: tensor<4x{B}x3xf32>, %y: tensor<4x3xf32>, %k: tensor<{B}x4x3xi32>, %b: tensor<4x3xi1>) -> (tensor<4x{B}x3xf32>, tensor<{B}x4x3xi32>, tensor<4x3x{B}xi1>, tensor<{B}x4x3xf32>, tensor<4x3xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit, 0 : i64, unit], arr.out_axes = [1 : i64, 0 : i64, 2 : i64, 0 : i64, unit]} {
  %r0, %r1, %r2, %r3, %r4 = arr.vmap_call @elem_one(%x, %y, %k, %b) {in_axes = [1 : i64, unit, 0 : i64, unit], out_axes = [1 : i64, 0 : i64, 2 : i64, 0 : i64, unit], axis_size = {B} : i64} : (tensor<4x{B}x3xf32>, tensor<4x3xf32>, tensor<{B}x4x3xi32>, tensor<4x3xi1>) -> (tensor<4x{B}x3xf32>, tensor<{B}x4x3xi32>, tensor<4x3x{B}xi1>, tensor<{B}x4x3xf32>, tensor<4x3xf32>)
  return %r0, %r1, %r2, %r3, %r4 : tensor<4x{B}x3xf32>, tensor<{B}x4x3xi32>, tensor<4x3x{B}xi1>, tensor<{B}x4x3xf32>, tensor<4x3xf32>
}
)mlir"},
    // concat of pieces batched on different dims (x on 1, z on 2) and an
    // unbatched one (w), on dim 0 and on the last dim; slices with negative
    // strides of batched values; iota; a concat of unbatched pieces only
    // (out axis unit).
    {"concat_slice_iota", "cs", R"mlir(
func.func private @cs_one(%x: tensor<3x4xf32>, %w: tensor<2x4xf32>, %z: tensor<1x4xf32>) -> (tensor<3x4xf32>, tensor<2x3xf32>, tensor<2x8xf32>, tensor<6x4xf32>, tensor<4x3xi32>) {
  %c0 = arr.concat %x, %w dim = 0 : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
  %c1 = arr.concat %x, %x dim = 1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x8xf32>
  %s0 = arr.slice %c0, start = [4, 3], stride = [-2, -1] : (tensor<5x4xf32>) -> tensor<3x4xf32>
  %s1 = arr.slice %c1, start = [0, 1], stride = [2, 3] : (tensor<3x8xf32>) -> tensor<2x3xf32>
  %io = arr.iota dim = 1 : tensor<3x4xf32>
  %t = arr.add %s0, %io : tensor<3x4xf32>
  %cu = arr.concat %w, %w dim = 1 : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x8xf32>
  %c2 = arr.concat %w, %x, %z dim = 0 : (tensor<2x4xf32>, tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<6x4xf32>
  %xt = arr.transpose %x, perm = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
  %ten = arr.constant dense<10.0> : tensor<4x3xf32>
  %xs = arr.mul %xt, %ten : tensor<4x3xf32>
  %xi = arr.convert %xs : tensor<4x3xf32> -> tensor<4x3xi32>
  %ii = arr.iota dim = 0 : tensor<4x3xi32>
  %rev = arr.slice %xi, start = [3, 0], stride = [-1, 1] : (tensor<4x3xi32>) -> tensor<4x3xi32>
  %sum = arr.add %rev, %ii : tensor<4x3xi32>
  return %t, %s1, %cu, %c2, %sum : tensor<3x4xf32>, tensor<2x3xf32>, tensor<2x8xf32>, tensor<6x4xf32>, tensor<4x3xi32>
}
func.func @cs(%x: tensor<3x{B}x4xf32>, %w: tensor<2x4xf32>, %z: tensor<1x4x{B}xf32>) -> (tensor<{B}x3x4xf32>, tensor<2x3x{B}xf32>, tensor<2x8xf32>, tensor<6x{B}x4xf32>, tensor<4x3x{B}xi32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit, 2 : i64], arr.out_axes = [0 : i64, 2 : i64, unit, 1 : i64, 2 : i64]} {
  %r0, %r1, %r2, %r3, %r4 = arr.vmap_call @cs_one(%x, %w, %z) {in_axes = [1 : i64, unit, 2 : i64], out_axes = [0 : i64, 2 : i64, unit, 1 : i64, 2 : i64], axis_size = {B} : i64} : (tensor<3x{B}x4xf32>, tensor<2x4xf32>, tensor<1x4x{B}xf32>) -> (tensor<{B}x3x4xf32>, tensor<2x3x{B}xf32>, tensor<2x8xf32>, tensor<6x{B}x4xf32>, tensor<4x3x{B}xi32>)
  return %r0, %r1, %r2, %r3, %r4 : tensor<{B}x3x4xf32>, tensor<2x3x{B}xf32>, tensor<2x8xf32>, tensor<6x{B}x4xf32>, tensor<4x3x{B}xi32>
}
)mlir"},
    // arr.for with a batched const (x), an unbatched const (w) and three
    // carries of unbatched inits: acc becomes batched through the body, n
    // never does (its result has out axis unit), the i32 count does.
    {"for_consts_and_carries", "loop", R"mlir(
func.func private @loop_one(%x: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>, tensor<i32>) {
  %acc0 = arr.constant dense<0.0> : tensor<3xf32>
  %n0 = arr.constant dense<0.0> : tensor<f32>
  %c0 = arr.constant dense<0> : tensor<i32>
  %r:3 = arr.for 4 consts(%x, %w : tensor<3xf32>, tensor<3xf32>) iter_args(%acc0, %n0, %c0 : tensor<3xf32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<f32>, tensor<i32>) {
  ^bb0(%i: tensor<i32>, %xc: tensor<3xf32>, %wc: tensor<3xf32>, %acc: tensor<3xf32>, %n: tensor<f32>, %cnt: tensor<i32>):
    %fi = arr.convert %i : tensor<i32> -> tensor<f32>
    %fb = arr.broadcast_in_dim %fi, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %t = arr.mul %xc, %fb : tensor<3xf32>
    %t2 = arr.mul %t, %wc : tensor<3xf32>
    %acc1 = arr.add %acc, %t2 : tensor<3xf32>
    %acc2 = arr.tanh %acc1 : tensor<3xf32>
    %one = arr.constant dense<1.0> : tensor<f32>
    %n2 = arr.add %n, %one : tensor<f32>
    %mx = arr.reduce_max %acc2, dims = [0] : (tensor<3xf32>) -> tensor<f32>
    %zero = arr.constant dense<0.0> : tensor<f32>
    %pos = arr.cmp gt, %mx, %zero : tensor<f32> -> tensor<i1>
    %pi = arr.convert %pos : tensor<i1> -> tensor<i32>
    %cnt2 = arr.add %cnt, %pi : tensor<i32>
    arr.yield %acc2, %n2, %cnt2 : tensor<3xf32>, tensor<f32>, tensor<i32>
  }
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<f32>, tensor<i32>
}
func.func @loop(%x: tensor<{B}x3xf32>, %w: tensor<3xf32>) -> (tensor<{B}x3xf32>, tensor<f32>, tensor<{B}xi32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [0 : i64, unit, 0 : i64]} {
  %a, %n, %c = arr.vmap_call @loop_one(%x, %w) {in_axes = [0 : i64, unit], out_axes = [0 : i64, unit, 0 : i64], axis_size = {B} : i64} : (tensor<{B}x3xf32>, tensor<3xf32>) -> (tensor<{B}x3xf32>, tensor<f32>, tensor<{B}xi32>)
  return %a, %n, %c : tensor<{B}x3xf32>, tensor<f32>, tensor<{B}xi32>
}
)mlir"},
    // The carry fixpoint needs three rounds: c is batched through the const
    // x (mapped on axis 1), then b through c, then a through b.
    {"for_fixpoint_three_rounds", "chain", R"mlir(
func.func private @chain_one(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = arr.for 3 consts(%x : tensor<2xf32>) iter_args(%y, %y, %y : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%i: tensor<i32>, %xc: tensor<2xf32>, %a: tensor<2xf32>, %b: tensor<2xf32>, %c: tensor<2xf32>):
    %a2 = arr.add %a, %b : tensor<2xf32>
    %b2 = arr.add %b, %c : tensor<2xf32>
    %c2 = arr.mul %c, %xc : tensor<2xf32>
    arr.yield %a2, %b2, %c2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
func.func @chain(%x: tensor<2x{B}xf32>, %y: tensor<2xf32>) -> (tensor<{B}x2xf32>, tensor<2x{B}xf32>, tensor<{B}x2xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit], arr.out_axes = [0 : i64, 1 : i64, 0 : i64]} {
  %a, %b, %c = arr.vmap_call @chain_one(%x, %y) {in_axes = [1 : i64, unit], out_axes = [0 : i64, 1 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<2x{B}xf32>, tensor<2xf32>) -> (tensor<{B}x2xf32>, tensor<2x{B}xf32>, tensor<{B}x2xf32>)
  return %a, %b, %c : tensor<{B}x2xf32>, tensor<2x{B}xf32>, tensor<{B}x2xf32>
}
)mlir"},
    // Carries swapped every iteration: the init of a is batched on dim 2 of
    // the export (x mapped on axis 2), b's init is unbatched; both end up
    // batched. The same with 0 iterations (the results are the inits).
    {"for_swap_and_zero_trips", "swap", R"mlir(
func.func private @swap_one(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %r:2 = arr.for 3 iter_args(%x, %w : tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  ^bb0(%i: tensor<i32>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>):
    %n = arr.neg %a : tensor<2x3xf32>
    arr.yield %b, %n : tensor<2x3xf32>, tensor<2x3xf32>
  }
  %z:2 = arr.for 0 iter_args(%x, %w : tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  ^bb0(%i: tensor<i32>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>):
    arr.yield %b, %a : tensor<2x3xf32>, tensor<2x3xf32>
  }
  return %r#0, %r#1, %z#0, %z#1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
func.func @swap(%x: tensor<2x3x{B}xf32>, %w: tensor<2x3xf32>) -> (tensor<{B}x2x3xf32>, tensor<2x3x{B}xf32>, tensor<2x{B}x3xf32>, tensor<{B}x2x3xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [2 : i64, unit], arr.out_axes = [0 : i64, 2 : i64, 1 : i64, 0 : i64]} {
  %a, %b, %c, %d = arr.vmap_call @swap_one(%x, %w) {in_axes = [2 : i64, unit], out_axes = [0 : i64, 2 : i64, 1 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<2x3x{B}xf32>, tensor<2x3xf32>) -> (tensor<{B}x2x3xf32>, tensor<2x3x{B}xf32>, tensor<2x{B}x3xf32>, tensor<{B}x2x3xf32>)
  return %a, %b, %c, %d : tensor<{B}x2x3xf32>, tensor<2x3x{B}xf32>, tensor<2x{B}x3xf32>, tensor<{B}x2x3xf32>
}
)mlir"},
    // A loop body with a func.call, an arr.vmap_call (over unmapped refs)
    // and a nested arr.for reading a batched const.
    {"for_body_calls_and_nested_for", "knnloop", R"mlir(
func.func private @sqdist(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %d = arr.sub %a, %b : tensor<4xf32>
  %m = arr.mul %d, %d : tensor<4xf32>
  %s = arr.reduce_sum %m, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @walk(%q: tensor<4xf32>, %refs: tensor<5x4xf32>) -> (tensor<5xf32>, tensor<f32>, tensor<4xf32>) {
  %d0 = arr.constant dense<0.0> : tensor<5xf32>
  %s0 = arr.constant dense<0.0> : tensor<f32>
  %r:3 = arr.for 3 consts(%q, %refs : tensor<4xf32>, tensor<5x4xf32>) iter_args(%d0, %s0, %q : tensor<5xf32>, tensor<f32>, tensor<4xf32>) -> (tensor<5xf32>, tensor<f32>, tensor<4xf32>) {
  ^bb0(%i: tensor<i32>, %qc: tensor<4xf32>, %rc: tensor<5x4xf32>, %d: tensor<5xf32>, %s: tensor<f32>, %p: tensor<4xf32>):
    %v = arr.vmap_call @sqdist(%p, %rc) {in_axes = [unit, 0 : i64], out_axes = [0 : i64], axis_size = 5 : i64} : (tensor<4xf32>, tensor<5x4xf32>) -> tensor<5xf32>
    %d2 = arr.add %d, %v : tensor<5xf32>
    %c = func.call @sqdist(%p, %qc) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %s2 = arr.add %s, %c : tensor<f32>
    %half = arr.constant dense<0.5> : tensor<4xf32>
    %p1 = arr.mul %p, %half : tensor<4xf32>
    %p2 = arr.for 2 consts(%qc : tensor<4xf32>) iter_args(%p1 : tensor<4xf32>) -> (tensor<4xf32>) {
    ^bb0(%j: tensor<i32>, %qq: tensor<4xf32>, %pp: tensor<4xf32>):
      %sg = arr.sign %qq : tensor<4xf32>
      %tenth = arr.constant dense<0.1> : tensor<4xf32>
      %st = arr.mul %sg, %tenth : tensor<4xf32>
      %pp2 = arr.add %pp, %st : tensor<4xf32>
      arr.yield %pp2 : tensor<4xf32>
    }
    arr.yield %d2, %s2, %p2 : tensor<5xf32>, tensor<f32>, tensor<4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<5xf32>, tensor<f32>, tensor<4xf32>
}
func.func @knnloop(%q: tensor<{B}x4xf32>, %refs: tensor<5x4xf32>) -> (tensor<{B}x5xf32>, tensor<{B}xf32>, tensor<4x{B}xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [0 : i64, 0 : i64, 1 : i64]} {
  %d, %s, %p = arr.vmap_call @walk(%q, %refs) {in_axes = [0 : i64, unit], out_axes = [0 : i64, 0 : i64, 1 : i64], axis_size = {B} : i64} : (tensor<{B}x4xf32>, tensor<5x4xf32>) -> (tensor<{B}x5xf32>, tensor<{B}xf32>, tensor<4x{B}xf32>)
  return %d, %s, %p : tensor<{B}x5xf32>, tensor<{B}xf32>, tensor<4x{B}xf32>
}
)mlir"},
    // bool and i32 carries: a flag or-ed with a batched test, an i32
    // carry (unbatched init) chosen by select on the flag; iota and the
    // index in the body.
    {"for_bool_i32_carries_select", "flags", R"mlir(
func.func private @flags_one(%x: tensor<3xf32>, %k: tensor<3xi32>) -> (tensor<3xi1>, tensor<3xi32>) {
  %f0 = arr.constant dense<false> : tensor<3xi1>
  %r:2 = arr.for 5 consts(%x, %k : tensor<3xf32>, tensor<3xi32>) iter_args(%f0, %k : tensor<3xi1>, tensor<3xi32>) -> (tensor<3xi1>, tensor<3xi32>) {
  ^bb0(%i: tensor<i32>, %xc: tensor<3xf32>, %kc: tensor<3xi32>, %flag: tensor<3xi1>, %acc: tensor<3xi32>):
    %ib = arr.broadcast_in_dim %i, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %io = arr.iota dim = 0 : tensor<3xi32>
    %s = arr.add %ib, %io : tensor<3xi32>
    %m = arr.maximum %acc, %s : tensor<3xi32>
    %fi = arr.convert %i : tensor<i32> -> tensor<f32>
    %fb = arr.broadcast_in_dim %fi, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %q = arr.constant dense<0.25> : tensor<3xf32>
    %th = arr.mul %fb, %q : tensor<3xf32>
    %big = arr.cmp gt, %xc, %th : tensor<3xf32> -> tensor<3xi1>
    %flag2 = arr.or %flag, %big : tensor<3xi1>
    %sum = arr.add %acc, %kc : tensor<3xi32>
    %acc2 = arr.select %flag2, %m, %sum : tensor<3xi1>, tensor<3xi32>
    arr.yield %flag2, %acc2 : tensor<3xi1>, tensor<3xi32>
  }
  return %r#0, %r#1 : tensor<3xi1>, tensor<3xi32>
}
func.func @flags(%x: tensor<{B}x3xf32>, %k: tensor<3xi32>) -> (tensor<3x{B}xi1>, tensor<{B}x3xi32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [1 : i64, 0 : i64]} {
  %f, %a = arr.vmap_call @flags_one(%x, %k) {in_axes = [0 : i64, unit], out_axes = [1 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<{B}x3xf32>, tensor<3xi32>) -> (tensor<3x{B}xi1>, tensor<{B}x3xi32>)
  return %f, %a : tensor<3x{B}xi1>, tensor<{B}x3xi32>
}
)mlir"},
    // Yields that need moving: a carry (unbatched init) takes the const x
    // (batched on dim 1 of the example) as it is; a carry with a batched init
    // gets an unbatched constant; an identity carry; the index as a value;
    // an inner loop whose init is a batched outer carry and whose const is
    // unbatched.
    {"for_yield_moves", "moves", R"mlir(
func.func private @moves_one(%x: tensor<2x3xf32>, %w: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>) {
  %k0 = arr.constant dense<0> : tensor<i32>
  %r:5 = arr.for 2 consts(%x, %w : tensor<2x3xf32>, tensor<2x3xf32>) iter_args(%w, %x, %x, %k0, %w : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>) {
  ^bb0(%i: tensor<i32>, %xc: tensor<2x3xf32>, %wc: tensor<2x3xf32>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>, %k: tensor<i32>, %e: tensor<2x3xf32>):
    %two = arr.constant dense<2.0> : tensor<2x3xf32>
    %e1 = arr.add %e, %a : tensor<2x3xf32>
    %e2 = arr.for 3 consts(%wc : tensor<2x3xf32>) iter_args(%e1 : tensor<2x3xf32>) -> (tensor<2x3xf32>) {
    ^bb0(%j: tensor<i32>, %wi: tensor<2x3xf32>, %ee: tensor<2x3xf32>):
      %m = arr.mul %ee, %wi : tensor<2x3xf32>
      %t = arr.tanh %m : tensor<2x3xf32>
      arr.yield %t : tensor<2x3xf32>
    }
    arr.yield %xc, %two, %c, %i, %e2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>
  }
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<2x3xf32>
}
func.func @moves(%x: tensor<2x{B}x3xf32>, %w: tensor<2x3xf32>) -> (tensor<2x3x{B}xf32>, tensor<{B}x2x3xf32>, tensor<2x{B}x3xf32>, tensor<i32>, tensor<{B}x2x3xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit], arr.out_axes = [2 : i64, 0 : i64, 1 : i64, unit, 0 : i64]} {
  %a, %b, %c, %k, %e = arr.vmap_call @moves_one(%x, %w) {in_axes = [1 : i64, unit], out_axes = [2 : i64, 0 : i64, 1 : i64, unit, 0 : i64], axis_size = {B} : i64} : (tensor<2x{B}x3xf32>, tensor<2x3xf32>) -> (tensor<2x3x{B}xf32>, tensor<{B}x2x3xf32>, tensor<2x{B}x3xf32>, tensor<i32>, tensor<{B}x2x3xf32>)
  return %a, %b, %c, %k, %e : tensor<2x3x{B}xf32>, tensor<{B}x2x3xf32>, tensor<2x{B}x3xf32>, tensor<i32>, tensor<{B}x2x3xf32>
}
)mlir"},
    // A result that does not depend on the mapped operand, out axis unit.
    {"unit_out_axis", "scaled", R"mlir(
func.func private @scale(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %m = arr.mul %x, %w : tensor<4xf32>
  %ww = arr.mul %w, %w : tensor<4xf32>
  %n = arr.reduce_sum %ww, dims = [0] : (tensor<4xf32>) -> tensor<f32>
  return %m, %n : tensor<4xf32>, tensor<f32>
}
func.func @scaled(%x: tensor<{B}x4xf32>, %w: tensor<4xf32>) -> (tensor<{B}x4xf32>, tensor<f32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit], arr.out_axes = [0 : i64, unit]} {
  %m, %n = arr.vmap_call @scale(%x, %w) {in_axes = [0 : i64, unit], out_axes = [0 : i64, unit], axis_size = {B} : i64} : (tensor<{B}x4xf32>, tensor<4xf32>) -> (tensor<{B}x4xf32>, tensor<f32>)
  return %m, %n : tensor<{B}x4xf32>, tensor<f32>
}
)mlir"}, // Every branch of GatherOp::batch: the operand batched on dim 1 with
    // unbatched indices (the batch dim after the axis, before it, and inside
    // batch_dims = 1, moved past it); batched indices into unbatched
    // operands (on dim 1, and on dims 0 and 2 of batch_dims = 1 indices);
    // both batched (a scalar index; batch_dims 1 -> 2). All three modes;
    // indices divided by 4 are in [-5, 5]: in range, negative and out of
    // range.
    {"gather_rule_branches", "gathers_e", R"mlir(
func.func private @gathers(%x: tensor<4x5xf32>, %t: tensor<6x3xf32>, %i: tensor<3xi32>, %k: tensor<i32>, %z: tensor<2x4x3xf32>, %m: tensor<2x3xi32>, %u: tensor<2x5xf32>, %q0: tensor<2x3xi32>, %q2: tensor<2x3xi32>) -> (tensor<2x5xf32>, tensor<4x3xf32>, tensor<2x4x3xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<2x4x3xf32>) {
  %four3 = arr.constant dense<4> : tensor<3xi32>
  %four = arr.constant dense<4> : tensor<i32>
  %four23 = arr.constant dense<4> : tensor<2x3xi32>
  %i4 = arr.div %i, %four3 : tensor<3xi32>
  %k4 = arr.div %k, %four : tensor<i32>
  %m4 = arr.div %m, %four23 : tensor<2x3xi32>
  %q04 = arr.div %q0, %four23 : tensor<2x3xi32>
  %q24 = arr.div %q2, %four23 : tensor<2x3xi32>
  %rows = arr.constant dense<[3, -1]> : tensor<2xi32>
  %cols = arr.constant dense<[4, -6, 2]> : tensor<3xi32>
  %a = arr.gather %x[%rows], axis = 0, batch_dims = 0, mode = clamp : (tensor<4x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
  %b = arr.gather %x[%cols], axis = 1, batch_dims = 0, mode = fill : (tensor<4x5xf32>, tensor<3xi32>) -> tensor<4x3xf32>
  %e = arr.gather %z[%m4], axis = 2, batch_dims = 1, mode = clip : (tensor<2x4x3xf32>, tensor<2x3xi32>) -> tensor<2x4x3xf32>
  %h = arr.gather %t[%i4], axis = 0, batch_dims = 0, mode = clip : (tensor<6x3xf32>, tensor<3xi32>) -> tensor<3x3xf32>
  %w0 = arr.gather %u[%q04], axis = 1, batch_dims = 1, mode = clamp : (tensor<2x5xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  %w2 = arr.gather %u[%q24], axis = 1, batch_dims = 1, mode = fill : (tensor<2x5xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>
  %s = arr.gather %x[%k4], axis = 1, batch_dims = 0, mode = clamp : (tensor<4x5xf32>, tensor<i32>) -> tensor<4xf32>
  %sz = arr.gather %z[%q04], axis = 2, batch_dims = 1, mode = fill : (tensor<2x4x3xf32>, tensor<2x3xi32>) -> tensor<2x4x3xf32>
  return %a, %b, %e, %h, %w0, %w2, %s, %sz : tensor<2x5xf32>, tensor<4x3xf32>, tensor<2x4x3xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<2x4x3xf32>
}
func.func @gathers_e(%x: tensor<4x{B}x5xf32>, %t: tensor<6x3xf32>, %i: tensor<3x{B}xi32>, %k: tensor<{B}xi32>, %z: tensor<{B}x2x4x3xf32>, %m: tensor<2x3xi32>, %u: tensor<2x5xf32>, %q0: tensor<{B}x2x3xi32>, %q2: tensor<2x3x{B}xi32>) -> (tensor<{B}x2x5xf32>, tensor<4x{B}x3xf32>, tensor<{B}x2x4x3xf32>, tensor<3x3x{B}xf32>, tensor<{B}x2x3xf32>, tensor<2x{B}x3xf32>, tensor<{B}x4xf32>, tensor<{B}x2x4x3xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit, 1 : i64, 0 : i64, 0 : i64, unit, unit, 0 : i64, 2 : i64], arr.out_axes = [0 : i64, 1 : i64, 0 : i64, 2 : i64, 0 : i64, 1 : i64, 0 : i64, 0 : i64]} {
  %r:8 = arr.vmap_call @gathers(%x, %t, %i, %k, %z, %m, %u, %q0, %q2) {in_axes = [1 : i64, unit, 1 : i64, 0 : i64, 0 : i64, unit, unit, 0 : i64, 2 : i64], out_axes = [0 : i64, 1 : i64, 0 : i64, 2 : i64, 0 : i64, 1 : i64, 0 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<4x{B}x5xf32>, tensor<6x3xf32>, tensor<3x{B}xi32>, tensor<{B}xi32>, tensor<{B}x2x4x3xf32>, tensor<2x3xi32>, tensor<2x5xf32>, tensor<{B}x2x3xi32>, tensor<2x3x{B}xi32>) -> (tensor<{B}x2x5xf32>, tensor<4x{B}x3xf32>, tensor<{B}x2x4x3xf32>, tensor<3x3x{B}xf32>, tensor<{B}x2x3xf32>, tensor<2x{B}x3xf32>, tensor<{B}x4xf32>, tensor<{B}x2x4x3xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7 : tensor<{B}x2x5xf32>, tensor<4x{B}x3xf32>, tensor<{B}x2x4x3xf32>, tensor<3x3x{B}xf32>, tensor<{B}x2x3xf32>, tensor<2x{B}x3xf32>, tensor<{B}x4xf32>, tensor<{B}x2x4x3xf32>
}
)mlir"},
    // Every branch of ScatterOp::batch, all five kinds: unbatched indices
    // with the operand and updates batched (on dim 1), the operand only,
    // the updates only (the operand broadcast); batched indices with every
    // combination of batched operand and updates; a batched scalar index
    // along axis 1 and into a bool array; batch_dims = 1 with the operand
    // batched on dim 0 (moved past it) and with indices batched on dim 1
    // into an unbatched operand. Duplicate indices are likely (8 values).
    {"scatter_rule_branches", "scatters_e", R"mlir(
func.func private @scatters(%x: tensor<5x3xf32>, %t: tensor<5x3xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>, %v: tensor<4x3xf32>, %w: tensor<4x3xf32>, %k: tensor<i32>, %flags: tensor<5xi1>, %z: tensor<2x5xi32>, %m: tensor<2x3xi32>, %n: tensor<2x3xi32>, %q: tensor<2x3xi32>, %y: tensor<2x5xi32>) -> (tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5xi1>, tensor<2x5xi32>, tensor<2x5xi32>) {
  %four4 = arr.constant dense<4> : tensor<4xi32>
  %four = arr.constant dense<4> : tensor<i32>
  %four23 = arr.constant dense<4> : tensor<2x3xi32>
  %i4 = arr.div %i, %four4 : tensor<4xi32>
  %j4 = arr.div %j, %four4 : tensor<4xi32>
  %k4 = arr.div %k, %four : tensor<i32>
  %m4 = arr.div %m, %four23 : tensor<2x3xi32>
  %q4 = arr.div %q, %four23 : tensor<2x3xi32>
  %a = arr.scatter %x[%i4], %v, axis = 0, batch_dims = 0, kind = add : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %b = arr.scatter %x[%i4], %w, axis = 0, batch_dims = 0, kind = max : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %c = arr.scatter %t[%i4], %v, axis = 0, batch_dims = 0, kind = set : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %d = arr.scatter %x[%j4], %w, axis = 0, batch_dims = 0, kind = mul : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %e = arr.scatter %t[%j4], %w, axis = 0, batch_dims = 0, kind = min : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %f = arr.scatter %t[%j4], %v, axis = 0, batch_dims = 0, kind = set : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %g = arr.scatter %x[%j4], %v, axis = 0, batch_dims = 0, kind = add : (tensor<5x3xf32>, tensor<4xi32>, tensor<4x3xf32>) -> tensor<5x3xf32>
  %half = arr.constant dense<0.5> : tensor<5xf32>
  %h = arr.scatter %x[%k4], %half, axis = 1, batch_dims = 0, kind = max : (tensor<5x3xf32>, tensor<i32>, tensor<5xf32>) -> tensor<5x3xf32>
  %true = arr.constant dense<true> : tensor<i1>
  %bs = arr.scatter %flags[%k4], %true, axis = 0, batch_dims = 0, kind = set : (tensor<5xi1>, tensor<i32>, tensor<i1>) -> tensor<5xi1>
  %zz = arr.scatter %z[%m4], %n, axis = 1, batch_dims = 1, kind = add : (tensor<2x5xi32>, tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x5xi32>
  %zq = arr.scatter %y[%q4], %n, axis = 1, batch_dims = 1, kind = set : (tensor<2x5xi32>, tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x5xi32>
  return %a, %b, %c, %d, %e, %f, %g, %h, %bs, %zz, %zq : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5x3xf32>, tensor<5xi1>, tensor<2x5xi32>, tensor<2x5xi32>
}
func.func @scatters_e(%x: tensor<5x{B}x3xf32>, %t: tensor<5x3xf32>, %i: tensor<4xi32>, %j: tensor<{B}x4xi32>, %v: tensor<4x{B}x3xf32>, %w: tensor<4x3xf32>, %k: tensor<{B}xi32>, %flags: tensor<{B}x5xi1>, %z: tensor<{B}x2x5xi32>, %m: tensor<2x3xi32>, %n: tensor<2x3xi32>, %q: tensor<2x{B}x3xi32>, %y: tensor<2x5xi32>) -> (tensor<{B}x5x3xf32>, tensor<5x{B}x3xf32>, tensor<5x3x{B}xf32>, tensor<{B}x5x3xf32>, tensor<{B}x5x3xf32>, tensor<5x{B}x3xf32>, tensor<{B}x5x3xf32>, tensor<5x3x{B}xf32>, tensor<{B}x5xi1>, tensor<{B}x2x5xi32>, tensor<2x{B}x5xi32>) attributes {arr.batch = {B} : i64, arr.in_axes = [1 : i64, unit, unit, 0 : i64, 1 : i64, unit, 0 : i64, 0 : i64, 0 : i64, unit, unit, 1 : i64, unit], arr.out_axes = [0 : i64, 1 : i64, 2 : i64, 0 : i64, 0 : i64, 1 : i64, 0 : i64, 2 : i64, 0 : i64, 0 : i64, 1 : i64]} {
  %r:11 = arr.vmap_call @scatters(%x, %t, %i, %j, %v, %w, %k, %flags, %z, %m, %n, %q, %y) {in_axes = [1 : i64, unit, unit, 0 : i64, 1 : i64, unit, 0 : i64, 0 : i64, 0 : i64, unit, unit, 1 : i64, unit], out_axes = [0 : i64, 1 : i64, 2 : i64, 0 : i64, 0 : i64, 1 : i64, 0 : i64, 2 : i64, 0 : i64, 0 : i64, 1 : i64], axis_size = {B} : i64} : (tensor<5x{B}x3xf32>, tensor<5x3xf32>, tensor<4xi32>, tensor<{B}x4xi32>, tensor<4x{B}x3xf32>, tensor<4x3xf32>, tensor<{B}xi32>, tensor<{B}x5xi1>, tensor<{B}x2x5xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x{B}x3xi32>, tensor<2x5xi32>) -> (tensor<{B}x5x3xf32>, tensor<5x{B}x3xf32>, tensor<5x3x{B}xf32>, tensor<{B}x5x3xf32>, tensor<{B}x5x3xf32>, tensor<5x{B}x3xf32>, tensor<{B}x5x3xf32>, tensor<5x3x{B}xf32>, tensor<{B}x5xi1>, tensor<{B}x2x5xi32>, tensor<2x{B}x5xi32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5, %r#6, %r#7, %r#8, %r#9, %r#10 : tensor<{B}x5x3xf32>, tensor<5x{B}x3xf32>, tensor<5x3x{B}xf32>, tensor<{B}x5x3xf32>, tensor<{B}x5x3xf32>, tensor<5x{B}x3xf32>, tensor<{B}x5x3xf32>, tensor<5x3x{B}xf32>, tensor<{B}x5xi1>, tensor<{B}x2x5xi32>, tensor<2x{B}x5xi32>
}
)mlir"},
    {"nested_vmap_indexing_both", "nested_both", kNestedIndexing},
    {"nested_vmap_indexing_operand", "nested_operand", kNestedIndexing},
    {"nested_vmap_indexing_indices", "nested_indices", kNestedIndexing},
    // Histograms in a loop: carries updated with scatters whose index is
    // read from a batched const (h: add, s: max, both batched) or from an
    // unbatched one with batched updates (g: the carry becomes batched
    // through the fixpoint).
    {"loop_histogram", "hist_e", R"mlir(
func.func private @hist(%x: tensor<6xi32>, %y: tensor<6xi32>, %w: tensor<6xf32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
  %h0 = arr.constant dense<0> : tensor<4xi32>
  %s0 = arr.constant dense<-1.0> : tensor<4xf32>
  %g0 = arr.constant dense<0.0> : tensor<4xf32>
  %r:3 = arr.for 6 consts(%x, %y, %w : tensor<6xi32>, tensor<6xi32>, tensor<6xf32>) iter_args(%h0, %s0, %g0 : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%t: tensor<i32>, %xc: tensor<6xi32>, %yc: tensor<6xi32>, %wc: tensor<6xf32>, %h: tensor<4xi32>, %s: tensor<4xf32>, %g: tensor<4xf32>):
    %five = arr.constant dense<5> : tensor<i32>
    %xt = arr.gather %xc[%t], axis = 0, batch_dims = 0, mode = clamp : (tensor<6xi32>, tensor<i32>) -> tensor<i32>
    %b = arr.div %xt, %five : tensor<i32>
    %one = arr.constant dense<1> : tensor<i32>
    %h2 = arr.scatter %h[%b], %one, axis = 0, batch_dims = 0, kind = add : (tensor<4xi32>, tensor<i32>, tensor<i32>) -> tensor<4xi32>
    %wt = arr.gather %wc[%t], axis = 0, batch_dims = 0, mode = clamp : (tensor<6xf32>, tensor<i32>) -> tensor<f32>
    %s2 = arr.scatter %s[%b], %wt, axis = 0, batch_dims = 0, kind = max : (tensor<4xf32>, tensor<i32>, tensor<f32>) -> tensor<4xf32>
    %yt = arr.gather %yc[%t], axis = 0, batch_dims = 0, mode = clamp : (tensor<6xi32>, tensor<i32>) -> tensor<i32>
    %c = arr.div %yt, %five : tensor<i32>
    %g2 = arr.scatter %g[%c], %wt, axis = 0, batch_dims = 0, kind = add : (tensor<4xf32>, tensor<i32>, tensor<f32>) -> tensor<4xf32>
    arr.yield %h2, %s2, %g2 : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
}
func.func @hist_e(%x: tensor<{B}x6xi32>, %y: tensor<6xi32>, %w: tensor<6x{B}xf32>) -> (tensor<{B}x4xi32>, tensor<4x{B}xf32>, tensor<{B}x4xf32>) attributes {arr.batch = {B} : i64, arr.in_axes = [0 : i64, unit, 1 : i64], arr.out_axes = [0 : i64, 1 : i64, 0 : i64]} {
  %r:3 = arr.vmap_call @hist(%x, %y, %w) {in_axes = [0 : i64, unit, 1 : i64], out_axes = [0 : i64, 1 : i64, 0 : i64], axis_size = {B} : i64} : (tensor<{B}x6xi32>, tensor<6xi32>, tensor<6x{B}xf32>) -> (tensor<{B}x4xi32>, tensor<4x{B}xf32>, tensor<{B}x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<{B}x4xi32>, tensor<4x{B}xf32>, tensor<{B}x4xf32>
}
)mlir"},
};

/// Runs --arr-vmap, inline and canonicalize on `module`; diagnostics are
/// appended to `diagnostics`.
mlir::LogicalResult batch(mlir::ModuleOp module, std::string &diagnostics) {
  mlir::MLIRContext *context = module.getContext();
  llvm::raw_string_ostream os(diagnostics);
  mlir::ScopedDiagnosticHandler handler(context, [&](mlir::Diagnostic &d) {
    os << d.getLocation() << ": " << d << "\n";
    return mlir::success();
  });
  mlir::PassManager pm(context);
  pm.addPass(vmapc::createArrVmap());
  pm.addPass(mlir::createInlinerPass());
  pm.addPass(mlir::createCanonicalizerPass());
  return pm.run(module);
}

/// What of the per-example world is left in `fn`: vmap_calls and calls of
/// `perExample` (empty when none).
std::string leftovers(mlir::func::FuncOp fn, llvm::StringRef perExample) {
  std::string found;
  fn.walk([&](mlir::Operation *op) {
    if (mlir::isa<vmapc::arr::VmapCallOp>(op))
      found += "an arr.vmap_call; ";
    if (auto call = mlir::dyn_cast<mlir::func::CallOp>(op))
      if (call.getCallee() == perExample)
        found += "a call of @" + perExample.str() + "; ";
  });
  return found;
}

/// The invariant for `source` with {B} = `batchSize`: the reference (per
/// example, on the original module) against the batched export (interpreted
/// after the passes, on a clone). Returns "" when they agree, else what went
/// wrong (with the program after the passes).
std::string invariantMismatch(const char *source, const char *exportedName,
                              int64_t batchSize, uint64_t seed) {
  auto context = makeContext();
  std::string text = substitute(source, "B", std::to_string(batchSize));
  auto module = parse(*context, text);
  if (!module)
    return "does not parse:\n" + text;
  auto exported = module->lookupSymbol<mlir::func::FuncOp>(exportedName);
  if (!exported)
    return "no export @" + std::string(exportedName);
  auto perExample = perExampleFunction(exported);
  if (!perExample)
    return llvm::toString(perExample.takeError());
  std::string perExampleName = perExample->getSymName().str();

  std::vector<Array> inputs = randomInputs(exported, seed);
  auto expected = evaluatePerExample(exported, inputs);
  if (!expected)
    return "the reference: " + llvm::toString(expected.takeError());

  mlir::OwningOpRef<mlir::ModuleOp> batched = module->clone();
  std::string diagnostics;
  if (mlir::failed(batch(*batched, diagnostics)))
    return "--arr-vmap,inline,canonicalize failed:\n" + diagnostics;
  auto batchedFn = batched->lookupSymbol<mlir::func::FuncOp>(exportedName);
  if (!batchedFn)
    return "the export @" + std::string(exportedName) +
           " is gone after the passes";
  std::string printed;
  llvm::raw_string_ostream os(printed);
  batched->print(os);
  std::string left = leftovers(batchedFn, perExampleName);
  if (!left.empty())
    return "left after the passes: " + left + "\n" + printed;

  auto actual = evaluate(batchedFn, inputs);
  if (!actual)
    return llvm::toString(actual.takeError()) + "\nafter the passes:\n" +
           printed;
  if (actual->size() != expected->size())
    return "wrong number of results\nafter the passes:\n" + printed;
  std::string mismatches;
  for (size_t i = 0; i < expected->size(); ++i) {
    std::string why;
    if (!allClose((*expected)[i], (*actual)[i], 1e-5, 1e-6, &why))
      mismatches += "result " + std::to_string(i) + ": " + why + "\nexpected " +
                    (*expected)[i].toString() + "\nactual   " +
                    (*actual)[i].toString() + "\n";
  }
  if (!mismatches.empty())
    return mismatches + "after the passes:\n" + printed;
  return "";
}

/// Expects the invariant to hold.
void checkInvariant(const char *source, const char *exportedName,
                    int64_t batchSize, uint64_t seed) {
  EXPECT_EQ(invariantMismatch(source, exportedName, batchSize, seed), "");
}

struct InvariantCase {
  size_t program;
  int64_t batchSize;
};

void PrintTo(const InvariantCase &c, std::ostream *os) {
  *os << kPrograms[c.program].name << " with B = " << c.batchSize;
}

class BatchingInvariant : public ::testing::TestWithParam<InvariantCase> {};

TEST_P(BatchingInvariant, BatchedEqualsPerExample) {
  const Program &p = kPrograms[GetParam().program];
  checkInvariant(p.source, p.exported, GetParam().batchSize,
                 /*seed=*/1000 * GetParam().program +
                     17 * GetParam().batchSize);
}

std::vector<InvariantCase> allCases() {
  std::vector<InvariantCase> cases;
  for (size_t p = 0; p < std::size(kPrograms); ++p)
    for (int64_t b : {0, 1, 2, 7})
      cases.push_back({p, b});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(
    Programs, BatchingInvariant, ::testing::ValuesIn(allCases()),
    [](const ::testing::TestParamInfo<InvariantCase> &info) {
      return std::string(kPrograms[info.param.program].name) + "_B" +
             std::to_string(info.param.batchSize);
    });

// Random programs with random in_axes and out_axes (RandomPrograms.h).
struct RandomCase {
  uint64_t seed;
  int64_t batchSize;
};

void PrintTo(const RandomCase &c, std::ostream *os) {
  *os << "seed " << c.seed << " with B = " << c.batchSize;
}

class RandomBatchingInvariant : public ::testing::TestWithParam<RandomCase> {};

TEST_P(RandomBatchingInvariant, BatchedEqualsPerExample) {
  std::string source = randomProgram(GetParam().seed);
  SCOPED_TRACE("the per-example program:\n" + source);
  checkInvariant(source.c_str(), "entry", GetParam().batchSize,
                 /*seed=*/GetParam().seed * 7 + 1);
}

std::vector<RandomCase> randomCases() {
  std::vector<RandomCase> cases;
  for (uint64_t seed = 0; seed < 60; ++seed)
    cases.push_back({seed, seed % 5 == 4 ? 0 : seed % 4 == 0 ? 1 : 3});
  return cases;
}

// The random programs of these seeds use every elementwise, shape and loop
// op at least once
// (so that the random suite checks their batching rules too).
TEST(RandomPrograms, CoverTheNewOps) {
  std::string all;
  for (const RandomCase &c : randomCases())
    all += randomProgram(c.seed);
  for (const char *op :
       {"arr.abs", "arr.sign", "arr.not", "arr.maximum", "arr.minimum",
        "arr.pow", "arr.and", "arr.or", "arr.select", "arr.convert",
        "arr.concat", "arr.slice", "arr.iota", "arr.for", "arr.yield"})
    EXPECT_NE(all.find(op), std::string::npos) << op << " never generated";
  // A loop with 0 iterations and one with a scalar carry.
  EXPECT_NE(all.find("arr.for 0 "), std::string::npos);
  EXPECT_NE(all.find(":2 = arr.for"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomBatchingInvariant,
                         ::testing::ValuesIn(randomCases()),
                         [](const ::testing::TestParamInfo<RandomCase> &info) {
                           return "seed" + std::to_string(info.param.seed) +
                                  "_B" + std::to_string(info.param.batchSize);
                         });

// The kNN entry of docs/design.md at full size (256 queries, 1000 references of
// 64 pixels): the batched program materialises [256, 1000, 64] intermediates
// in the interpreter, which still runs in seconds.
TEST(BatchingInvariantFullSize, Knn256x1000x64) {
  std::string source = kPrograms[0].source;
  // Widen the per-example sizes of the small kNN program: 16 -> 64 pixels,
  // 50 -> 1000 references.
  auto replaceAll = [](std::string text, const std::string &from,
                       const std::string &to) {
    for (size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + to.size()))
      text.replace(at, from.size(), to);
    return text;
  };
  source = replaceAll(source, "tensor<16xf32>", "tensor<64xf32>");
  source = replaceAll(source, "x16xf32>", "x64xf32>");
  source = replaceAll(source, "50x", "1000x");
  source = replaceAll(source, "tensor<50xf32>", "tensor<1000xf32>");
  source = replaceAll(source, "axis_size = 50 ", "axis_size = 1000 ");
  checkInvariant(source.c_str(), "classify", 256, /*seed=*/99);
}

//===----------------------------------------------------------------------===//
// The comparison itself can fail: hand-batched programs, no pass involved.
//===----------------------------------------------------------------------===//

// The MLP of kPrograms batched by hand, correctly and with a bug (the bias
// added to the wrong layer), compared with the per-example reference.
constexpr const char *kHandBatchedMlp = R"mlir(
func.func private @mlp(%x: tensor<8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>, %b2: tensor<4xf32>) -> tensor<4xf32> {
  %h0 = arr.dot_general %x, %w1, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<8xf32>, tensor<8x16xf32>) -> tensor<16xf32>
  %h1 = arr.add %h0, %b1 : tensor<16xf32>
  %h = arr.tanh %h1 : tensor<16xf32>
  %y0 = arr.dot_general %h, %w2, lhs_batch = [], rhs_batch = [], lhs_contract = [0], rhs_contract = [0] : (tensor<16xf32>, tensor<16x4xf32>) -> tensor<4xf32>
  %y = arr.add %y0, %b2 : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @predict(%x: tensor<3x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>, %b2: tensor<4xf32>) -> tensor<3x4xf32> attributes {arr.batch = 3 : i64, arr.in_axes = [0 : i64, unit, unit, unit, unit], arr.out_axes = [0 : i64]} {
  %r = arr.vmap_call @mlp(%x, %w1, %b1, %w2, %b2) {in_axes = [0 : i64, unit, unit, unit, unit], out_axes = [0 : i64], axis_size = 3 : i64} : (tensor<3x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
func.func @good(%x: tensor<3x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>, %b2: tensor<4xf32>) -> tensor<3x4xf32> {
  %h0 = arr.dot_general %x, %w1, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x8xf32>, tensor<8x16xf32>) -> tensor<3x16xf32>
  %bb1 = arr.broadcast_in_dim %b1, dims = [1] : (tensor<16xf32>) -> tensor<3x16xf32>
  %h1 = arr.add %h0, %bb1 : tensor<3x16xf32>
  %h = arr.tanh %h1 : tensor<3x16xf32>
  %y0 = arr.dot_general %h, %w2, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x16xf32>, tensor<16x4xf32>) -> tensor<3x4xf32>
  %bb2 = arr.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
  %y = arr.add %y0, %bb2 : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
func.func @bad(%x: tensor<3x8xf32>, %w1: tensor<8x16xf32>, %b1: tensor<16xf32>, %w2: tensor<16x4xf32>, %b2: tensor<4xf32>) -> tensor<3x4xf32> {
  %h0 = arr.dot_general %x, %w1, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x8xf32>, tensor<8x16xf32>) -> tensor<3x16xf32>
  %h = arr.tanh %h0 : tensor<3x16xf32>
  %y0 = arr.dot_general %h, %w2, lhs_batch = [], rhs_batch = [], lhs_contract = [1], rhs_contract = [0] : (tensor<3x16xf32>, tensor<16x4xf32>) -> tensor<3x4xf32>
  %bb2 = arr.broadcast_in_dim %b2, dims = [1] : (tensor<4xf32>) -> tensor<3x4xf32>
  %y = arr.add %y0, %bb2 : tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
)mlir";

// With the elementwise rule broken on purpose (a reshape where a transpose
// belongs), the invariant fails on the program of the new elementwise ops
// (operands batched on dims 1 and 0 meet) and still holds where no batched
// operand has to move (B = 1: the reshape is a transpose).
TEST(BatchingInvariantHarness, CatchesABrokenElementwiseRule) {
  const Program *elem = nullptr;
  for (const Program &p : kPrograms)
    if (llvm::StringRef(p.name) == "new_elementwise_unmapped_operands")
      elem = &p;
  ASSERT_TRUE(elem);
  vmapc::arr::testing::setBreakElementwiseRule(true);
  llvm::scope_exit restore(
      [] { vmapc::arr::testing::setBreakElementwiseRule(false); });
  std::string why = invariantMismatch(elem->source, elem->exported, 2, 5);
  EXPECT_NE(why, "") << "the broken rule went unnoticed";
  EXPECT_NE(why.find("expected"), std::string::npos) << why;
  EXPECT_EQ(invariantMismatch(elem->source, elem->exported, 1, 5), "");
}

TEST(BatchingInvariantHarness, HandBatchedProgramsPassAndFail) {
  auto context = makeContext();
  auto module = parse(*context, kHandBatchedMlp);
  ASSERT_TRUE(module);
  auto predict = module->lookupSymbol<mlir::func::FuncOp>("predict");
  std::vector<Array> inputs = randomInputs(predict, 7);
  auto expected = evaluatePerExample(predict, inputs);
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  auto good = evaluate(*module, "good", inputs);
  auto bad = evaluate(*module, "bad", inputs);
  ASSERT_TRUE(bool(good)) << llvm::toString(good.takeError());
  ASSERT_TRUE(bool(bad)) << llvm::toString(bad.takeError());
  std::string why;
  EXPECT_TRUE(allClose((*expected)[0], (*good)[0], 1e-5, 1e-6, &why)) << why;
  EXPECT_FALSE(allClose((*expected)[0], (*bad)[0], 1e-5, 1e-6, &why));
  EXPECT_NE(why.find("expected"), std::string::npos) << why;
  // The per-example reference also agrees with the interpreter's own vmap
  // of the export.
  auto direct = evaluate(predict, inputs);
  ASSERT_TRUE(bool(direct)) << llvm::toString(direct.takeError());
  EXPECT_TRUE(allClose((*expected)[0], (*direct)[0], 0, 0, &why)) << why;
}

} // namespace
