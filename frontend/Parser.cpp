//===- Parser.cpp - recursive-descent parser for .arr ---------------------===//

#include "frontend/Parser.h"
#include "frontend/Lexer.h"

#include "dialect/Limits.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>
#include <limits>

using namespace vmapc::frontend;

namespace {

/// Deeper nesting than this is reported instead of overflowing the stack.
constexpr unsigned kMaxDepth = vmapc::kMaxExprNesting;
/// The largest expression tree height (a chain `a + a + ... + a` is as
/// high as it is long).
constexpr unsigned kMaxHeight = vmapc::kMaxExprHeight;

class Parser {
public:
  Parser(llvm::StringRef buffer, const LocationMapper &locs)
      : lexer(buffer), locs(locs) {
    tok = lexer.next();
  }

  std::optional<Module> parseModule();

private:
  // Token handling.
  void consume() {
    previousEnd = llvm::SMLoc::getFromPointer(tok.spelling.end());
    tok = lexer.next();
  }
  bool consumeIf(Token::Kind kind) {
    if (!tok.is(kind))
      return false;
    consume();
    return true;
  }
  /// Reports an error at the current token. An invalid token reports its
  /// own message instead.
  bool error(const llvm::Twine &message);
  bool errorAt(llvm::SMLoc loc, const llvm::Twine &message);
  /// Consumes `kind` or reports "expected <what>, found <tok>".
  bool expect(Token::Kind kind, const llvm::Twine &what);
  std::string found() const;

  // Grammar.
  bool parseFunctionOrMap(Module &module);
  bool parseExport(Module &module);
  bool parseType(TypeAST &type);
  bool parseBlock(FunctionDecl &fn);
  bool parseLet(Stmt &stmt);
  bool parseFor(Stmt &stmt);
  bool parseSliceIndices(std::vector<SliceIndex> &indices);
  ExprPtr parseAtUpdate(ExprPtr base, llvm::SMLoc loc);
  ExprPtr parseArrayLiteral();
  ExprPtr parseExpr();
  ExprPtr parseBinary(unsigned minPrecedence);
  ExprPtr parseNotOrUnary(unsigned minPrecedence);
  ExprPtr parseUnary();
  ExprPtr parsePower();
  ExprPtr parsePostfix();
  ExprPtr parsePrimary();
  bool tooDeep() {
    if (depth <= kMaxDepth)
      return false;
    error("expression is nested too deeply (more than " +
          llvm::Twine(kMaxDepth) + " levels)");
    return true;
  }
  bool parseCallArgs(std::vector<ExprPtr> &args,
                     std::vector<KeywordArg> &kwargs);
  bool checkHeight(const Expr &e) {
    if (e.getHeight() <= kMaxHeight)
      return true;
    return errorAt(e.getLoc(), "expression is too large (more than " +
                                   llvm::Twine(kMaxHeight) +
                                   " operations deep); split it with 'let'");
  }

  Lexer lexer;
  const LocationMapper &locs;
  Token tok;
  /// Just past the last consumed token: where a missing token at the end of
  /// the input is reported (not on the empty line after it).
  llvm::SMLoc previousEnd;
  unsigned depth = 0;
  bool failed = false;
};

/// Counts expression nesting; reports once when it gets too deep.
struct DepthGuard {
  DepthGuard(unsigned &depth) : depth(depth) { ++depth; }
  ~DepthGuard() { --depth; }
  unsigned &depth;
};

} // namespace

bool Parser::errorAt(llvm::SMLoc loc, const llvm::Twine &message) {
  if (!failed)
    locs.emitError(loc, message);
  failed = true;
  return false;
}

bool Parser::error(const llvm::Twine &message) {
  if (tok.is(Token::error))
    return errorAt(tok.getLoc(), tok.message);
  return errorAt(tok.getLoc(), message);
}

std::string Parser::found() const {
  switch (tok.kind) {
  case Token::identifier:
    return ("'" + tok.spelling + "'").str();
  case Token::intLiteral:
  case Token::floatLiteral:
    return ("number " + tok.spelling).str();
  default:
    return describe(tok.kind).str();
  }
}

bool Parser::expect(Token::Kind kind, const llvm::Twine &what) {
  if (consumeIf(kind))
    return true;
  if (tok.is(Token::eof) && previousEnd.isValid())
    return errorAt(previousEnd, "expected " + what + ", found " + found());
  return error("expected " + what + ", found " + found());
}

std::optional<Module> Parser::parseModule() {
  Module module;
  while (!tok.is(Token::eof)) {
    bool ok;
    if (tok.is(Token::kwFn))
      ok = parseFunctionOrMap(module);
    else if (tok.is(Token::kwExport))
      ok = parseExport(module);
    else
      ok = error("expected 'fn' or 'export' at top level, found " + found());
    if (!ok || failed)
      return std::nullopt;
  }
  if (module.functions.empty() && module.maps.empty() &&
      module.exports.empty()) {
    errorAt(tok.getLoc(), "the program is empty; define at least one 'fn'");
    return std::nullopt;
  }
  return module;
}

bool Parser::parseFunctionOrMap(Module &module) {
  consume(); // fn
  if (!tok.is(Token::identifier))
    return error("expected a function name after 'fn', found " + found());
  std::string name = tok.spelling.str();
  llvm::SMLoc nameLoc = tok.getLoc();
  consume();

  if (consumeIf(Token::equal)) {
    auto map = std::make_unique<MapDecl>();
    map->name = name;
    map->loc = nameLoc;
    map->value = parseExpr();
    if (!map->value)
      return false;
    if (!expect(Token::semicolon, "';' after the definition of '" + name + "'"))
      return false;
    module.maps.push_back(std::move(map));
    return true;
  }

  auto fn = std::make_unique<FunctionDecl>();
  fn->name = name;
  fn->loc = nameLoc;
  if (!expect(Token::lParen,
              "'(' and parameters, or '= vmap(...)', after 'fn " + name + "'"))
    return false;
  if (!tok.is(Token::rParen)) {
    do {
      if (tok.is(Token::rParen))
        break; // trailing comma
      if (!tok.is(Token::identifier))
        return error("expected a parameter name, found " + found());
      Param param;
      param.name = tok.spelling.str();
      param.loc = tok.getLoc();
      consume();
      if (!expect(Token::colon,
                  "':' and a type after parameter '" + param.name + "'"))
        return false;
      if (!parseType(param.type))
        return false;
      fn->params.push_back(std::move(param));
    } while (consumeIf(Token::comma));
  }
  if (!expect(Token::rParen, "')' after parameters"))
    return false;
  if (!expect(Token::arrow, "'->' and a result type after parameters"))
    return false;
  fn->resultLoc = tok.getLoc();
  // One result type, maybe named (`dist: f32`: the name a host program
  // knows the output by when the function is exported).
  auto parseResult = [&]() {
    std::string name;
    llvm::SMLoc nameLoc = tok.getLoc();
    if (tok.is(Token::identifier) && tok.spelling != "f32" &&
        tok.spelling != "i32" && tok.spelling != "bool") {
      name = tok.spelling.str();
      consume();
      if (!expect(Token::colon,
                  "':' and a type after the result name '" + name + "'"))
        return false;
      if (llvm::is_contained(fn->resultNames, name))
        return errorAt(nameLoc, "result '" + name + "' is named twice");
    }
    if (!fn->resultTypes.empty() &&
        (name.empty() != fn->resultNames.front().empty()))
      return errorAt(nameLoc, "name every result or none (as in "
                              "'-> (dist: f32, idx: i32)')");
    TypeAST type;
    if (!parseType(type))
      return false;
    fn->resultTypes.push_back(std::move(type));
    fn->resultNames.push_back(std::move(name));
    return true;
  };
  if (consumeIf(Token::lParen)) {
    // A tuple of result types: `-> (f32[3], f32)`.
    do {
      if (tok.is(Token::rParen) && !fn->resultTypes.empty())
        break; // trailing comma
      if (!parseResult())
        return false;
    } while (consumeIf(Token::comma));
    if (!expect(Token::rParen, "')' after the result types"))
      return false;
  } else if (!parseResult()) {
    return false;
  }
  if (!parseBlock(*fn))
    return false;
  module.functions.push_back(std::move(fn));
  return true;
}

bool Parser::parseExport(Module &module) {
  consume(); // export
  auto ex = std::make_unique<ExportDecl>();
  if (!tok.is(Token::identifier))
    return error("expected an entry point name after 'export', found " +
                 found());
  ex->name = tok.spelling.str();
  ex->loc = tok.getLoc();
  consume();
  if (!expect(Token::equal, "'=' after 'export " + ex->name + "'"))
    return false;
  ex->value = parseExpr();
  if (!ex->value)
    return false;
  if (!expect(Token::semicolon, "';' after the export of '" + ex->name + "'"))
    return false;
  module.exports.push_back(std::move(ex));
  return true;
}

bool Parser::parseType(TypeAST &type) {
  type.loc = tok.getLoc();
  if (!tok.is(Token::identifier))
    return error("expected a type (f32, i32 or bool), found " + found());
  std::optional<DType> dtype =
      llvm::StringSwitch<std::optional<DType>>(tok.spelling)
          .Case("f32", DType::f32)
          .Case("i32", DType::i32)
          .Case("bool", DType::boolean)
          .Default(std::nullopt);
  if (!dtype)
    return error("unknown type '" + tok.spelling +
                 "' (expected f32, i32 or bool)");
  type.dtype = *dtype;
  consume();
  if (!consumeIf(Token::lSquare))
    return true;
  do {
    if (!tok.is(Token::intLiteral))
      return error("expected a dimension size (a positive integer), found " +
                   found());
    int64_t size = tok.intValue;
    if (size < 1)
      return error("dimension size must be at least 1, got " + tok.spelling);
    if (size > vmapc::kMaxDimSize)
      return error("dimension size " + tok.spelling +
                   " is too large (at most " + llvm::Twine(vmapc::kMaxDimSize) +
                   ")");
    type.shape.push_back(size);
    consume();
  } while (consumeIf(Token::comma));
  int64_t elementBytes = type.dtype == DType::boolean ? 1 : 4;
  if (!vmapc::checkedNumElements(type.shape, elementBytes))
    return errorAt(type.loc, "this type needs 2^62 bytes or more; an array "
                             "holds fewer than 2^62 bytes");
  return expect(Token::rSquare, "']' after the dimensions of a shape");
}

bool Parser::parseBlock(FunctionDecl &fn) {
  if (!expect(Token::lBrace, "'{' to start the body of '" + fn.name + "'"))
    return false;
  bool returned = false;
  while (!tok.is(Token::rBrace)) {
    if (tok.is(Token::eof))
      return error("expected '}' at the end of the body of '" + fn.name +
                   "', found end of input");
    if (returned)
      return error("statement after 'return' is unreachable; 'return' must "
                   "be the last statement of '" +
                   fn.name + "'");
    Stmt stmt;
    stmt.loc = tok.getLoc();
    if (tok.is(Token::kwLet)) {
      if (!parseLet(stmt))
        return false;
    } else if (tok.is(Token::kwFor)) {
      if (!parseFor(stmt))
        return false;
    } else if (consumeIf(Token::kwReturn)) {
      stmt.kind = Stmt::ret;
      returned = true;
      stmt.value = parseExpr();
      if (!stmt.value)
        return false;
      if (!expect(Token::semicolon, "';' after 'return ...'"))
        return false;
    } else if (tok.is(Token::kwYield)) {
      return error("'yield' is only allowed at the end of a 'for' body; a "
                   "function ends with 'return'");
    } else {
      return error("expected 'let', 'for' or 'return' in the body of '" +
                   fn.name + "', found " + found());
    }
    fn.body.push_back(std::move(stmt));
  }
  fn.endLoc = tok.getLoc();
  if (!returned)
    return error("function '" + fn.name + "' must end with 'return <value>;'");
  consume(); // }
  return true;
}

bool Parser::parseLet(Stmt &stmt) {
  consume(); // let
  stmt.kind = Stmt::let;
  if (tok.is(Token::lParen)) {
    // let (a, b) = ...;
    stmt.destructure = true;
    consume();
    do {
      if (tok.is(Token::rParen) && !stmt.names.empty())
        break; // trailing comma
      if (!tok.is(Token::identifier))
        return error("expected a variable name in 'let (...)', found " +
                     found());
      stmt.names.emplace_back(tok.spelling.str(), tok.getLoc());
      consume();
    } while (consumeIf(Token::comma));
    if (!expect(Token::rParen, "')' after the names of 'let (...)'"))
      return false;
    stmt.nameLoc = stmt.names.front().second;
    if (!expect(Token::equal, "'=' after 'let (...)'"))
      return false;
  } else {
    if (!tok.is(Token::identifier))
      return error("expected a variable name after 'let', found " + found());
    stmt.name = tok.spelling.str();
    stmt.nameLoc = tok.getLoc();
    consume();
    if (!expect(Token::equal, "'=' after 'let " + stmt.name + "'"))
      return false;
  }
  stmt.value = parseExpr();
  if (!stmt.value)
    return false;
  std::string what = stmt.destructure ? std::string("(...)") : stmt.name;
  return expect(Token::semicolon, "';' after 'let " + what + " = ...'");
}

bool Parser::parseFor(Stmt &stmt) {
  DepthGuard guard(depth);
  if (depth > kMaxDepth)
    return error("'for' loops are nested too deeply (more than " +
                 llvm::Twine(kMaxDepth) + " levels)");
  consume(); // for
  stmt.kind = Stmt::forLoop;
  auto loop = std::make_unique<ForStmt>();
  if (!tok.is(Token::identifier))
    return error("expected the loop index name after 'for', found " + found());
  loop->index = tok.spelling.str();
  loop->indexLoc = tok.getLoc();
  consume();
  if (!expect(Token::kwIn, "'in range(N)' after 'for " + loop->index + "'"))
    return false;
  if (!tok.is(Token::identifier) || tok.spelling != "range")
    return error("expected 'range(N)' after 'in', found " + found());
  consume();
  if (!expect(Token::lParen, "'(' after 'range'"))
    return false;
  if (!tok.is(Token::intLiteral))
    return error("the trip count of range(N) must be a non-negative integer "
                 "literal, found " +
                 found());
  if (tok.intValue > std::numeric_limits<int32_t>::max())
    return error("trip count " + tok.spelling +
                 " is too large (at most 2147483647)");
  loop->tripCount = tok.intValue;
  loop->tripCountLoc = tok.getLoc();
  consume();
  if (!expect(Token::rParen, "')' after the trip count of range(N)"))
    return false;
  if (!tok.is(Token::identifier) || tok.spelling != "carry")
    return error("expected 'carry (name = init, ...)' after 'range(N)', "
                 "found " +
                 found());
  consume();
  if (!expect(Token::lParen, "'(' after 'carry'"))
    return false;
  do {
    if (tok.is(Token::rParen) && !loop->carries.empty())
      break; // trailing comma
    if (!tok.is(Token::identifier))
      return error("expected a carried variable 'name = init', found " +
                   found());
    ForStmt::Carry carry;
    carry.name = tok.spelling.str();
    carry.loc = tok.getLoc();
    consume();
    if (!expect(Token::equal,
                "'=' and an initial value after carried variable '" +
                    carry.name + "'"))
      return false;
    carry.init = parseExpr();
    if (!carry.init)
      return false;
    loop->carries.push_back(std::move(carry));
  } while (consumeIf(Token::comma));
  if (!expect(Token::rParen, "')' after the carried variables"))
    return false;
  if (!expect(Token::lBrace, "'{' to start the body of the 'for' loop"))
    return false;
  bool yielded = false;
  while (!tok.is(Token::rBrace)) {
    if (tok.is(Token::eof))
      return error("expected '}' at the end of the 'for' body, found end of "
                   "input");
    if (yielded)
      return error("statement after 'yield' is unreachable; 'yield' must be "
                   "the last statement of a 'for' body");
    Stmt inner;
    inner.loc = tok.getLoc();
    if (tok.is(Token::kwLet)) {
      if (!parseLet(inner))
        return false;
    } else if (tok.is(Token::kwFor)) {
      if (!parseFor(inner))
        return false;
    } else if (tok.is(Token::kwYield)) {
      loop->yieldLoc = tok.getLoc();
      consume();
      loop->yieldValue = parseExpr();
      if (!loop->yieldValue)
        return false;
      if (!expect(Token::semicolon, "';' after 'yield ...'"))
        return false;
      yielded = true;
      continue;
    } else if (tok.is(Token::kwReturn)) {
      return error("'return' is not allowed in a 'for' body; end it with "
                   "'yield (...)'");
    } else {
      return error("expected 'let', 'for' or 'yield' in a 'for' body, found " +
                   found());
    }
    loop->body.push_back(std::move(inner));
  }
  if (!yielded)
    return error("a 'for' body must end with 'yield (...);', one value per "
                 "carried variable");
  consume(); // }
  stmt.forStmt = std::move(loop);
  return true;
}

namespace {
/// A binary operator of the precedence table: its op and how tightly it
/// binds (higher binds tighter). Python's precedence; every operator here is
/// left-associative, except that comparisons do not chain. `not` binds
/// between `and` and the comparisons, unary `-` and `**` tighter than every
/// operator here (parseUnary, parsePower).
struct BinaryOperator {
  BinaryOp op;
  unsigned precedence;
};
} // namespace

static constexpr unsigned kOrPrecedence = 1;
static constexpr unsigned kNotPrecedence = 3;
static constexpr unsigned kComparisonPrecedence = 4;

/// The precedence table.
static std::optional<BinaryOperator> binaryOperator(Token::Kind kind) {
  switch (kind) {
  case Token::kwOr:
    return BinaryOperator{BinaryOp::logicalOr, kOrPrecedence};
  case Token::kwAnd:
    return BinaryOperator{BinaryOp::logicalAnd, 2};
  case Token::less:
    return BinaryOperator{BinaryOp::lt, kComparisonPrecedence};
  case Token::lessEqual:
    return BinaryOperator{BinaryOp::le, kComparisonPrecedence};
  case Token::greater:
    return BinaryOperator{BinaryOp::gt, kComparisonPrecedence};
  case Token::greaterEqual:
    return BinaryOperator{BinaryOp::ge, kComparisonPrecedence};
  case Token::equalEqual:
    return BinaryOperator{BinaryOp::eq, kComparisonPrecedence};
  case Token::notEqual:
    return BinaryOperator{BinaryOp::ne, kComparisonPrecedence};
  case Token::plus:
    return BinaryOperator{BinaryOp::add, 5};
  case Token::minus:
    return BinaryOperator{BinaryOp::sub, 5};
  case Token::star:
    return BinaryOperator{BinaryOp::mul, 6};
  case Token::slash:
    return BinaryOperator{BinaryOp::div, 6};
  case Token::at:
    return BinaryOperator{BinaryOp::matmul, 6};
  default:
    return std::nullopt;
  }
}

ExprPtr Parser::parseExpr() {
  DepthGuard guard(depth);
  if (tooDeep())
    return nullptr;
  return parseBinary(kOrPrecedence);
}

/// Precedence climbing: an operand, then every operator of the table that
/// binds at least as tightly as `minPrecedence`, each with a right operand of
/// the operators that bind more tightly than it.
ExprPtr Parser::parseBinary(unsigned minPrecedence) {
  ExprPtr lhs = parseNotOrUnary(minPrecedence);
  while (lhs) {
    std::optional<BinaryOperator> op = binaryOperator(tok.kind);
    if (!op || op->precedence < minPrecedence)
      return lhs;
    llvm::SMLoc loc = tok.getLoc();
    consume();
    ExprPtr rhs = parseBinary(op->precedence + 1);
    if (!rhs)
      return nullptr;
    if (op->precedence == kComparisonPrecedence) {
      std::optional<BinaryOperator> next = binaryOperator(tok.kind);
      if (next && next->precedence == kComparisonPrecedence) {
        error("comparisons cannot be chained; use parentheses");
        return nullptr;
      }
    }
    lhs = std::make_unique<BinaryExpr>(loc, op->op, std::move(lhs),
                                       std::move(rhs));
    if (!checkHeight(*lhs))
      return nullptr;
  }
  return lhs;
}

/// `not x` where `not` may stand (an operand of `or` or `and`), whose
/// operand is a comparison or another `not`; else a unary expression. Where
/// `not` may stand counts one level of nesting, whether or not it is there.
ExprPtr Parser::parseNotOrUnary(unsigned minPrecedence) {
  if (minPrecedence > kNotPrecedence)
    return parseUnary();
  DepthGuard guard(depth);
  if (tooDeep())
    return nullptr;
  if (!tok.is(Token::kwNot))
    return parseUnary();
  llvm::SMLoc loc = tok.getLoc();
  consume();
  ExprPtr operand = parseBinary(kNotPrecedence);
  if (!operand)
    return nullptr;
  return std::make_unique<UnaryExpr>(loc, std::move(operand), true);
}

ExprPtr Parser::parseUnary() {
  DepthGuard guard(depth);
  if (tooDeep())
    return nullptr;
  if (tok.is(Token::minus)) {
    llvm::SMLoc loc = tok.getLoc();
    consume();
    ExprPtr operand = parseUnary();
    if (!operand)
      return nullptr;
    return std::make_unique<UnaryExpr>(loc, std::move(operand));
  }
  if (tok.is(Token::kwNot)) {
    error("'not' binds more loosely than arithmetic and comparisons; put "
          "'not ...' in parentheses here");
    return nullptr;
  }
  return parsePower();
}

// Python: power = postfix ["**" unary]; so -x**2 is -(x**2), 2**-1 is
// 2**(-1) and a**b**c is a**(b**c).
ExprPtr Parser::parsePower() {
  ExprPtr base = parsePostfix();
  if (!base || !tok.is(Token::starStar))
    return base;
  llvm::SMLoc loc = tok.getLoc();
  consume();
  ExprPtr exponent = parseUnary();
  if (!exponent)
    return nullptr;
  auto result = std::make_unique<BinaryExpr>(
      loc, BinaryOp::pow, std::move(base), std::move(exponent));
  if (!checkHeight(*result))
    return nullptr;
  return result;
}

ExprPtr Parser::parsePostfix() {
  ExprPtr expr = parsePrimary();
  while (expr) {
    if (tok.is(Token::lParen)) {
      consume();
      std::vector<ExprPtr> args;
      std::vector<KeywordArg> kwargs;
      if (!parseCallArgs(args, kwargs))
        return nullptr;
      llvm::SMLoc loc = expr->getLoc();
      expr = std::make_unique<CallExpr>(loc, std::move(expr), std::move(args),
                                        std::move(kwargs));
    } else if (tok.is(Token::lSquare)) {
      llvm::SMLoc loc = tok.getLoc();
      consume();
      std::vector<SliceIndex> indices;
      if (!parseSliceIndices(indices))
        return nullptr;
      expr =
          std::make_unique<SliceExpr>(loc, std::move(expr), std::move(indices));
    } else if (tok.is(Token::dot)) {
      llvm::SMLoc loc = tok.getLoc();
      consume();
      if (tok.is(Token::identifier) && tok.spelling == "at") {
        expr = parseAtUpdate(std::move(expr), loc);
        if (!expr)
          return nullptr;
      } else if (tok.is(Token::identifier) && tok.spelling == "T") {
        consume();
        expr = std::make_unique<TransposeTExpr>(loc, std::move(expr));
      } else {
        error("expected 'T' or 'at' after '.' (x.T transposes, "
              "x.at[i].set(v) updates), found " +
              found());
        return nullptr;
      }
    } else {
      break;
    }
    if (!checkHeight(*expr))
      return nullptr;
  }
  return expr;
}

/// `.at[indices].method(value)`, after the `.`, at `at`.
ExprPtr Parser::parseAtUpdate(ExprPtr base, llvm::SMLoc loc) {
  consume(); // at
  if (!expect(Token::lSquare, "'[' after '.at' (x.at[i].set(v))"))
    return nullptr;
  std::vector<SliceIndex> indices;
  if (!parseSliceIndices(indices))
    return nullptr;
  if (!expect(Token::dot, "'.set(v)', '.add(v)', '.mul(v)', '.min(v)' or "
                          "'.max(v)' after x.at[...]"))
    return nullptr;
  llvm::SMLoc methodLoc = tok.getLoc();
  static constexpr llvm::StringLiteral kMethods[] = {"set", "add", "mul", "min",
                                                     "max"};
  if (!tok.is(Token::identifier) ||
      !llvm::is_contained(kMethods, tok.spelling)) {
    error("expected set, add, mul, min or max after 'x.at[...].', found " +
          found() + " (to read, write x[...])");
    return nullptr;
  }
  std::string method = tok.spelling.str();
  consume();
  if (!expect(Token::lParen, "'(' after '" + method + "'"))
    return nullptr;
  ExprPtr value = parseExpr();
  if (!value)
    return nullptr;
  if (!expect(Token::rParen, "')': '" + method + "' takes one argument"))
    return nullptr;
  return std::make_unique<AtUpdateExpr>(loc, std::move(base),
                                        std::move(indices), std::move(method),
                                        methodLoc, std::move(value));
}

/// The error for a slice bound that is not an integer literal: the slice's
/// size would not be static. What to write instead: an index, or a window
/// of static size gathered with take.
static std::string computedBoundMessage(llvm::StringRef what) {
  return ("a slice " + what +
          " must be an integer literal: a slice with a computed bound has a "
          "size that is not static; for one element write x[i], for n "
          "elements from a computed start i write take(x, i + iota(n), "
          "axis=0, mode=clip)")
      .str();
}

bool Parser::parseSliceIndices(std::vector<SliceIndex> &indices) {
  do {
    if (tok.is(Token::rSquare) && !indices.empty())
      break; // trailing comma
    SliceIndex index;
    index.loc = tok.getLoc();
    // An index or a slice's start: any expression (a computed index), but a
    // slice's bounds must be integer literals.
    ExprPtr first;
    if (!tok.is(Token::colon)) {
      first = parseExpr();
      if (!first)
        return false;
    }
    if (!consumeIf(Token::colon)) {
      if (first && llvm::isa<NoneExpr>(first.get())) {
        index.isNewAxis = true;
        indices.push_back(std::move(index));
        continue;
      }
      index.isIndex = true;
      if (std::optional<int64_t> value = readIntLiteral(first.get()))
        index.start = value;
      else
        index.computed = std::move(first);
      indices.push_back(std::move(index));
      continue;
    }
    if (first) {
      index.start = readIntLiteral(first.get());
      if (!index.start)
        return errorAt(first->getLoc(), computedBoundMessage("start"));
    }
    auto parseBound = [&](std::optional<int64_t> &bound, llvm::StringRef what) {
      if (tok.is(Token::colon) || tok.is(Token::comma) ||
          tok.is(Token::rSquare))
        return true;
      ExprPtr e = parseExpr();
      if (!e)
        return false;
      bound = readIntLiteral(e.get());
      return bound ? true : errorAt(e->getLoc(), computedBoundMessage(what));
    };
    if (!parseBound(index.stop, "stop"))
      return false;
    if (consumeIf(Token::colon)) {
      llvm::SMLoc stepLoc = tok.getLoc();
      if (!parseBound(index.step, "step"))
        return false;
      if (index.step && *index.step == 0)
        return errorAt(stepLoc, "slice step cannot be zero");
    }
    indices.push_back(std::move(index));
  } while (consumeIf(Token::comma));
  return expect(Token::rSquare, "']' after the indices");
}

/// `[` elements `]`: nested lists of (possibly negated) number literals.
ExprPtr Parser::parseArrayLiteral() {
  auto lit = std::make_unique<ArrayLiteralExpr>(tok.getLoc());
  // Parses one list (after its `[`) and returns its shape in `shape`; every
  // element must have the shape of the first.
  std::function<bool(unsigned, llvm::SMLoc, llvm::SmallVector<int64_t> &)>
      parseList = [&](unsigned level, llvm::SMLoc open,
                      llvm::SmallVector<int64_t> &shape) -> bool {
    if (level > 32)
      return errorAt(open, "literal array is nested too deeply (more than 32 "
                           "levels)");
    int64_t count = 0;
    std::optional<llvm::SmallVector<int64_t>> first;
    if (tok.is(Token::rSquare))
      return errorAt(open, "a literal array cannot be empty (every dimension "
                           "size is at least 1)");
    do {
      if (tok.is(Token::rSquare) && count > 0)
        break; // trailing comma
      llvm::SMLoc elemLoc = tok.getLoc();
      llvm::SmallVector<int64_t> elemShape;
      if (consumeIf(Token::lSquare)) {
        if (!parseList(level + 1, elemLoc, elemShape))
          return false;
      } else {
        bool negative = consumeIf(Token::minus);
        if (tok.is(Token::intLiteral)) {
          int64_t v = negative ? -tok.intValue : tok.intValue;
          lit->intValues.push_back(v);
          lit->floatValues.push_back(double(v));
        } else if (tok.is(Token::floatLiteral)) {
          lit->isFloat = true;
          lit->intValues.push_back(0);
          lit->floatValues.push_back(negative ? -tok.floatValue
                                              : tok.floatValue);
        } else {
          return error("the elements of a literal array must be number "
                       "literals (possibly negated) or lists, found " +
                       found());
        }
        consume();
      }
      if (!first) {
        first = elemShape;
      } else if (*first != elemShape) {
        auto describeShape = [](llvm::ArrayRef<int64_t> s) {
          if (s.empty())
            return std::string("a number");
          std::string r = "a list of shape [";
          for (auto [i, d] : llvm::enumerate(s))
            r += (i ? ", " : "") + std::to_string(d);
          return r + "]";
        };
        return errorAt(elemLoc, "literal array is not rectangular: found " +
                                    describeShape(elemShape) +
                                    " where the first element is " +
                                    describeShape(*first));
      }
      ++count;
    } while (consumeIf(Token::comma));
    if (!expect(Token::rSquare, "']' after the elements of a literal array"))
      return false;
    if (count == 0)
      return errorAt(open, "a literal array cannot be empty (every dimension "
                           "size is at least 1)");
    shape.push_back(count);
    shape.append(first->begin(), first->end());
    return true;
  };
  consume(); // [
  llvm::SmallVector<int64_t> shape;
  if (!parseList(0, lit->getLoc(), shape))
    return nullptr;
  lit->shape = shape;
  return lit;
}

bool Parser::parseCallArgs(std::vector<ExprPtr> &args,
                           std::vector<KeywordArg> &kwargs) {
  if (consumeIf(Token::rParen))
    return true;
  do {
    if (tok.is(Token::rParen))
      break; // trailing comma
    // `name = value` is a keyword argument; look one token ahead.
    if (tok.is(Token::identifier)) {
      Lexer saved = lexer;
      Token nameTok = tok;
      consume();
      if (tok.is(Token::equal)) {
        consume();
        KeywordArg kw;
        kw.name = nameTok.spelling.str();
        kw.loc = nameTok.getLoc();
        for (const KeywordArg &other : kwargs)
          if (other.name == kw.name)
            return errorAt(kw.loc,
                           "keyword argument '" + kw.name + "' is given twice");
        kw.value = parseExpr();
        if (!kw.value)
          return false;
        kwargs.push_back(std::move(kw));
        continue;
      }
      lexer = saved;
      tok = nameTok;
    }
    if (!kwargs.empty())
      return error("positional argument after keyword argument '" +
                   kwargs.back().name + "'; put positional arguments first");
    ExprPtr arg = parseExpr();
    if (!arg)
      return false;
    args.push_back(std::move(arg));
  } while (consumeIf(Token::comma));
  return expect(Token::rParen, "')' after arguments");
}

ExprPtr Parser::parsePrimary() {
  llvm::SMLoc loc = tok.getLoc();
  switch (tok.kind) {
  case Token::intLiteral: {
    auto e = std::make_unique<IntLiteralExpr>(loc, tok.intValue, tok.spelling);
    consume();
    return e;
  }
  case Token::floatLiteral: {
    auto e =
        std::make_unique<FloatLiteralExpr>(loc, tok.floatValue, tok.spelling);
    consume();
    return e;
  }
  case Token::kwNone:
    consume();
    return std::make_unique<NoneExpr>(loc);
  case Token::identifier: {
    auto e = std::make_unique<NameExpr>(loc, tok.spelling);
    consume();
    return e;
  }
  case Token::lSquare:
    return parseArrayLiteral();
  case Token::lParen: {
    consume();
    std::vector<ExprPtr> elements;
    bool isTuple = false;
    if (tok.is(Token::rParen)) {
      isTuple = true; // ()
    } else {
      do {
        if (tok.is(Token::rParen))
          break; // trailing comma: (a,)
        ExprPtr e = parseExpr();
        if (!e)
          return nullptr;
        elements.push_back(std::move(e));
        if (tok.is(Token::comma))
          isTuple = true;
      } while (consumeIf(Token::comma));
    }
    if (!expect(Token::rParen, isTuple
                                   ? "')' after a tuple"
                                   : "')' after a parenthesised expression"))
      return nullptr;
    if (!isTuple)
      return std::move(elements.front());
    return std::make_unique<TupleExpr>(loc, std::move(elements));
  }
  default:
    error("expected an expression, found " + found());
    return nullptr;
  }
}

std::optional<Module> vmapc::frontend::parseModule(llvm::StringRef buffer,
                                                   const LocationMapper &locs) {
  Parser parser(buffer, locs);
  return parser.parseModule();
}
