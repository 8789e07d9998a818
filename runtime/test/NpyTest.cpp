//===- NpyTest.cpp - .npy reader and writer tests -------------------------===//

#include "vmapc/Npy.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace vmapc;
using namespace vmapc_test;

namespace {

/// A .npy file as numpy writes it: version major.minor, `dict` padded with
/// spaces and a newline to a 64-byte multiple, then `data`.
std::string npyBytes(const std::string &dict, const std::string &data,
                     int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  size_t total = (prefix + header.size() + 1 + 63) / 64 * 64;
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';
  std::string s = "\x93NUMPY";
  s += char(major);
  s += '\0';
  s += char(header.size() & 0xff);
  s += char((header.size() >> 8) & 0xff);
  if (major != 1) {
    s += '\0';
    s += '\0';
  }
  return s + header + data;
}

std::string int32Bytes(std::initializer_list<int32_t> values) {
  std::string s;
  for (int32_t v : values)
    s.append(reinterpret_cast<const char *>(&v), 4);
  return s;
}

Status parse(const std::string &bytes, NpyArray *out = nullptr) {
  NpyArray tmp;
  return parseNpy(bytes.data(), bytes.size(), "a.npy", out ? out : &tmp);
}

TEST(Npy, ReadsWhatNumpyWrites) {
  // np.save(f, np.arange(3, dtype=np.int32) - 1)
  std::string b =
      npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
               int32Bytes({-1, 0, 1}));
  ASSERT_EQ(b.size(), 128u + 12u); // numpy pads the header to 128
  NpyArray a;
  Status s = parse(b, &a);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(a.dtype, DType::I32);
  EXPECT_EQ(a.shape, std::vector<int64_t>{3});
  ASSERT_EQ(a.data.size(), 12u);
  int32_t v[3];
  std::memcpy(v, a.data.data(), 12);
  EXPECT_EQ(v[0], -1);
  EXPECT_EQ(v[2], 1);
}

TEST(Npy, ReadsVersion2AndKeyOrderAndScalars) {
  std::string b =
      npyBytes("{'shape': (), 'fortran_order': False, 'descr': '<f4'}",
               std::string("\x00\x00\xc0\x3f", 4), 2); // 1.5f
  NpyArray a;
  ASSERT_TRUE(parse(b, &a).ok());
  EXPECT_EQ(a.dtype, DType::F32);
  EXPECT_TRUE(a.shape.empty());
  float f;
  std::memcpy(&f, a.data.data(), 4);
  EXPECT_EQ(f, 1.5f);
}

TEST(Npy, RoundTripEachDType) {
  std::vector<float> f = {1.5f, -2.0f, 0.0f, 3.25f, 1e30f, -0.5f};
  std::vector<int32_t> i = {7, -8, 2147483647, -2147483647 - 1, 0};
  std::vector<unsigned char> b = {1, 0, 0, 1};
  struct Case {
    DType dtype;
    std::vector<int64_t> shape;
    const void *data;
    size_t bytes;
    const char *descr;
  };
  const Case cases[] = {
      {DType::F32, {2, 3}, f.data(), 24, "'descr': '<f4'"},
      {DType::I32, {5}, i.data(), 20, "'descr': '<i4'"},
      {DType::Bool, {2, 1, 2}, b.data(), 4, "'descr': '|b1'"},
      {DType::Bool, {}, b.data(), 1, "'shape': ()"},
      {DType::F32, {0, 4}, nullptr, 0, "'shape': (0, 4)"},
  };
  for (const Case &c : cases) {
    std::string path = tempPath(".npy");
    ASSERT_TRUE(writeNpy(path, c.dtype, c.shape, c.data).ok());
    std::string raw = readFileBytes(path);
    // Header: magic, version 1.0, and a 64-byte aligned header ending in \n.
    ASSERT_EQ(raw.compare(0, 8, std::string("\x93NUMPY\x01\x00", 8)), 0);
    size_t headerLen = uint8_t(raw[8]) | uint8_t(raw[9]) << 8;
    EXPECT_EQ((10 + headerLen) % 64, 0u);
    EXPECT_EQ(raw[10 + headerLen - 1], '\n');
    EXPECT_NE(raw.find(c.descr), std::string::npos)
        << raw.substr(10, headerLen);
    EXPECT_NE(raw.find("'fortran_order': False"), std::string::npos);
    EXPECT_EQ(raw.size(), 10 + headerLen + c.bytes);

    NpyArray a;
    Status s = readNpy(path, &a);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(a.dtype, c.dtype);
    EXPECT_EQ(a.shape, c.shape);
    ASSERT_EQ(a.data.size(), c.bytes);
    if (c.bytes) {
      EXPECT_EQ(std::memcmp(a.data.data(), c.data, c.bytes), 0);
    }
    std::remove(path.c_str());
  }
  std::string one;
  ASSERT_TRUE(serializeNpy(DType::I32, {1}, i.data(), &one).ok());
  EXPECT_NE(one.find("'shape': (1,)"), std::string::npos);
}

TEST(Npy, ZerosAndViews) {
  NpyArray a;
  ASSERT_TRUE(NpyArray::zeros(DType::I32, {2, 3}, &a).ok());
  EXPECT_EQ(a.numElements(), 6);
  ASSERT_EQ(a.data.size(), 24u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(a.data.data()), 24),
            std::string(24, '\0'));
  HostArray v = a.view();
  EXPECT_EQ(v.data, a.data.data());
  EXPECT_EQ(v.dtype, DType::I32);
  ASSERT_EQ(v.shape.rank(), 2u);
  EXPECT_EQ(v.shape[1], 3);
  MutableHostArray m = a.mutableView();
  static_cast<int32_t *>(m.data)[5] = 42;
  int32_t last;
  std::memcpy(&last, a.data.data() + 20, 4);
  EXPECT_EQ(last, 42);

  // An empty array still has a (non-null) buffer.
  NpyArray empty;
  ASSERT_TRUE(NpyArray::zeros(DType::F32, {0, 4}, &empty).ok());
  EXPECT_EQ(empty.data.size(), 0u);
  EXPECT_NE(empty.data.data(), nullptr);
}

TEST(Npy, ZerosRefusesBadAndHugeShapes) {
  NpyArray a;
  Status s = NpyArray::zeros(DType::F32, {-1, 2}, &a);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "negative dimension");
  // 2^31 x 2^31 f32 is 2^64 bytes: the product is checked, not wrapped.
  s = NpyArray::zeros(DType::F32, {int64_t(1) << 31, int64_t(1) << 31}, &a);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "array of shape (2147483648, 2147483648) is too "
                         "large (2^62 bytes or more)");
  // Below the limit but above any machine's memory: refused before any
  // allocation.
  s = NpyArray::zeros(DType::Bool, {int64_t(1) << 61}, &a);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(s.message().find("an array of shape (2305843009213693952,) would "
                             "take 2305843009213693952 bytes, more than the "),
            std::string::npos)
      << s.message();
}

TEST(Npy, BoolsAreNormalized) {
  std::string b =
      npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }",
               std::string("\x00\x05", 2));
  NpyArray a;
  ASSERT_TRUE(parse(b, &a).ok());
  ASSERT_EQ(a.data.size(), 2u);
  EXPECT_EQ(a.data.data()[0], 0);
  EXPECT_EQ(a.data.data()[1], 1);
}

TEST(Npy, Errors) {
  const std::string ok = "{'descr': '<i4', 'fortran_order': False, "
                         "'shape': (2,), }";
  const std::string data = int32Bytes({1, 2});
  struct Case {
    std::string bytes;
    StatusCode code;
    const char *expected;
  };
  const Case cases[] = {
      {npyBytes("{'descr': '<i4', 'fortran_order': True, 'shape': (2,), }",
                data),
       StatusCode::kUnimplemented,
       "a.npy: Fortran-order arrays are not supported (save a C-order array)"},
      {npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                std::string(8, '\0')),
       StatusCode::kUnimplemented,
       "a.npy: unsupported dtype '<f8' (supported: <f4, <i4, |b1)"},
      {npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                data),
       StatusCode::kUnimplemented,
       "a.npy: unsupported dtype '>f4' (supported: <f4, <i4, |b1)"},
      {"NUMPY!" + npyBytes(ok, data).substr(6), StatusCode::kDataLoss,
       "a.npy: not a .npy file (bad magic)"},
      {npyBytes(ok, data).substr(0, 7), StatusCode::kDataLoss,
       "a.npy: truncated .npy file (7 bytes)"},
      {npyBytes(ok, data, 2).substr(0, 11), StatusCode::kDataLoss,
       "a.npy: truncated .npy file (11 bytes)"},
      {npyBytes(ok, data).substr(0, 40), StatusCode::kDataLoss,
       "a.npy: truncated .npy header"},
      {npyBytes(ok, data.substr(0, 6)), StatusCode::kDataLoss,
       "a.npy: truncated .npy data: expected 8 bytes, got 6"},
      {npyBytes(ok, data + "xy"), StatusCode::kDataLoss,
       "a.npy: 2 unexpected bytes after the .npy data"},
      {npyBytes(ok, data, 3), StatusCode::kUnimplemented,
       "a.npy: unsupported .npy version 3.0 (supported: 1.0, 2.0)"},
      {npyBytes("{'descr': '<i4', 'fortran_order': False}", data),
       StatusCode::kDataLoss,
       "a.npy: bad .npy header: missing 'descr', 'fortran_order' or 'shape'"},
      {npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2, x)}",
                data),
       StatusCode::kDataLoss,
       "a.npy: bad .npy header: 'shape' has a non-integer dimension"},
      {npyBytes("'descr': '<i4'", data), StatusCode::kDataLoss,
       "a.npy: bad .npy header: expected '{'"},
      {npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), "
                "'extra': 1}",
                data),
       StatusCode::kDataLoss, "a.npy: bad .npy header: unexpected key 'extra'"},
      {npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': "
                "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}",
                data),
       StatusCode::kOutOfRange, "a.npy: rank exceeds the maximum 16"},
      // Each way the data size could overflow: the dims' product, and the
      // product times the element size.
      {npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': "
                "(4294967296, 4294967296)}",
                data),
       StatusCode::kOutOfRange,
       "a.npy: array of shape (4294967296, 4294967296) is too large (2^62 "
       "bytes or more)"},
      {npyBytes("{'descr': '<i4', 'fortran_order': False, 'shape': "
                "(1152921504606846976,)}",
                data),
       StatusCode::kOutOfRange,
       "a.npy: array of shape (1152921504606846976,) is too large (2^62 "
       "bytes or more)"},
  };
  for (const Case &c : cases) {
    Status s = parse(c.bytes);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
  }

  NpyArray a;
  std::string missing = tempPath(".npy");
  Status s = readNpy(missing, &a);
  EXPECT_EQ(s.message(), missing + ": cannot open: No such file or directory");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  s = writeNpy(missing, DType::F32, {-1}, nullptr);
  EXPECT_EQ(s.message(), missing + ": negative dimension");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST(Npy, HeaderLongerThanTheLimitIsRefusedBeforeReadingIt) {
  // A version 2.0 prefix that promises a 1 GiB header dict.
  std::string b = "\x93NUMPY";
  b += std::string("\x02\x00\x00\x00\x00\x40", 6);
  Status s = parse(b);
  EXPECT_EQ(s.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(s.message(), "a.npy: .npy header of 1073741824 bytes is longer "
                         "than the 65536-byte limit");
  std::string path = tempPath(".npy");
  writeFileBytes(path, b);
  NpyArray a;
  EXPECT_EQ(readNpy(path, &a).message(),
            path + ": .npy header of 1073741824 bytes is longer than the "
                   "65536-byte limit");
  std::remove(path.c_str());
}

/// The file reader checks the header before it reads the data, and never
/// reads past what the header implies.
TEST(Npy, ReadChecksTheHeaderFirst) {
  NpyArray a;
  // /dev/zero never ends: its first bytes are not the magic.
  Status s = readNpy("/dev/zero", &a);
  EXPECT_EQ(s.message(), "/dev/zero: not a .npy file (bad magic)");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);

  s = readNpy("/", &a);
  EXPECT_EQ(s.message(), "/: is a directory");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);

  const std::string ok = "{'descr': '<i4', 'fortran_order': False, "
                         "'shape': (2,), }";
  std::string path = tempPath(".npy");
  writeFileBytes(path, npyBytes(ok, int32Bytes({1})));
  EXPECT_EQ(readNpy(path, &a).message(),
            path + ": truncated .npy data: expected 8 bytes, got 4");
  writeFileBytes(path, npyBytes(ok, int32Bytes({1, 2, 3})));
  EXPECT_EQ(readNpy(path, &a).message(),
            path + ": 4 unexpected bytes after the .npy data");
  // A header that declares 2^61 bytes of data in a small file: refused from
  // the file's size, before anything is allocated.
  writeFileBytes(path, npyBytes("{'descr': '|b1', 'fortran_order': False, "
                                "'shape': (2305843009213693952,), }",
                                "x"));
  EXPECT_EQ(readNpy(path, &a).message(),
            path + ": truncated .npy data: expected 2305843009213693952 "
                   "bytes, got 1");
  std::remove(path.c_str());
}

TEST(Npy, ReadFromAPipeStopsAtTheDeclaredSize) {
  const std::string ok = "{'descr': '<i4', 'fortran_order': False, "
                         "'shape': (2,), }";
  NpyArray a;
  // Exactly the declared bytes: read.
  Status s = readThroughPipe(
      npyBytes(ok, int32Bytes({5, 6})),
      [&](const std::string &path) { return readNpy(path, &a); });
  ASSERT_TRUE(s.ok()) << s.message();
  int32_t v[2];
  std::memcpy(v, a.data.data(), 8);
  EXPECT_EQ(v[1], 6);
  // More: an error once the declared bytes are read (a pipe has no size).
  s = readThroughPipe(
      npyBytes(ok, int32Bytes({5, 6, 7})),
      [&](const std::string &path) { return readNpy(path, &a); });
  EXPECT_NE(s.message().find(": unexpected bytes after the .npy data"),
            std::string::npos)
      << s.message();
  // Fewer.
  s = readThroughPipe(
      npyBytes(ok, int32Bytes({5})),
      [&](const std::string &path) { return readNpy(path, &a); });
  EXPECT_NE(s.message().find(": truncated .npy data: expected 8 bytes, got 4"),
            std::string::npos)
      << s.message();
}

TEST(Npy, WriteRefusesNullData) {
  std::string path = tempPath(".npy");
  Status s = writeNpy(path, DType::F32, {2}, nullptr);
  EXPECT_EQ(s.message(), path + ": data is null");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

} // namespace
