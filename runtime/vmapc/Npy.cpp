//===- Npy.cpp - NumPy .npy files -----------------------------------------===//

#include "vmapc/Npy.h"

#include "vmapc/ReadFile.h"

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace vmapc {

static const char kNpyMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

NpyArray NpyArray::zeros(DType dtype, const std::vector<int64_t> &shape) {
  NpyArray a;
  a.dtype = dtype;
  a.shape = shape;
  a.data.assign(size_t(a.numElements()) * dtypeBytes(dtype), 0);
  return a;
}

static const char *descrOf(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "<f4";
  case DType::I32:
    return "<i4";
  case DType::Bool:
    return "|b1";
  }
  return nullptr;
}

namespace {
/// A parser for the header dict, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
class HeaderParser {
public:
  explicit HeaderParser(const std::string &s) : s(s) {}

  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' ||
                              s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }
  bool eat(char c) {
    skipSpace();
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  bool peek(char c) {
    skipSpace();
    return pos < s.size() && s[pos] == c;
  }
  bool string(std::string *out) {
    skipSpace();
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"'))
      return false;
    char q = s[pos++];
    size_t end = s.find(q, pos);
    if (end == std::string::npos)
      return false;
    *out = s.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool word(std::string *out) {
    skipSpace();
    size_t b = pos;
    while (pos < s.size() && std::isalpha(static_cast<unsigned char>(s[pos])))
      ++pos;
    *out = s.substr(b, pos - b);
    return pos > b;
  }
  bool integer(int64_t *out) {
    skipSpace();
    size_t b = pos;
    int64_t v = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (v > (INT64_MAX - 9) / 10)
        return false;
      v = v * 10 + (s[pos++] - '0');
    }
    if (pos < s.size() && s[pos] == 'L') // Python 2 longs.
      ++pos;
    *out = v;
    return pos > b;
  }
  bool atEnd() {
    skipSpace();
    return pos == s.size();
  }

private:
  const std::string &s;
  size_t pos = 0;
};
} // namespace

static Status parseHeader(const std::string &header, const std::string &name,
                          NpyArray *out) {
  auto bad = [&](const std::string &why) {
    return Status::error(name + ": bad .npy header: " + why);
  };
  HeaderParser p(header);
  if (!p.eat('{'))
    return bad("expected '{'");
  bool haveDescr = false, haveOrder = false, haveShape = false;
  std::string descr;
  bool fortran = false;
  while (!p.eat('}')) {
    std::string key;
    if (!p.string(&key) || !p.eat(':'))
      return bad("expected 'key': value");
    if (key == "descr") {
      if (!p.string(&descr))
        return bad("'descr' is not a string");
      haveDescr = true;
    } else if (key == "fortran_order") {
      std::string w;
      if (!p.word(&w) || (w != "True" && w != "False"))
        return bad("'fortran_order' is not True or False");
      fortran = w == "True";
      haveOrder = true;
    } else if (key == "shape") {
      if (!p.eat('('))
        return bad("'shape' is not a tuple");
      out->shape.clear();
      while (!p.eat(')')) {
        int64_t d;
        if (!p.integer(&d))
          return bad("'shape' has a non-integer dimension");
        if (out->shape.size() == kMaxRank)
          return Status::error(name + ": rank exceeds the maximum " +
                               std::to_string(kMaxRank));
        out->shape.push_back(d);
        if (!p.eat(',') && !p.peek(')'))
          return bad("expected ',' or ')' in 'shape'");
      }
      haveShape = true;
    } else {
      return bad("unexpected key '" + key + "'");
    }
    if (!p.eat(',') && !p.peek('}'))
      return bad("expected ',' or '}'");
  }
  if (!p.atEnd())
    return bad("trailing characters after the dict");
  if (!haveDescr || !haveOrder || !haveShape)
    return bad("missing 'descr', 'fortran_order' or 'shape'");
  if (fortran)
    return Status::error(name + ": Fortran-order arrays are not supported "
                                "(save a C-order array)");
  if (descr == "<f4")
    out->dtype = DType::F32;
  else if (descr == "<i4")
    out->dtype = DType::I32;
  else if (descr == "|b1")
    out->dtype = DType::Bool;
  else
    return Status::error(name + ": unsupported dtype '" + descr +
                         "' (supported: <f4, <i4, |b1)");
  return Status();
}

Status parseNpy(const void *bytes, size_t size, const std::string &name,
                NpyArray *out) {
  const auto *p = static_cast<const unsigned char *>(bytes);
  if (size < 10)
    return Status::error(name + ": truncated .npy file (" +
                         std::to_string(size) + " bytes)");
  if (std::memcmp(p, kNpyMagic, 6) != 0)
    return Status::error(name + ": not a .npy file (bad magic)");
  unsigned major = p[6], minor = p[7];
  size_t headerLen, headerStart;
  if (major == 1 && minor == 0) {
    headerLen = size_t(p[8]) | size_t(p[9]) << 8;
    headerStart = 10;
  } else if (major == 2 && minor == 0) {
    if (size < 12)
      return Status::error(name + ": truncated .npy file (" +
                           std::to_string(size) + " bytes)");
    headerLen = size_t(p[8]) | size_t(p[9]) << 8 | size_t(p[10]) << 16 |
                size_t(p[11]) << 24;
    headerStart = 12;
  } else {
    return Status::error(name + ": unsupported .npy version " +
                         std::to_string(major) + "." + std::to_string(minor) +
                         " (supported: 1.0, 2.0)");
  }
  if (headerLen > size - headerStart)
    return Status::error(name + ": truncated .npy header");
  std::string header(reinterpret_cast<const char *>(p + headerStart),
                     headerLen);
  NpyArray a;
  VMAPC_RETURN_IF_ERROR(parseHeader(header, name, &a));
  uint64_t bytesNeeded = dtypeBytes(a.dtype);
  for (int64_t d : a.shape) {
    if (d != 0 && bytesNeeded > kMaxArrayBytes / uint64_t(d))
      return Status::error(name + ": array is too large");
    bytesNeeded *= uint64_t(d);
  }
  size_t dataStart = headerStart + headerLen;
  size_t have = size - dataStart;
  if (have < bytesNeeded)
    return Status::error(name + ": truncated .npy data: expected " +
                         std::to_string(bytesNeeded) + " bytes, got " +
                         std::to_string(have));
  if (have > bytesNeeded)
    return Status::error(name + ": " + std::to_string(have - bytesNeeded) +
                         " unexpected bytes after the .npy data");
  a.data.assign(p + dataStart, p + size);
  if (a.dtype == DType::Bool)
    for (unsigned char &c : a.data)
      c = c != 0;
  *out = std::move(a);
  return Status();
}

Status readNpy(const std::string &path, NpyArray *out) {
  std::string bytes;
  VMAPC_RETURN_IF_ERROR(readFileBytes(path, &bytes));
  return parseNpy(bytes.data(), bytes.size(), path, out);
}

Status serializeNpy(DType dtype, const std::vector<int64_t> &shape,
                    const void *data, std::string *out) {
  const char *descr = descrOf(dtype);
  if (!descr)
    return Status::error("invalid dtype for .npy");
  if (shape.size() > kMaxRank)
    return Status::error("rank exceeds the maximum " +
                         std::to_string(kMaxRank));
  uint64_t bytes = dtypeBytes(dtype);
  for (int64_t d : shape) {
    if (d < 0)
      return Status::error("negative dimension");
    if (d != 0 && bytes > kMaxArrayBytes / uint64_t(d))
      return Status::error("array is too large");
    bytes *= uint64_t(d);
  }
  // Python tuple syntax: "()", "(3,)", "(3, 4)".
  std::string shapeText = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    shapeText += (i ? ", " : "") + std::to_string(shape[i]);
  shapeText += shape.size() == 1 ? ",)" : ")";
  if (!data && bytes)
    return Status::error("data is null");
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': " + shapeText + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple
  // of 64, ending in '\n'.
  size_t prefix = 10;
  size_t len = dict.size() + 1;
  size_t total = (prefix + len + 63) / 64 * 64;
  dict.append(total - prefix - len, ' ');
  dict += '\n';
  std::string s(kNpyMagic, 6);
  s += '\x01';
  s += '\x00';
  s += char(dict.size() & 0xff);
  s += char((dict.size() >> 8) & 0xff);
  s += dict;
  s.append(static_cast<const char *>(data), size_t(bytes));
  *out = std::move(s);
  return Status();
}

Status writeNpy(const std::string &path, DType dtype,
                const std::vector<int64_t> &shape, const void *data) {
  std::string bytes;
  VMAPC_RETURN_IF_ERROR(
      serializeNpy(dtype, shape, data, &bytes).withPrefix(path + ": "));
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return Status::error(path +
                         ": cannot open for writing: " + std::strerror(errno));
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return Status::error(path + ": write failed");
  return Status();
}

} // namespace vmapc
