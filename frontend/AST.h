//===- AST.h - syntax tree of the .arr language -----------------*- C++ -*-===//
//
// What the parser produces and the importer reads. The tree is untyped:
// names are resolved, types inferred and shapes checked during import
// (frontend/MLIRGen.cpp and the parts it calls). Every node keeps the source
// location of the token that names it (an operator, a call's callee, a
// literal).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_AST_H
#define VMAPC_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vmapc::frontend {

enum class DType { f32, i32, boolean };

/// A declared type: `f32`, `i32[3]`, `bool[2, 4]`.
struct TypeAST {
  DType dtype = DType::f32;
  llvm::SmallVector<int64_t> shape;
  llvm::SMLoc loc;
};

class Expr;
using ExprPtr = std::unique_ptr<Expr>;

class Expr {
public:
  enum Kind {
    intLiteral,   // 3
    floatLiteral, // 3.5
    none,         // none (only as an axis)
    name,         // x, sqdist
    tuple,        // (a, b) (only as an axis list)
    unary,        // -x
    binary,       // x + y
    call,         // f(x, axis=0), vmap(f, in_axes=0)(x)
    slice,        // x[1:5, ::-1, 2]
    transposeT,   // x.T
    arrayLiteral, // [[1.0, 2.0], [3.0, 4.0]]
    atUpdate,     // x.at[i].add(v)
  };

  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}
  virtual ~Expr() = default;

  Kind getKind() const { return kind; }
  llvm::SMLoc getLoc() const { return loc; }
  /// The height of the tree below this node (1 for a leaf); the parser
  /// bounds it so that import and destruction cannot overflow the stack.
  unsigned getHeight() const { return height; }

protected:
  void addChild(const Expr *child) {
    if (child && child->height + 1 > height)
      height = child->height + 1;
  }

private:
  Kind kind;
  llvm::SMLoc loc;
  unsigned height = 1;
};

struct IntLiteralExpr : Expr {
  IntLiteralExpr(llvm::SMLoc loc, int64_t value, llvm::StringRef spelling)
      : Expr(intLiteral, loc), value(value), spelling(spelling) {}
  int64_t value;
  std::string spelling;
  static bool classof(const Expr *e) { return e->getKind() == intLiteral; }
};

struct FloatLiteralExpr : Expr {
  FloatLiteralExpr(llvm::SMLoc loc, double value, llvm::StringRef spelling)
      : Expr(floatLiteral, loc), value(value), spelling(spelling) {}
  double value;
  std::string spelling;
  static bool classof(const Expr *e) { return e->getKind() == floatLiteral; }
};

struct NoneExpr : Expr {
  explicit NoneExpr(llvm::SMLoc loc) : Expr(none, loc) {}
  static bool classof(const Expr *e) { return e->getKind() == none; }
};

struct NameExpr : Expr {
  NameExpr(llvm::SMLoc loc, llvm::StringRef name)
      : Expr(Expr::name, loc), name(name) {}
  std::string name;
  static bool classof(const Expr *e) { return e->getKind() == Expr::name; }
};

struct TupleExpr : Expr {
  TupleExpr(llvm::SMLoc loc, std::vector<ExprPtr> elements)
      : Expr(tuple, loc), elements(std::move(elements)) {
    for (const ExprPtr &e : this->elements)
      addChild(e.get());
  }
  std::vector<ExprPtr> elements;
  static bool classof(const Expr *e) { return e->getKind() == tuple; }
};

struct UnaryExpr : Expr {
  UnaryExpr(llvm::SMLoc loc, ExprPtr operand)
      : Expr(unary, loc), operand(std::move(operand)) {
    addChild(this->operand.get());
  }
  UnaryExpr(llvm::SMLoc loc, ExprPtr operand, bool isNot)
      : UnaryExpr(loc, std::move(operand)) {
    this->isNot = isNot;
  }
  ExprPtr operand;
  bool isNot = false; // `not x` (else `-x`)
  static bool classof(const Expr *e) { return e->getKind() == unary; }
};

enum class BinaryOp {
  add,
  sub,
  mul,
  div,
  matmul,
  pow,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logicalAnd,
  logicalOr
};

/// The operator's source spelling (`+`, `<=`, ...).
llvm::StringRef spelling(BinaryOp op);

struct BinaryExpr : Expr {
  BinaryExpr(llvm::SMLoc loc, BinaryOp op, ExprPtr lhs, ExprPtr rhs)
      : Expr(binary, loc), op(op), lhs(std::move(lhs)), rhs(std::move(rhs)) {
    addChild(this->lhs.get());
    addChild(this->rhs.get());
  }
  BinaryOp op;
  ExprPtr lhs, rhs;
  static bool classof(const Expr *e) { return e->getKind() == binary; }
};

/// `name=value` in a call.
struct KeywordArg {
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

struct CallExpr : Expr {
  CallExpr(llvm::SMLoc loc, ExprPtr callee, std::vector<ExprPtr> args,
           std::vector<KeywordArg> kwargs)
      : Expr(call, loc), callee(std::move(callee)), args(std::move(args)),
        kwargs(std::move(kwargs)) {
    addChild(this->callee.get());
    for (const ExprPtr &a : this->args)
      addChild(a.get());
    for (const KeywordArg &k : this->kwargs)
      addChild(k.value.get());
  }
  ExprPtr callee;
  std::vector<ExprPtr> args;
  std::vector<KeywordArg> kwargs;
  static bool classof(const Expr *e) { return e->getKind() == call; }
};

/// One entry of `x[...]`: a static integer index (`2`, `-1`), a computed
/// index (`i`, `n - 1 - t`: any other expression, an i32 scalar at run
/// time, or an i32 array in `x.at[...]`), a slice `start:stop:step` whose
/// parts are integer literals and may be missing, or a new axis (`none`,
/// numpy's None).
struct SliceIndex {
  llvm::SMLoc loc;
  bool isIndex = false;
  bool isNewAxis = false;                   // `none`: a new axis of size 1
  std::optional<int64_t> start, stop, step; // for a static index: start
  ExprPtr computed;                         // for a computed index
  bool isFullSlice() const {
    return !isIndex && !isNewAxis && !start && !stop && !step;
  }
};

struct SliceExpr : Expr {
  SliceExpr(llvm::SMLoc loc, ExprPtr base, std::vector<SliceIndex> indices)
      : Expr(slice, loc), base(std::move(base)), indices(std::move(indices)) {
    addChild(this->base.get());
    for (const SliceIndex &index : this->indices)
      addChild(index.computed.get());
  }
  ExprPtr base;
  std::vector<SliceIndex> indices;
  static bool classof(const Expr *e) { return e->getKind() == slice; }
};

/// JAX's functional update `x.at[indices].method(value)` (`set`, `add`,
/// `mul`, `min`, `max`).
struct AtUpdateExpr : Expr {
  AtUpdateExpr(llvm::SMLoc loc, ExprPtr base, std::vector<SliceIndex> indices,
               std::string method, llvm::SMLoc methodLoc, ExprPtr value)
      : Expr(atUpdate, loc), base(std::move(base)), indices(std::move(indices)),
        method(std::move(method)), methodLoc(methodLoc),
        value(std::move(value)) {
    addChild(this->base.get());
    for (const SliceIndex &index : this->indices)
      addChild(index.computed.get());
    addChild(this->value.get());
  }
  ExprPtr base;
  std::vector<SliceIndex> indices;
  std::string method;
  llvm::SMLoc methodLoc;
  ExprPtr value;
  static bool classof(const Expr *e) { return e->getKind() == atUpdate; }
};

/// `x.T` (numpy: the axes reversed).
struct TransposeTExpr : Expr {
  TransposeTExpr(llvm::SMLoc loc, ExprPtr base)
      : Expr(transposeT, loc), base(std::move(base)) {
    addChild(this->base.get());
  }
  ExprPtr base;
  static bool classof(const Expr *e) { return e->getKind() == transposeT; }
};

/// A rectangular literal array; its elements are (possibly negated)
/// literals, stored row-major.
struct ArrayLiteralExpr : Expr {
  ArrayLiteralExpr(llvm::SMLoc loc) : Expr(arrayLiteral, loc) {}
  llvm::SmallVector<int64_t> shape;
  std::vector<double> floatValues; // every element, as a double
  std::vector<int64_t> intValues;  // every element, when !isFloat
  bool isFloat = false;            // some element is a float literal
  static bool classof(const Expr *e) { return e->getKind() == arrayLiteral; }
};

struct Stmt;

/// `for i in range(N) carry (a = init, ...) { body; yield (...); }`.
struct ForStmt {
  std::string index;
  llvm::SMLoc indexLoc;
  int64_t tripCount = 0;
  llvm::SMLoc tripCountLoc;
  struct Carry {
    std::string name;
    llvm::SMLoc loc;
    ExprPtr init;
  };
  std::vector<Carry> carries;
  std::vector<Stmt> body;
  llvm::SMLoc yieldLoc;
  ExprPtr yieldValue; // a tuple for several carries
};

/// `let name = value;`, `let (a, b) = value;`, `return value;` or a loop.
struct Stmt {
  enum Kind { let, ret, forLoop } kind;
  llvm::SMLoc loc;     // of the keyword
  std::string name;    // for `let`
  llvm::SMLoc nameLoc; // for `let`
  /// For `let (a, b) = ...`: the names and their locations (name is empty).
  std::vector<std::pair<std::string, llvm::SMLoc>> names;
  bool destructure = false;
  ExprPtr value;
  std::unique_ptr<ForStmt> forStmt; // for `for`
};

struct Param {
  std::string name;
  llvm::SMLoc loc;
  TypeAST type;
};

/// `fn name(params) -> type { body }`.
struct FunctionDecl {
  std::string name;
  llvm::SMLoc loc; // of the name
  std::vector<Param> params;
  /// One type per result; `-> (f32[3], f32)` has two.
  std::vector<TypeAST> resultTypes;
  /// One name per result (`-> (dist: f32, idx: i32)`), each empty when
  /// the results are not named.
  std::vector<std::string> resultNames;
  llvm::SMLoc resultLoc;
  std::vector<Stmt> body;
  llvm::SMLoc endLoc; // of the closing brace
};

/// `fn name = vmap(...);`.
struct MapDecl {
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

/// `export name = vmap(..., batch=B);`.
struct ExportDecl {
  std::string name;
  llvm::SMLoc loc;
  ExprPtr value;
};

/// The value of an integer literal, maybe negated (`3`, `-1`); nullopt for
/// anything else (`not 3` included).
inline std::optional<int64_t> readIntLiteral(const Expr *expr) {
  if (auto *lit = llvm::dyn_cast<IntLiteralExpr>(expr))
    return lit->value;
  if (auto *u = llvm::dyn_cast<UnaryExpr>(expr); u && !u->isNot)
    if (auto *lit = llvm::dyn_cast<IntLiteralExpr>(u->operand.get()))
      return -lit->value;
  return std::nullopt;
}

struct Module {
  std::vector<std::unique_ptr<FunctionDecl>> functions;
  std::vector<std::unique_ptr<MapDecl>> maps;
  std::vector<std::unique_ptr<ExportDecl>> exports;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_AST_H
