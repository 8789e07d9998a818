//===- AST.h - syntax tree of the .arr language -----------------*- C++ -*-===//
//
// What the parser produces and the importer reads. The tree is untyped:
// names are resolved, types inferred and shapes checked during import
// (frontend/Import.cpp). Every node keeps the source location of the token
// that names it (an operator, a call's callee, a literal).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_AST_H
#define VMAPC_FRONTEND_AST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
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
  ExprPtr operand; // The only unary operator is `-`.
  static bool classof(const Expr *e) { return e->getKind() == unary; }
};

enum class BinaryOp { add, sub, mul, div, matmul, lt, le, gt, ge, eq, ne };

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

/// `let name = value;` or `return value;`.
struct Stmt {
  enum Kind { let, ret } kind;
  llvm::SMLoc loc;     // of the keyword
  std::string name;    // for `let`
  llvm::SMLoc nameLoc; // for `let`
  ExprPtr value;
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
  TypeAST resultType;
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

struct Module {
  std::vector<std::unique_ptr<FunctionDecl>> functions;
  std::vector<std::unique_ptr<MapDecl>> maps;
  std::vector<std::unique_ptr<ExportDecl>> exports;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_AST_H
