//===- AST.cpp - the .arr syntax tree's functions -------------------------===//

#include "frontend/AST.h"

using namespace vmapc::frontend;

llvm::StringRef vmapc::frontend::spelling(BinaryOp op) {
  switch (op) {
  case BinaryOp::add:
    return "+";
  case BinaryOp::sub:
    return "-";
  case BinaryOp::mul:
    return "*";
  case BinaryOp::div:
    return "/";
  case BinaryOp::matmul:
    return "@";
  case BinaryOp::pow:
    return "**";
  case BinaryOp::logicalAnd:
    return "and";
  case BinaryOp::logicalOr:
    return "or";
  case BinaryOp::lt:
    return "<";
  case BinaryOp::le:
    return "<=";
  case BinaryOp::gt:
    return ">";
  case BinaryOp::ge:
    return ">=";
  case BinaryOp::eq:
    return "==";
  case BinaryOp::ne:
    return "!=";
  }
  return "?";
}
