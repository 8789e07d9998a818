//===- Lexer.h - tokens of the .arr language --------------------*- C++ -*-===//
//
// Splits a `.arr` buffer into tokens. `#` starts a comment that runs to the
// end of the line. The lexer never fails: an unknown character, an
// unterminated literal or an out-of-range number becomes a `Token::error`
// whose text is the message, and the parser reports it.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FRONTEND_LEXER_H
#define VMAPC_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <string>

namespace vmapc::frontend {

struct Token {
  enum Kind {
    eof,
    error,
    identifier,
    intLiteral,
    floatLiteral,
    // Keywords.
    kwFn,
    kwLet,
    kwReturn,
    kwExport,
    kwNone,
    kwAnd,
    kwOr,
    kwNot,
    kwFor,
    kwIn,
    kwYield,
    // Punctuation.
    lParen,
    rParen,
    lSquare,
    rSquare,
    lBrace,
    rBrace,
    comma,
    semicolon,
    colon,
    equal,
    arrow,
    plus,
    minus,
    star,
    starStar,
    dot,
    slash,
    at,
    less,
    lessEqual,
    greater,
    greaterEqual,
    equalEqual,
    notEqual,
  };

  Kind kind = eof;
  /// The token's source text (for `error`, the text it could not read).
  llvm::StringRef spelling;
  /// For `error`: what went wrong.
  std::string message;
  /// The value of an `intLiteral` / `floatLiteral`.
  int64_t intValue = 0;
  double floatValue = 0.0;

  bool is(Kind k) const { return kind == k; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
};

/// A short human name of a token kind for "expected X" messages.
llvm::StringRef describe(Token::Kind kind);

class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer)
      : buffer(buffer), cur(buffer.begin()) {}

  /// Returns the next token; returns `eof` forever at the end.
  Token next();

private:
  Token make(Token::Kind kind, const char *start);
  Token makeError(const char *start, const char *end, std::string message);
  Token lexNumber(const char *start);
  Token lexIdentifier(const char *start);
  void skipSpaceAndComments();

  llvm::StringRef buffer;
  const char *cur;
};

} // namespace vmapc::frontend

#endif // VMAPC_FRONTEND_LEXER_H
