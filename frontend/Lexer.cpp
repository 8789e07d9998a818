//===- Lexer.cpp - tokens of the .arr language ----------------------------===//

#include "frontend/Lexer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ConvertUTF.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace vmapc::frontend;

llvm::StringRef vmapc::frontend::describe(Token::Kind kind) {
  switch (kind) {
  case Token::eof:
    return "end of input";
  case Token::error:
    return "invalid token";
  case Token::identifier:
    return "a name";
  case Token::intLiteral:
    return "an integer";
  case Token::floatLiteral:
    return "a number";
  case Token::kwFn:
    return "'fn'";
  case Token::kwLet:
    return "'let'";
  case Token::kwReturn:
    return "'return'";
  case Token::kwExport:
    return "'export'";
  case Token::kwNone:
    return "'none'";
  case Token::kwAnd:
    return "'and'";
  case Token::kwOr:
    return "'or'";
  case Token::kwNot:
    return "'not'";
  case Token::kwFor:
    return "'for'";
  case Token::kwIn:
    return "'in'";
  case Token::kwYield:
    return "'yield'";
  case Token::lParen:
    return "'('";
  case Token::rParen:
    return "')'";
  case Token::lSquare:
    return "'['";
  case Token::rSquare:
    return "']'";
  case Token::lBrace:
    return "'{'";
  case Token::rBrace:
    return "'}'";
  case Token::comma:
    return "','";
  case Token::semicolon:
    return "';'";
  case Token::colon:
    return "':'";
  case Token::equal:
    return "'='";
  case Token::arrow:
    return "'->'";
  case Token::plus:
    return "'+'";
  case Token::minus:
    return "'-'";
  case Token::star:
    return "'*'";
  case Token::starStar:
    return "'**'";
  case Token::dot:
    return "'.'";
  case Token::slash:
    return "'/'";
  case Token::at:
    return "'@'";
  case Token::less:
    return "'<'";
  case Token::lessEqual:
    return "'<='";
  case Token::greater:
    return "'>'";
  case Token::greaterEqual:
    return "'>='";
  case Token::equalEqual:
    return "'=='";
  case Token::notEqual:
    return "'!='";
  }
  return "token";
}

Token Lexer::make(Token::Kind kind, const char *start) {
  Token tok;
  tok.kind = kind;
  tok.spelling = llvm::StringRef(start, cur - start);
  return tok;
}

Token Lexer::makeError(const char *start, const char *end,
                       std::string message) {
  Token tok;
  tok.kind = Token::error;
  tok.spelling = llvm::StringRef(start, end - start);
  tok.message = std::move(message);
  cur = end;
  return tok;
}

void Lexer::skipSpaceAndComments() {
  const char *end = buffer.end();
  while (cur != end) {
    char c = *cur;
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
        c == '\v') {
      ++cur;
    } else if (c == '#') {
      while (cur != end && *cur != '\n')
        ++cur;
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skipSpaceAndComments();
  const char *start = cur;
  if (cur == buffer.end()) {
    Token tok;
    tok.kind = Token::eof;
    tok.spelling = llvm::StringRef(cur, 0);
    return tok;
  }
  char c = *cur++;
  auto two = [&](char second, Token::Kind ifTwo, Token::Kind ifOne) -> Token {
    if (cur != buffer.end() && *cur == second) {
      ++cur;
      return make(ifTwo, start);
    }
    return make(ifOne, start);
  };
  switch (c) {
  case '(':
    return make(Token::lParen, start);
  case ')':
    return make(Token::rParen, start);
  case '[':
    return make(Token::lSquare, start);
  case ']':
    return make(Token::rSquare, start);
  case '{':
    return make(Token::lBrace, start);
  case '}':
    return make(Token::rBrace, start);
  case ',':
    return make(Token::comma, start);
  case ';':
    return make(Token::semicolon, start);
  case ':':
    return make(Token::colon, start);
  case '+':
    return make(Token::plus, start);
  case '*':
    return two('*', Token::starStar, Token::star);
  case '.':
    return make(Token::dot, start);
  case '/':
    return make(Token::slash, start);
  case '@':
    return make(Token::at, start);
  case '-':
    return two('>', Token::arrow, Token::minus);
  case '=':
    return two('=', Token::equalEqual, Token::equal);
  case '<':
    return two('=', Token::lessEqual, Token::less);
  case '>':
    return two('=', Token::greaterEqual, Token::greater);
  case '!':
    if (cur != buffer.end() && *cur == '=') {
      ++cur;
      return make(Token::notEqual, start);
    }
    return makeError(start, cur,
                     "unexpected character '!' (did you mean '!=' or 'not'?)");
  default:
    break;
  }
  if (std::isdigit(static_cast<unsigned char>(c)))
    return lexNumber(start);
  if (std::isalpha(static_cast<unsigned char>(c)) || c == '_')
    return lexIdentifier(start);
  if (std::isprint(static_cast<unsigned char>(c)))
    return makeError(start, cur,
                     std::string("unexpected character '") + c + "'");
  // A UTF-8 sequence: name the whole character (the source line is printed
  // without a caret, as LLVM's SourceMgr does for non-ASCII lines, so the
  // message says what and where).
  const char *end = buffer.end();
  const llvm::UTF8 *sequence = reinterpret_cast<const llvm::UTF8 *>(start);
  unsigned length = llvm::getNumBytesForUTF8(static_cast<llvm::UTF8>(c));
  llvm::UTF32 codePoint = 0;
  if (length > 1 && start + length <= end &&
      llvm::isLegalUTF8Sequence(sequence,
                                reinterpret_cast<const llvm::UTF8 *>(end))) {
    const llvm::UTF8 *from = sequence;
    llvm::UTF32 *to = &codePoint;
    if (llvm::ConvertUTF8toUTF32(&from, from + length, &to, to + 1,
                                 llvm::strictConversion) ==
        llvm::conversionOK) {
      cur = start + length;
      char name[16];
      snprintf(name, sizeof(name), "U+%04X", static_cast<unsigned>(codePoint));
      return makeError(start, cur,
                       std::string("unexpected character '") +
                           std::string(start, length) + "' (" + name +
                           "); only ASCII is allowed outside comments");
    }
  }
  // Not printable (a control byte or a malformed UTF-8 byte).
  char hex[8];
  snprintf(hex, sizeof(hex), "0x%02X", static_cast<unsigned char>(c));
  return makeError(start, cur,
                   std::string("unexpected character with code ") + hex +
                       " (only ASCII is allowed outside comments)");
}

Token Lexer::lexNumber(const char *start) {
  const char *end = buffer.end();
  auto isDigit = [&](const char *p) {
    return p != end && std::isdigit(static_cast<unsigned char>(*p));
  };
  while (isDigit(cur))
    ++cur;
  bool isFloat = false;
  if (cur != end && *cur == '.') {
    isFloat = true;
    ++cur;
    while (isDigit(cur))
      ++cur;
  }
  if (cur != end && (*cur == 'e' || *cur == 'E')) {
    const char *p = cur + 1;
    if (p != end && (*p == '+' || *p == '-'))
      ++p;
    if (!isDigit(p))
      return makeError(start, p, "expected digits in the exponent of a number");
    isFloat = true;
    cur = p;
    while (isDigit(cur))
      ++cur;
  }
  if (cur != end &&
      (std::isalpha(static_cast<unsigned char>(*cur)) || *cur == '_')) {
    const char *p = cur;
    while (p != end &&
           (std::isalnum(static_cast<unsigned char>(*p)) || *p == '_'))
      ++p;
    return makeError(start, p,
                     "invalid number '" + std::string(start, p) +
                         "' (a name cannot start with a digit)");
  }
  std::string text(start, cur);
  if (isFloat) {
    errno = 0;
    double value = std::strtod(text.c_str(), nullptr);
    if (errno == ERANGE || std::isinf(value) ||
        std::fabs(value) > std::numeric_limits<float>::max())
      return makeError(start, cur,
                       "number " + text + " is out of range for f32");
    Token tok = make(Token::floatLiteral, start);
    tok.floatValue = value;
    return tok;
  }
  // Decimal integer: at most 2^63 - 1 here; the importer checks i32 range.
  int64_t value = 0;
  for (char d : text) {
    int digit = d - '0';
    if (value > (std::numeric_limits<int64_t>::max() - digit) / 10)
      return makeError(start, cur,
                       "integer " + text + " is too large (at most " +
                           std::to_string(std::numeric_limits<int64_t>::max()) +
                           ")");
    value = value * 10 + digit;
  }
  Token tok = make(Token::intLiteral, start);
  tok.intValue = value;
  return tok;
}

Token Lexer::lexIdentifier(const char *start) {
  const char *end = buffer.end();
  while (cur != end &&
         (std::isalnum(static_cast<unsigned char>(*cur)) || *cur == '_'))
    ++cur;
  llvm::StringRef text(start, cur - start);
  Token::Kind kind = llvm::StringSwitch<Token::Kind>(text)
                         .Case("fn", Token::kwFn)
                         .Case("let", Token::kwLet)
                         .Case("return", Token::kwReturn)
                         .Case("export", Token::kwExport)
                         .Case("none", Token::kwNone)
                         .Case("and", Token::kwAnd)
                         .Case("or", Token::kwOr)
                         .Case("not", Token::kwNot)
                         .Case("for", Token::kwFor)
                         .Case("in", Token::kwIn)
                         .Case("yield", Token::kwYield)
                         .Default(Token::identifier);
  return make(kind, start);
}
