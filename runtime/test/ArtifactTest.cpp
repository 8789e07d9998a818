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
  EXPECT_EQ(b[8], 1);  // version
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
}

TEST_F(ArtifactTest, WrongVersion) {
  std::string b = serialize(artifact);
  putU32(b, 8, 2);
  reseal(b);
  EXPECT_EQ(parse(b).message(), "unsupported format version 2 (expected 1)");
}

TEST_F(ArtifactTest, WrongTarget) {
  std::string b = serialize(artifact);
  putU32(b, 12, 7);
  reseal(b);
  EXPECT_EQ(parse(b).message(),
            "unsupported target 7 (this runtime supports 1 = cpu-x86_64)");
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
      EXPECT_NE(s.message().find("unsupported format version"),
                std::string::npos);
    } else if (i < 48 || i >= 56) {
      // (Bytes 48..55 hold the file size: truncated or trailing bytes.)
      ASSERT_EQ(s.message(), "checksum mismatch: the artifact is corrupt")
          << "byte " << i;
    }
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
  }
  {
    std::string c = b;
    c[148] = 9;
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' argument 'x': invalid dtype 9");
  }
  {
    std::string c = b;
    putU32(c, 152, 5); // mapped axis 5 of a rank-1 input
    reseal(c);
    EXPECT_EQ(parse(c).message(), "entry 'affine' input 'x': mapped axis 5 out "
                                  "of range [0, 1] (or -1 for none)");
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
    void (*edit)(Artifact &);
  };
  const Case cases[] = {
      {"entry 'affine': batch size must be >= 1",
       [](Artifact &a) { a.entries[0].batchSize = 0; }},
      {"entry 'affine' input 'x': rank 17 exceeds the maximum 16",
       [](Artifact &a) { a.entries[0].inputs[0].shape.assign(17, 1); }},
      {"entry 'affine' input 'c': negative dimension in shape [-4]",
       [](Artifact &a) { a.entries[0].inputs[1].shape = {-4}; }},
      {"entry 'affine' input 'x': mapped axis 2 out of range [0, 1] (or -1 "
       "for none)",
       [](Artifact &a) { a.entries[0].inputs[0].mappedAxis = 2; }},
      {"entry 'affine' input 'c': mapped axis -3 out of range [0, 1] (or -1 "
       "for none)",
       [](Artifact &a) { a.entries[0].inputs[1].mappedAxis = -3; }},
      {"entry 'affine' input 'x': mapped argument has no staging slot",
       [](Artifact &a) { a.entries[0].inputs[0].stagingOffset = kNoStaging; }},
      {"entry 'affine' output 'y': staging slot [500, +64) exceeds the arena "
       "of 512 bytes",
       [](Artifact &a) { a.entries[0].outputs[0].stagingOffset = 500; }},
      {"entry 'affine': staging slots overlap at arena offsets 0 and 32",
       [](Artifact &a) { a.entries[0].inputs[1].stagingOffset = 32; }},
      {"entry 'affine' input 'x': array size overflows",
       [](Artifact &a) {
         a.entries[0].inputs[0].shape = {int64_t(1) << 40, int64_t(1) << 30};
       }},
      {"entry 'affine' input 'x': invalid dtype 7",
       [](Artifact &a) { a.entries[0].inputs[0].dtype = DType(7); }},
      {"entry 'affine' input 'x': duplicate name",
       [](Artifact &a) { a.entries[0].inputs[1].name = "x"; }},
      {"entry 'affine' output #0 name is empty",
       [](Artifact &a) { a.entries[0].outputs[0].name = ""; }},
      {"duplicate entry name 'affine'",
       [](Artifact &a) { a.entries[1].name = "affine"; }},
      {"entry 'affine' symbol contains a NUL byte",
       [](Artifact &a) { a.entries[0].symbol = std::string("rt\0x", 4); }},
      {"artifact has no entries", [](Artifact &a) { a.entries.clear(); }},
      {"code is not an ELF object", [](Artifact &a) { a.code = "hello"; }},
      {"code is not an ELF shared object (ET_DYN)",
       [](Artifact &a) {
         a.code[16] = 1; /* ET_REL */
       }},
      {"CPU feature name is empty",
       [](Artifact &a) { a.cpuFeatures.push_back(""); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = serializeError(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_FALSE(validateArtifact(a).ok());
  }
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
}

} // namespace
