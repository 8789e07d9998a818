//===- ArtifactTest.cpp - .vmapc writer, reader and validator tests -------===//

#include "TestUtil.h"
#include "vmapc/ArtifactFormat.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace vmapc;
using namespace vmapc_test;

namespace {

std::string serialize(const Artifact &a) {
  std::string bytes;
  Status s = serializeArtifact(a, &bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  return bytes;
}

Status parse(const std::string &bytes) {
  Artifact out;
  return parseArtifact(bytes.data(), bytes.size(), &out);
}

/// Recomputes the trailing checksum after a deliberate edit.
void reseal(std::string &bytes) {
  uint64_t h = fnv1a64(bytes.data(), bytes.size() - 8);
  for (int i = 0; i < 8; ++i)
    bytes[bytes.size() - 8 + i] = char((h >> (8 * i)) & 0xff);
}

uint64_t u64At(const std::string &b, size_t off) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(uint8_t(b[off + i])) << (8 * i);
  return v;
}

void putU32(std::string &b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[off + i] = char((v >> (8 * i)) & 0xff);
}

void putU64(std::string &b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[off + i] = char((v >> (8 * i)) & 0xff);
}

class ArtifactTest : public ::testing::Test {
protected:
  void SetUp() override {
    code = testKernelBytes();
    ASSERT_FALSE(code.empty()) << "cannot read " << VMAPC_TEST_KERNELS;
    artifact = makeTestArtifact(code);
  }
  Status serializeError(const Artifact &a) {
    std::string bytes;
    return serializeArtifact(a, &bytes);
  }
  std::string code;
  Artifact artifact;
};

TEST(Fnv1a64, KnownValues) {
  EXPECT_EQ(fnv1a64("", 0), 0xcbf29ce484222325ull);
  EXPECT_EQ(fnv1a64("a", 1), 0xaf63dc4c8601ec8cull);
  EXPECT_EQ(fnv1a64("foobar", 6), 0x85944171f73967e8ull);
}

TEST(DType, SizesAndNames) {
  EXPECT_EQ(dtypeBytes(DType::F32), 4u);
  EXPECT_EQ(dtypeBytes(DType::I32), 4u);
  EXPECT_EQ(dtypeBytes(DType::Bool), 1u);
  EXPECT_STREQ(dtypeName(DType::Bool), "bool");
  EXPECT_STREQ(dtypeName(DType(9)), "invalid");
}

TEST_F(ArtifactTest, HeaderLayout) {
  std::string b = serialize(artifact);
  ASSERT_GT(b.size(), 64u);
  EXPECT_EQ(std::memcmp(b.data(), "VMAPC\0\0\0", 8), 0);
  EXPECT_EQ(b[8], 2);  // version
  EXPECT_EQ(b[12], 1); // target cpu-x86_64
  EXPECT_EQ(u64At(b, 16), 64u);
  uint64_t manifestSize = u64At(b, 24);
  uint64_t codeOffset = u64At(b, 32);
  EXPECT_EQ(codeOffset % 16, 0u);
  EXPECT_GE(codeOffset, 64 + manifestSize);
  EXPECT_LT(codeOffset, 64 + manifestSize + 16);
  EXPECT_EQ(u64At(b, 40), code.size());
  EXPECT_EQ(u64At(b, 48), b.size());
  EXPECT_EQ(u64At(b, 56), 0u);
  EXPECT_EQ(b.substr(codeOffset, code.size()), code);
  EXPECT_EQ(u64At(b, b.size() - 8), fnv1a64(b.data(), b.size() - 8));
}

TEST_F(ArtifactTest, RoundTrip) {
  std::string b = serialize(artifact);
  Artifact back;
  Status s = parseArtifact(b.data(), b.size(), &back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.target, Target::CpuX86_64);
  EXPECT_EQ(back.cpuFeatures, artifact.cpuFeatures);
  EXPECT_EQ(back.code, code);
  ASSERT_EQ(back.entries.size(), artifact.entries.size());
  for (size_t i = 0; i < back.entries.size(); ++i) {
    const EntryInfo &x = artifact.entries[i], &y = back.entries[i];
    EXPECT_EQ(y.name, x.name);
    EXPECT_EQ(y.symbol, x.symbol);
    EXPECT_EQ(y.batchSize, x.batchSize);
    EXPECT_EQ(y.arenaBytes, x.arenaBytes);
    EXPECT_EQ(y.lowerBoundBytes, x.lowerBoundBytes);
    EXPECT_EQ(y.naiveSumBytes, x.naiveSumBytes);
    EXPECT_EQ(y.inPlaceCount, x.inPlaceCount);
    ASSERT_EQ(y.inputs.size(), x.inputs.size());
    ASSERT_EQ(y.outputs.size(), x.outputs.size());
    auto same = [](const ArgInfo &p, const ArgInfo &q) {
      EXPECT_EQ(p.name, q.name);
      EXPECT_EQ(p.dtype, q.dtype);
      EXPECT_EQ(p.shape, q.shape);
      EXPECT_EQ(p.mappedAxis, q.mappedAxis);
      EXPECT_EQ(p.stagingOffset, q.stagingOffset);
    };
    for (size_t j = 0; j < x.inputs.size(); ++j)
      same(x.inputs[j], y.inputs[j]);
    for (size_t j = 0; j < x.outputs.size(); ++j)
      same(x.outputs[j], y.outputs[j]);
  }
  EXPECT_EQ(back.entries[0].lowerBoundBytes, 128u);
  EXPECT_EQ(back.entries[2].outputs[1].dtype, DType::Bool);
  EXPECT_TRUE(back.entries[2].inputs[1].shape.empty());
  // Serializing what was read gives the same bytes.
  EXPECT_EQ(serialize(back), b);
}

// The smallest arguments: scalars with one-letter names, in the last entry
// (nothing after them in the manifest). Once rejected as "bad argument
// counts" by a too-large minimum argument size.
TEST_F(ArtifactTest, ScalarArgumentsWithShortNamesRoundTrip) {
  EntryInfo e;
  e.name = "s";
  e.symbol = artifact.entries[0].symbol;
  e.batchSize = 4;
  e.arenaBytes = 64;
  for (auto [list, name] : {std::pair{&e.inputs, "x"}, {&e.outputs, "y"}}) {
    ArgInfo arg;
    arg.name = name;
    arg.dtype = DType::F32;
    arg.mappedAxis = 0;
    arg.stagingOffset = list == &e.inputs ? 0 : 16;
    list->push_back(arg);
  }
  artifact.entries.push_back(e);
  std::string b = serialize(artifact);
  Artifact back;
  Status s = parseArtifact(b.data(), b.size(), &back);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(back.entries.back().inputs.size(), 1u);
  EXPECT_EQ(back.entries.back().inputs[0].name, "x");
  EXPECT_TRUE(back.entries.back().outputs[0].shape.empty());
}

TEST_F(ArtifactTest, WriteFileMatchesBytes) {
  std::string path = tempPath(".vmapc");
  ASSERT_TRUE(writeArtifactFile(artifact, path).ok());
  EXPECT_EQ(readFileBytes(path), serialize(artifact));
  std::remove(path.c_str());
}

TEST_F(ArtifactTest, EveryTruncationIsRejected) {
  std::string b = serialize(artifact);
  for (size_t n = 0; n < b.size(); ++n) {
    Status s = parse(b.substr(0, n));
    ASSERT_FALSE(s.ok()) << n;
    ASSERT_NE(s.message().find("truncated artifact"), std::string::npos)
        << n << ": " << s.message();
  }
}

TEST_F(ArtifactTest, TrailingBytesAreRejected) {
  Status s = parse(serialize(artifact) + "x");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("trailing bytes"), std::string::npos);
}

TEST_F(ArtifactTest, BadMagic) {
  std::string b = serialize(artifact);
  b[0] = 'W';
  Status s = parse(b);
  EXPECT_EQ(s.message(), "bad magic: not a .vmapc artifact");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

TEST_F(ArtifactTest, WrongVersion) {
  std::string b = serialize(artifact);
  for (uint32_t version : {1u, 3u}) {
    putU32(b, 8, version);
    reseal(b);
    Status s = parse(b);
    EXPECT_EQ(s.message(), "runtime supports format 2, artifact has " +
                               std::to_string(version));
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  }
}

TEST_F(ArtifactTest, WrongTarget) {
  std::string b = serialize(artifact);
  putU32(b, 12, 7);
  reseal(b);
  Status s = parse(b);
  EXPECT_EQ(s.message(),
            "unsupported target 7 (this runtime supports 1 = cpu-x86_64)");
  EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
}

TEST_F(ArtifactTest, EveryFlippedByteIsRejected) {
  std::string b = serialize(artifact);
  for (size_t i = 0; i < b.size(); ++i) {
    std::string c = b;
    c[i] = char(c[i] ^ 0x20);
    Status s = parse(c);
    ASSERT_FALSE(s.ok()) << "byte " << i;
    if (i < 8) {
      EXPECT_EQ(s.message(), "bad magic: not a .vmapc artifact");
    } else if (i < 12) {
      EXPECT_NE(s.message().find("runtime supports format 2, artifact has"),
                std::string::npos);
    } else if (i < 48 || i >= 56) {
      // (Bytes 48..55 hold the file size: truncated or trailing bytes.)
      ASSERT_EQ(s.message(), "checksum mismatch: the artifact is corrupt")
          << "byte " << i;
    }
    EXPECT_NE(s.code(), StatusCode::kOk);
  }
}

TEST_F(ArtifactTest, ReaderChecksFieldsBehindAValidChecksum) {
  std::string b = serialize(artifact);
  // Manifest of the first entry's first input: see the layout in
  // ArtifactFormat.h. 64 (header) + 12 (features) + 4 (entry count) +
  // 10 ("affine") + 13 ("rt_affine") + 40 (numbers) + 5 ("x") = 148.
  ASSERT_EQ(b[148], 1); // dtype f32
  ASSERT_EQ(b[149], 1); // rank 1
  {
    std::string c = b;
    c[149] = 17;
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' argument 'x': rank 17 exceeds the maximum 16");
    EXPECT_EQ(parse(c).code(), StatusCode::kOutOfRange);
  }
  {
    std::string c = b;
    c[148] = 9;
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' argument 'x': invalid dtype 9");
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
  }
  {
    std::string c = b;
    putU32(c, 152, 5); // mapped axis 5 of a rank-1 input
    reseal(c);
    EXPECT_EQ(parse(c).message(), "entry 'affine' input 'x': mapped axis 5 out "
                                  "of range [0, 1] (or -1 for none)");
    // A rule the writer never breaks: the bytes are not an artifact.
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
  }
  {
    // The input's one dim (at 64 + 12 + 4 + 10 + 13 + 40 + 5 + 4 + 4 + 8):
    // a dim that makes the array 2^62 bytes or more is out of range.
    std::string c = b;
    ASSERT_EQ(u64At(c, 164), 4u);
    putU64(c, 164, uint64_t(1) << 61);
    reseal(c);
    EXPECT_EQ(parse(c).code(), StatusCode::kOutOfRange);
    // A negative dim (2^63 and above as i64) is not an artifact.
    putU64(c, 164, uint64_t(1) << 63);
    reseal(c);
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
  }
  {
    std::string c = b;
    putU32(c, 64 + 12, 0xffffffffu); // entry count
    reseal(c);
    EXPECT_EQ(parse(c).message(), "bad entry count 4294967295");
  }
  {
    std::string c = b;
    c[24] = char(c[24] + 1); // manifest one byte longer: overlaps the code
    reseal(c);
    Status s = parse(c);
    EXPECT_FALSE(s.ok());
  }
  {
    std::string c = b;
    c[40] = char(c[40] + 1); // code size disagrees with the file size
    reseal(c);
    EXPECT_NE(parse(c).message().find("out of bounds"), std::string::npos);
  }
  {
    std::string c = b;
    c[56] = 1; // reserved
    reseal(c);
    EXPECT_EQ(parse(c).message(), "header reserved field is not zero");
  }
}

TEST_F(ArtifactTest, ValidatorRejectsBadManifests) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  const Case cases[] = {
      {"entry 'affine': batch size must be >= 1", kInvalid,
       [](Artifact &a) { a.entries[0].batchSize = 0; }},
      {"entry 'affine' input 'x': rank 17 exceeds the maximum 16",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[0].shape.assign(17, 1); }},
      // 16 per-example dims are allowed unmapped, not mapped: the caller's
      // array would have 17.
      {"entry 'affine' input 'x': rank 16 with the batch axis exceeds the "
       "maximum 16",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[0].shape.assign(16, 1); }},
      {"entry 'affine' input 'c': negative dimension in shape [-4]", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].shape = {-4}; }},
      {"entry 'affine' input 'x': mapped axis 2 out of range [0, 1] (or -1 "
       "for none)",
       kInvalid, [](Artifact &a) { a.entries[0].inputs[0].mappedAxis = 2; }},
      {"entry 'affine' input 'c': mapped axis -3 out of range [0, 1] (or -1 "
       "for none)",
       kInvalid, [](Artifact &a) { a.entries[0].inputs[1].mappedAxis = -3; }},
      {"entry 'affine' input 'x': mapped argument has no staging slot",
       kInvalid,
       [](Artifact &a) { a.entries[0].inputs[0].stagingOffset = kNoStaging; }},
      {"entry 'affine' output 'y': staging slot [500, +64) exceeds the arena "
       "of 512 bytes",
       kInvalid,
       [](Artifact &a) { a.entries[0].outputs[0].stagingOffset = 500; }},
      {"entry 'affine': staging slots overlap at arena offsets 0 and 32",
       kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].stagingOffset = 32; }},
      {"entry 'affine' input 'x': invalid dtype 7", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[0].dtype = DType(7); }},
      {"entry 'affine' input 'x': duplicate name", kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].name = "x"; }},
      {"entry 'affine' output #0 name is empty", kInvalid,
       [](Artifact &a) { a.entries[0].outputs[0].name = ""; }},
      {"entry 'affine' output #0 name is longer than 4096 bytes",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].outputs[0].name.assign(4097, 'y'); }},
      {"duplicate entry name 'affine'", kInvalid,
       [](Artifact &a) { a.entries[1].name = "affine"; }},
      {"entry 'affine' symbol contains a NUL byte", kInvalid,
       [](Artifact &a) { a.entries[0].symbol = std::string("rt\0x", 4); }},
      {"artifact has no entries", kInvalid,
       [](Artifact &a) { a.entries.clear(); }},
      {"entry 'affine' has more than 4096 inputs", StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs.resize(4097, a.entries[0].inputs[1]);
       }},
      {"code is not an ELF object", kInvalid,
       [](Artifact &a) { a.code = "hello"; }},
      {"code is not an ELF shared object (ET_DYN)", kInvalid,
       [](Artifact &a) {
         a.code[16] = 1; /* ET_REL */
       }},
      {"CPU feature name is empty", kInvalid,
       [](Artifact &a) { a.cpuFeatures.push_back(""); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = serializeError(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
    EXPECT_EQ(validateArtifact(a).message(), c.expected);
  }
  // 16 per-example dims are allowed on an unmapped argument.
  Artifact a = artifact;
  ASSERT_FALSE(a.entries[0].inputs[1].isMapped());
  a.entries[0].inputs[1].shape.assign(16, 1);
  EXPECT_TRUE(validateArtifact(a).ok());
}

// Every way a size in a manifest could overflow 64 bits or pass the 2^62
// limit is an error naming the field, never a wrapped-around size.
TEST_F(ArtifactTest, SizesThatWouldOverflowAreOutOfRange) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  const Case cases[] = {
      // The product of the dims alone overflows 64 bits.
      {"entry 'affine' input 'c': array of shape [4294967296, 4294967296] "
       "takes 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs[1].shape = {int64_t(1) << 32, int64_t(1) << 32};
       }},
      // Dims x dtype size passes 2^62.
      {"entry 'affine' input 'c': array of shape [1152921504606846976] takes "
       "2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[1].shape = {int64_t(1) << 60}; }},
      // One example fits, B examples do not.
      {"entry 'affine' input 'x': array of shape [288230376151711744] x batch "
       "4 takes 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].inputs[0].shape = {int64_t(1) << 58}; }},
      // offset + bytes of a staging slot wraps around 2^64.
      {"entry 'affine' input 'x': staging slot [18446744073709551600, +64) "
       "exceeds the arena of 512 bytes",
       StatusCode::kInvalidArgument,
       [](Artifact &a) {
         a.entries[0].inputs[0].stagingOffset = ~uint64_t(0) - 15;
       }},
      // An empty array whose other dims would be 2^62 bytes or more.
      {"entry 'affine' input 'c': array of shape [0, 1152921504606846976] "
       "takes 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs[1].shape = {0, int64_t(1) << 60};
       }},
      // The arena itself.
      {"entry 'affine': arena of 4611686018427387904 bytes is too large (the "
       "limit is 2^62 bytes)",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.entries[0].arenaBytes = uint64_t(1) << 62; }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
  }
}

TEST(CheckedBytes, StopBelowTheLimit) {
  EXPECT_EQ(checkedMulBytes(3, 5), 15u);
  EXPECT_EQ(checkedMulBytes(0, ~uint64_t(0)), 0u);
  EXPECT_EQ(checkedMulBytes(uint64_t(1) << 31, uint64_t(1) << 30), uint64_t(1)
                                                                       << 61);
  EXPECT_EQ(checkedMulBytes(uint64_t(1) << 31, uint64_t(1) << 31),
            std::nullopt); // = 2^62, the limit itself
  EXPECT_EQ(checkedMulBytes(uint64_t(1) << 32, uint64_t(1) << 32),
            std::nullopt); // wraps to 0 in 64 bits
  EXPECT_EQ(checkedAddBytes(kMaxArrayBytes - 1, 0), kMaxArrayBytes - 1);
  EXPECT_EQ(checkedAddBytes(kMaxArrayBytes - 1, 1), std::nullopt);
  EXPECT_EQ(checkedAddBytes(~uint64_t(0), 2), std::nullopt); // wraps to 1
  int64_t dims[3] = {2, 3, 5};
  EXPECT_EQ(arrayBytes(DType::F32, dims, 3), 120u);
  EXPECT_EQ(arrayBytes(DType::Bool, dims, 0), 1u);
  // An empty array has 0 bytes, but its other dims are bounded all the same.
  int64_t empty[3] = {int64_t(1) << 40, 0, 7};
  EXPECT_EQ(arrayBytes(DType::F32, empty, 3), 0u);
  int64_t emptyHuge[2] = {0, int64_t(1) << 61};
  EXPECT_EQ(arrayBytes(DType::F32, emptyHuge, 2), std::nullopt);
  int64_t negative[2] = {2, -3};
  EXPECT_EQ(arrayBytes(DType::F32, negative, 2), std::nullopt);
  EXPECT_EQ(arrayBytes(DType(9), dims, 3), std::nullopt);
  // 2^32 x 2^32 x 4 wraps to 0 in 64 bits.
  int64_t wraps[2] = {int64_t(1) << 32, int64_t(1) << 32};
  EXPECT_EQ(arrayBytes(DType::F32, wraps, 2), std::nullopt);
}

TEST_F(ArtifactTest, OverlappingSlotsAreFoundInAnyOrder) {
  // Outputs in decreasing offset order; the first and last overlap.
  EntryInfo e;
  e.name = "many";
  e.symbol = "rt_affine";
  e.batchSize = 1;
  e.arenaBytes = 4096;
  e.inputs = {arg("x", DType::F32, {}, 0, 0)};
  for (int i = 0; i < 10; ++i)
    e.outputs.push_back(
        arg("y" + std::to_string(i), DType::F32, {4}, 0, 1000 - 16 * i));
  e.outputs.push_back(arg("z", DType::F32, {4}, 0, 1000 - 16 * 9 + 8));
  artifact.entries.push_back(e);
  Status s = validateArtifact(artifact);
  EXPECT_EQ(s.message(),
            "entry 'many': staging slots overlap at arena offsets 856 and 864");
  artifact.entries.back().outputs.pop_back();
  EXPECT_TRUE(validateArtifact(artifact).ok());
}

TEST_F(ArtifactTest, HeaderSizesThatWouldOverflowAreRejected) {
  std::string b = serialize(artifact);
  struct Case {
    size_t offset;
    uint64_t value;
    const char *expected;
    StatusCode code;
  };
  const Case cases[] = {
      // The declared file size: past the limit, or below the minimum.
      {48, ~uint64_t(0),
       "declared file size 18446744073709551615 is not below the 2^62-byte "
       "limit",
       StatusCode::kOutOfRange},
      {48, 70, "declared file size 70 is smaller than the 72-byte minimum",
       StatusCode::kDataLoss},
  };
  for (const Case &c : cases) {
    std::string d = b;
    putU64(d, c.offset, c.value);
    Status s = parse(d);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code);
    uint64_t fileSize = 0;
    EXPECT_EQ(checkArtifactHeader(d.data(), 64, &fileSize).message(),
              c.expected);
  }
  // Fields whose sum with an offset would wrap: out of bounds, behind a
  // valid checksum.
  for (auto [offset, what] : {std::pair<size_t, const char *>{24, "manifest ["},
                              {32, "code ["},
                              {40, "code ["}}) {
    std::string d = b;
    putU64(d, offset, ~uint64_t(0) - 7);
    reseal(d);
    Status s = parse(d);
    EXPECT_EQ(s.message().rfind(what, 0), 0u) << s.message();
    EXPECT_NE(s.message().find("out of bounds"), std::string::npos);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  }
}

TEST_F(ArtifactTest, ReadFileChecksTheHeaderFirst) {
  HostBuffer bytes;
  // /dev/zero never ends: its first bytes are not the magic.
  Status s = readArtifactFile("/dev/zero", &bytes);
  EXPECT_EQ(s.message(), "/dev/zero: bad magic: not a .vmapc artifact");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  s = readArtifactFile("/", &bytes);
  EXPECT_EQ(s.message(), "/: is a directory");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);

  std::string b = serialize(artifact);
  std::string path = tempPath(".vmapc");
  writeFileBytes(path, b);
  ASSERT_TRUE(readArtifactFile(path, &bytes).ok());
  EXPECT_EQ(
      std::string(reinterpret_cast<const char *>(bytes.data()), bytes.size()),
      b);
  // A header that declares 2^61 bytes in a small file: refused from the
  // file's size before anything is allocated.
  std::string big = b;
  putU64(big, 48, uint64_t(1) << 61);
  writeFileBytes(path, big);
  s = readArtifactFile(path, &bytes);
  EXPECT_EQ(s.message(), path +
                             ": truncated artifact: header says "
                             "2305843009213693952 bytes, got " +
                             std::to_string(b.size()));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  std::remove(path.c_str());

  // Through a pipe (no size): the declared size is checked against memory
  // before it is allocated, and the reading stops there.
  s = readThroughPipe(
      big, [&](const std::string &p) { return readArtifactFile(p, &bytes); });
  EXPECT_NE(
      s.message().find("would take 2305843009213693952 bytes, more than the "),
      std::string::npos)
      << s.message();
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  s = readThroughPipe(b + "more", [&](const std::string &p) {
    return readArtifactFile(p, &bytes);
  });
  EXPECT_NE(s.message().find(": artifact has more bytes than its declared "
                             "size of " +
                             std::to_string(b.size())),
            std::string::npos)
      << s.message();
  s = readThroughPipe(b.substr(0, 100), [&](const std::string &p) {
    return readArtifactFile(p, &bytes);
  });
  EXPECT_NE(s.message().find(": truncated artifact: header says " +
                             std::to_string(b.size()) + " bytes, got 100"),
            std::string::npos)
      << s.message();
  s = readThroughPipe(
      b, [&](const std::string &p) { return readArtifactFile(p, &bytes); });
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(ArtifactTest, EntryDescriptorWordsAndChecks) {
  const EntryInfo &affine = artifact.entries[0];
  std::vector<uint64_t> words =
      entryDescriptorWords(4, 512, {{16, 0}, {16, kNoAxis}}, {{16, 0}});
  const std::vector<uint64_t> expected = {
      kEntryDescriptorMagic, 1, 4, 512, 2, 1, 16, 0, 16, ~uint64_t(0), 16, 0};
  EXPECT_EQ(words, expected);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(words.data()), 8),
            "VMAPCDSC");
  size_t bytes = words.size() * 8;
  EXPECT_TRUE(checkEntryDescriptor(affine, words.data(), bytes).ok());

  auto check = [&](std::vector<uint64_t> w, size_t size) {
    Status s = checkEntryDescriptor(affine, w.data(), size);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.message();
    return s.message();
  };
  EXPECT_EQ(check(words, 40),
            "the code's descriptor is 40 bytes, too small for its header");
  EXPECT_EQ(check(words, bytes - 8), "the code's descriptor is 88 bytes, "
                                     "fewer than the 96 its counts need");
  // Padding after the words (AddressSanitizer's redzone) is allowed.
  words.push_back(0);
  EXPECT_TRUE(checkEntryDescriptor(affine, words.data(), bytes + 8).ok());
  words.pop_back();
  std::vector<uint64_t> w = words;
  w[0] ^= 1;
  EXPECT_EQ(check(w, bytes), "the code's descriptor has a bad magic");
  w = words;
  w[1] = 2;
  EXPECT_EQ(check(w, bytes),
            "the code's descriptor has version 2 (this runtime reads 1)");
  w = words;
  w[4] = 4097; // a count that would make the expected size large
  EXPECT_EQ(check(w, bytes), "the manifest disagrees with the code: input "
                             "count: 2 in the manifest, 4097 in the code");
  w = words;
  w[10] = 12;
  EXPECT_EQ(check(w, bytes), "the manifest disagrees with the code: bytes "
                             "per example of output 'y': 16 in the "
                             "manifest, 12 in the code");
}

TEST(BatchedShape, InsertsNAtTheMappedAxis) {
  EXPECT_EQ(batchedShape(arg("a", DType::F32, {2, 3}, 1), 7),
            (std::vector<int64_t>{2, 7, 3}));
  EXPECT_EQ(batchedShape(arg("a", DType::F32, {2, 3}, 2), 0),
            (std::vector<int64_t>{2, 3, 0}));
  EXPECT_EQ(batchedShape(arg("a", DType::F32, {}, 0), 5),
            (std::vector<int64_t>{5}));
  EXPECT_EQ(batchedShape(arg("a", DType::I32, {4}, kNoAxis), 5),
            (std::vector<int64_t>{4}));
}

TEST_F(ArtifactTest, ExampleBytes) {
  EXPECT_EQ(exampleBytes(arg("a", DType::F32, {2, 3}, 0)), 24);
  EXPECT_EQ(exampleBytes(arg("a", DType::Bool, {}, 0)), 1);
  EXPECT_EQ(exampleBytes(arg("a", DType::I32, {5, 0}, 0)), 0);
  EXPECT_EQ(exampleBytes(arg("a", DType::I32, {int64_t(1) << 62}, 0)), -1);
  EXPECT_EQ(exampleBytes(arg("a", DType::I32, {-1}, 0)), -1);
}

} // namespace
