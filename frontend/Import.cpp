//===- Import.cpp - .arr syntax tree to the arr dialect -------------------===//
//
// Resolves names, infers and checks types and shapes, and emits per-example
// arr IR:
//   - every `fn` becomes a private `func.func @name` with per-example types;
//   - a `vmap(...)` (inline or named with `fn g = vmap(...)`) is a template
//     whose axis size is known only where it is applied; each application
//     emits one `arr.vmap_call`, and a nested vmap is materialised as a
//     generated private `func.func @<owner>_inner_<N>` per per-example
//     signature;
//   - every `export` becomes a public `func.func` over batched types whose
//     body is one `arr.vmap_call`.
// Errors stop the import at the first one (see docs/language.md).
//
//===----------------------------------------------------------------------===//

#include "frontend/Import.h"
#include "frontend/AST.h"
#include "frontend/Parser.h"

#include "dialect/ArrDialect.h"
#include "dialect/Batching.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"

#include <limits>
#include <map>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;

namespace {

//===----------------------------------------------------------------------===//
// Values and callables during import
//===----------------------------------------------------------------------===//

/// An evaluated expression: a tensor value, or a weakly typed literal that
/// takes its dtype from the operand next to it (JAX's weak types).
struct Operand {
  enum Kind { tensor, intLit, floatLit } kind = tensor;
  Value value;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text; // the literal as written, for messages

  bool isLiteral() const { return kind != tensor; }
  /// A literal's value as a double.
  double asDouble() const {
    return kind == intLit ? double(intValue) : floatValue;
  }
  static Operand ofTensor(Value v) {
    Operand o;
    o.value = v;
    return o;
  }
  static Operand ofInt(int64_t v, std::string text) {
    Operand o;
    o.kind = intLit;
    o.intValue = v;
    o.text = std::move(text);
    return o;
  }
  static Operand ofFloat(double v, std::string text) {
    Operand o;
    o.kind = floatLit;
    o.floatValue = v;
    o.text = std::move(text);
    return o;
  }
};

struct FnInfo;
struct Template;

/// Something vmap can map: a user function or another vmap.
struct Callable {
  FnInfo *fn = nullptr;
  Template *map = nullptr;
};

/// `in_axes=` / `out_axes=`: one entry for all, or a tuple.
struct AxesSpec {
  bool isTuple = false;
  SmallVector<std::optional<int64_t>> entries{std::optional<int64_t>(0)};
  SmallVector<llvm::SMLoc> locs{llvm::SMLoc()};
  llvm::SMLoc loc;

  std::optional<int64_t> get(size_t i) const {
    return isTuple ? entries[i] : entries[0];
  }
  llvm::SMLoc getLoc(size_t i) const {
    llvm::SMLoc l = isTuple ? locs[i] : locs[0];
    return l.isValid() ? l : loc;
  }
};

/// `vmap(inner, in_axes=..., out_axes=..., axis_size=...)`, not yet applied.
struct Template {
  Callable inner;
  AxesSpec inAxes, outAxes;
  std::optional<int64_t> axisSize; // axis_size= or (in an export) batch=
  llvm::SMLoc axisSizeLoc;
  llvm::SMLoc loc;
  std::string owner;   // prefix of generated functions
  std::string display; // how messages name it
};

struct FnInfo {
  FunctionDecl *decl = nullptr;
  func::FuncOp op;
  enum State { pending, active, done } state = pending;
};

struct MapInfo {
  MapDecl *decl = nullptr;
  Template *tmpl = nullptr;
  bool resolving = false;
};

struct Variable {
  Operand operand;
  llvm::SMLoc loc;
};

/// The per-example signature of a callable.
struct Signature {
  SmallVector<RankedTensorType> params;
  RankedTensorType result;
};

constexpr llvm::StringLiteral kBuiltins[] = {
    "exp", "log", "tanh", "sqrt", "sum", "max", "min", "argmin", "argmax"};
/// Names from the design sketch that are not implemented yet.
constexpr llvm::StringLiteral kFutureBuiltins[] = {
    "abs",       "maximum", "minimum",      "where",  "mean",
    "transpose", "reshape", "broadcast_to", "concat", "iota"};

/// Bounds the import's recursion (call chains, chains of named maps).
constexpr unsigned kMaxNesting = 256;

bool isBuiltin(StringRef name) { return llvm::is_contained(kBuiltins, name); }
bool isFutureBuiltin(StringRef name) {
  return llvm::is_contained(kFutureBuiltins, name);
}

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

class Importer {
public:
  Importer(Module &ast, const LocationMapper &locs, MLIRContext *context,
           llvm::SourceMgr &sourceMgr)
      : ast(ast), locs(locs), context(context), sourceMgr(sourceMgr),
        builder(context) {}

  OwningOpRef<ModuleOp> run();

private:
  // Diagnostics.
  LogicalResult error(llvm::SMLoc loc, const Twine &message) {
    emitError(locs.get(loc)) << message.str();
    return failure();
  }
  Location loc(llvm::SMLoc l) const { return locs.get(l); }
  unsigned lineOf(llvm::SMLoc l) const {
    return sourceMgr.getLineAndColumn(l).first;
  }

  // Types.
  Type elementType(DType dtype);
  RankedTensorType convertType(const TypeAST &type);
  static std::string str(Type type);
  static std::string dtypeStr(Type elementType);

  // Declarations.
  LogicalResult declareNames();
  LogicalResult declareFunction(FnInfo &fn);
  LogicalResult importBody(FnInfo &fn);
  LogicalResult ensureImported(FnInfo &fn, llvm::SMLoc useLoc);
  LogicalResult importExport(ExportDecl &ex);

  // Callables and vmap templates.
  FailureOr<Callable> resolveCallable(Expr *expr, StringRef owner);
  FailureOr<Template *> buildTemplate(CallExpr *call, StringRef owner,
                                      bool isExport);
  FailureOr<AxesSpec> parseAxes(Expr *expr, StringRef what);
  FailureOr<Template *> resolveMap(MapInfo &map, llvm::SMLoc useLoc);
  unsigned arity(const Callable &c) const;
  std::string displayName(const Callable &c) const;
  FnInfo *innermostFn(const Callable &c) const;
  FailureOr<Signature> deriveSignature(const Callable &c, llvm::SMLoc useLoc);
  FailureOr<func::FuncOp> materialize(const Callable &c,
                                      ArrayRef<RankedTensorType> types,
                                      llvm::SMLoc useLoc);
  FailureOr<Value> applyTemplate(Template &t, ArrayRef<Operand> operands,
                                 ArrayRef<llvm::SMLoc> operandLocs,
                                 llvm::SMLoc callLoc, OpBuilder &b);
  std::string freshInnerName(StringRef owner);

  // Expressions.
  using Scope = llvm::StringMap<Variable>;
  struct FnContext {
    OpBuilder &b;
    Scope &scope;
    StringRef owner;
  };
  FailureOr<Operand> eval(Expr *expr, FnContext &ctx);
  FailureOr<Operand> evalBinary(BinaryExpr *expr, FnContext &ctx);
  FailureOr<Operand> foldLiterals(BinaryExpr *expr, const Operand &lhs,
                                  const Operand &rhs, FnContext &ctx);
  FailureOr<Operand> evalMatmul(BinaryExpr *expr, Value lhs, Value rhs,
                                FnContext &ctx);
  FailureOr<Operand> evalCall(CallExpr *expr, FnContext &ctx);
  FailureOr<Operand> evalBuiltin(CallExpr *expr, StringRef name,
                                 FnContext &ctx);
  FailureOr<SmallVector<Operand>> evalArgs(CallExpr *expr, FnContext &ctx);
  FailureOr<Value> materialize(const Operand &op, Type elementType,
                               ArrayRef<int64_t> shape, llvm::SMLoc useLoc,
                               OpBuilder &b, llvm::SMLoc litLoc);
  FailureOr<Value> materializeDefault(const Operand &op, llvm::SMLoc litLoc,
                                      OpBuilder &b);
  FailureOr<SmallVector<int64_t>> normalizeAxes(Expr *axis, int64_t rank,
                                                bool single, StringRef fn);
  LogicalResult checkNewName(StringRef name, llvm::SMLoc loc, Scope &scope,
                             StringRef what);

  Module &ast;
  const LocationMapper &locs;
  MLIRContext *context;
  llvm::SourceMgr &sourceMgr;
  OpBuilder builder;
  ModuleOp module;

  llvm::StringMap<FnInfo> fns;
  llvm::StringMap<MapInfo> maps;
  llvm::StringSet<> exportNames;
  llvm::StringMap<llvm::SMLoc> topLevelNames;
  std::vector<std::unique_ptr<Template>> templates;
  SmallVector<FnInfo *> activeFns;
  std::map<std::pair<Template *, std::vector<const void *>>, func::FuncOp>
      innerCache;
  llvm::StringMap<unsigned> innerCounters;
  unsigned resolvingMaps = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type Importer::elementType(DType dtype) {
  switch (dtype) {
  case DType::f32:
    return Float32Type::get(context);
  case DType::i32:
    return IntegerType::get(context, 32);
  case DType::boolean:
    return IntegerType::get(context, 1);
  }
  return {};
}

RankedTensorType Importer::convertType(const TypeAST &type) {
  return RankedTensorType::get(type.shape, elementType(type.dtype));
}

std::string Importer::dtypeStr(Type t) {
  if (t.isF32())
    return "f32";
  if (t.isInteger(32))
    return "i32";
  if (t.isInteger(1))
    return "bool";
  return "?";
}

/// The source spelling of a tensor type: `f32`, `i32[3, 4]`.
std::string Importer::str(Type type) {
  auto t = cast<RankedTensorType>(type);
  std::string s = dtypeStr(t.getElementType());
  if (t.getRank() == 0)
    return s;
  s += "[";
  for (auto [i, d] : llvm::enumerate(t.getShape())) {
    if (i)
      s += ", ";
    s += std::to_string(d);
  }
  return s + "]";
}

static std::string rangeStr(int64_t rank) {
  return std::to_string(-rank) + ".." + std::to_string(rank - 1);
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

LogicalResult Importer::declareNames() {
  auto declare = [&](StringRef name, llvm::SMLoc nameLoc) -> LogicalResult {
    if (name == "vmap" || isBuiltin(name))
      return error(nameLoc,
                   "'" + name +
                       "' is the name of a builtin; choose another name");
    auto [it, inserted] = topLevelNames.try_emplace(name, nameLoc);
    if (!inserted)
      return error(nameLoc, "'" + name + "' is already defined at line " +
                                Twine(lineOf(it->second)) +
                                "; choose another name");
    return success();
  };
  // Declare in source order so that a duplicate is reported at the later one.
  struct Item {
    StringRef name;
    llvm::SMLoc loc;
  };
  std::vector<Item> items;
  for (auto &fn : ast.functions)
    items.push_back({fn->name, fn->loc});
  for (auto &m : ast.maps)
    items.push_back({m->name, m->loc});
  for (auto &ex : ast.exports)
    items.push_back({ex->name, ex->loc});
  llvm::sort(items, [](const Item &a, const Item &b) {
    return a.loc.getPointer() < b.loc.getPointer();
  });
  for (const Item &item : items)
    if (failed(declare(item.name, item.loc)))
      return failure();
  for (auto &fn : ast.functions)
    fns[fn->name].decl = fn.get();
  for (auto &m : ast.maps)
    maps[m->name].decl = m.get();
  for (auto &ex : ast.exports)
    exportNames.insert(ex->name);
  return success();
}

LogicalResult Importer::declareFunction(FnInfo &fn) {
  FunctionDecl &decl = *fn.decl;
  llvm::StringMap<llvm::SMLoc> seen;
  SmallVector<Type> inputs;
  for (Param &p : decl.params) {
    auto [it, inserted] = seen.try_emplace(p.name, p.loc);
    if (!inserted)
      return error(p.loc, "parameter '" + p.name + "' of '" + decl.name +
                              "' is already defined; rename it");
    if (p.name == "vmap" || isBuiltin(p.name) || fns.count(p.name) ||
        maps.count(p.name))
      return error(p.loc, "parameter '" + p.name + "' of '" + decl.name +
                              "' hides the function '" + p.name +
                              "'; rename it");
    inputs.push_back(convertType(p.type));
  }
  auto type =
      FunctionType::get(context, inputs, {convertType(decl.resultType)});
  fn.op = func::FuncOp::create(builder, loc(decl.loc), decl.name, type);
  fn.op.setPrivate();
  return success();
}

LogicalResult Importer::ensureImported(FnInfo &fn, llvm::SMLoc useLoc) {
  if (fn.state == FnInfo::done)
    return success();
  if (fn.state == FnInfo::active) {
    std::string chain;
    auto it = llvm::find(activeFns, &fn);
    for (; it != activeFns.end(); ++it)
      chain += (*it)->decl->name + " -> ";
    chain += fn.decl->name;
    return error(useLoc, "'" + fn.decl->name + "' calls itself (" + chain +
                             "); recursion is not supported");
  }
  if (activeFns.size() >= kMaxNesting)
    return error(useLoc, "functions call each other more than " +
                             Twine(kMaxNesting) + " levels deep");
  return importBody(fn);
}

LogicalResult Importer::importBody(FnInfo &fn) {
  fn.state = FnInfo::active;
  activeFns.push_back(&fn);
  FunctionDecl &decl = *fn.decl;
  Block *entry = fn.op.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  Scope scope;
  for (auto [i, p] : llvm::enumerate(decl.params)) {
    entry->getArgument(i).setLoc(loc(p.loc));
    scope[p.name] = {Operand::ofTensor(entry->getArgument(i)), p.loc};
  }
  FnContext ctx{b, scope, decl.name};
  RankedTensorType declared = convertType(decl.resultType);

  for (Stmt &stmt : decl.body) {
    FailureOr<Operand> value = eval(stmt.value.get(), ctx);
    if (failed(value))
      return failure();
    if (stmt.kind == Stmt::let) {
      if (failed(checkNewName(stmt.name, stmt.nameLoc, scope, "variable")))
        return failure();
      scope[stmt.name] = {*value, stmt.nameLoc};
      continue;
    }
    // return
    Value result;
    if (value->isLiteral()) {
      // A returned literal takes the declared type, shape included (a splat).
      FailureOr<Value> v =
          materialize(*value, declared.getElementType(), declared.getShape(),
                      stmt.value->getLoc(), b, stmt.value->getLoc());
      if (failed(v))
        return failure();
      result = *v;
    } else {
      result = value->value;
      if (result.getType() != declared)
        return error(stmt.value->getLoc(),
                     "return type " + str(result.getType()) +
                         " does not match declared " + str(declared) + " of '" +
                         decl.name + "'");
    }
    func::ReturnOp::create(b, loc(stmt.loc), result);
  }
  activeFns.pop_back();
  fn.state = FnInfo::done;
  return success();
}

LogicalResult Importer::checkNewName(StringRef name, llvm::SMLoc nameLoc,
                                     Scope &scope, StringRef what) {
  auto it = scope.find(name);
  if (it != scope.end())
    return error(nameLoc, "'" + name + "' is already defined at line " +
                              Twine(lineOf(it->second.loc)) +
                              "; 'let' names cannot be redefined, choose "
                              "another name");
  if (name == "vmap" || isBuiltin(name))
    return error(nameLoc,
                 "'" + name +
                     "' is the name of a builtin; choose another name");
  if (fns.count(name) || maps.count(name))
    return error(nameLoc, "'" + name +
                              "' is the name of a function; choose another "
                              "name for the " +
                              what);
  return success();
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

FailureOr<Value> Importer::materialize(const Operand &op, Type elemType,
                                       ArrayRef<int64_t> shape,
                                       llvm::SMLoc useLoc, OpBuilder &b,
                                       llvm::SMLoc litLoc) {
  if (!op.isLiteral())
    return op.value;
  auto type = RankedTensorType::get(shape, elemType);
  Attribute attr;
  if (elemType.isF32()) {
    double v = op.kind == Operand::intLit ? static_cast<double>(op.intValue)
                                          : op.floatValue;
    attr = DenseElementsAttr::get(type,
                                  llvm::ArrayRef<float>(static_cast<float>(v)));
  } else if (elemType.isInteger(32)) {
    if (op.kind == Operand::floatLit)
      return error(useLoc, "the float literal " + op.text +
                               " cannot be used with an i32 operand (no "
                               "implicit conversion); write an integer");
    if (op.intValue > std::numeric_limits<int32_t>::max() ||
        op.intValue < std::numeric_limits<int32_t>::min())
      return error(litLoc, "integer " + op.text +
                               " does not fit in i32 (-2147483648.."
                               "2147483647)");
    attr = DenseElementsAttr::get(
        type, llvm::ArrayRef<int32_t>(static_cast<int32_t>(op.intValue)));
  } else {
    return error(useLoc, "the literal " + op.text +
                             " cannot be used with a bool operand");
  }
  return arr::ConstantOp::create(b, loc(litLoc), type, cast<TypedAttr>(attr))
      .getResult();
}

FailureOr<Value> Importer::materializeDefault(const Operand &op,
                                              llvm::SMLoc litLoc,
                                              OpBuilder &b) {
  Type t = op.kind == Operand::intLit ? Type(IntegerType::get(context, 32))
                                      : Type(Float32Type::get(context));
  return materialize(op, t, {}, litLoc, b, litLoc);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<Operand> Importer::eval(Expr *expr, FnContext &ctx) {
  switch (expr->getKind()) {
  case Expr::intLiteral: {
    auto *lit = cast<IntLiteralExpr>(expr);
    return Operand::ofInt(lit->value, lit->spelling);
  }
  case Expr::floatLiteral: {
    auto *lit = cast<FloatLiteralExpr>(expr);
    return Operand::ofFloat(lit->value, lit->spelling);
  }
  case Expr::none:
    return error(expr->getLoc(),
                 "'none' is only allowed in in_axes= and out_axes=");
  case Expr::tuple:
    return error(expr->getLoc(),
                 "a tuple is only allowed as an axis=, in_axes= or out_axes= "
                 "value (functions return one value)");
  case Expr::name: {
    auto *n = cast<NameExpr>(expr);
    auto it = ctx.scope.find(n->name);
    if (it != ctx.scope.end())
      return it->second.operand;
    if (fns.count(n->name) || maps.count(n->name))
      return error(expr->getLoc(), "'" + n->name +
                                       "' is a function; call it with "
                                       "arguments, e.g. " +
                                       n->name + "(...)");
    if (isBuiltin(n->name) || n->name == "vmap")
      return error(expr->getLoc(),
                   "'" + n->name + "' is a builtin function; call it");
    if (exportNames.contains(n->name))
      return error(expr->getLoc(), "'" + n->name +
                                       "' is an entry point for host "
                                       "programs and cannot be used here");
    return error(expr->getLoc(), "unknown name '" + n->name + "'");
  }
  case Expr::unary: {
    auto *u = cast<UnaryExpr>(expr);
    FailureOr<Operand> v = eval(u->operand.get(), ctx);
    if (failed(v))
      return failure();
    if (v->kind == Operand::intLit) {
      if (v->intValue == std::numeric_limits<int64_t>::min())
        return error(expr->getLoc(), "integer overflow in -" + v->text);
      return Operand::ofInt(-v->intValue, "-" + v->text);
    }
    if (v->kind == Operand::floatLit)
      return Operand::ofFloat(-v->floatValue, "-" + v->text);
    auto t = cast<RankedTensorType>(v->value.getType());
    if (t.getElementType().isInteger(1))
      return error(expr->getLoc(),
                   "unary '-' needs an f32 or i32 operand, got " + str(t));
    return Operand::ofTensor(
        arr::NegOp::create(ctx.b, loc(expr->getLoc()), v->value).getResult());
  }
  case Expr::binary:
    return evalBinary(cast<BinaryExpr>(expr), ctx);
  case Expr::call:
    return evalCall(cast<CallExpr>(expr), ctx);
  }
  return failure();
}

static bool isComparison(BinaryOp op) {
  return op == BinaryOp::lt || op == BinaryOp::le || op == BinaryOp::gt ||
         op == BinaryOp::ge || op == BinaryOp::eq || op == BinaryOp::ne;
}

/// `a op c` for a comparison `op`, in the literals' own type.
template <typename T> static bool compareLiterals(BinaryOp op, T a, T c) {
  switch (op) {
  case BinaryOp::lt:
    return a < c;
  case BinaryOp::le:
    return a <= c;
  case BinaryOp::gt:
    return a > c;
  case BinaryOp::ge:
    return a >= c;
  case BinaryOp::eq:
    return a == c;
  default:
    return a != c;
  }
}

FailureOr<Operand> Importer::foldLiterals(BinaryExpr *expr, const Operand &l,
                                          const Operand &r, FnContext &ctx) {
  llvm::SMLoc at = expr->getLoc();
  std::string text = l.text + " " + spelling(expr->op).str() + " " + r.text;
  bool isFloat = l.kind == Operand::floatLit || r.kind == Operand::floatLit;
  if (expr->op == BinaryOp::matmul)
    return error(at, "'@' needs arrays of rank 1 or 2, not literals");
  if (isComparison(expr->op)) {
    bool v = isFloat ? compareLiterals(expr->op, l.asDouble(), r.asDouble())
                     : compareLiterals(expr->op, l.intValue, r.intValue);
    auto type = RankedTensorType::get({}, IntegerType::get(context, 1));
    auto attr = DenseElementsAttr::get(type, v);
    return Operand::ofTensor(
        arr::ConstantOp::create(ctx.b, loc(at), type, attr).getResult());
  }
  // `/` of two literals is Python's true division (a float), as in JAX.
  if (isFloat || expr->op == BinaryOp::div) {
    double a = l.asDouble(), c = r.asDouble();
    double v = 0;
    switch (expr->op) {
    case BinaryOp::add:
      v = a + c;
      break;
    case BinaryOp::sub:
      v = a - c;
      break;
    case BinaryOp::mul:
      v = a * c;
      break;
    default:
      if (c == 0)
        return error(at, "division by zero in " + text);
      v = a / c;
      break;
    }
    if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
      return error(at, "the value of " + text + " is out of range for f32");
    return Operand::ofFloat(v, "(" + text + ")");
  }
  int64_t a = l.intValue, c = r.intValue, v = 0;
  bool overflow = false;
  switch (expr->op) {
  case BinaryOp::add:
    overflow = __builtin_add_overflow(a, c, &v);
    break;
  case BinaryOp::sub:
    overflow = __builtin_sub_overflow(a, c, &v);
    break;
  case BinaryOp::mul:
    overflow = __builtin_mul_overflow(a, c, &v);
    break;
  default:
    break;
  }
  if (overflow)
    return error(at, "integer overflow in " + text);
  return Operand::ofInt(v, "(" + text + ")");
}

FailureOr<Operand> Importer::evalBinary(BinaryExpr *expr, FnContext &ctx) {
  FailureOr<Operand> lhs = eval(expr->lhs.get(), ctx);
  if (failed(lhs))
    return failure();
  FailureOr<Operand> rhs = eval(expr->rhs.get(), ctx);
  if (failed(rhs))
    return failure();
  llvm::SMLoc at = expr->getLoc();
  StringRef opName = spelling(expr->op);
  if (lhs->isLiteral() && rhs->isLiteral())
    return foldLiterals(expr, *lhs, *rhs, ctx);

  // A literal takes the dtype and shape of the other operand.
  Value l, r;
  if (lhs->isLiteral() || rhs->isLiteral()) {
    const Operand &lit = lhs->isLiteral() ? *lhs : *rhs;
    Value other = lhs->isLiteral() ? rhs->value : lhs->value;
    Expr *litExpr = lhs->isLiteral() ? expr->lhs.get() : expr->rhs.get();
    auto t = cast<RankedTensorType>(other.getType());
    if (expr->op == BinaryOp::matmul)
      return error(at, "'@' needs arrays of rank 1 or 2 on both sides, got "
                       "the literal " +
                           lit.text);
    if (t.getElementType().isInteger(1))
      return error(at,
                   "'" + opName + "' needs f32 or i32 operands, got " + str(t));
    FailureOr<Value> v = materialize(lit, t.getElementType(), t.getShape(), at,
                                     ctx.b, litExpr->getLoc());
    if (failed(v))
      return failure();
    l = lhs->isLiteral() ? *v : other;
    r = lhs->isLiteral() ? other : *v;
  } else {
    l = lhs->value;
    r = rhs->value;
  }
  auto lt = cast<RankedTensorType>(l.getType());
  auto rt = cast<RankedTensorType>(r.getType());
  if (lt.getElementType() != rt.getElementType())
    return error(at, "operands of '" + opName +
                         "' have different dtypes: " + str(lt) + " and " +
                         str(rt) + " (there is no implicit conversion)");
  if (lt.getElementType().isInteger(1))
    return error(at, "'" + opName + "' needs f32 or i32 operands, got " +
                         str(lt) + " and " + str(rt));
  if (expr->op == BinaryOp::matmul)
    return evalMatmul(expr, l, r, ctx);

  // numpy broadcasting, made explicit.
  int64_t rank = std::max(lt.getRank(), rt.getRank());
  SmallVector<int64_t> shape(rank);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t li = i - (rank - lt.getRank()), ri = i - (rank - rt.getRank());
    int64_t ls = li >= 0 ? lt.getDimSize(li) : 1;
    int64_t rs = ri >= 0 ? rt.getDimSize(ri) : 1;
    if (ls != rs && ls != 1 && rs != 1)
      return error(at, "shapes " + str(lt) + " and " + str(rt) +
                           " cannot broadcast (dimension sizes " + Twine(ls) +
                           " and " + Twine(rs) + " differ and neither is 1)");
    shape[i] = ls == 1 ? rs : ls;
  }
  auto resultShapeType = RankedTensorType::get(shape, lt.getElementType());
  auto broadcast = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t == resultShapeType)
      return v;
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < t.getRank(); ++i)
      dims.push_back(rank - t.getRank() + i);
    return arr::BroadcastInDimOp::create(ctx.b, loc(at), resultShapeType, v,
                                         dims)
        .getResult();
  };
  l = broadcast(l);
  r = broadcast(r);
  Location opLoc = loc(at);
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
    auto boolType = RankedTensorType::get(shape, IntegerType::get(context, 1));
    result = arr::CmpOp::create(ctx.b, opLoc, boolType, pred, l, r);
    break;
  }
  }
  return Operand::ofTensor(result);
}

FailureOr<Operand> Importer::evalMatmul(BinaryExpr *expr, Value l, Value r,
                                        FnContext &ctx) {
  auto lt = cast<RankedTensorType>(l.getType());
  auto rt = cast<RankedTensorType>(r.getType());
  llvm::SMLoc at = expr->getLoc();
  for (RankedTensorType t : {lt, rt})
    if (t.getRank() != 1 && t.getRank() != 2)
      return error(at, "'@' supports operands of rank 1 and 2 (numpy "
                       "matmul), got " +
                           str(lt) + " @ " + str(rt) +
                           "; use vmap for a batched matmul");
  int64_t lc = lt.getRank() - 1;
  int64_t rc = 0;
  if (lt.getDimSize(lc) != rt.getDimSize(rc))
    return error(at, "'@' contracts the last axis of " + str(lt) + " (size " +
                         Twine(lt.getDimSize(lc)) +
                         ") with the first axis of " + str(rt) + " (size " +
                         Twine(rt.getDimSize(rc)) + "); the sizes differ");
  SmallVector<int64_t> shape;
  if (lt.getRank() == 2)
    shape.push_back(lt.getDimSize(0));
  if (rt.getRank() == 2)
    shape.push_back(rt.getDimSize(1));
  auto type = RankedTensorType::get(shape, lt.getElementType());
  Value v = arr::DotGeneralOp::create(
      ctx.b, loc(at), type, l, r, ArrayRef<int64_t>{}, ArrayRef<int64_t>{},
      ArrayRef<int64_t>{lc}, ArrayRef<int64_t>{rc});
  return Operand::ofTensor(v);
}

FailureOr<SmallVector<Operand>> Importer::evalArgs(CallExpr *expr,
                                                   FnContext &ctx) {
  SmallVector<Operand> args;
  for (ExprPtr &a : expr->args) {
    FailureOr<Operand> v = eval(a.get(), ctx);
    if (failed(v))
      return failure();
    args.push_back(*v);
  }
  return args;
}

static CallExpr *asVmap(Expr *expr) {
  auto *call = dyn_cast<CallExpr>(expr);
  if (!call)
    return nullptr;
  auto *name = dyn_cast<NameExpr>(call->callee.get());
  if (!name || name->name != "vmap")
    return nullptr;
  return call;
}

FailureOr<Operand> Importer::evalCall(CallExpr *expr, FnContext &ctx) {
  Expr *callee = expr->callee.get();
  llvm::SMLoc at = expr->getLoc();
  SmallVector<llvm::SMLoc> argLocs;
  for (ExprPtr &a : expr->args)
    argLocs.push_back(a->getLoc());

  auto noKeywords = [&](StringRef what) -> LogicalResult {
    if (!expr->kwargs.empty())
      return error(expr->kwargs.front().loc,
                   what + " takes no keyword arguments");
    return success();
  };

  // vmap(...)(args): apply an inline template.
  if (CallExpr *vmapCall = asVmap(callee)) {
    FailureOr<Template *> t = buildTemplate(vmapCall, ctx.owner, false);
    if (failed(t) || failed(noKeywords("a vmapped function")))
      return failure();
    FailureOr<SmallVector<Operand>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    FailureOr<Value> v = applyTemplate(**t, *args, argLocs, at, ctx.b);
    if (failed(v))
      return failure();
    return Operand::ofTensor(*v);
  }

  auto *name = dyn_cast<NameExpr>(callee);
  if (!name)
    return error(at, "only functions can be called: write a function name "
                     "or vmap(...) before '('");
  StringRef n = name->name;
  if (n == "vmap")
    return error(at, "vmap(...) must be applied to arguments, e.g. "
                     "vmap(f, in_axes=0)(x), or named with "
                     "'fn g = vmap(...);'");
  if (ctx.scope.count(n))
    return error(at, "'" + n + "' is a variable, not a function");
  if (isBuiltin(n))
    return evalBuiltin(expr, n, ctx);
  if (isFutureBuiltin(n))
    return error(at, "builtin '" + n + "' is not supported yet");

  if (auto mit = maps.find(n); mit != maps.end()) {
    FailureOr<Template *> t = resolveMap(mit->second, at);
    if (failed(t) || failed(noKeywords("'" + n.str() + "'")))
      return failure();
    FailureOr<SmallVector<Operand>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    FailureOr<Value> v = applyTemplate(**t, *args, argLocs, at, ctx.b);
    if (failed(v))
      return failure();
    return Operand::ofTensor(*v);
  }

  auto fit = fns.find(n);
  if (fit == fns.end()) {
    if (exportNames.contains(n))
      return error(at, "'" + n +
                           "' is an entry point for host programs and "
                           "cannot be called; call the function it "
                           "maps");
    return error(at, "unknown function '" + n + "'");
  }
  FnInfo &fn = fit->second;
  if (failed(noKeywords("'" + n.str() + "'")))
    return failure();
  FunctionDecl &decl = *fn.decl;
  if (expr->args.size() != decl.params.size())
    return error(at, "'" + n + "' takes " + Twine(decl.params.size()) +
                         " argument" + (decl.params.size() == 1 ? "" : "s") +
                         ", got " + Twine(expr->args.size()));
  FailureOr<SmallVector<Operand>> args = evalArgs(expr, ctx);
  if (failed(args))
    return failure();
  if (failed(ensureImported(fn, at)))
    return failure();
  FunctionType type = fn.op.getFunctionType();
  SmallVector<Value> values;
  for (auto [i, a] : llvm::enumerate(*args)) {
    auto pt = cast<RankedTensorType>(type.getInput(i));
    llvm::SMLoc argLoc = argLocs[i];
    if (a.isLiteral()) {
      if (pt.getRank() != 0)
        return error(argLoc, "argument " + Twine(i) + " of '" + n +
                                 "' is a literal, but parameter '" +
                                 decl.params[i].name + "' has type " + str(pt));
      FailureOr<Value> v =
          materialize(a, pt.getElementType(), {}, argLoc, ctx.b, argLoc);
      if (failed(v))
        return failure();
      values.push_back(*v);
      continue;
    }
    if (a.value.getType() != pt)
      return error(argLoc, "argument " + Twine(i) + " of '" + n +
                               "' has type " + str(a.value.getType()) +
                               ", but parameter '" + decl.params[i].name +
                               "' has type " + str(pt));
    values.push_back(a.value);
  }
  auto call = func::CallOp::create(ctx.b, loc(at), fn.op, values);
  return Operand::ofTensor(call.getResult(0));
}

FailureOr<SmallVector<int64_t>>
Importer::normalizeAxes(Expr *axis, int64_t rank, bool single, StringRef fn) {
  SmallVector<int64_t> dims;
  SmallVector<Expr *> items;
  if (auto *tuple = dyn_cast<TupleExpr>(axis)) {
    if (single)
      return error(axis->getLoc(), fn + " takes a single axis, not a tuple");
    for (ExprPtr &e : tuple->elements)
      items.push_back(e.get());
  } else {
    items.push_back(axis);
  }
  for (Expr *item : items) {
    std::optional<int64_t> value;
    if (auto *lit = dyn_cast<IntLiteralExpr>(item))
      value = lit->value;
    else if (auto *u = dyn_cast<UnaryExpr>(item))
      if (auto *lit = dyn_cast<IntLiteralExpr>(u->operand.get()))
        value = -lit->value;
    if (!value)
      return error(item->getLoc(),
                   single ? "axis= must be an integer or none"
                          : "axis= must be an integer, a tuple of integers "
                            "or none");
    int64_t a = *value;
    if (rank == 0)
      return error(item->getLoc(), "axis " + Twine(a) +
                                       " is out of range for rank 0 (a "
                                       "scalar has no axes; omit axis=)");
    if (a < -rank || a >= rank)
      return error(item->getLoc(),
                   "axis " + Twine(a) + " is out of range for rank " +
                       Twine(rank) + " (valid: " + rangeStr(rank) + ")");
    if (a < 0)
      a += rank;
    if (llvm::is_contained(dims, a))
      return error(item->getLoc(),
                   "axis " + Twine(a) + " is given twice in axis=");
    dims.push_back(a);
  }
  llvm::sort(dims);
  return dims;
}

FailureOr<Operand> Importer::evalBuiltin(CallExpr *expr, StringRef name,
                                         FnContext &ctx) {
  llvm::SMLoc at = expr->getLoc();
  bool isUnary =
      name == "exp" || name == "log" || name == "tanh" || name == "sqrt";
  bool isArg = name == "argmin" || name == "argmax";
  if (expr->args.size() != 1)
    return error(at, "'" + name + "' takes 1 argument, got " +
                         Twine(expr->args.size()));
  Expr *axisExpr = nullptr;
  for (KeywordArg &kw : expr->kwargs) {
    if (isUnary || kw.name != "axis")
      return error(kw.loc,
                   "unknown keyword argument '" + kw.name + "' for '" + name +
                       "'" +
                       (isUnary ? " (it takes none)" : " (expected axis=)"));
    if (!isa<NoneExpr>(kw.value.get()))
      axisExpr = kw.value.get();
  }
  FailureOr<Operand> arg = eval(expr->args[0].get(), ctx);
  if (failed(arg))
    return failure();
  llvm::SMLoc argLoc = expr->args[0]->getLoc();
  Location opLoc = loc(at);

  if (isUnary) {
    FailureOr<Value> v =
        materialize(*arg, Float32Type::get(context), {}, argLoc, ctx.b, argLoc);
    if (failed(v))
      return failure();
    auto t = cast<RankedTensorType>(v->getType());
    if (!t.getElementType().isF32())
      return error(argLoc,
                   "'" + name + "' needs an f32 operand, got " + str(t));
    Value r;
    if (name == "exp")
      r = arr::ExpOp::create(ctx.b, opLoc, *v);
    else if (name == "log")
      r = arr::LogOp::create(ctx.b, opLoc, *v);
    else if (name == "tanh")
      r = arr::TanhOp::create(ctx.b, opLoc, *v);
    else
      r = arr::SqrtOp::create(ctx.b, opLoc, *v);
    return Operand::ofTensor(r);
  }

  FailureOr<Value> v = materializeDefault(*arg, argLoc, ctx.b);
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  if (t.getElementType().isInteger(1))
    return error(argLoc,
                 "'" + name + "' needs an f32 or i32 operand, got " + str(t));

  if (isArg) {
    Value operand = *v;
    int64_t axis = 0;
    if (axisExpr) {
      FailureOr<SmallVector<int64_t>> dims =
          normalizeAxes(axisExpr, t.getRank(), true, name);
      if (failed(dims))
        return failure();
      axis = (*dims)[0];
    } else if (t.getRank() != 1) {
      // Default: the index into the flattened operand.
      auto flat =
          RankedTensorType::get({t.getNumElements()}, t.getElementType());
      operand = arr::ReshapeOp::create(ctx.b, opLoc, flat, operand);
      t = flat;
    }
    SmallVector<int64_t> shape;
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (i != axis)
        shape.push_back(t.getDimSize(i));
    auto type = RankedTensorType::get(shape, IntegerType::get(context, 32));
    Value r = name == "argmin"
                  ? arr::ArgMinOp::create(ctx.b, opLoc, type, operand,
                                          static_cast<uint64_t>(axis))
                        .getResult()
                  : arr::ArgMaxOp::create(ctx.b, opLoc, type, operand,
                                          static_cast<uint64_t>(axis))
                        .getResult();
    return Operand::ofTensor(r);
  }

  // sum / max / min
  SmallVector<int64_t> dims;
  if (axisExpr) {
    FailureOr<SmallVector<int64_t>> d =
        normalizeAxes(axisExpr, t.getRank(), false, name);
    if (failed(d))
      return failure();
    dims = *d;
  } else {
    for (int64_t i = 0; i < t.getRank(); ++i)
      dims.push_back(i);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i)
    if (!llvm::is_contained(dims, i))
      shape.push_back(t.getDimSize(i));
  auto type = RankedTensorType::get(shape, t.getElementType());
  Value r;
  if (name == "sum")
    r = arr::ReduceSumOp::create(ctx.b, opLoc, type, *v, dims);
  else if (name == "max")
    r = arr::ReduceMaxOp::create(ctx.b, opLoc, type, *v, dims);
  else
    r = arr::ReduceMinOp::create(ctx.b, opLoc, type, *v, dims);
  return Operand::ofTensor(r);
}

//===----------------------------------------------------------------------===//
// vmap templates
//===----------------------------------------------------------------------===//

unsigned Importer::arity(const Callable &c) const {
  if (c.fn)
    return c.fn->decl->params.size();
  return c.map->inAxes.isTuple ? c.map->inAxes.entries.size()
                               : arity(c.map->inner);
}

std::string Importer::displayName(const Callable &c) const {
  return c.fn ? "'" + c.fn->decl->name + "'" : c.map->display;
}

FnInfo *Importer::innermostFn(const Callable &c) const {
  return c.fn ? c.fn : innermostFn(c.map->inner);
}

FailureOr<Callable> Importer::resolveCallable(Expr *expr, StringRef owner) {
  if (CallExpr *vmapCall = asVmap(expr)) {
    FailureOr<Template *> t = buildTemplate(vmapCall, owner, false);
    if (failed(t))
      return failure();
    return Callable{nullptr, *t};
  }
  auto *name = dyn_cast<NameExpr>(expr);
  if (!name)
    return error(expr->getLoc(), "expected a function name or vmap(...) as "
                                 "the function to map");
  StringRef n = name->name;
  if (auto it = fns.find(n); it != fns.end())
    return Callable{&it->second, nullptr};
  if (auto it = maps.find(n); it != maps.end()) {
    FailureOr<Template *> t = resolveMap(it->second, expr->getLoc());
    if (failed(t))
      return failure();
    return Callable{nullptr, *t};
  }
  if (isBuiltin(n) || isFutureBuiltin(n))
    return error(expr->getLoc(), "builtin '" + n +
                                     "' cannot be mapped directly; wrap it "
                                     "in a fn");
  if (n == "vmap")
    return error(expr->getLoc(), "expected vmap(...) with arguments");
  if (exportNames.contains(n))
    return error(expr->getLoc(), "'" + n +
                                     "' is an entry point for host programs "
                                     "and cannot be mapped; map the function "
                                     "it exports");
  return error(expr->getLoc(), "unknown function '" + n + "'");
}

FailureOr<AxesSpec> Importer::parseAxes(Expr *expr, StringRef what) {
  AxesSpec spec;
  spec.loc = expr->getLoc();
  auto entry = [&](Expr *e, std::optional<int64_t> &out) -> LogicalResult {
    if (isa<NoneExpr>(e)) {
      out = std::nullopt;
      return success();
    }
    if (auto *lit = dyn_cast<IntLiteralExpr>(e)) {
      out = lit->value;
      return success();
    }
    if (auto *u = dyn_cast<UnaryExpr>(e))
      if (auto *lit = dyn_cast<IntLiteralExpr>(u->operand.get())) {
        out = -lit->value;
        return success();
      }
    return error(e->getLoc(), what + " must be an integer, none, or a tuple "
                                     "of those");
  };
  if (auto *tuple = dyn_cast<TupleExpr>(expr)) {
    spec.isTuple = true;
    spec.entries.clear();
    spec.locs.clear();
    for (ExprPtr &e : tuple->elements) {
      std::optional<int64_t> v;
      if (failed(entry(e.get(), v)))
        return failure();
      spec.entries.push_back(v);
      spec.locs.push_back(e->getLoc());
    }
    return spec;
  }
  if (failed(entry(expr, spec.entries[0])))
    return failure();
  spec.locs[0] = expr->getLoc();
  return spec;
}

FailureOr<Template *> Importer::buildTemplate(CallExpr *call, StringRef owner,
                                              bool isExport) {
  llvm::SMLoc at = call->getLoc();
  if (call->args.size() != 1)
    return error(at, "vmap takes one function and the keyword arguments "
                     "in_axes=, out_axes=" +
                         Twine(isExport ? ", batch=" : ", axis_size=") +
                         "; got " + Twine(call->args.size()) +
                         " positional arguments");
  FailureOr<Callable> inner = resolveCallable(call->args[0].get(), owner);
  if (failed(inner))
    return failure();
  auto t = std::make_unique<Template>();
  t->inner = *inner;
  t->loc = at;
  t->owner = owner.str();
  t->display = "vmap(" + displayName(*inner) + ")";
  t->inAxes.loc = t->outAxes.loc = at;
  bool sawBatch = false;
  for (KeywordArg &kw : call->kwargs) {
    if (kw.name == "in_axes" || kw.name == "out_axes") {
      FailureOr<AxesSpec> spec = parseAxes(kw.value.get(), kw.name);
      if (failed(spec))
        return failure();
      (kw.name == "in_axes" ? t->inAxes : t->outAxes) = *spec;
      continue;
    }
    bool isBatch = kw.name == "batch";
    if (isBatch && !isExport)
      return error(kw.loc, "batch= is only allowed in 'export NAME = "
                           "vmap(f, ..., batch=B);'; use axis_size= here");
    if (kw.name == "axis_size" && isExport)
      return error(kw.loc, "an export sets its batch size with batch=B, not "
                           "axis_size=");
    if (!isBatch && kw.name != "axis_size")
      return error(kw.loc, "unknown keyword argument '" + kw.name +
                               "' for vmap (expected in_axes=, out_axes=" +
                               (isExport ? ", batch=)" : ", axis_size=)"));
    auto *lit = dyn_cast<IntLiteralExpr>(kw.value.get());
    if (!lit)
      return error(kw.value->getLoc(),
                   kw.name + " must be a non-negative integer");
    if (isBatch && lit->value < 1)
      return error(kw.value->getLoc(),
                   "batch must be at least 1, got " + lit->spelling);
    if (lit->value > std::numeric_limits<int32_t>::max())
      return error(kw.value->getLoc(), kw.name + " " + lit->spelling +
                                           " is too large (at most "
                                           "2147483647)");
    t->axisSize = lit->value;
    t->axisSizeLoc = kw.value->getLoc();
    sawBatch |= isBatch;
  }
  if (isExport && !sawBatch)
    return error(at, "an export needs its static batch size: add batch=B, "
                     "e.g. vmap(f, in_axes=0, batch=256)");
  unsigned n = arity(*inner);
  if (t->inAxes.isTuple && t->inAxes.entries.size() != n)
    return error(t->inAxes.loc, "in_axes has " +
                                    Twine(t->inAxes.entries.size()) +
                                    " entries for a function of " + Twine(n) +
                                    " parameter" + (n == 1 ? "" : "s"));
  if (t->outAxes.isTuple && t->outAxes.entries.size() != 1)
    return error(t->outAxes.loc, "out_axes has " +
                                     Twine(t->outAxes.entries.size()) +
                                     " entries for a function of 1 result");
  bool anyMapped = false;
  for (unsigned i = 0; i < n; ++i)
    anyMapped |= t->inAxes.get(i).has_value();
  if (!anyMapped && !t->axisSize)
    return error(at, "vmap needs axis_size= when no operand is mapped (all "
                     "in_axes are none)");
  templates.push_back(std::move(t));
  return templates.back().get();
}

FailureOr<Template *> Importer::resolveMap(MapInfo &map, llvm::SMLoc useLoc) {
  if (map.tmpl)
    return map.tmpl;
  if (map.resolving)
    return error(useLoc, "named map '" + map.decl->name +
                             "' is defined in terms of itself");
  if (++resolvingMaps > kMaxNesting)
    return error(useLoc, "named maps refer to each other more than " +
                             Twine(kMaxNesting) + " levels deep");
  map.resolving = true;
  CallExpr *call = asVmap(map.decl->value.get());
  if (!call)
    return error(map.decl->value->getLoc(),
                 "'fn " + map.decl->name +
                     " = ...' must name a vmap(...) expression; write 'fn " +
                     map.decl->name +
                     "(params) -> type { ... }' for a "
                     "function");
  FailureOr<Template *> t = buildTemplate(call, map.decl->name, false);
  if (failed(t))
    return failure();
  (*t)->display = "'" + map.decl->name + "'";
  map.tmpl = *t;
  map.resolving = false;
  --resolvingMaps;
  return *t;
}

std::string Importer::freshInnerName(StringRef owner) {
  while (true) {
    unsigned n = innerCounters[owner]++;
    std::string name = (owner + "_inner_" + Twine(n)).str();
    if (!topLevelNames.count(name) &&
        !SymbolTable::lookupSymbolIn(module, name))
      return name;
  }
}

FailureOr<func::FuncOp> Importer::materialize(const Callable &c,
                                              ArrayRef<RankedTensorType> types,
                                              llvm::SMLoc useLoc) {
  if (c.fn) {
    if (failed(ensureImported(*c.fn, useLoc)))
      return failure();
    return c.fn->op;
  }
  std::vector<const void *> key;
  for (RankedTensorType t : types)
    key.push_back(t.getAsOpaquePointer());
  auto cacheKey = std::make_pair(c.map, key);
  if (auto it = innerCache.find(cacheKey); it != innerCache.end())
    return it->second;

  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  SmallVector<Type> inputs(types.begin(), types.end());
  Location fnLoc = loc(c.map->loc);
  auto fn = func::FuncOp::create(b, fnLoc, freshInnerName(c.map->owner),
                                 FunctionType::get(context, inputs, {}));
  fn.setPrivate();
  Block *entry = fn.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);
  SmallVector<Operand> args;
  SmallVector<llvm::SMLoc> argLocs;
  for (BlockArgument a : entry->getArguments()) {
    args.push_back(Operand::ofTensor(a));
    argLocs.push_back(useLoc);
  }
  FailureOr<Value> r = applyTemplate(*c.map, args, argLocs, useLoc, body);
  if (failed(r))
    return failure();
  func::ReturnOp::create(body, fnLoc, *r);
  fn.setType(FunctionType::get(context, inputs, {r->getType()}));
  innerCache[cacheKey] = fn;
  return fn;
}

FailureOr<Value> Importer::applyTemplate(Template &t,
                                         ArrayRef<Operand> operands,
                                         ArrayRef<llvm::SMLoc> operandLocs,
                                         llvm::SMLoc callLoc, OpBuilder &b) {
  unsigned n = arity(t.inner);
  if (operands.size() != n)
    return error(callLoc, t.display + " takes " + Twine(n) + " argument" +
                              (n == 1 ? "" : "s") + ", got " +
                              Twine(operands.size()));
  FnInfo *base = innermostFn(t.inner);
  SmallVector<Value> values;
  SmallVector<RankedTensorType> perExample;
  SmallVector<Attribute> inAttrs;
  std::optional<int64_t> size;
  unsigned sizeOperand = 0;
  for (auto [i, op] : llvm::enumerate(operands)) {
    std::optional<int64_t> axis = t.inAxes.get(i);
    Value v;
    if (op.isLiteral()) {
      if (axis)
        return error(operandLocs[i],
                     "operand " + Twine(i) + " is the literal " + op.text +
                         ", which has no axis to map over; use none for it "
                         "in in_axes");
      auto pt = cast<RankedTensorType>(base->op.getFunctionType().getInput(i));
      FailureOr<Value> m = materialize(op, pt.getElementType(), {},
                                       operandLocs[i], b, operandLocs[i]);
      if (failed(m))
        return failure();
      v = *m;
    } else {
      v = op.value;
    }
    auto type = cast<RankedTensorType>(v.getType());
    values.push_back(v);
    if (!axis) {
      perExample.push_back(type);
      inAttrs.push_back(UnitAttr::get(context));
      continue;
    }
    int64_t rank = type.getRank();
    if (rank == 0)
      return error(t.inAxes.getLoc(i),
                   "in_axes maps operand " + Twine(i) + " of type " +
                       str(type) +
                       ", a scalar with no axis to map over; use none for "
                       "it");
    int64_t a = *axis;
    if (a < -rank || a >= rank)
      return error(t.inAxes.getLoc(i),
                   "in_axes[" + Twine(i) + "]: axis " + Twine(a) +
                       " is out of range for rank " + Twine(rank) +
                       " (valid: " + rangeStr(rank) + ")");
    if (a < 0)
      a += rank;
    int64_t s = type.getDimSize(a);
    if (!size) {
      size = s;
      sizeOperand = i;
    } else if (*size != s) {
      return error(callLoc,
                   "vmapped operands have different sizes on their mapped "
                   "axes: " +
                       Twine(*size) + " (operand " + Twine(sizeOperand) +
                       ") and " + Twine(s) + " (operand " + Twine(i) + ")");
    }
    SmallVector<int64_t> shape(type.getShape());
    shape.erase(shape.begin() + a);
    perExample.push_back(RankedTensorType::get(shape, type.getElementType()));
    inAttrs.push_back(builder.getI64IntegerAttr(a));
  }
  if (t.axisSize && size && *t.axisSize != *size)
    return error(t.axisSizeLoc, "axis_size=" + Twine(*t.axisSize) +
                                    " does not match size " + Twine(*size) +
                                    " of the mapped axis of operand " +
                                    Twine(sizeOperand));
  int64_t axisSize = size ? *size : *t.axisSize;

  FailureOr<func::FuncOp> callee = materialize(t.inner, perExample, callLoc);
  if (failed(callee))
    return failure();
  FunctionType ct = callee->getFunctionType();
  for (auto [i, pe] : llvm::enumerate(perExample))
    if (ct.getInput(i) != pe) {
      std::string how =
          t.inAxes.get(i)
              ? "after removing mapped axis " +
                    std::to_string(cast<IntegerAttr>(inAttrs[i]).getInt())
              : "unmapped";
      return error(operandLocs[i],
                   t.display + ": operand " + Twine(i) +
                       " has per-example type " + str(pe) + " (" + how +
                       " of " + str(values[i].getType()) + "), but " +
                       displayName(t.inner) + " expects " +
                       str(ct.getInput(i)) + " for parameter '" +
                       base->decl->params[i].name + "'");
    }

  auto resultType = cast<RankedTensorType>(ct.getResult(0));
  std::optional<int64_t> out = t.outAxes.get(0);
  Attribute outAttr = UnitAttr::get(context);
  RankedTensorType batched = resultType;
  if (out) {
    int64_t r = resultType.getRank();
    int64_t a = *out;
    if (a < -(r + 1) || a > r)
      return error(t.outAxes.getLoc(0),
                   "out_axes: axis " + Twine(a) +
                       " is out of range for a result of per-example type " +
                       str(resultType) + " (valid: " + rangeStr(r + 1) + ")");
    if (a < 0)
      a += r + 1;
    batched = arr::insertDim(resultType, a, axisSize);
    outAttr = builder.getI64IntegerAttr(a);
  }
  auto call = arr::VmapCallOp::create(
      b, loc(callLoc), TypeRange{batched},
      FlatSymbolRefAttr::get(callee->getSymNameAttr()), values,
      builder.getArrayAttr(inAttrs), builder.getArrayAttr({outAttr}),
      builder.getI64IntegerAttr(axisSize));
  return call.getResult(0);
}

FailureOr<Signature> Importer::deriveSignature(const Callable &c,
                                               llvm::SMLoc useLoc) {
  if (c.fn) {
    FunctionType ft = c.fn->op.getFunctionType();
    Signature sig;
    for (Type t : ft.getInputs())
      sig.params.push_back(cast<RankedTensorType>(t));
    sig.result = cast<RankedTensorType>(ft.getResult(0));
    return sig;
  }
  Template &t = *c.map;
  FailureOr<Signature> inner = deriveSignature(t.inner, useLoc);
  if (failed(inner))
    return failure();
  if (!t.axisSize)
    return error(useLoc, "cannot derive the per-example parameter types of " +
                             t.display +
                             ": its axis size is only known where it is "
                             "applied; give it axis_size=N, or export a fn "
                             "that applies it");
  Signature sig;
  for (auto [i, pt] : llvm::enumerate(inner->params)) {
    std::optional<int64_t> a = t.inAxes.get(i);
    if (!a) {
      sig.params.push_back(pt);
      continue;
    }
    int64_t r = pt.getRank();
    if (*a < -(r + 1) || *a > r)
      return error(t.inAxes.getLoc(i),
                   "in_axes[" + Twine(i) + "]: axis " + Twine(*a) +
                       " is out of range for rank " + Twine(r + 1) +
                       " (valid: " + rangeStr(r + 1) + ")");
    sig.params.push_back(
        arr::insertDim(pt, *a < 0 ? *a + r + 1 : *a, *t.axisSize));
  }
  sig.result = inner->result;
  if (std::optional<int64_t> a = t.outAxes.get(0)) {
    int64_t r = inner->result.getRank();
    if (*a >= -(r + 1) && *a <= r)
      sig.result =
          arr::insertDim(inner->result, *a < 0 ? *a + r + 1 : *a, *t.axisSize);
  }
  return sig;
}

//===----------------------------------------------------------------------===//
// Exports
//===----------------------------------------------------------------------===//

LogicalResult Importer::importExport(ExportDecl &ex) {
  CallExpr *call = asVmap(ex.value.get());
  if (!call)
    return error(ex.value->getLoc(),
                 "an export must be 'vmap(f, in_axes=..., out_axes=..., "
                 "batch=B)'");
  FailureOr<Template *> tmpl = buildTemplate(call, ex.name, true);
  if (failed(tmpl))
    return failure();
  Template &t = **tmpl;
  FailureOr<Signature> sig = deriveSignature(t.inner, call->args[0]->getLoc());
  if (failed(sig))
    return failure();
  int64_t batch = *t.axisSize;
  SmallVector<Type> inputs;
  for (auto [i, pt] : llvm::enumerate(sig->params)) {
    std::optional<int64_t> a = t.inAxes.get(i);
    if (!a) {
      inputs.push_back(pt);
      continue;
    }
    int64_t r = pt.getRank();
    if (*a < -(r + 1) || *a > r)
      return error(t.inAxes.getLoc(i),
                   "in_axes[" + Twine(i) + "]: axis " + Twine(*a) +
                       " is out of range for rank " + Twine(r + 1) +
                       " (valid: " + rangeStr(r + 1) + ")");
    inputs.push_back(arr::insertDim(pt, *a < 0 ? *a + r + 1 : *a, batch));
  }
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location exLoc = loc(ex.loc);
  auto fn = func::FuncOp::create(b, exLoc, ex.name,
                                 FunctionType::get(context, inputs, {}));
  Block *entry = fn.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(entry);
  SmallVector<Operand> args;
  SmallVector<llvm::SMLoc> argLocs;
  for (BlockArgument a : entry->getArguments()) {
    args.push_back(Operand::ofTensor(a));
    argLocs.push_back(call->getLoc());
  }
  FailureOr<Value> r = applyTemplate(t, args, argLocs, call->getLoc(), body);
  if (failed(r))
    return failure();
  func::ReturnOp::create(body, exLoc, *r);
  fn.setType(FunctionType::get(context, inputs, {r->getType()}));
  auto vcall = cast<arr::VmapCallOp>(r->getDefiningOp());
  fn->setAttr("arr.batch", builder.getI64IntegerAttr(batch));
  fn->setAttr("arr.in_axes", vcall.getInAxes());
  fn->setAttr("arr.out_axes", vcall.getOutAxes());
  FnInfo *base = innermostFn(t.inner);
  for (auto [i, p] : llvm::enumerate(base->decl->params))
    fn.setArgAttr(i, "arr.name", builder.getStringAttr(p.name));
  fn.setResultAttr(0, "arr.name", builder.getStringAttr("out"));
  return success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> Importer::run() {
  OwningOpRef<ModuleOp> owned =
      ModuleOp::create(locs.get(llvm::SMLoc::getFromPointer(
          sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())
              ->getBufferStart())));
  module = *owned;
  builder.setInsertionPointToEnd(module.getBody());
  if (failed(declareNames()))
    return nullptr;
  for (auto &decl : ast.functions)
    if (failed(declareFunction(fns[decl->name])))
      return nullptr;
  for (auto &decl : ast.functions)
    if (failed(ensureImported(fns[decl->name], decl->loc)))
      return nullptr;
  for (auto &decl : ast.maps)
    if (failed(resolveMap(maps[decl->name], decl->loc)))
      return nullptr;
  for (auto &ex : ast.exports)
    if (failed(importExport(*ex)))
      return nullptr;
  if (failed(verify(module))) {
    emitError(module.getLoc())
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
  Importer importer(*ast, locs, context, sourceMgr);
  return importer.run();
}
