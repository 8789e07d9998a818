//===- MLIRGen.cpp - .arr syntax tree to the arr dialect ------------------===//
//
// The IR generator (Toy's MLIRGen): walks declarations, statements and
// expressions in order and emits per-example arr IR:
//   - every `fn` becomes a private `func.func @name` with per-example types;
//   - a call of a builtin is emitted by its row of the builtin table
//     (Builtins.h), a `vmap(...)` application by the vmap resolver (Vmap.h);
//   - every `export` becomes a public entry `func.func` (Export.h).
// Types, weak literals and broadcasting are Typing's (Typing.h), names and
// scopes Names' (Names.h); recursion and nesting depth are checked on the
// whole module at the end (CallGraph.h). Errors stop the import at the
// first one (docs/language.md).
//
//===----------------------------------------------------------------------===//

#include "frontend/AST.h"
#include "frontend/Builtins.h"
#include "frontend/CallGraph.h"
#include "frontend/Export.h"
#include "frontend/Import.h"
#include "frontend/ImportContext.h"
#include "frontend/Indexing.h"
#include "frontend/Names.h"
#include "frontend/Parser.h"
#include "frontend/Typing.h"
#include "frontend/Vmap.h"

#include "dialect/ArrDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/SourceMgr.h"

#include <limits>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;

namespace {

class MLIRGen : public ExprEvaluator {
public:
  MLIRGen(Module &ast, ImportContext &ic, llvm::SourceMgr &sourceMgr)
      : ast(ast), ic(ic), sourceMgr(sourceMgr), typing(ic), names(ic),
        vmaps(ic, names, typing) {}

  OwningOpRef<ModuleOp> run();

  FailureOr<ExprValue> evalAny(Expr *expr, BodyContext &ctx) override;
  FailureOr<ExprValue> eval(Expr *expr, BodyContext &ctx) override;
  FailureOr<Value> evalTensor(Expr *expr, BodyContext &ctx) override;

private:
  // Declarations.
  LogicalResult declareFunction(FnInfo &fn);
  LogicalResult importBody(FnInfo &fn);

  // Statements.
  LogicalResult execStmts(ArrayRef<Stmt> stmts, BodyContext &ctx);
  LogicalResult execLet(const Stmt &stmt, BodyContext &ctx);
  LogicalResult execFor(const Stmt &stmt, BodyContext &ctx);

  // Expressions.
  FailureOr<ExprValue> evalBinary(BinaryExpr *expr, BodyContext &ctx);
  FailureOr<ExprValue> evalMatmul(BinaryExpr *expr, Value lhs, Value rhs,
                                  BodyContext &ctx);
  FailureOr<ExprValue> evalCall(CallExpr *expr, BodyContext &ctx);
  FailureOr<SmallVector<ExprValue>> evalArgs(CallExpr *expr, BodyContext &ctx);
  Value transposeValue(Value v, ArrayRef<int64_t> perm, llvm::SMLoc at,
                       OpBuilder &b);

  Module &ast;
  ImportContext &ic;
  llvm::SourceMgr &sourceMgr;
  Typing typing;
  Names names;
  VmapResolver vmaps;
};

} // namespace

/// Names the op that computes `value` after the variable it is bound to (a
/// `let` or a loop carry): its location becomes `NameLoc(name, file:line:col)`,
/// which passes keep as they rewrite the op, so that `vmapc plan` can say
/// which variable a buffer holds. Diagnostics still point at file:line:col.
/// A value the statement did not compute (a parameter, another variable)
/// keeps its location, and so does an op of several results unless
/// `wholeOp` (the variable is the only one bound to the op: a builtin such
/// as cumsum whose loop carries a running value next to the result).
static void nameValue(Value value, StringRef name, bool wholeOp = false) {
  Operation *op = value ? value.getDefiningOp() : nullptr;
  if (!op || (op->getNumResults() != 1 && !wholeOp) ||
      isa<NameLoc>(op->getLoc()))
    return;
  op->setLoc(
      NameLoc::get(StringAttr::get(op->getContext(), name), op->getLoc()));
}

LogicalResult MLIRGen::declareFunction(FnInfo &fn) {
  FunctionDecl &decl = *fn.decl;
  if (failed(names.checkParams(decl)))
    return failure();
  SmallVector<Type> inputs;
  for (const Param &p : decl.params)
    inputs.push_back(typing.convertType(p.type));
  SmallVector<Type> results;
  for (const TypeAST &t : decl.resultTypes)
    results.push_back(typing.convertType(t));
  auto type = FunctionType::get(ic.getContext(), inputs, results);
  OpBuilder b = OpBuilder::atBlockEnd(ic.getModule().getBody());
  fn.op = func::FuncOp::create(b, ic.loc(decl.loc), decl.name, type);
  fn.op.setPrivate();
  return success();
}

/// Imports the body of `fn`. Calls need only the declared signatures of
/// their callees (declareFunction), so bodies are imported one after the
/// other, never recursively: a long call chain costs no stack here, and
/// checkCallGraph finds recursion and chains nested too deeply afterwards.
LogicalResult MLIRGen::importBody(FnInfo &fn) {
  vmaps.setImporting(&fn);
  FunctionDecl &decl = *fn.decl;
  Block *entry = fn.op.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  Scope scope;
  for (auto [i, p] : llvm::enumerate(decl.params)) {
    entry->getArgument(i).setLoc(ic.loc(p.loc));
    scope[p.name] = {ExprValue::ofTensor(entry->getArgument(i)), p.loc};
  }
  BodyContext ctx{b, scope, decl.name};
  SmallVector<RankedTensorType> declared;
  for (const TypeAST &t : decl.resultTypes)
    declared.push_back(typing.convertType(t));

  const Stmt &ret = decl.body.back();
  if (failed(execStmts(ArrayRef<Stmt>(decl.body).drop_back(), ctx)))
    return failure();
  FailureOr<ExprValue> value = evalAny(ret.value.get(), ctx);
  if (failed(value))
    return failure();
  FailureOr<SmallVector<Value>> results = typing.matchTypes(
      *value, ret.value.get(), declared, "'" + decl.name + "'", b);
  if (failed(results))
    return failure();
  func::ReturnOp::create(b, ic.loc(ret.loc), *results);
  return success();
}

LogicalResult MLIRGen::execStmts(ArrayRef<Stmt> stmts, BodyContext &ctx) {
  for (const Stmt &stmt : stmts) {
    LogicalResult r =
        stmt.kind == Stmt::forLoop ? execFor(stmt, ctx) : execLet(stmt, ctx);
    if (failed(r))
      return failure();
  }
  return success();
}

LogicalResult MLIRGen::execLet(const Stmt &stmt, BodyContext &ctx) {
  FailureOr<ExprValue> value = evalAny(stmt.value.get(), ctx);
  if (failed(value))
    return failure();
  if (!stmt.destructure) {
    if (failed(names.checkNewName(stmt.name, stmt.nameLoc, ctx, "variable")))
      return failure();
    nameValue(value->value, stmt.name, /*wholeOp=*/true);
    ctx.scope[stmt.name] = {*value, stmt.nameLoc};
    return success();
  }
  size_t n = stmt.names.size();
  size_t got = value->kind == ExprValue::tuple ? value->elements.size() : 1;
  if (got != n)
    return ic.error(stmt.nameLoc, "'let' unpacks " + Twine(n) + " name" +
                                      (n == 1 ? "" : "s") + " from " +
                                      Twine(got) + " value" +
                                      (got == 1 ? "" : "s"));
  for (auto [i, nl] : llvm::enumerate(stmt.names)) {
    for (size_t j = 0; j < i; ++j)
      if (stmt.names[j].first == nl.first)
        return ic.error(nl.second,
                        "'" + nl.first + "' appears twice in 'let (...)'");
    if (failed(names.checkNewName(nl.first, nl.second, ctx, "variable")))
      return failure();
    if (value->kind == ExprValue::tuple)
      nameValue(value->elements[i].value, nl.first);
    ctx.scope[nl.first] = {value->kind == ExprValue::tuple ? value->elements[i]
                                                           : *value,
                           nl.second};
  }
  return success();
}

LogicalResult MLIRGen::execFor(const Stmt &stmt, BodyContext &ctx) {
  const ForStmt &f = *stmt.forStmt;
  // The index and the carries are new names; the carries outlive the loop.
  if (failed(names.checkNewName(f.index, f.indexLoc, ctx, "loop index")))
    return failure();
  for (auto [i, c] : llvm::enumerate(f.carries)) {
    if (c.name == f.index)
      return ic.error(c.loc, "'" + c.name +
                                 "' is the loop index; choose another name for "
                                 "the carried variable");
    for (size_t j = 0; j < i; ++j)
      if (f.carries[j].name == c.name)
        return ic.error(c.loc, "'" + c.name + "' is carried twice");
    if (failed(names.checkNewName(c.name, c.loc, ctx, "carried variable")))
      return failure();
  }
  SmallVector<Value> inits;
  SmallVector<Type> types;
  SmallVector<std::string> literalInits;
  for (const ForStmt::Carry &c : f.carries) {
    FailureOr<ExprValue> init = eval(c.init.get(), ctx);
    if (failed(init))
      return failure();
    literalInits.push_back(init->isWeak() ? init->text : std::string());
    FailureOr<Value> v =
        typing.materializeDefault(*init, c.init->getLoc(), ctx.b);
    if (failed(v))
      return failure();
    nameValue(*v, c.name);
    inits.push_back(*v);
    types.push_back(v->getType());
  }

  // The body is built in a temporary op without consts; the final op, with
  // the consts found while building it, takes the body over.
  auto staging = arr::ForOp::create(ctx.b, ic.loc(stmt.loc), TypeRange(types),
                                    static_cast<uint64_t>(f.tripCount),
                                    ValueRange(), inits);
  auto *block = new Block();
  staging.getBody().push_back(block);
  auto i32 = RankedTensorType::get({}, IntegerType::get(ic.getContext(), 32));
  block->addArgument(i32, ic.loc(f.indexLoc));
  Scope bodyScope;
  bodyScope[f.index] = {ExprValue::ofTensor(block->getArgument(0)), f.indexLoc};
  for (auto [c, t, literal] : llvm::zip(f.carries, types, literalInits))
    bodyScope[c.name] = {
        ExprValue::ofTensor(block->addArgument(t, ic.loc(c.loc))), c.loc,
        literal};
  OpBuilder bb = OpBuilder::atBlockBegin(block);
  LoopFrame frame{&ctx, block, {}, llvm::DenseMap<Value, Value>()};
  BodyContext inner{bb, bodyScope, ctx.owner, &frame};
  llvm::scope_exit cleanup([&] { staging.erase(); });
  if (failed(execStmts(f.body, inner)))
    return failure();
  FailureOr<ExprValue> yielded = evalAny(f.yieldValue.get(), inner);
  if (failed(yielded))
    return failure();
  SmallVector<RankedTensorType> carryTypes;
  for (Type t : types)
    carryTypes.push_back(cast<RankedTensorType>(t));
  SmallVector<std::string> carryNames;
  for (const ForStmt::Carry &c : f.carries)
    carryNames.push_back(c.name);
  FailureOr<SmallVector<Value>> next = typing.matchTypes(
      *yielded, f.yieldValue.get(), carryTypes, "the loop", bb, carryNames);
  if (failed(next))
    return failure();
  arr::YieldOp::create(bb, ic.loc(f.yieldLoc), *next);
  auto forOp = arr::ForOp::create(ctx.b, ic.loc(stmt.loc), TypeRange(types),
                                  static_cast<uint64_t>(f.tripCount),
                                  frame.consts, inits);
  forOp.getBody().takeBody(staging.getBody());
  if (f.carries.size() == 1)
    nameValue(forOp.getResult(0), f.carries[0].name);
  for (auto [c, r, literal] :
       llvm::zip(f.carries, forOp.getResults(), literalInits))
    ctx.scope[c.name] = {ExprValue::ofTensor(r), c.loc, literal};
  return success();
}

/// Evaluates an operand that must be a tensor (a literal takes its default
/// dtype).
FailureOr<Value> MLIRGen::evalTensor(Expr *expr, BodyContext &ctx) {
  FailureOr<ExprValue> v = eval(expr, ctx);
  if (failed(v))
    return failure();
  return typing.materializeDefault(*v, expr->getLoc(), ctx.b);
}

FailureOr<ExprValue> MLIRGen::eval(Expr *expr, BodyContext &ctx) {
  FailureOr<ExprValue> v = evalAny(expr, ctx);
  if (failed(v))
    return failure();
  if (v->kind == ExprValue::tuple)
    return ic.error(expr->getLoc(),
                    "this is a tuple of " + Twine(v->elements.size()) +
                        " values, not one value; unpack it with 'let (a, b) "
                        "= ...'");
  return v;
}

FailureOr<ExprValue> MLIRGen::evalAny(Expr *expr, BodyContext &ctx) {
  switch (expr->getKind()) {
  case Expr::intLiteral: {
    auto *lit = cast<IntLiteralExpr>(expr);
    return ExprValue::ofInt(lit->value, lit->spelling);
  }
  case Expr::floatLiteral: {
    auto *lit = cast<FloatLiteralExpr>(expr);
    return ExprValue::ofFloat(lit->value, lit->spelling);
  }
  case Expr::none:
    return ic.error(expr->getLoc(),
                    "'none' is only allowed in in_axes= and out_axes=");
  case Expr::tuple: {
    auto *t = cast<TupleExpr>(expr);
    if (t->elements.empty())
      return ic.error(expr->getLoc(), "the empty tuple () is only allowed as "
                                      "an axis= or shape value");
    std::vector<ExprValue> elements;
    for (ExprPtr &e : t->elements) {
      FailureOr<ExprValue> v = eval(e.get(), ctx);
      if (failed(v))
        return failure();
      elements.push_back(*v);
    }
    return ExprValue::ofTuple(std::move(elements));
  }
  case Expr::arrayLiteral: {
    auto *a = cast<ArrayLiteralExpr>(expr);
    ExprValue o;
    o.kind = ExprValue::arrayLit;
    o.shape = a->shape;
    o.intValues = a->intValues;
    o.floatValues = a->floatValues;
    o.isFloatArray = a->isFloat;
    o.text = "literal array";
    return o;
  }
  case Expr::slice:
    return IndexingEmitter(ic, typing, *this)
        .emitIndex(cast<SliceExpr>(expr), ctx);
  case Expr::atUpdate:
    return IndexingEmitter(ic, typing, *this)
        .emitAtUpdate(cast<AtUpdateExpr>(expr), ctx);
  case Expr::transposeT: {
    auto *t = cast<TransposeTExpr>(expr);
    FailureOr<Value> v = evalTensor(t->base.get(), ctx);
    if (failed(v))
      return failure();
    int64_t rank = cast<RankedTensorType>(v->getType()).getRank();
    SmallVector<int64_t> perm;
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
    return ExprValue::ofTensor(transposeValue(*v, perm, expr->getLoc(), ctx.b));
  }
  case Expr::name: {
    auto *n = cast<NameExpr>(expr);
    // `inf` and `nan` are float literals (weak, as 1.0 is); `true` and
    // `false` are bool scalars.
    if (n->name == "inf" || n->name == "nan")
      return ExprValue::ofFloat(n->name == "inf"
                                    ? std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::quiet_NaN(),
                                n->name);
    if (n->name == "true" || n->name == "false") {
      auto type = RankedTensorType::get({}, ctx.b.getI1Type());
      return ExprValue::ofTensor(arr::ConstantOp::create(
          ctx.b, ic.loc(expr->getLoc()), type,
          DenseElementsAttr::get(type, n->name == "true")));
    }
    if (std::optional<Variable> var = names.lookupVariable(n->name, ctx))
      return var->value;
    if (names.isFunctionOrMap(n->name))
      return ic.error(expr->getLoc(), "'" + n->name +
                                          "' is a function; call it with "
                                          "arguments, e.g. " +
                                          n->name + "(...)");
    if (isReservedName(n->name))
      return ic.error(expr->getLoc(),
                      "'" + n->name + "' is a builtin function; call it");
    if (names.isExport(n->name))
      return ic.error(expr->getLoc(), "'" + n->name +
                                          "' is an entry point for host "
                                          "programs and cannot be used here");
    // Python's spellings of the language's literals.
    for (auto [python, ours] :
         {std::pair{"None", "none"}, {"True", "true"}, {"False", "false"}})
      if (n->name == python)
        return ic.error(expr->getLoc(), "unknown name '" + n->name +
                                            "'; the language writes " + ours);
    return ic.error(expr->getLoc(), "unknown name '" + n->name + "'");
  }
  case Expr::unary: {
    auto *u = cast<UnaryExpr>(expr);
    FailureOr<ExprValue> v = eval(u->operand.get(), ctx);
    if (failed(v))
      return failure();
    if (u->isNot) {
      if (v->isWeak())
        return ic.error(expr->getLoc(),
                        "'not' needs a bool operand, got the " + v->text);
      auto t = cast<RankedTensorType>(v->value.getType());
      if (!t.getElementType().isInteger(1))
        return ic.error(expr->getLoc(), "'not' needs a bool operand, got " +
                                            typeStr(t) +
                                            " (compare it first, e.g. x != 0)");
      return ExprValue::ofTensor(
          arr::NotOp::create(ctx.b, ic.loc(expr->getLoc()), v->value)
              .getResult());
    }
    if (v->kind == ExprValue::arrayLit) {
      ExprValue r = *v;
      for (int64_t &i : r.intValues)
        i = -i;
      for (double &d : r.floatValues)
        d = -d;
      return r;
    }
    if (v->kind == ExprValue::intLit) {
      if (v->intValue == std::numeric_limits<int64_t>::min())
        return ic.error(expr->getLoc(), "integer overflow in -" + v->text);
      return ExprValue::ofInt(-v->intValue, "-" + v->text);
    }
    if (v->kind == ExprValue::floatLit)
      return ExprValue::ofFloat(-v->floatValue, "-" + v->text);
    auto t = cast<RankedTensorType>(v->value.getType());
    if (t.getElementType().isInteger(1))
      return ic.error(expr->getLoc(),
                      "unary '-' needs an f32 or i32 operand, got " +
                          typeStr(t));
    return ExprValue::ofTensor(
        arr::NegOp::create(ctx.b, ic.loc(expr->getLoc()), v->value)
            .getResult());
  }
  case Expr::binary:
    return evalBinary(cast<BinaryExpr>(expr), ctx);
  case Expr::call:
    return evalCall(cast<CallExpr>(expr), ctx);
  }
  return failure();
}

FailureOr<ExprValue> MLIRGen::evalBinary(BinaryExpr *expr, BodyContext &ctx) {
  FailureOr<ExprValue> lhs = eval(expr->lhs.get(), ctx);
  if (failed(lhs))
    return failure();
  FailureOr<ExprValue> rhs = eval(expr->rhs.get(), ctx);
  if (failed(rhs))
    return failure();
  llvm::SMLoc at = expr->getLoc();
  StringRef opName = spelling(expr->op);
  if (lhs->isLiteral() && rhs->isLiteral())
    return typing.foldLiterals(expr, *lhs, *rhs, ctx.b);

  if (expr->op == BinaryOp::matmul) {
    for (const ExprValue *o : {&*lhs, &*rhs})
      if (o->isLiteral())
        return ic.error(at,
                        "'@' needs arrays of rank 1 or 2 on both sides, got "
                        "the literal " +
                            o->text);
  }
  DTypeRule req =
      expr->op == BinaryOp::pow ? DTypeRule::floating
      : (expr->op == BinaryOp::logicalAnd || expr->op == BinaryOp::logicalOr)
          ? DTypeRule::boolean
          : DTypeRule::numeric;
  ExprValue ops[] = {*lhs, *rhs};
  llvm::SMLoc locs[] = {expr->lhs->getLoc(), expr->rhs->getLoc()};
  // A dtype that came from a carry's literal initial value (`carry (acc =
  // 0)` is i32): say so, and what to write.
  if (lhs->kind == ExprValue::tensor && rhs->kind == ExprValue::tensor) {
    Type l = cast<RankedTensorType>(lhs->value.getType()).getElementType();
    Type r = cast<RankedTensorType>(rhs->value.getType()).getElementType();
    for (Expr *side : {expr->lhs.get(), expr->rhs.get()}) {
      auto *name = dyn_cast<NameExpr>(side);
      std::optional<Variable> var =
          name ? names.lookupVariable(name->name, ctx) : std::nullopt;
      if (l == r || !var || var->literalInit.empty())
        continue;
      Type own = side == expr->lhs.get() ? l : r;
      Type other = side == expr->lhs.get() ? r : l;
      std::string fix =
          other.isF32() && !llvm::StringRef(var->literalInit).contains('.')
              ? var->literalInit + ".0"
              : dtypeStr(other) + "(" + var->literalInit + ")";
      return ic.error(
          at, "operands of '" + opName +
                  "' have different "
                  "dtypes: " +
                  dtypeStr(l) + " and " + dtypeStr(r) + "; the carry '" +
                  name->name + "' is " + dtypeStr(own) +
                  " because its initial value " + var->literalInit +
                  " is a literal of that dtype: start it with " + fix);
    }
  }
  if (expr->op == BinaryOp::matmul) {
    // No broadcasting: only the dtypes are unified.
    SmallVector<Value> vs;
    for (auto [i, o] : llvm::enumerate(ops)) {
      FailureOr<Value> v = o.kind == ExprValue::tensor
                               ? FailureOr<Value>(o.value)
                               : typing.materializeDefault(o, locs[i], ctx.b);
      if (failed(v))
        return failure();
      vs.push_back(*v);
    }
    auto lt = cast<RankedTensorType>(vs[0].getType());
    auto rt = cast<RankedTensorType>(vs[1].getType());
    if (lt.getElementType() != rt.getElementType())
      return ic.error(at, "operands of '@' have different dtypes: " +
                              typeStr(lt) + " and " + typeStr(rt) +
                              " (there is no implicit conversion; use f32(x) "
                              "or i32(x))");
    if (lt.getElementType().isInteger(1))
      return ic.error(at, "'@' needs f32 or i32 operands, got " + typeStr(lt) +
                              " and " + typeStr(rt));
    return evalMatmul(expr, vs[0], vs[1], ctx);
  }
  FailureOr<SmallVector<Value>> vs =
      typing.unify(ops, locs, at, opName, req, ctx.b);
  if (failed(vs))
    return failure();
  Value l = (*vs)[0], r = (*vs)[1];
  Location opLoc = ic.loc(at);
  Value result;
  switch (expr->op) {
  case BinaryOp::add:
    result = arr::AddOp::create(ctx.b, opLoc, l, r);
    break;
  case BinaryOp::sub:
    result = arr::SubOp::create(ctx.b, opLoc, l, r);
    break;
  case BinaryOp::mul:
    result = arr::MulOp::create(ctx.b, opLoc, l, r);
    break;
  case BinaryOp::div:
    result = arr::DivOp::create(ctx.b, opLoc, l, r);
    break;
  case BinaryOp::pow:
    result = arr::PowOp::create(ctx.b, opLoc, l, r);
    break;
  case BinaryOp::logicalAnd:
    result = arr::AndOp::create(ctx.b, opLoc, l, r);
    break;
  case BinaryOp::logicalOr:
    result = arr::OrOp::create(ctx.b, opLoc, l, r);
    break;
  default: {
    arr::CmpPredicate pred;
    switch (expr->op) {
    case BinaryOp::lt:
      pred = arr::CmpPredicate::lt;
      break;
    case BinaryOp::le:
      pred = arr::CmpPredicate::le;
      break;
    case BinaryOp::gt:
      pred = arr::CmpPredicate::gt;
      break;
    case BinaryOp::ge:
      pred = arr::CmpPredicate::ge;
      break;
    case BinaryOp::eq:
      pred = arr::CmpPredicate::eq;
      break;
    default:
      pred = arr::CmpPredicate::ne;
      break;
    }
    result = arr::CmpOp::create(ctx.b, opLoc, pred, l, r);
    break;
  }
  }
  return ExprValue::ofTensor(result);
}

FailureOr<ExprValue> MLIRGen::evalMatmul(BinaryExpr *expr, Value l, Value r,
                                         BodyContext &ctx) {
  llvm::SMLoc at = expr->getLoc();
  FailureOr<std::pair<int64_t, int64_t>> dims =
      typing.checkMatmul(at, cast<RankedTensorType>(l.getType()),
                         cast<RankedTensorType>(r.getType()));
  if (failed(dims))
    return failure();
  auto dot = arr::DotGeneralOp::create(
      ctx.b, ic.loc(at), l, r, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
      ArrayRef<int64_t>{dims->first}, ArrayRef<int64_t>{dims->second});
  if (failed(typing.checkLimits(dot.getType(), at, "the result of '@'")))
    return failure();
  return ExprValue::ofTensor(dot);
}

FailureOr<SmallVector<ExprValue>> MLIRGen::evalArgs(CallExpr *expr,
                                                    BodyContext &ctx) {
  SmallVector<ExprValue> args;
  for (ExprPtr &a : expr->args) {
    FailureOr<ExprValue> v = eval(a.get(), ctx);
    if (failed(v))
      return failure();
    args.push_back(*v);
  }
  return args;
}

FailureOr<ExprValue> MLIRGen::evalCall(CallExpr *expr, BodyContext &ctx) {
  Expr *callee = expr->callee.get();
  llvm::SMLoc at = expr->getLoc();
  SmallVector<llvm::SMLoc> argLocs;
  for (ExprPtr &a : expr->args)
    argLocs.push_back(a->getLoc());

  auto noKeywords = [&](StringRef what) -> LogicalResult {
    if (!expr->kwargs.empty())
      return ic.error(expr->kwargs.front().loc,
                      what + " takes no keyword arguments");
    return success();
  };

  // vmap(...)(args): apply an inline template.
  if (CallExpr *vmapCall = asVmapCall(callee)) {
    FailureOr<VmapTemplate *> t =
        vmaps.buildTemplate(vmapCall, ctx.owner, false);
    if (failed(t) || failed(noKeywords("a vmapped function")))
      return failure();
    FailureOr<SmallVector<ExprValue>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    FailureOr<SmallVector<Value>> v =
        vmaps.applyTemplate(**t, *args, argLocs, at, ctx.b);
    if (failed(v))
      return failure();
    return ExprValue::ofValues(*v);
  }

  auto *name = dyn_cast<NameExpr>(callee);
  if (!name)
    return ic.error(at, "only functions can be called: write a function name "
                        "or vmap(...) before '('");
  StringRef n = name->name;
  if (n == "vmap")
    return ic.error(at, "vmap(...) must be applied to arguments, e.g. "
                        "vmap(f, in_axes=0)(x), or named with "
                        "'fn g = vmap(...);'");
  if (names.findVariable(n, ctx))
    return ic.error(at, "'" + n + "' is a variable, not a function");
  if (const Builtin *builtin = lookupBuiltin(n)) {
    BuiltinCall call(*builtin, expr, ctx, ic, typing, *this);
    if (failed(call.checkArguments()))
      return failure();
    return builtin->emit(call);
  }

  if (MapInfo *map = names.findMap(n)) {
    FailureOr<VmapTemplate *> t = vmaps.resolveMap(*map, at);
    if (failed(t) || failed(noKeywords("'" + n.str() + "'")))
      return failure();
    FailureOr<SmallVector<ExprValue>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    FailureOr<SmallVector<Value>> v =
        vmaps.applyTemplate(**t, *args, argLocs, at, ctx.b);
    if (failed(v))
      return failure();
    return ExprValue::ofValues(*v);
  }

  FnInfo *fnInfo = names.findFunction(n);
  if (!fnInfo) {
    if (names.isExport(n))
      return ic.error(at, "'" + n +
                              "' is an entry point for host programs and "
                              "cannot be called; call the function it "
                              "maps");
    return ic.error(at, "unknown function '" + n + "'");
  }
  FnInfo &fn = *fnInfo;
  if (failed(noKeywords("'" + n.str() + "'")))
    return failure();
  FunctionDecl &decl = *fn.decl;
  if (expr->args.size() != decl.params.size())
    return ic.error(at, "'" + n + "' takes " + Twine(decl.params.size()) +
                            " argument" + (decl.params.size() == 1 ? "" : "s") +
                            ", got " + Twine(expr->args.size()));
  FailureOr<SmallVector<ExprValue>> args = evalArgs(expr, ctx);
  if (failed(args))
    return failure();
  FailureOr<SmallVector<Value>> values = typing.matchArguments(
      decl, fn.op.getFunctionType(), *args, argLocs, ctx.b);
  if (failed(values))
    return failure();
  auto call = func::CallOp::create(ctx.b, ic.loc(at), fn.op, *values);
  return ExprValue::ofValues(call.getResults());
}

/// `v` transposed by `perm`; `v` itself for the identity.
Value MLIRGen::transposeValue(Value v, ArrayRef<int64_t> perm, llvm::SMLoc at,
                              OpBuilder &b) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return v;
  return arr::TransposeOp::create(b, ic.loc(at), v, perm);
}

OwningOpRef<ModuleOp> MLIRGen::run() {
  OwningOpRef<ModuleOp> owned =
      ModuleOp::create(ic.loc(llvm::SMLoc::getFromPointer(
          sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
              ->getBufferStart())));
  ic.setModule(*owned);
  if (failed(names.declare(ast)))
    return nullptr;
  for (auto &decl : ast.functions)
    if (failed(declareFunction(*names.findFunction(decl->name))))
      return nullptr;
  for (auto &decl : ast.functions)
    if (failed(importBody(*names.findFunction(decl->name))))
      return nullptr;
  vmaps.setImporting(nullptr);
  for (auto &decl : ast.maps)
    if (failed(vmaps.resolveMap(*names.findMap(decl->name), decl->loc)))
      return nullptr;
  for (auto &ex : ast.exports)
    if (failed(importExport(*ex, ic, vmaps, typing)))
      return nullptr;
  if (failed(checkCallGraph(
          *owned, [&](func::FuncOp fn) { return names.isUserFunction(fn); })))
    return nullptr;
  if (failed(verify(*owned))) {
    emitError(owned->getLoc())
        << "internal error: the front end produced invalid IR (a bug in "
           "vmapc; please report it with this program)";
    return nullptr;
  }
  return owned;
}

OwningOpRef<ModuleOp> vmapc::importArr(llvm::SourceMgr &sourceMgr,
                                       MLIRContext *context) {
  context->getOrLoadDialect<arr::ArrDialect>();
  context->getOrLoadDialect<func::FuncDialect>();
  unsigned bufferId = sourceMgr.getMainFileID();
  LocationMapper locs(sourceMgr, bufferId, context);
  std::optional<Module> ast =
      parseModule(sourceMgr.getMemoryBuffer(bufferId)->getBuffer(), locs);
  if (!ast)
    return nullptr;
  ImportContext ic(locs, sourceMgr, context);
  MLIRGen gen(*ast, ic, sourceMgr);
  return gen.run();
}
