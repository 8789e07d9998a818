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
#include "dialect/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/SourceMgr.h"

#include <deque>
#include <limits>
#include <map>

using namespace mlir;
using namespace vmapc::frontend;
namespace arr = vmapc::arr;
using vmapc::checkedByteSize;
using vmapc::describeLimitViolation;
using vmapc::kMaxBytes;
using vmapc::kMaxDimSize;

namespace {

//===----------------------------------------------------------------------===//
// Values and callables during import
//===----------------------------------------------------------------------===//

/// An evaluated expression: a tensor value, or a weakly typed literal that
/// takes its dtype from the operand next to it (JAX's weak types).
struct Operand {
  /// `arrayLit` is a weakly typed literal array; `tuple` is several values
  /// (a tuple expression or the results of a call), for `let (a, b) = ...`,
  /// `return` and `yield`.
  enum Kind { tensor, intLit, floatLit, arrayLit, tuple } kind = tensor;
  Value value;
  int64_t intValue = 0;
  double floatValue = 0.0;
  std::string text; // the literal as written, for messages
  // A literal array: its shape and elements (row-major).
  SmallVector<int64_t> shape;
  std::vector<int64_t> intValues;
  std::vector<double> floatValues;
  bool isFloatArray = false;
  std::vector<Operand> elements; // for `tuple`

  /// A scalar literal (weakly typed, takes the other operand's shape).
  bool isLiteral() const { return kind == intLit || kind == floatLit; }
  /// Not yet a tensor: a scalar literal or a literal array.
  bool isWeak() const { return isLiteral() || kind == arrayLit; }
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
  static Operand ofTuple(std::vector<Operand> elements) {
    Operand o;
    o.kind = tuple;
    o.elements = std::move(elements);
    return o;
  }
  static Operand ofValues(ValueRange values) {
    if (values.size() == 1)
      return ofTensor(values[0]);
    std::vector<Operand> elements;
    for (Value v : values)
      elements.push_back(ofTensor(v));
    return ofTuple(std::move(elements));
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
  /// vmap levels down to the function: 1 for vmap(f), 2 for vmap(vmap(f)).
  unsigned depth = 1;
};

struct FnInfo {
  FunctionDecl *decl = nullptr;
  func::FuncOp op;
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
  SmallVector<RankedTensorType> results;
};

constexpr llvm::StringLiteral kBuiltins[] = {
    "exp",    "log",    "tanh",  "sqrt", "sum",       "max",     "min",
    "argmin", "argmax", "abs",   "sign", "maximum",   "minimum", "pow",
    "where",  "f32",    "i32",   "mean", "transpose", "reshape", "broadcast_to",
    "concat", "iota",   "zeros", "ones"};

using vmapc::kMaxNestingDepth;

bool isBuiltin(StringRef name) { return llvm::is_contained(kBuiltins, name); }

/// What dtype an operator accepts.
enum class DTypeReq { numeric, floating, boolean, any };

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
  /// Fails with an error at `at` when `type`, the type of `what`, is past
  /// the size limits (dialect/Limits.h).
  LogicalResult checkLimits(RankedTensorType type, llvm::SMLoc at,
                            const Twine &what);

  // Types.
  Type elementType(DType dtype);
  RankedTensorType convertType(const TypeAST &type);
  static std::string str(Type type);
  static std::string dtypeStr(Type elementType);

  // Declarations.
  LogicalResult declareNames();
  LogicalResult declareFunction(FnInfo &fn);
  LogicalResult importBody(FnInfo &fn);
  LogicalResult importExport(ExportDecl &ex);
  LogicalResult checkCallGraph();

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
  FailureOr<SmallVector<Value>> applyTemplate(Template &t,
                                              ArrayRef<Operand> operands,
                                              ArrayRef<llvm::SMLoc> operandLocs,
                                              llvm::SMLoc callLoc,
                                              OpBuilder &b);
  unsigned numResults(const Callable &c) const;
  std::string freshInnerName(StringRef owner);

  // Statements and scopes.
  using Scope = llvm::StringMap<Variable>;
  struct FnContext;
  /// The body of a `for` being built: outer tensors it reads become consts
  /// (block arguments after the index), in order of first use.
  struct LoopFrame {
    FnContext *outer;
    Block *block;
    SmallVector<Value> consts;
    llvm::DenseMap<Value, Value> captured;
  };
  struct FnContext {
    OpBuilder &b;
    Scope &scope;
    StringRef owner;
    LoopFrame *loop = nullptr;
  };
  const Variable *findVariable(StringRef name, FnContext &ctx);
  std::optional<Variable> lookupVariable(StringRef name, FnContext &ctx);
  Operand capture(const Operand &op, LoopFrame &frame);
  LogicalResult execStmts(ArrayRef<Stmt> stmts, FnContext &ctx);
  LogicalResult execLet(const Stmt &stmt, FnContext &ctx);
  LogicalResult execFor(const Stmt &stmt, FnContext &ctx);
  FailureOr<SmallVector<Value>> matchTypes(const Operand &value, Expr *expr,
                                           ArrayRef<RankedTensorType> types,
                                           StringRef what, OpBuilder &b,
                                           ArrayRef<std::string> carries = {});

  // Expressions.
  FailureOr<Operand> eval(Expr *expr, FnContext &ctx);
  FailureOr<Operand> evalAny(Expr *expr, FnContext &ctx);
  FailureOr<Operand> evalBinary(BinaryExpr *expr, FnContext &ctx);
  FailureOr<Operand> foldLiterals(BinaryExpr *expr, const Operand &lhs,
                                  const Operand &rhs, FnContext &ctx);
  FailureOr<Operand> evalMatmul(BinaryExpr *expr, Value lhs, Value rhs,
                                FnContext &ctx);
  FailureOr<Operand> evalCall(CallExpr *expr, FnContext &ctx);
  FailureOr<Operand> evalBuiltin(CallExpr *expr, StringRef name,
                                 FnContext &ctx);
  FailureOr<Operand> evalNewBuiltin(CallExpr *expr, StringRef name,
                                    FnContext &ctx);
  FailureOr<Operand> evalSlice(SliceExpr *expr, FnContext &ctx);
  FailureOr<Value> transposeValue(Value v, ArrayRef<int64_t> perm,
                                  llvm::SMLoc at, OpBuilder &b);
  FailureOr<SmallVector<Operand>> evalArgs(CallExpr *expr, FnContext &ctx);
  FailureOr<SmallVector<Value>>
  unify(ArrayRef<Operand> ops, ArrayRef<llvm::SMLoc> litLocs, llvm::SMLoc at,
        StringRef opName, DTypeReq req, FnContext &ctx, Value cond = {});
  FailureOr<Value> materialize(const Operand &op, Type elementType,
                               ArrayRef<int64_t> shape, llvm::SMLoc useLoc,
                               OpBuilder &b, llvm::SMLoc litLoc);
  FailureOr<Value> materializeDefault(const Operand &op, llvm::SMLoc litLoc,
                                      OpBuilder &b);
  FailureOr<Value> evalTensor(Expr *expr, FnContext &ctx);
  FailureOr<SmallVector<int64_t>> normalizeAxes(Expr *axis, int64_t rank,
                                                bool single, StringRef fn);
  FailureOr<SmallVector<int64_t>> staticInts(Expr *expr, StringRef what,
                                             bool allowScalar);
  LogicalResult checkNewName(StringRef name, llvm::SMLoc loc, FnContext &ctx,
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
  std::map<std::pair<Template *, std::vector<const void *>>, func::FuncOp>
      innerCache;
  llvm::StringMap<unsigned> innerCounters;
  unsigned resolvingMaps = 0;
  /// The function whose body is being imported.
  FnInfo *importing = nullptr;
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

LogicalResult Importer::checkLimits(RankedTensorType type, llvm::SMLoc at,
                                    const Twine &what) {
  if (checkedByteSize(type))
    return success();
  return error(at,
               what + " would have type " + str(type) +
                   ", past the size limits: " + describeLimitViolation(type) +
                   " (every dimension is at most 2147483647 and every "
                   "array holds fewer than 2^62 bytes)");
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
  SmallVector<Type> results;
  for (const TypeAST &t : decl.resultTypes)
    results.push_back(convertType(t));
  auto type = FunctionType::get(context, inputs, results);
  fn.op = func::FuncOp::create(builder, loc(decl.loc), decl.name, type);
  fn.op.setPrivate();
  return success();
}

/// Imports the body of `fn`. Calls need only the declared signatures of
/// their callees (declareFunction), so bodies are imported one after the
/// other, never recursively: a long call chain costs no stack here, and
/// checkCallGraph finds recursion and chains nested too deeply afterwards.
LogicalResult Importer::importBody(FnInfo &fn) {
  importing = &fn;
  FunctionDecl &decl = *fn.decl;
  Block *entry = fn.op.addEntryBlock();
  OpBuilder b = OpBuilder::atBlockBegin(entry);
  Scope scope;
  for (auto [i, p] : llvm::enumerate(decl.params)) {
    entry->getArgument(i).setLoc(loc(p.loc));
    scope[p.name] = {Operand::ofTensor(entry->getArgument(i)), p.loc};
  }
  FnContext ctx{b, scope, decl.name};
  SmallVector<RankedTensorType> declared;
  for (const TypeAST &t : decl.resultTypes)
    declared.push_back(convertType(t));

  const Stmt &ret = decl.body.back();
  if (failed(execStmts(ArrayRef<Stmt>(decl.body).drop_back(), ctx)))
    return failure();
  FailureOr<Operand> value = evalAny(ret.value.get(), ctx);
  if (failed(value))
    return failure();
  FailureOr<SmallVector<Value>> results =
      matchTypes(*value, ret.value.get(), declared, "'" + decl.name + "'", b);
  if (failed(results))
    return failure();
  func::ReturnOp::create(b, loc(ret.loc), *results);
  return success();
}

/// Checks a returned (or yielded) value against the declared types (or the
/// carries' types, named by `carries`): one value per type; a weak literal
/// takes its type (a scalar literal as a splat of the declared shape).
FailureOr<SmallVector<Value>>
Importer::matchTypes(const Operand &value, Expr *expr,
                     ArrayRef<RankedTensorType> types, StringRef what,
                     OpBuilder &b, ArrayRef<std::string> carries) {
  SmallVector<const Operand *> items;
  SmallVector<Expr *> exprs;
  auto *tupleExpr = dyn_cast<TupleExpr>(expr);
  if (value.kind == Operand::tuple) {
    for (auto [i, e] : llvm::enumerate(value.elements)) {
      items.push_back(&e);
      exprs.push_back(tupleExpr ? tupleExpr->elements[i].get() : expr);
    }
  } else {
    items.push_back(&value);
    exprs.push_back(expr);
  }
  bool isYield = !carries.empty();
  auto plural = [](size_t n, StringRef word) {
    return std::to_string(n) + " " + word.str() + (n == 1 ? "" : "s");
  };
  if (items.size() != types.size()) {
    std::string expected;
    for (auto [i, t] : llvm::enumerate(types))
      expected +=
          (i ? ", " : "") + (isYield ? carries[i] + ": " + str(t) : str(t));
    if (isYield)
      return error(expr->getLoc(),
                   "'yield' gives " + plural(items.size(), "value") + " for " +
                       plural(types.size(), "carried variable") + " (" +
                       expected + ")");
    return error(
        expr->getLoc(),
        "'return' gives " + plural(items.size(), "value") + ", but " + what +
            " returns " + plural(types.size(), "value") +
            (types.size() == 1 ? ": " + expected : ": (" + expected + ")"));
  }
  SmallVector<Value> values;
  for (auto [i, item] : llvm::enumerate(items)) {
    llvm::SMLoc at = exprs[i]->getLoc();
    RankedTensorType type = types[i];
    if (item->isWeak()) {
      FailureOr<Value> v =
          materialize(*item, type.getElementType(), type.getShape(), at, b, at);
      if (failed(v))
        return failure();
      values.push_back(*v);
      continue;
    }
    Type got = item->value.getType();
    if (got == type) {
      values.push_back(item->value);
      continue;
    }
    if (isYield)
      return error(at, "yielded value " + Twine(i) + " has type " + str(got) +
                           ", but carried variable '" + carries[i] +
                           "' has type " + str(type));
    if (types.size() == 1)
      return error(at, "return type " + str(got) + " does not match declared " +
                           str(type) + " of " + what);
    return error(at, "returned value " + Twine(i) + " has type " + str(got) +
                         ", but result " + Twine(i) + " of " + what +
                         " is declared " + str(type));
  }
  return values;
}

LogicalResult Importer::execStmts(ArrayRef<Stmt> stmts, FnContext &ctx) {
  for (const Stmt &stmt : stmts) {
    LogicalResult r =
        stmt.kind == Stmt::forLoop ? execFor(stmt, ctx) : execLet(stmt, ctx);
    if (failed(r))
      return failure();
  }
  return success();
}

LogicalResult Importer::execLet(const Stmt &stmt, FnContext &ctx) {
  FailureOr<Operand> value = evalAny(stmt.value.get(), ctx);
  if (failed(value))
    return failure();
  if (!stmt.destructure) {
    if (failed(checkNewName(stmt.name, stmt.nameLoc, ctx, "variable")))
      return failure();
    ctx.scope[stmt.name] = {*value, stmt.nameLoc};
    return success();
  }
  size_t n = stmt.names.size();
  size_t got = value->kind == Operand::tuple ? value->elements.size() : 1;
  if (got != n)
    return error(stmt.nameLoc, "'let' unpacks " + Twine(n) + " name" +
                                   (n == 1 ? "" : "s") + " from " + Twine(got) +
                                   " value" + (got == 1 ? "" : "s"));
  for (auto [i, nl] : llvm::enumerate(stmt.names)) {
    for (size_t j = 0; j < i; ++j)
      if (stmt.names[j].first == nl.first)
        return error(nl.second,
                     "'" + nl.first + "' appears twice in 'let (...)'");
    if (failed(checkNewName(nl.first, nl.second, ctx, "variable")))
      return failure();
    ctx.scope[nl.first] = {
        value->kind == Operand::tuple ? value->elements[i] : *value, nl.second};
  }
  return success();
}

const Variable *Importer::findVariable(StringRef name, FnContext &ctx) {
  auto it = ctx.scope.find(name);
  if (it != ctx.scope.end())
    return &it->second;
  return ctx.loop ? findVariable(name, *ctx.loop->outer) : nullptr;
}

Operand Importer::capture(const Operand &op, LoopFrame &frame) {
  if (op.kind == Operand::tuple) {
    std::vector<Operand> elements;
    for (const Operand &e : op.elements)
      elements.push_back(capture(e, frame));
    return Operand::ofTuple(std::move(elements));
  }
  if (op.kind != Operand::tensor)
    return op; // literals are rebuilt inside the body
  auto it = frame.captured.find(op.value);
  if (it != frame.captured.end())
    return Operand::ofTensor(it->second);
  BlockArgument arg = frame.block->insertArgument(
      1 + frame.consts.size(), op.value.getType(), op.value.getLoc());
  frame.consts.push_back(op.value);
  frame.captured[op.value] = arg;
  return Operand::ofTensor(arg);
}

std::optional<Variable> Importer::lookupVariable(StringRef name,
                                                 FnContext &ctx) {
  auto it = ctx.scope.find(name);
  if (it != ctx.scope.end())
    return it->second;
  if (!ctx.loop)
    return std::nullopt;
  std::optional<Variable> outer = lookupVariable(name, *ctx.loop->outer);
  if (!outer)
    return std::nullopt;
  Variable v{capture(outer->operand, *ctx.loop), outer->loc};
  ctx.scope[name] = v;
  return v;
}

LogicalResult Importer::execFor(const Stmt &stmt, FnContext &ctx) {
  const ForStmt &f = *stmt.forStmt;
  // The index and the carries are new names; the carries outlive the loop.
  if (failed(checkNewName(f.index, f.indexLoc, ctx, "loop index")))
    return failure();
  for (auto [i, c] : llvm::enumerate(f.carries)) {
    if (c.name == f.index)
      return error(c.loc, "'" + c.name +
                              "' is the loop index; choose another name for "
                              "the carried variable");
    for (size_t j = 0; j < i; ++j)
      if (f.carries[j].name == c.name)
        return error(c.loc, "'" + c.name + "' is carried twice");
    if (failed(checkNewName(c.name, c.loc, ctx, "carried variable")))
      return failure();
  }
  SmallVector<Value> inits;
  SmallVector<Type> types;
  for (const ForStmt::Carry &c : f.carries) {
    FailureOr<Operand> init = eval(c.init.get(), ctx);
    if (failed(init))
      return failure();
    FailureOr<Value> v = materializeDefault(*init, c.init->getLoc(), ctx.b);
    if (failed(v))
      return failure();
    inits.push_back(*v);
    types.push_back(v->getType());
  }

  // The body is built in a temporary op without consts; the final op, with
  // the consts found while building it, takes the body over.
  auto staging = arr::ForOp::create(ctx.b, loc(stmt.loc), TypeRange(types),
                                    static_cast<uint64_t>(f.tripCount),
                                    ValueRange(), inits);
  auto *block = new Block();
  staging.getBody().push_back(block);
  auto i32 = RankedTensorType::get({}, IntegerType::get(context, 32));
  block->addArgument(i32, loc(f.indexLoc));
  Scope bodyScope;
  bodyScope[f.index] = {Operand::ofTensor(block->getArgument(0)), f.indexLoc};
  for (auto [c, t] : llvm::zip(f.carries, types))
    bodyScope[c.name] = {Operand::ofTensor(block->addArgument(t, loc(c.loc))),
                         c.loc};
  OpBuilder bb = OpBuilder::atBlockBegin(block);
  LoopFrame frame{&ctx, block, {}, llvm::DenseMap<Value, Value>()};
  FnContext inner{bb, bodyScope, ctx.owner, &frame};
  llvm::scope_exit cleanup([&] { staging.erase(); });
  if (failed(execStmts(f.body, inner)))
    return failure();
  FailureOr<Operand> yielded = evalAny(f.yieldValue.get(), inner);
  if (failed(yielded))
    return failure();
  SmallVector<RankedTensorType> carryTypes;
  for (Type t : types)
    carryTypes.push_back(cast<RankedTensorType>(t));
  SmallVector<std::string> carryNames;
  for (const ForStmt::Carry &c : f.carries)
    carryNames.push_back(c.name);
  FailureOr<SmallVector<Value>> next = matchTypes(
      *yielded, f.yieldValue.get(), carryTypes, "the loop", bb, carryNames);
  if (failed(next))
    return failure();
  arr::YieldOp::create(bb, loc(f.yieldLoc), *next);
  auto forOp = arr::ForOp::create(ctx.b, loc(stmt.loc), TypeRange(types),
                                  static_cast<uint64_t>(f.tripCount),
                                  frame.consts, inits);
  forOp.getBody().takeBody(staging.getBody());
  for (auto [c, r] : llvm::zip(f.carries, forOp.getResults()))
    ctx.scope[c.name] = {Operand::ofTensor(r), c.loc};
  return success();
}

LogicalResult Importer::checkNewName(StringRef name, llvm::SMLoc nameLoc,
                                     FnContext &ctx, StringRef what) {
  if (const Variable *v = findVariable(name, ctx))
    return error(nameLoc, "'" + name + "' is already defined at line " +
                              Twine(lineOf(v->loc)) +
                              "; names cannot be redefined, choose another "
                              "name");
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
  if (op.kind == Operand::tensor)
    return op.value;
  if (op.kind == Operand::tuple)
    return error(useLoc, "a tuple of " + Twine(op.elements.size()) +
                             " values cannot be used as one value");
  if (op.kind == Operand::arrayLit) {
    auto type = RankedTensorType::get(op.shape, elemType);
    std::string own = str(type);
    if (ArrayRef<int64_t>(op.shape) != shape)
      return error(useLoc, "the literal array has shape " +
                               own.substr(own.find('[')) + ", but " +
                               str(RankedTensorType::get(shape, elemType)) +
                               " is expected here");
    Attribute attr;
    if (elemType.isF32()) {
      SmallVector<float> values;
      for (double d : op.floatValues)
        values.push_back(static_cast<float>(d));
      attr = DenseElementsAttr::get(type, ArrayRef<float>(values));
    } else if (elemType.isInteger(32)) {
      if (op.isFloatArray)
        return error(useLoc, "a literal array with float elements cannot be "
                             "used with an i32 operand (no implicit "
                             "conversion); write integers");
      SmallVector<int32_t> values;
      for (int64_t v : op.intValues) {
        if (v > std::numeric_limits<int32_t>::max() ||
            v < std::numeric_limits<int32_t>::min())
          return error(litLoc, "integer " + Twine(v) +
                                   " in the literal array does not fit in "
                                   "i32 (-2147483648..2147483647)");
        values.push_back(static_cast<int32_t>(v));
      }
      attr = DenseElementsAttr::get(type, ArrayRef<int32_t>(values));
    } else {
      return error(useLoc,
                   "a literal array cannot be used with a bool operand");
    }
    return arr::ConstantOp::create(b, loc(litLoc), type, cast<TypedAttr>(attr))
        .getResult();
  }
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
  bool isInt = op.kind == Operand::intLit ||
               (op.kind == Operand::arrayLit && !op.isFloatArray);
  Type t = isInt ? Type(IntegerType::get(context, 32))
                 : Type(Float32Type::get(context));
  return materialize(
      op, t, op.kind == Operand::arrayLit ? op.shape : SmallVector<int64_t>(),
      litLoc, b, litLoc);
}

/// Evaluates an operand that must be a tensor (a literal takes its default
/// dtype).
FailureOr<Value> Importer::evalTensor(Expr *expr, FnContext &ctx) {
  FailureOr<Operand> v = eval(expr, ctx);
  if (failed(v))
    return failure();
  return materializeDefault(*v, expr->getLoc(), ctx.b);
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<Operand> Importer::eval(Expr *expr, FnContext &ctx) {
  FailureOr<Operand> v = evalAny(expr, ctx);
  if (failed(v))
    return failure();
  if (v->kind == Operand::tuple)
    return error(expr->getLoc(),
                 "this is a tuple of " + Twine(v->elements.size()) +
                     " values, not one value; unpack it with 'let (a, b) "
                     "= ...'");
  return v;
}

FailureOr<Operand> Importer::evalAny(Expr *expr, FnContext &ctx) {
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
  case Expr::tuple: {
    auto *t = cast<TupleExpr>(expr);
    if (t->elements.empty())
      return error(expr->getLoc(), "the empty tuple () is only allowed as "
                                   "an axis= or shape value");
    std::vector<Operand> elements;
    for (ExprPtr &e : t->elements) {
      FailureOr<Operand> v = eval(e.get(), ctx);
      if (failed(v))
        return failure();
      elements.push_back(*v);
    }
    return Operand::ofTuple(std::move(elements));
  }
  case Expr::arrayLiteral: {
    auto *a = cast<ArrayLiteralExpr>(expr);
    Operand o;
    o.kind = Operand::arrayLit;
    o.shape = a->shape;
    o.intValues = a->intValues;
    o.floatValues = a->floatValues;
    o.isFloatArray = a->isFloat;
    o.text = "literal array";
    return o;
  }
  case Expr::slice:
    return evalSlice(cast<SliceExpr>(expr), ctx);
  case Expr::transposeT: {
    auto *t = cast<TransposeTExpr>(expr);
    FailureOr<Value> v = evalTensor(t->base.get(), ctx);
    if (failed(v))
      return failure();
    int64_t rank = cast<RankedTensorType>(v->getType()).getRank();
    SmallVector<int64_t> perm;
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
    FailureOr<Value> r = transposeValue(*v, perm, expr->getLoc(), ctx.b);
    if (failed(r))
      return failure();
    return Operand::ofTensor(*r);
  }
  case Expr::name: {
    auto *n = cast<NameExpr>(expr);
    if (std::optional<Variable> var = lookupVariable(n->name, ctx))
      return var->operand;
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
    if (u->isNot) {
      if (v->isWeak())
        return error(expr->getLoc(),
                     "'not' needs a bool operand, got the " + v->text);
      auto t = cast<RankedTensorType>(v->value.getType());
      if (!t.getElementType().isInteger(1))
        return error(expr->getLoc(), "'not' needs a bool operand, got " +
                                         str(t) +
                                         " (compare it first, e.g. x != 0)");
      return Operand::ofTensor(
          arr::NotOp::create(ctx.b, loc(expr->getLoc()), v->value).getResult());
    }
    if (v->kind == Operand::arrayLit) {
      Operand r = *v;
      for (int64_t &i : r.intValues)
        i = -i;
      for (double &d : r.floatValues)
        d = -d;
      return r;
    }
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
  if (expr->op == BinaryOp::logicalAnd || expr->op == BinaryOp::logicalOr)
    return error(at, "'" + spelling(expr->op) +
                         "' needs bool operands, got the literals " + l.text +
                         " and " + r.text);
  if (expr->op == BinaryOp::pow) {
    // Python: int ** non-negative int is an int; otherwise a float.
    if (!isFloat && r.intValue >= 0) {
      int64_t base = l.intValue, e = r.intValue, v = 1;
      bool overflow = false;
      if (base == 0 || base == 1 || base == -1)
        v = e == 0 ? 1 : (base == -1 && e % 2 == 0 ? 1 : base);
      else
        for (int64_t i = 0; i < e && !overflow; ++i) // |base| >= 2: <= 63 steps
          overflow = __builtin_mul_overflow(v, base, &v);
      if (overflow)
        return error(at, "integer overflow in " + text);
      return Operand::ofInt(v, "(" + text + ")");
    }
    double v = std::pow(l.asDouble(), r.asDouble());
    if (l.asDouble() == 0 && r.asDouble() < 0)
      return error(at, "division by zero in " + text);
    if (std::isnan(v))
      return error(at, "the value of " + text + " is not a real number");
    if (!(std::fabs(v) <= std::numeric_limits<float>::max()))
      return error(at, "the value of " + text + " is out of range for f32");
    return Operand::ofFloat(v, "(" + text + ")");
  }
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

/// Gives operands one dtype and one shape, as numpy and JAX do: tensors
/// must agree on the dtype; weak scalar literals take it and the result's
/// shape (a splat), literal arrays take it and are broadcast; then every
/// operand whose shape differs from the result's gets an
/// `arr.broadcast_in_dim`. `cond` (for where) takes part in the shape only
/// and comes first in the result.
FailureOr<SmallVector<Value>> Importer::unify(ArrayRef<Operand> ops,
                                              ArrayRef<llvm::SMLoc> litLocs,
                                              llvm::SMLoc at, StringRef opName,
                                              DTypeReq req, FnContext &ctx,
                                              Value cond) {
  Type elem;
  SmallVector<RankedTensorType> tensorTypes;
  for (const Operand &op : ops) {
    if (op.kind != Operand::tensor)
      continue;
    auto t = cast<RankedTensorType>(op.value.getType());
    if (elem && t.getElementType() != elem) {
      return error(at, "operands of '" + opName + "' have different dtypes: " +
                           str(tensorTypes.front()) + " and " + str(t) +
                           " (there is no implicit conversion; use f32(x) "
                           "or i32(x))");
    }
    elem = t.getElementType();
    tensorTypes.push_back(t);
  }
  if (!elem) {
    // Only literals: an integer or float literal is i32 or f32 by default.
    bool anyFloat = false;
    for (const Operand &op : ops)
      anyFloat |= op.kind == Operand::floatLit ||
                  (op.kind == Operand::arrayLit && op.isFloatArray);
    if (req == DTypeReq::boolean)
      return error(at, "'" + opName + "' needs bool operands, got the " +
                           ops.front().text);
    elem = anyFloat || req == DTypeReq::floating
               ? Type(Float32Type::get(context))
               : Type(IntegerType::get(context, 32));
  }
  auto typesStr = [&] {
    std::string s;
    for (auto [i, t] : llvm::enumerate(tensorTypes))
      s += (i ? " and " : "") + str(t);
    return s;
  };
  if (req == DTypeReq::numeric && elem.isInteger(1))
    return error(at, "'" + opName + "' needs f32 or i32 operands, got " +
                         typesStr());
  if (req == DTypeReq::floating && !elem.isF32())
    return error(at, "'" + opName + "' needs f32 operands, got " + typesStr() +
                         (elem.isInteger(32) ? " (convert with f32(x))" : ""));
  if (req == DTypeReq::boolean && !elem.isInteger(1))
    return error(at, "'" + opName + "' needs bool operands, got " + typesStr());

  // numpy broadcasting of the shapes, in operand order.
  SmallVector<int64_t> shape;
  std::optional<RankedTensorType> running;
  auto join = [&](RankedTensorType t) -> LogicalResult {
    if (!running) {
      running = t;
      shape.assign(t.getShape().begin(), t.getShape().end());
      return success();
    }
    int64_t rank = std::max<int64_t>(shape.size(), t.getRank());
    SmallVector<int64_t> result(rank);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t li = i - (rank - int64_t(shape.size()));
      int64_t ri = i - (rank - t.getRank());
      int64_t ls = li >= 0 ? shape[li] : 1;
      int64_t rs = ri >= 0 ? t.getDimSize(ri) : 1;
      if (ls != rs && ls != 1 && rs != 1)
        return error(at, "shapes " + str(*running) + " and " + str(t) +
                             " cannot broadcast (dimension sizes " + Twine(ls) +
                             " and " + Twine(rs) + " differ and neither is 1)");
      result[i] = ls == 1 ? rs : ls;
    }
    shape = result;
    running = RankedTensorType::get(shape, elem);
    return success();
  };
  if (cond && failed(join(cast<RankedTensorType>(cond.getType()))))
    return failure();
  for (const Operand &op : ops) {
    if (op.kind == Operand::tensor) {
      if (failed(join(cast<RankedTensorType>(op.value.getType()))))
        return failure();
    } else if (op.kind == Operand::arrayLit) {
      if (failed(join(RankedTensorType::get(op.shape, elem))))
        return failure();
    }
  }
  if (failed(checkLimits(RankedTensorType::get(shape, elem), at,
                         "the result of '" + opName + "'")))
    return failure();
  auto broadcast = [&](Value v) -> Value {
    auto t = cast<RankedTensorType>(v.getType());
    if (t.getShape() == ArrayRef<int64_t>(shape))
      return v;
    SmallVector<int64_t> dims;
    for (int64_t i = 0; i < t.getRank(); ++i)
      dims.push_back(int64_t(shape.size()) - t.getRank() + i);
    auto type = RankedTensorType::get(shape, t.getElementType());
    return arr::BroadcastInDimOp::create(ctx.b, loc(at), type, v, dims)
        .getResult();
  };
  SmallVector<Value> values;
  if (cond)
    values.push_back(broadcast(cond));
  for (auto [i, op] : llvm::enumerate(ops)) {
    if (op.kind == Operand::tensor) {
      values.push_back(broadcast(op.value));
      continue;
    }
    FailureOr<Value> v =
        op.kind == Operand::arrayLit
            ? materialize(op, elem, op.shape, at, ctx.b, litLocs[i])
            : materialize(op, elem, shape, at, ctx.b, litLocs[i]);
    if (failed(v))
      return failure();
    values.push_back(broadcast(*v));
  }
  return values;
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

  if (expr->op == BinaryOp::matmul) {
    for (const Operand *o : {&*lhs, &*rhs})
      if (o->isLiteral())
        return error(at, "'@' needs arrays of rank 1 or 2 on both sides, got "
                         "the literal " +
                             o->text);
  }
  DTypeReq req =
      expr->op == BinaryOp::pow ? DTypeReq::floating
      : (expr->op == BinaryOp::logicalAnd || expr->op == BinaryOp::logicalOr)
          ? DTypeReq::boolean
          : DTypeReq::numeric;
  Operand ops[] = {*lhs, *rhs};
  llvm::SMLoc locs[] = {expr->lhs->getLoc(), expr->rhs->getLoc()};
  if (expr->op == BinaryOp::matmul) {
    // No broadcasting: only the dtypes are unified.
    SmallVector<Value> vs;
    Type elem;
    for (auto [i, o] : llvm::enumerate(ops)) {
      FailureOr<Value> v = o.kind == Operand::tensor
                               ? FailureOr<Value>(o.value)
                               : materializeDefault(o, locs[i], ctx.b);
      if (failed(v))
        return failure();
      vs.push_back(*v);
    }
    auto lt = cast<RankedTensorType>(vs[0].getType());
    auto rt = cast<RankedTensorType>(vs[1].getType());
    if (lt.getElementType() != rt.getElementType())
      return error(at, "operands of '@' have different dtypes: " + str(lt) +
                           " and " + str(rt) +
                           " (there is no implicit conversion; use f32(x) "
                           "or i32(x))");
    if (lt.getElementType().isInteger(1))
      return error(at, "'@' needs f32 or i32 operands, got " + str(lt) +
                           " and " + str(rt));
    return evalMatmul(expr, vs[0], vs[1], ctx);
  }
  FailureOr<SmallVector<Value>> vs = unify(ops, locs, at, opName, req, ctx);
  if (failed(vs))
    return failure();
  Value l = (*vs)[0], r = (*vs)[1];
  auto shape = cast<RankedTensorType>(l.getType()).getShape();
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
  if (failed(checkLimits(type, at, "the result of '@'")))
    return failure();
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
    FailureOr<SmallVector<Value>> v =
        applyTemplate(**t, *args, argLocs, at, ctx.b);
    if (failed(v))
      return failure();
    return Operand::ofValues(*v);
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
  if (findVariable(n, ctx))
    return error(at, "'" + n + "' is a variable, not a function");
  if (isBuiltin(n))
    return evalBuiltin(expr, n, ctx);

  if (auto mit = maps.find(n); mit != maps.end()) {
    FailureOr<Template *> t = resolveMap(mit->second, at);
    if (failed(t) || failed(noKeywords("'" + n.str() + "'")))
      return failure();
    FailureOr<SmallVector<Operand>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    FailureOr<SmallVector<Value>> v =
        applyTemplate(**t, *args, argLocs, at, ctx.b);
    if (failed(v))
      return failure();
    return Operand::ofValues(*v);
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
  FunctionType type = fn.op.getFunctionType();
  SmallVector<Value> values;
  for (auto [i, a] : llvm::enumerate(*args)) {
    auto pt = cast<RankedTensorType>(type.getInput(i));
    llvm::SMLoc argLoc = argLocs[i];
    if (a.isWeak()) {
      if (a.isLiteral() && pt.getRank() != 0)
        return error(argLoc, "argument " + Twine(i) + " of '" + n +
                                 "' is a literal, but parameter '" +
                                 decl.params[i].name + "' has type " + str(pt));
      FailureOr<Value> v = materialize(a, pt.getElementType(), pt.getShape(),
                                       argLoc, ctx.b, argLoc);
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
  return Operand::ofValues(call.getResults());
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
  bool isReduce = name == "sum" || name == "max" || name == "min";
  bool isArg = name == "argmin" || name == "argmax";
  if (!isUnary && !isReduce && !isArg)
    return evalNewBuiltin(expr, name, ctx);
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
    FailureOr<Value> v = materialize(
        *arg, Float32Type::get(context),
        arg->kind == Operand::arrayLit ? arg->shape : SmallVector<int64_t>(),
        argLoc, ctx.b, argLoc);
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

/// Static integers: `3`, `-1`, or a tuple of them (`(2, -1)`, `()`).
FailureOr<SmallVector<int64_t>> Importer::staticInts(Expr *expr, StringRef what,
                                                     bool allowScalar) {
  SmallVector<Expr *> items;
  if (auto *tuple = dyn_cast<TupleExpr>(expr)) {
    for (ExprPtr &e : tuple->elements)
      items.push_back(e.get());
  } else if (allowScalar) {
    items.push_back(expr);
  } else {
    return error(expr->getLoc(), what + " must be a tuple of integers, e.g. "
                                        "(1, 0)");
  }
  SmallVector<int64_t> values;
  for (Expr *item : items) {
    std::optional<int64_t> value;
    if (auto *lit = dyn_cast<IntLiteralExpr>(item))
      value = lit->value;
    else if (auto *u = dyn_cast<UnaryExpr>(item); u && !u->isNot)
      if (auto *lit = dyn_cast<IntLiteralExpr>(u->operand.get()))
        value = -lit->value;
    if (!value)
      return error(item->getLoc(),
                   what + " must be " +
                       (allowScalar ? "an integer or a tuple of integers"
                                    : "a tuple of integers") +
                       " written as literals");
    values.push_back(*value);
  }
  return values;
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + (shape.size() == 1 ? ",)" : ")");
}

FailureOr<Value> Importer::transposeValue(Value v, ArrayRef<int64_t> perm,
                                          llvm::SMLoc at, OpBuilder &b) {
  auto t = cast<RankedTensorType>(v.getType());
  bool identity = true;
  SmallVector<int64_t> shape;
  for (auto [i, p] : llvm::enumerate(perm)) {
    identity &= int64_t(i) == p;
    shape.push_back(t.getDimSize(p));
  }
  if (identity)
    return v;
  auto type = RankedTensorType::get(shape, t.getElementType());
  return arr::TransposeOp::create(b, loc(at), type, v, perm).getResult();
}

FailureOr<Operand> Importer::evalSlice(SliceExpr *expr, FnContext &ctx) {
  FailureOr<Value> v = evalTensor(expr->base.get(), ctx);
  if (failed(v))
    return failure();
  auto t = cast<RankedTensorType>(v->getType());
  int64_t rank = t.getRank();
  if (int64_t(expr->indices.size()) > rank)
    return error(expr->indices[rank].loc,
                 "too many indices: " + str(t) + " has " + Twine(rank) +
                     " dimension" + (rank == 1 ? "" : "s") + ", got " +
                     Twine(expr->indices.size()) + " indices");
  SmallVector<int64_t> start, stride, shape, kept;
  bool full = true;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = t.getDimSize(d);
    if (d >= int64_t(expr->indices.size())) {
      start.push_back(0);
      stride.push_back(1);
      shape.push_back(n);
      kept.push_back(n);
      continue;
    }
    const SliceIndex &idx = expr->indices[d];
    if (idx.isIndex) {
      int64_t i = *idx.start;
      if (i < -n || i >= n)
        return error(idx.loc, "index " + Twine(i) +
                                  " is out of range for dimension " + Twine(d) +
                                  " of " + str(t) + " (size " + Twine(n) +
                                  ", valid: " + rangeStr(n) + ")");
      start.push_back(i < 0 ? i + n : i);
      stride.push_back(1);
      shape.push_back(1);
      full = false;
      continue;
    }
    // Python's slice.indices(n).
    int64_t step = idx.step.value_or(1);
    int64_t lower = step > 0 ? 0 : -1, upper = step > 0 ? n : n - 1;
    auto clamp = [&](std::optional<int64_t> b, int64_t dflt) {
      if (!b)
        return dflt;
      int64_t x = *b;
      if (x < 0) {
        x += n;
        return x < lower ? lower : x;
      }
      return x > upper ? upper : x;
    };
    int64_t b0 = clamp(idx.start, step > 0 ? lower : upper);
    int64_t e0 = clamp(idx.stop, step > 0 ? upper : lower);
    int64_t len = step > 0 ? (e0 > b0 ? (e0 - b0 - 1) / step + 1 : 0)
                           : (b0 > e0 ? (b0 - e0 - 1) / (-step) + 1 : 0);
    if (len == 0) {
      auto part = [](std::optional<int64_t> x) {
        return x ? std::to_string(*x) : std::string();
      };
      std::string text = part(idx.start) + ":" + part(idx.stop) +
                         (idx.step ? ":" + part(idx.step) : "");
      return error(idx.loc, "the slice " + text + " of dimension " + Twine(d) +
                                " of " + str(t) + " (size " + Twine(n) +
                                ") is empty; empty arrays are not supported");
    }
    start.push_back(b0);
    stride.push_back(step);
    shape.push_back(len);
    kept.push_back(len);
    full &= b0 == 0 && step == 1 && len == n;
  }
  if (full)
    return Operand::ofTensor(*v);
  Location at = loc(expr->getLoc());
  auto sliced = RankedTensorType::get(shape, t.getElementType());
  Value r = arr::SliceOp::create(ctx.b, at, sliced, *v, start, stride);
  if (kept.size() != shape.size())
    r = arr::ReshapeOp::create(
        ctx.b, at, RankedTensorType::get(kept, t.getElementType()), r);
  return Operand::ofTensor(r);
}

FailureOr<Operand> Importer::evalNewBuiltin(CallExpr *expr, StringRef name,
                                            FnContext &ctx) {
  llvm::SMLoc at = expr->getLoc();
  Location opLoc = loc(at);
  auto checkArgs = [&](size_t minPos, size_t maxPos,
                       ArrayRef<StringRef> keywords) -> LogicalResult {
    for (KeywordArg &kw : expr->kwargs) {
      if (llvm::is_contained(keywords, kw.name))
        continue;
      std::string expected;
      for (auto [i, k] : llvm::enumerate(keywords))
        expected += (i ? ", " : "") + k.str() + "=";
      return error(kw.loc,
                   "unknown keyword argument '" + kw.name + "' for '" + name +
                       "'" +
                       (keywords.empty() ? std::string(" (it takes none)")
                                         : " (expected " + expected + ")"));
    }
    size_t n = expr->args.size();
    if (n < minPos || n > maxPos)
      return error(
          at, "'" + name + "' takes " +
                  (minPos == maxPos ? Twine(minPos)
                                    : Twine(minPos) + " or " + Twine(maxPos)) +
                  " argument" + (maxPos == 1 ? "" : "s") + ", got " + Twine(n));
    return success();
  };
  auto keyword = [&](StringRef k) -> Expr * {
    for (KeywordArg &kw : expr->kwargs)
      if (kw.name == k)
        return kw.value.get();
    return nullptr;
  };
  auto argLoc = [&](size_t i) { return expr->args[i]->getLoc(); };

  if (name == "abs" || name == "sign") {
    if (failed(checkArgs(1, 1, {})))
      return failure();
    FailureOr<Value> v = evalTensor(expr->args[0].get(), ctx);
    if (failed(v))
      return failure();
    auto t = cast<RankedTensorType>(v->getType());
    if (t.getElementType().isInteger(1))
      return error(argLoc(0),
                   "'" + name + "' needs an f32 or i32 operand, got " + str(t));
    Value r = name == "abs" ? arr::AbsOp::create(ctx.b, opLoc, *v).getResult()
                            : arr::SignOp::create(ctx.b, opLoc, *v).getResult();
    return Operand::ofTensor(r);
  }

  if (name == "maximum" || name == "minimum" || name == "pow") {
    if (failed(checkArgs(2, 2, {})))
      return failure();
    FailureOr<SmallVector<Operand>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    llvm::SMLoc locs[] = {argLoc(0), argLoc(1)};
    FailureOr<SmallVector<Value>> vs =
        unify(*args, locs, at, name,
              name == "pow" ? DTypeReq::floating : DTypeReq::numeric, ctx);
    if (failed(vs))
      return failure();
    Value l = (*vs)[0], r = (*vs)[1];
    Value result;
    if (name == "maximum")
      result = arr::MaximumOp::create(ctx.b, opLoc, l, r);
    else if (name == "minimum")
      result = arr::MinimumOp::create(ctx.b, opLoc, l, r);
    else
      result = arr::PowOp::create(ctx.b, opLoc, l, r);
    return Operand::ofTensor(result);
  }

  if (name == "where") {
    if (failed(checkArgs(3, 3, {})))
      return failure();
    FailureOr<SmallVector<Operand>> args = evalArgs(expr, ctx);
    if (failed(args))
      return failure();
    const Operand &c = (*args)[0];
    if (c.kind != Operand::tensor || !cast<RankedTensorType>(c.value.getType())
                                          .getElementType()
                                          .isInteger(1))
      return error(argLoc(0),
                   "the condition of 'where' must be bool, got " +
                       (c.kind == Operand::tensor ? str(c.value.getType())
                                                  : "the " + c.text));
    Operand ops[] = {(*args)[1], (*args)[2]};
    llvm::SMLoc locs[] = {argLoc(1), argLoc(2)};
    FailureOr<SmallVector<Value>> vs =
        unify(ops, locs, at, name, DTypeReq::any, ctx, c.value);
    if (failed(vs))
      return failure();
    Value r = arr::SelectOp::create(ctx.b, opLoc, (*vs)[1].getType(), (*vs)[0],
                                    (*vs)[1], (*vs)[2]);
    return Operand::ofTensor(r);
  }

  if (name == "f32" || name == "i32") {
    if (failed(checkArgs(1, 1, {})))
      return failure();
    FailureOr<Operand> a = eval(expr->args[0].get(), ctx);
    if (failed(a))
      return failure();
    Type target = name == "f32" ? Type(Float32Type::get(context))
                                : Type(IntegerType::get(context, 32));
    FailureOr<Value> v;
    if (a->kind == Operand::intLit || name == "f32")
      v = a->kind == Operand::tensor ? FailureOr<Value>(a->value)
                                     : materialize(*a, target,
                                                   a->kind == Operand::arrayLit
                                                       ? a->shape
                                                       : SmallVector<int64_t>(),
                                                   argLoc(0), ctx.b, argLoc(0));
    else
      v = materializeDefault(*a, argLoc(0), ctx.b);
    if (failed(v))
      return failure();
    auto t = cast<RankedTensorType>(v->getType());
    if (t.getElementType() == target)
      return Operand::ofTensor(*v);
    auto type = RankedTensorType::get(t.getShape(), target);
    return Operand::ofTensor(
        arr::ConvertOp::create(ctx.b, opLoc, type, *v).getResult());
  }

  if (name == "mean") {
    if (failed(checkArgs(1, 1, {"axis"})))
      return failure();
    FailureOr<Value> v = evalTensor(expr->args[0].get(), ctx);
    if (failed(v))
      return failure();
    auto t = cast<RankedTensorType>(v->getType());
    if (!t.getElementType().isF32())
      return error(argLoc(0), "'mean' needs an f32 operand, got " + str(t) +
                                  " (convert it with f32(x))");
    SmallVector<int64_t> dims;
    Expr *axisExpr = keyword("axis");
    if (axisExpr && !isa<NoneExpr>(axisExpr)) {
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
    int64_t count = 1;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (llvm::is_contained(dims, i))
        count *= t.getDimSize(i);
      else
        shape.push_back(t.getDimSize(i));
    }
    auto type = RankedTensorType::get(shape, t.getElementType());
    Value sum = arr::ReduceSumOp::create(ctx.b, opLoc, type, *v, dims);
    auto attr = DenseElementsAttr::get(
        type, llvm::ArrayRef<float>(static_cast<float>(count)));
    Value n = arr::ConstantOp::create(ctx.b, opLoc, type, attr);
    return Operand::ofTensor(arr::DivOp::create(ctx.b, opLoc, sum, n));
  }

  if (name == "transpose") {
    if (failed(checkArgs(1, 1, {"perm"})))
      return failure();
    FailureOr<Value> v = evalTensor(expr->args[0].get(), ctx);
    if (failed(v))
      return failure();
    int64_t rank = cast<RankedTensorType>(v->getType()).getRank();
    SmallVector<int64_t> perm;
    if (Expr *permExpr = keyword("perm")) {
      FailureOr<SmallVector<int64_t>> p = staticInts(permExpr, "perm=", false);
      if (failed(p))
        return failure();
      if (int64_t(p->size()) != rank)
        return error(permExpr->getLoc(),
                     "perm= has " + Twine(p->size()) + " entries for " +
                         str(v->getType()) + " of rank " + Twine(rank));
      for (int64_t a : *p) {
        if (a < -rank || a >= rank)
          return error(permExpr->getLoc(),
                       "perm= entry " + Twine(a) +
                           " is out of range for rank " + Twine(rank) +
                           " (valid: " + rangeStr(rank) + ")");
        a = a < 0 ? a + rank : a;
        if (llvm::is_contained(perm, a))
          return error(permExpr->getLoc(), "perm= is not a permutation: axis " +
                                               Twine(a) + " appears twice");
        perm.push_back(a);
      }
    } else {
      for (int64_t i = rank - 1; i >= 0; --i)
        perm.push_back(i);
    }
    FailureOr<Value> r = transposeValue(*v, perm, at, ctx.b);
    if (failed(r))
      return failure();
    return Operand::ofTensor(*r);
  }

  if (name == "reshape" || name == "broadcast_to") {
    if (failed(checkArgs(2, 2, {})))
      return failure();
    FailureOr<Operand> a = eval(expr->args[0].get(), ctx);
    if (failed(a))
      return failure();
    FailureOr<SmallVector<int64_t>> target = staticInts(
        expr->args[1].get(), "the shape of '" + name.str() + "'", true);
    if (failed(target))
      return failure();
    SmallVector<int64_t> shape = *target;
    if (name == "broadcast_to") {
      for (int64_t d : shape)
        if (d < 1 || d > kMaxDimSize)
          return error(argLoc(1), "dimension sizes must be from 1 to " +
                                      Twine(kMaxDimSize) + ", got " +
                                      shapeStr(shape));
      if (a->isLiteral()) {
        FailureOr<Value> m = materializeDefault(*a, argLoc(0), ctx.b);
        if (failed(m))
          return failure();
        a = Operand::ofTensor(*m);
      }
      FailureOr<Value> v = materializeDefault(*a, argLoc(0), ctx.b);
      if (failed(v))
        return failure();
      auto t = cast<RankedTensorType>(v->getType());
      int64_t rank = shape.size();
      bool ok = t.getRank() <= rank;
      SmallVector<int64_t> dims;
      for (int64_t i = 0; ok && i < t.getRank(); ++i) {
        int64_t d = rank - t.getRank() + i;
        int64_t s = t.getDimSize(i);
        ok = s == shape[d] || s == 1;
        dims.push_back(d);
      }
      if (!ok)
        return error(at, "cannot broadcast " + str(t) + " to shape " +
                             shapeStr(shape) +
                             " (numpy rules: align the last dimensions; each "
                             "size must match or be 1)");
      if (t.getShape() == ArrayRef<int64_t>(shape))
        return Operand::ofTensor(*v);
      auto type = RankedTensorType::get(shape, t.getElementType());
      if (failed(checkLimits(type, argLoc(1), "the result of 'broadcast_to'")))
        return failure();
      return Operand::ofTensor(
          arr::BroadcastInDimOp::create(ctx.b, opLoc, type, *v, dims)
              .getResult());
    }
    FailureOr<Value> v = materializeDefault(*a, argLoc(0), ctx.b);
    if (failed(v))
      return failure();
    auto t = cast<RankedTensorType>(v->getType());
    int64_t known = 1;
    int inferred = -1;
    for (auto [i, d] : llvm::enumerate(shape)) {
      if (d == -1) {
        if (inferred >= 0)
          return error(argLoc(1), "only one dimension of the shape " +
                                      shapeStr(shape) + " can be -1");
        inferred = i;
        continue;
      }
      if (d < 1 || d > kMaxDimSize)
        return error(argLoc(1),
                     "dimension sizes must be from 1 to " + Twine(kMaxDimSize) +
                         " (or one -1, inferred), got " + shapeStr(shape));
      // The operand has fewer than 2^62 elements: a larger product cannot
      // match it, and the check keeps `known` from overflowing.
      std::optional<int64_t> product = llvm::checkedMul(known, d);
      if (!product || *product >= kMaxBytes)
        return error(argLoc(1), "cannot reshape " + str(t) + " (" +
                                    Twine(t.getNumElements()) +
                                    " elements) to " + shapeStr(shape) +
                                    " (2^62 elements or more)");
      known = *product;
    }
    int64_t total = t.getNumElements();
    if (inferred >= 0) {
      if (total % known != 0)
        return error(argLoc(1), "cannot reshape " + str(t) + " (" +
                                    Twine(total) + " elements) to " +
                                    shapeStr(shape) +
                                    ": the -1 cannot be inferred");
      shape[inferred] = total / known;
    } else if (known != total) {
      return error(argLoc(1), "cannot reshape " + str(t) + " (" + Twine(total) +
                                  " elements) to " + shapeStr(shape) + " (" +
                                  Twine(known) + " elements)");
    }
    if (t.getShape() == ArrayRef<int64_t>(shape))
      return Operand::ofTensor(*v);
    auto type = RankedTensorType::get(shape, t.getElementType());
    if (failed(checkLimits(type, argLoc(1), "the result of 'reshape'")))
      return failure();
    return Operand::ofTensor(
        arr::ReshapeOp::create(ctx.b, opLoc, type, *v).getResult());
  }

  if (name == "concat") {
    if (failed(checkArgs(1, 1, {"axis"})))
      return failure();
    FailureOr<Operand> a = evalAny(expr->args[0].get(), ctx);
    if (failed(a))
      return failure();
    if (a->kind != Operand::tuple)
      return error(argLoc(0), "'concat' takes a tuple of arrays, e.g. "
                              "concat((a, b), axis=0)");
    auto *tupleExpr = dyn_cast<TupleExpr>(expr->args[0].get());
    SmallVector<Value> pieces;
    RankedTensorType first;
    for (auto [i, piece] : llvm::enumerate(a->elements)) {
      llvm::SMLoc pl = tupleExpr ? tupleExpr->elements[i]->getLoc() : argLoc(0);
      if (piece.kind != Operand::tensor)
        return error(pl, "piece " + Twine(i) + " of 'concat' is the " +
                             piece.text +
                             ", which has no dtype of its own; convert it "
                             "with f32(...) or i32(...)");
      auto t = cast<RankedTensorType>(piece.value.getType());
      if (t.getRank() == 0)
        return error(pl, "piece " + Twine(i) + " of 'concat' is a scalar (" +
                             str(t) +
                             "); concat joins arrays of rank at least 1");
      if (!first) {
        first = t;
      } else if (t.getElementType() != first.getElementType()) {
        return error(pl, "pieces of 'concat' have different dtypes: " +
                             str(first) + " and " + str(t));
      } else if (t.getRank() != first.getRank()) {
        return error(pl, "pieces of 'concat' have different ranks: " +
                             str(first) + " and " + str(t));
      }
      pieces.push_back(piece.value);
    }
    int64_t rank = first.getRank();
    int64_t axis = 0;
    if (Expr *axisExpr = keyword("axis")) {
      FailureOr<SmallVector<int64_t>> d =
          normalizeAxes(axisExpr, rank, true, name);
      if (failed(d))
        return failure();
      axis = (*d)[0];
    }
    SmallVector<int64_t> shape(first.getShape());
    shape[axis] = 0;
    for (auto [i, p] : llvm::enumerate(pieces)) {
      auto t = cast<RankedTensorType>(p.getType());
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && t.getDimSize(d) != first.getDimSize(d))
          return error(
              tupleExpr ? tupleExpr->elements[i]->getLoc() : argLoc(0),
              "pieces of 'concat' along axis " + Twine(axis) +
                  " must agree on the other dimensions: " + str(first) +
                  " and " + str(t) + " differ on dimension " + Twine(d));
      // Each size is at most 2^31 - 1: the sum can only pass the limit,
      // which checkLimits reports, not overflow int64 (pieces < 2^32).
      shape[axis] += t.getDimSize(axis);
    }
    auto type = RankedTensorType::get(shape, first.getElementType());
    if (failed(checkLimits(type, at, "the result of 'concat'")))
      return failure();
    return Operand::ofTensor(arr::ConcatOp::create(ctx.b, opLoc, type, pieces,
                                                   static_cast<uint64_t>(axis))
                                 .getResult());
  }

  if (name == "iota") {
    if (failed(checkArgs(1, 1, {})))
      return failure();
    auto *lit = dyn_cast<IntLiteralExpr>(expr->args[0].get());
    if (!lit || lit->value < 1 ||
        lit->value > std::numeric_limits<int32_t>::max())
      return error(argLoc(0), "the size of 'iota' must be an integer literal "
                              "from 1 to 2147483647");
    auto type =
        RankedTensorType::get({lit->value}, IntegerType::get(context, 32));
    return Operand::ofTensor(
        arr::IotaOp::create(ctx.b, opLoc, type, uint64_t(0)).getResult());
  }

  // zeros / ones
  if (failed(checkArgs(1, 1, {"dtype"})))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = staticInts(
      expr->args[0].get(), "the shape of '" + name.str() + "'", true);
  if (failed(shape))
    return failure();
  for (int64_t d : *shape)
    if (d < 1 || d > kMaxDimSize)
      return error(argLoc(0), "dimension sizes must be from 1 to " +
                                  Twine(kMaxDimSize) + ", got " +
                                  shapeStr(*shape));
  Type elem = Float32Type::get(context);
  if (Expr *dt = keyword("dtype")) {
    auto *n = dyn_cast<NameExpr>(dt);
    StringRef dn = n ? StringRef(n->name) : StringRef();
    if (dn == "i32")
      elem = IntegerType::get(context, 32);
    else if (dn == "bool")
      elem = IntegerType::get(context, 1);
    else if (dn != "f32")
      return error(dt->getLoc(), "dtype= must be f32, i32 or bool");
  }
  bool one = name == "ones";
  auto type = RankedTensorType::get(*shape, elem);
  if (failed(checkLimits(type, argLoc(0), "the result of '" + name + "'")))
    return failure();
  Attribute attr;
  if (elem.isF32())
    attr = DenseElementsAttr::get(type, llvm::ArrayRef<float>(one ? 1.f : 0.f));
  else if (elem.isInteger(32))
    attr = DenseElementsAttr::get(type, llvm::ArrayRef<int32_t>(one ? 1 : 0));
  else
    attr = DenseElementsAttr::get(type, one);
  return Operand::ofTensor(
      arr::ConstantOp::create(ctx.b, opLoc, type, cast<TypedAttr>(attr))
          .getResult());
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

unsigned Importer::numResults(const Callable &c) const {
  if (c.fn)
    return c.fn->decl->resultTypes.size();
  return numResults(c.map->inner);
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
  if (isBuiltin(n))
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
  t->depth = inner->map ? inner->map->depth + 1 : 1;
  // Each level becomes one function in the IR: bounded as calls are.
  if (t->depth > kMaxNestingDepth)
    return error(at, "vmap is nested more than " + Twine(kMaxNestingDepth) +
                         " levels deep (through named maps); that is the "
                         "limit for calls, vmaps and 'for' loops nested in "
                         "one another");
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
  unsigned results = numResults(*inner);
  if (t->outAxes.isTuple && t->outAxes.entries.size() != results)
    return error(t->outAxes.loc,
                 "out_axes has " + Twine(t->outAxes.entries.size()) +
                     " entries for a function of " + Twine(results) +
                     " result" + (results == 1 ? "" : "s"));
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
  if (++resolvingMaps > kMaxNestingDepth)
    return error(useLoc, "named maps refer to each other more than " +
                             Twine(kMaxNestingDepth) + " levels deep");
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
  if (c.fn)
    return c.fn->op;
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
  FailureOr<SmallVector<Value>> r =
      applyTemplate(*c.map, args, argLocs, useLoc, body);
  if (failed(r))
    return failure();
  func::ReturnOp::create(body, fnLoc, *r);
  fn.setType(FunctionType::get(context, inputs, ValueRange(*r).getTypes()));
  innerCache[cacheKey] = fn;
  return fn;
}

FailureOr<SmallVector<Value>>
Importer::applyTemplate(Template &t, ArrayRef<Operand> operands,
                        ArrayRef<llvm::SMLoc> operandLocs, llvm::SMLoc callLoc,
                        OpBuilder &b) {
  unsigned n = arity(t.inner);
  if (operands.size() != n)
    return error(callLoc, t.display + " takes " + Twine(n) + " argument" +
                              (n == 1 ? "" : "s") + ", got " +
                              Twine(operands.size()));
  FnInfo *base = innermostFn(t.inner);
  // Mapping the function being imported is recursion (other cycles are
  // found once every body is imported, by checkCallGraph); said first, it
  // explains the mismatched per-example types that would follow.
  if (base == importing)
    return error(callLoc, "'" + base->decl->name + "' calls itself (" +
                              base->decl->name + " -> " + base->decl->name +
                              "); recursion is not supported");
  SmallVector<Value> values;
  SmallVector<RankedTensorType> perExample;
  SmallVector<Attribute> inAttrs;
  std::optional<int64_t> size;
  unsigned sizeOperand = 0;
  for (auto [i, op] : llvm::enumerate(operands)) {
    std::optional<int64_t> axis = t.inAxes.get(i);
    Value v;
    if (op.isLiteral() || (op.kind == Operand::arrayLit && !axis)) {
      if (axis)
        return error(operandLocs[i],
                     "operand " + Twine(i) + " is the literal " + op.text +
                         ", which has no axis to map over; use none for it "
                         "in in_axes");
      auto pt = cast<RankedTensorType>(base->op.getFunctionType().getInput(i));
      FailureOr<Value> m = materialize(
          op, pt.getElementType(),
          op.kind == Operand::arrayLit ? op.shape : SmallVector<int64_t>(),
          operandLocs[i], b, operandLocs[i]);
      if (failed(m))
        return failure();
      v = *m;
    } else if (op.kind == Operand::arrayLit) {
      FailureOr<Value> m = materializeDefault(op, operandLocs[i], b);
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

  SmallVector<Type> batchedTypes;
  SmallVector<Attribute> outAttrs;
  for (auto [j, rt] : llvm::enumerate(ct.getResults())) {
    auto resultType = cast<RankedTensorType>(rt);
    std::optional<int64_t> out = t.outAxes.get(j);
    if (!out) {
      outAttrs.push_back(UnitAttr::get(context));
      batchedTypes.push_back(resultType);
      continue;
    }
    int64_t r = resultType.getRank();
    int64_t a = *out;
    std::string which =
        ct.getNumResults() == 1 ? std::string() : "[" + std::to_string(j) + "]";
    if (a < -(r + 1) || a > r)
      return error(t.outAxes.getLoc(j),
                   "out_axes" + which + ": axis " + Twine(a) +
                       " is out of range for a result of per-example type " +
                       str(resultType) + " (valid: " + rangeStr(r + 1) + ")");
    if (a < 0)
      a += r + 1;
    batchedTypes.push_back(arr::insertDim(resultType, a, axisSize));
    if (failed(checkLimits(cast<RankedTensorType>(batchedTypes.back()), callLoc,
                           "result " + Twine(j) + " of " + t.display +
                               " over " + Twine(axisSize) + " examples")))
      return failure();
    outAttrs.push_back(builder.getI64IntegerAttr(a));
  }
  auto call = arr::VmapCallOp::create(
      b, loc(callLoc), TypeRange(batchedTypes),
      FlatSymbolRefAttr::get(callee->getSymNameAttr()), values,
      builder.getArrayAttr(inAttrs), builder.getArrayAttr(outAttrs),
      builder.getI64IntegerAttr(axisSize));
  return SmallVector<Value>(call.getResults());
}

FailureOr<Signature> Importer::deriveSignature(const Callable &c,
                                               llvm::SMLoc useLoc) {
  if (c.fn) {
    FunctionType ft = c.fn->op.getFunctionType();
    Signature sig;
    for (Type t : ft.getInputs())
      sig.params.push_back(cast<RankedTensorType>(t));
    for (Type t : ft.getResults())
      sig.results.push_back(cast<RankedTensorType>(t));
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
    if (failed(checkLimits(sig.params.back(), t.inAxes.getLoc(i),
                           "parameter " + Twine(i) + " of " + t.display)))
      return failure();
  }
  for (auto [j, rt] : llvm::enumerate(inner->results)) {
    RankedTensorType result = rt;
    if (std::optional<int64_t> a = t.outAxes.get(j)) {
      int64_t r = rt.getRank();
      if (*a >= -(r + 1) && *a <= r)
        result = arr::insertDim(rt, *a < 0 ? *a + r + 1 : *a, *t.axisSize);
      if (failed(checkLimits(result, t.outAxes.getLoc(j),
                             "result " + Twine(j) + " of " + t.display)))
        return failure();
    }
    sig.results.push_back(result);
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
  // The artifact's limits (runtime/vmapc/ArtifactFormat.h), checked here so
  // that an entry the runtime could not load fails before any pass runs.
  for (auto [what, count] :
       {std::pair<StringRef, size_t>{"inputs", sig->params.size()},
        {"outputs", sig->results.size()}})
    if (count > vmapc::kMaxEntryArgs)
      return error(ex.loc, "export '" + ex.name + "' has " + Twine(count) +
                               " " + what + "; an entry has at most " +
                               Twine(vmapc::kMaxEntryArgs) + " " + what +
                               " (pass several values as one array)");
  // A caller passes a batched argument with its batch axis, so its rank
  // per example is one less than the artifact's rank limit.
  for (auto [what, types, axes] :
       {std::tuple<StringRef, ArrayRef<RankedTensorType>, const AxesSpec *>{
            "input", sig->params, &t.inAxes},
        {"output", sig->results, &t.outAxes}})
    for (auto [i, type] : llvm::enumerate(types)) {
      bool batched = axes->get(i).has_value();
      size_t maxRank = vmapc::kMaxEntryRank - (batched ? 1 : 0);
      if (static_cast<size_t>(type.getRank()) > maxRank)
        return error(
            ex.loc,
            "export '" + ex.name + "': " + what + " " + Twine(i) +
                " has per-example type " + str(type) + " of rank " +
                Twine(type.getRank()) +
                (batched
                     ? "; a batched argument has rank at most " +
                           Twine(maxRank) + " per example (" +
                           Twine(vmapc::kMaxEntryRank) + " with the batch axis)"
                     : "; an argument has rank at most " + Twine(maxRank)));
    }
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
    if (failed(checkLimits(cast<RankedTensorType>(inputs.back()),
                           t.inAxes.getLoc(i),
                           "input " + Twine(i) + " of export '" + ex.name +
                               "' at batch " + Twine(batch))))
      return failure();
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
  FailureOr<SmallVector<Value>> r =
      applyTemplate(t, args, argLocs, call->getLoc(), body);
  if (failed(r))
    return failure();
  func::ReturnOp::create(body, exLoc, *r);
  fn.setType(FunctionType::get(context, inputs, ValueRange(*r).getTypes()));
  auto vcall = cast<arr::VmapCallOp>(r->front().getDefiningOp());
  fn->setAttr("arr.batch", builder.getI64IntegerAttr(batch));
  fn->setAttr("arr.in_axes", vcall.getInAxes());
  fn->setAttr("arr.out_axes", vcall.getOutAxes());
  FnInfo *base = innermostFn(t.inner);
  for (auto [i, p] : llvm::enumerate(base->decl->params))
    fn.setArgAttr(i, "arr.name", builder.getStringAttr(p.name));
  // Results are named out, or out0, out1, ... for several.
  for (size_t j = 0; j < r->size(); ++j)
    fn.setResultAttr(j, "arr.name",
                     builder.getStringAttr(r->size() == 1
                                               ? std::string("out")
                                               : "out" + std::to_string(j)));
  return success();
}

//===----------------------------------------------------------------------===//
// The call graph: recursion and nesting depth
//===----------------------------------------------------------------------===//

/// Finds recursion (an error: the language has none) and bounds the nesting
/// depth: the function bodies (user functions and vmap levels, which are
/// functions in the IR) and `for` bodies that enclose any op, through calls.
/// depth(f) = 1 + the largest, over the ops of f, of (the `for` bodies
/// around the op in f) + depth(callee) for a call or vmap_call. After
/// inlining an entry, no loop is nested deeper than its depth, and
/// `--arr-vmap` recurses once per enclosing body (dialect/Limits.h). An
/// iterative depth-first search, callees first.
LogicalResult Importer::checkCallGraph() {
  struct Edge {
    Operation *op;
    func::FuncOp callee;
    unsigned loops; // `for` bodies around `op` in its function
  };
  struct Node {
    func::FuncOp fn;
    enum State { visiting, done } state = visiting;
    SmallVector<Edge> edges;
    size_t next = 0; // the next edge to follow
    unsigned maxLoops = 0;
    unsigned depth = 0;
    int deepest = -1; // the edge that gives `depth`, if any
  };
  std::deque<Node> storage; // stable addresses
  llvm::DenseMap<Operation *, Node *> nodes;
  SymbolTable symbols(module);
  auto visit = [&](func::FuncOp fn) {
    Node &node = storage.emplace_back();
    node.fn = fn;
    nodes[fn] = &node;
    fn.walk([&](Operation *op) {
      unsigned loops = 0;
      for (Operation *p = op->getParentOp(); p && p != fn; p = p->getParentOp())
        loops += isa<arr::ForOp>(p);
      node.maxLoops = std::max(node.maxLoops, loops);
      FlatSymbolRefAttr callee;
      if (auto call = dyn_cast<func::CallOp>(op))
        callee = call.getCalleeAttr();
      else if (auto vmap = dyn_cast<arr::VmapCallOp>(op))
        callee = vmap.getCalleeAttr();
      if (callee)
        if (auto target = symbols.lookup<func::FuncOp>(callee.getValue()))
          node.edges.push_back({op, target, loops});
    });
    return &node;
  };
  // A user function's name, or nullopt for a generated one (a vmap level).
  auto userName = [&](func::FuncOp fn) -> std::optional<std::string> {
    auto it = fns.find(fn.getSymName());
    if (it == fns.end() || it->second.op != fn)
      return std::nullopt;
    return fn.getSymName().str();
  };

  for (auto root : module.getOps<func::FuncOp>()) {
    if (nodes.count(root))
      continue;
    SmallVector<Node *> stack{visit(root)};
    while (!stack.empty()) {
      Node &node = *stack.back();
      if (node.next < node.edges.size()) {
        Edge edge = node.edges[node.next++];
        auto it = nodes.find(edge.callee);
        if (it == nodes.end()) {
          stack.push_back(visit(edge.callee));
          continue;
        }
        if (it->second->state == Node::done)
          continue;
        // A call of a function on the stack: recursion.
        std::string chain;
        for (auto f = llvm::find(stack, it->second); f != stack.end(); ++f)
          if (std::optional<std::string> name = userName((*f)->fn))
            chain += *name + " -> ";
        std::string name =
            userName(edge.callee).value_or(edge.callee.getSymName().str());
        return emitError(edge.op->getLoc())
               << "'" << name << "' calls itself (" << chain << name
               << "); recursion is not supported";
      }
      // Every callee is done: the depth of this function.
      node.depth = 1 + node.maxLoops;
      for (auto [i, edge] : llvm::enumerate(node.edges)) {
        unsigned d = 1 + edge.loops + nodes[edge.callee]->depth;
        if (d > node.depth) {
          node.depth = d;
          node.deepest = static_cast<int>(i);
        }
      }
      node.state = Node::done;
      stack.pop_back();
      if (node.depth <= kMaxNestingDepth)
        continue;
      // Its callees are within the limit: this function's deepest call (or
      // loop) is the one that passes it.
      if (node.deepest < 0)
        return emitError(node.fn.getLoc())
               << "'for' loops nest " << node.maxLoops << " levels deep in '"
               << node.fn.getSymName()
               << "'; calls, vmaps and 'for' loops may nest at most "
               << kMaxNestingDepth << " levels in one another";
      std::string chain = node.fn.getSymName().str();
      const Node *n = &node;
      for (unsigned shown = 0; n->deepest >= 0; ++shown) {
        if (shown == 4) {
          chain += " -> ...";
          break;
        }
        func::FuncOp callee = n->edges[n->deepest].callee;
        chain += " -> " + callee.getSymName().str();
        n = nodes[callee];
      }
      return emitError(node.edges[node.deepest].op->getLoc())
             << "calls, vmaps and 'for' loops nest " << node.depth
             << " levels deep through this call (" << chain
             << "); they may nest at most " << kMaxNestingDepth
             << " levels in one another: make the call chain shorter";
    }
  }
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
    if (failed(importBody(fns[decl->name])))
      return nullptr;
  importing = nullptr;
  for (auto &decl : ast.maps)
    if (failed(resolveMap(maps[decl->name], decl->loc)))
      return nullptr;
  for (auto &ex : ast.exports)
    if (failed(importExport(*ex)))
      return nullptr;
  if (failed(checkCallGraph()))
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
