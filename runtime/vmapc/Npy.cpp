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
/// Alignment of an array's bytes: enough for any vector load.
static constexpr size_t kNpyDataAlignment = 64;

static Status dataLoss(std::string message) {
  return Status::error(StatusCode::kDataLoss, std::move(message));
}

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// Bytes of an array of `dtype` and `shape`. Errors: kInvalidArgument for a
/// negative dim, kOutOfRange for 2^62 bytes or more.
static Status bytesOf(DType dtype, const std::vector<int64_t> &shape,
                      uint64_t *bytes) {
  for (int64_t d : shape)
    if (d < 0)
      return Status::error(StatusCode::kInvalidArgument, "negative dimension");
  std::optional<uint64_t> b = arrayBytes(dtype, shape.data(), shape.size());
  if (!b)
    return Status::error(StatusCode::kOutOfRange,
                         "array of shape " + shapeString(shape) +
                             " is too large (2^62 bytes or more)");
  *bytes = *b;
  return Status();
}

Status NpyArray::zeros(DType dtype, const std::vector<int64_t> &shape,
                       NpyArray *out) {
  uint64_t bytes = 0;
  VMAPC_RETURN_IF_ERROR(bytesOf(dtype, shape, &bytes));
  NpyArray a;
  a.dtype = dtype;
  a.shape = shape;
  VMAPC_RETURN_IF_ERROR(
      HostBuffer::allocate(bytes, kNpyDataAlignment,
                           "an array of shape " + shapeString(shape), &a.data));
  *out = std::move(a);
  return Status();
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
    return dataLoss(name + ": bad .npy header: " + why);
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
          return Status::error(StatusCode::kOutOfRange,
                               name + ": rank exceeds the maximum " +
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
    return Status::error(StatusCode::kUnimplemented,
                         name + ": Fortran-order arrays are not supported "
                                "(save a C-order array)");
  if (descr == "<f4")
    out->dtype = DType::F32;
  else if (descr == "<i4")
    out->dtype = DType::I32;
  else if (descr == "|b1")
    out->dtype = DType::Bool;
  else
    return Status::error(StatusCode::kUnimplemented,
                         name + ": unsupported dtype '" + descr +
                             "' (supported: <f4, <i4, |b1)");
  return Status();
}

/// Reads the fixed prefix at `p` (`size` bytes, of which at most the first
/// 12 are looked at): magic, version, header length. Sets `*prefixBytes`
/// (10 or 12) and `*headerBytes`; a `size` too short for the prefix is an
/// error that reports `size` as the file's length.
static Status parsePrefix(const unsigned char *p, size_t size,
                          const std::string &name, size_t *prefixBytes,
                          size_t *headerBytes) {
  auto truncated = [&] {
    return dataLoss(name + ": truncated .npy file (" + std::to_string(size) +
                    " bytes)");
  };
  if (size < 10)
    return truncated();
  if (std::memcmp(p, kNpyMagic, 6) != 0)
    return dataLoss(name + ": not a .npy file (bad magic)");
  unsigned major = p[6], minor = p[7];
  if (major == 1 && minor == 0) {
    *headerBytes = size_t(p[8]) | size_t(p[9]) << 8;
    *prefixBytes = 10;
  } else if (major == 2 && minor == 0) {
    if (size < 12)
      return truncated();
    *headerBytes = size_t(p[8]) | size_t(p[9]) << 8 | size_t(p[10]) << 16 |
                   size_t(p[11]) << 24;
    *prefixBytes = 12;
  } else {
    return Status::error(StatusCode::kUnimplemented,
                         name + ": unsupported .npy version " +
                             std::to_string(major) + "." +
                             std::to_string(minor) + " (supported: 1.0, 2.0)");
  }
  if (*headerBytes > kMaxNpyHeaderBytes)
    return Status::error(
        StatusCode::kOutOfRange,
        name + ": .npy header of " + std::to_string(*headerBytes) +
            " bytes is longer than the " + std::to_string(kMaxNpyHeaderBytes) +
            "-byte limit");
  return Status();
}

/// Parses the header dict into `a` (dtype, shape) and sets `*dataBytes`.
static Status parseDict(const std::string &dict, const std::string &name,
                        NpyArray *a, uint64_t *dataBytes) {
  VMAPC_RETURN_IF_ERROR(parseHeader(dict, name, a));
  return bytesOf(a->dtype, a->shape, dataBytes).withPrefix(name + ": ");
}

static Status truncatedData(const std::string &name, uint64_t expected,
                            uint64_t got) {
  return dataLoss(name + ": truncated .npy data: expected " +
                  std::to_string(expected) + " bytes, got " +
                  std::to_string(got));
}

static Status extraData(const std::string &name, uint64_t extra) {
  return dataLoss(name + ": " + std::to_string(extra) +
                  " unexpected bytes after the .npy data");
}

static Status allocateData(const std::string &name, uint64_t bytes,
                           NpyArray *a) {
  return HostBuffer::allocate(bytes, kNpyDataAlignment,
                              "'" + name + "' of shape " +
                                  shapeString(a->shape),
                              &a->data, HostBuffer::Init::kUninitialized);
}

static void normalizeBools(NpyArray &a) {
  if (a.dtype != DType::Bool)
    return;
  for (size_t i = 0; i < a.data.size(); ++i)
    a.data.data()[i] = a.data.data()[i] != 0;
}

Status parseNpy(const void *bytes, size_t size, const std::string &name,
                NpyArray *out) {
  const auto *p = static_cast<const unsigned char *>(bytes);
  size_t prefixBytes = 0, headerBytes = 0;
  VMAPC_RETURN_IF_ERROR(parsePrefix(p, size, name, &prefixBytes, &headerBytes));
  if (headerBytes > size - prefixBytes)
    return dataLoss(name + ": truncated .npy header");
  std::string dict(reinterpret_cast<const char *>(p + prefixBytes),
                   headerBytes);
  NpyArray a;
  uint64_t dataBytes = 0;
  VMAPC_RETURN_IF_ERROR(parseDict(dict, name, &a, &dataBytes));
  size_t have = size - prefixBytes - headerBytes;
  if (have < dataBytes)
    return truncatedData(name, dataBytes, have);
  if (have > dataBytes)
    return extraData(name, have - dataBytes);
  VMAPC_RETURN_IF_ERROR(allocateData(name, dataBytes, &a));
  std::memcpy(a.data.data(), p + prefixBytes + headerBytes, dataBytes);
  normalizeBools(a);
  *out = std::move(a);
  return Status();
}

Status readNpy(const std::string &path, NpyArray *out) {
  FileReader file;
  VMAPC_RETURN_IF_ERROR(file.open(path));
  unsigned char prefix[12];
  size_t got = 0, more = 0;
  VMAPC_RETURN_IF_ERROR(file.read(prefix, 10, &got));
  if (got == 10 && prefix[6] == 2)
    VMAPC_RETURN_IF_ERROR(file.read(prefix + 10, 2, &more));
  size_t prefixBytes = 0, headerBytes = 0;
  VMAPC_RETURN_IF_ERROR(
      parsePrefix(prefix, got + more, path, &prefixBytes, &headerBytes));
  std::string dict(headerBytes, '\0');
  VMAPC_RETURN_IF_ERROR(file.read(dict.data(), headerBytes, &got));
  if (got != headerBytes)
    return dataLoss(path + ": truncated .npy header");
  NpyArray a;
  uint64_t dataBytes = 0;
  VMAPC_RETURN_IF_ERROR(parseDict(dict, path, &a, &dataBytes));
  if (std::optional<uint64_t> size = file.regularFileSize()) {
    uint64_t have =
        *size - std::min<uint64_t>(*size, prefixBytes + headerBytes);
    if (have < dataBytes)
      return truncatedData(path, dataBytes, have);
    if (have > dataBytes)
      return extraData(path, have - dataBytes);
  }
  VMAPC_RETURN_IF_ERROR(allocateData(path, dataBytes, &a));
  VMAPC_RETURN_IF_ERROR(file.read(a.data.data(), dataBytes, &got));
  if (got != dataBytes)
    return truncatedData(path, dataBytes, got);
  bool end = false;
  VMAPC_RETURN_IF_ERROR(file.atEnd(&end));
  if (!end)
    return dataLoss(path + ": unexpected bytes after the .npy data");
  normalizeBools(a);
  *out = std::move(a);
  return Status();
}

/// The .npy 1.0 prefix and header dict of an array, padded with spaces so
/// that the data starts at a multiple of 64 bytes, ending in '\n'.
static Status npyHeader(DType dtype, const std::vector<int64_t> &shape,
                        std::string *out, uint64_t *dataBytes) {
  const char *descr = descrOf(dtype);
  if (!descr)
    return Status::error(StatusCode::kInvalidArgument,
                         "invalid dtype for .npy");
  if (shape.size() > kMaxRank)
    return Status::error(StatusCode::kOutOfRange, "rank exceeds the maximum " +
                                                      std::to_string(kMaxRank));
  VMAPC_RETURN_IF_ERROR(bytesOf(dtype, shape, dataBytes));
  std::string dict =
      std::string("{'descr': '") + descr +
      "', 'fortran_order': False, 'shape': " + shapeString(shape) + ", }";
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
  *out = std::move(s);
  return Status();
}

Status serializeNpy(DType dtype, const std::vector<int64_t> &shape,
                    const void *data, std::string *out) {
  std::string s;
  uint64_t bytes = 0;
  VMAPC_RETURN_IF_ERROR(npyHeader(dtype, shape, &s, &bytes));
  if (!data && bytes)
    return Status::error(StatusCode::kInvalidArgument, "data is null");
  s.append(static_cast<const char *>(data), size_t(bytes));
  *out = std::move(s);
  return Status();
}

Status writeNpy(const std::string &path, DType dtype,
                const std::vector<int64_t> &shape, const void *data) {
  std::string header;
  uint64_t bytes = 0;
  VMAPC_RETURN_IF_ERROR(
      npyHeader(dtype, shape, &header, &bytes).withPrefix(path + ": "));
  if (!data && bytes)
    return Status::error(StatusCode::kInvalidArgument, path + ": data is null");
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return statusFromErrno(errno, path + ": cannot open for writing");
  bool ok = std::fwrite(header.data(), 1, header.size(), f) == header.size();
  if (bytes)
    ok = ok && std::fwrite(data, 1, size_t(bytes), f) == bytes;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return Status::error(StatusCode::kUnavailable, path + ": write failed");
  return Status();
}

} // namespace vmapc
