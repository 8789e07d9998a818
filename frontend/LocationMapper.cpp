//===- LocationMapper.cpp - source positions as MLIR locations -----------===//

#include "frontend/LocationMapper.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace vmapc::frontend;

LocationMapper::LocationMapper(llvm::SourceMgr &sourceMgr, unsigned bufferId,
                               mlir::MLIRContext *context)
    : sourceMgr(sourceMgr), bufferId(bufferId), context(context) {
  filename = mlir::StringAttr::get(
      context, sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier());
}

mlir::Location LocationMapper::get(llvm::SMLoc loc) const {
  if (!loc.isValid())
    return mlir::FileLineColLoc::get(filename, 0, 0);
  auto [line, col] = sourceMgr.getLineAndColumn(loc, bufferId);
  return mlir::FileLineColLoc::get(filename, line, col);
}

void LocationMapper::emitError(llvm::SMLoc loc,
                               const llvm::Twine &message) const {
  mlir::InFlightDiagnostic diag = mlir::emitError(get(loc)) << message.str();
  if (!loc.isValid())
    return;
  // LLVM prints no caret under a line with non-ASCII bytes (it cannot know
  // their width): the line and a caret, counted in characters, as a note.
  llvm::StringRef buffer = sourceMgr.getMemoryBuffer(bufferId)->getBuffer();
  const char *at = loc.getPointer();
  const char *begin = at, *end = at;
  while (begin > buffer.begin() && begin[-1] != '\n')
    --begin;
  while (end < buffer.end() && *end != '\n' && *end != '\r')
    ++end;
  llvm::StringRef line(begin, end - begin);
  if (llvm::all_of(line, [](char c) { return (unsigned char)c < 0x80; }))
    return;
  // Characters before `at`: every byte but UTF-8 continuation bytes.
  size_t column = llvm::count_if(llvm::StringRef(begin, at - begin),
                                 [](char c) { return (c & 0xC0) != 0x80; });
  diag.attachNote() << "here:\n"
                    << line << "\n"
                    << std::string(column, ' ') << "^";
}
