//===- ArtifactTest.cpp - .vmapc writer, reader and validator tests -------===//

#include "RuntimeTestUtil.h"
#include "TestUtil.h"
#include "vmapc/ArtifactDescriptors.h"
#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactReader.h"
#include "vmapc/ArtifactValidator.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Schedule.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <functional>

using namespace vmapc;
using namespace vmapc_test;

namespace {

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

uint32_t u32At(const std::string &b, size_t off) {
  return uint32_t(u64At(b.substr(off, 4) + std::string(4, '\0'), 0));
}

void putU32(std::string &b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[off + i] = char((v >> (8 * i)) & 0xff);
}

void putU64(std::string &b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[off + i] = char((v >> (8 * i)) & 0xff);
}

/// Where each part of the manifest of `a` starts in its serialized bytes,
/// computed from the layout that ArtifactFormat.h documents.
struct Layout {
  size_t kernelCount = 0;
  std::vector<size_t> kernels;
  size_t entryCount = 0;
  std::vector<size_t> entries;
  /// Per entry: its arguments (inputs, then outputs), its command count,
  /// its commands.
  std::vector<std::vector<size_t>> args;
  std::vector<size_t> commandCount;
  std::vector<std::vector<size_t>> commands;
  size_t codeObjectCount = 0;
  std::vector<size_t> codeObjects;
  size_t manifestEnd = 0;
};

Layout layoutOf(const Artifact &a) {
  Layout l;
  size_t off = kHeaderBytes;
  l.kernelCount = off;
  off += 4;
  for (const KernelInfo &k : a.kernels) {
    l.kernels.push_back(off);
    off += 4 + k.name.size() + 4 + 4 + 3 * 8 + 8 + 9 * k.numBindings;
  }
  l.entryCount = off;
  off += 4;
  for (const EntryInfo &e : a.entries) {
    l.entries.push_back(off);
    off += 4 + e.name.size() + 4 + 4 + 3 * 8 + 4 + 4 + 4;
    l.args.emplace_back();
    for (const auto *list : {&e.inputs, &e.outputs})
      for (const ArgInfo &arg : *list) {
        l.args.back().push_back(off);
        off += 4 + arg.name.size() + 1 + 1 + 2 + 4 + 8 + 8 * arg.shape.size();
      }
    l.commandCount.push_back(off);
    off += 4;
    l.commands.emplace_back();
    for (const Command &c : e.schedule) {
      l.commands.back().push_back(off);
      off += 4 + (c.kind == Command::Kind::Loop
                      ? 8 + 4
                      : 4 + 16 * c.bindings.size() + 8 * c.scalars.size());
    }
  }
  l.codeObjectCount = off;
  off += 4;
  for (const CodeObject &o : a.codeObjects) {
    l.codeObjects.push_back(off);
    off += 4 + 4 + o.level.size() + 4;
    for (const std::string &f : o.cpuFeatures)
      off += 4 + f.size();
    if (isCudaCode(o.kind))
      off += 16 * o.launches.size();
    off += 8 + 8;
  }
  l.manifestEnd = off;
  return l;
}

/// Offsets inside one entry and one code object.
size_t flagsOffset(const Layout &l, const Artifact &a, size_t entry) {
  return l.entries[entry] + 4 + a.entries[entry].name.size() + 4;
}
size_t codeRangeOffset(const Layout &l, const Artifact &a, size_t object) {
  size_t off =
      l.codeObjects[object] + 4 + 4 + a.codeObjects[object].level.size();
  off += 4;
  for (const std::string &f : a.codeObjects[object].cpuFeatures)
    off += 4 + f.size();
  if (isCudaCode(a.codeObjects[object].kind))
    off += 16 * a.codeObjects[object].launches.size();
  return off; // u64 offset, then u64 size
}

class ArtifactTest : public ::testing::Test {
protected:
  void SetUp() override {
    code = testKernelBytes();
    ASSERT_FALSE(code.empty()) << "cannot read " << VMAPC_TEST_KERNELS;
    artifact = makeTestArtifact();
    for (const CodeObject &o : artifact.codeObjects)
      ASSERT_FALSE(o.bytes.empty()) << "cannot read the " << o.level << " code";
  }
  Status serializeError(const Artifact &a) {
    std::string bytes;
    return serializeArtifact(a, &bytes);
  }
  /// The test artifact with its baseline code object alone: smaller, for
  /// the tests that go byte by byte.
  Artifact smallArtifact() {
    return makeTestArtifact({testCodeObject("x86-64", code)});
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
  EXPECT_EQ(u32At(b, 8), 5u);  // version
  EXPECT_EQ(u32At(b, 12), 0u); // reserved
  EXPECT_EQ(u64At(b, 16), 64u);
  uint64_t manifestSize = u64At(b, 24);
  EXPECT_EQ(64 + manifestSize, layoutOf(artifact).manifestEnd);
  uint64_t codeOffset = u64At(b, 32);
  EXPECT_EQ(codeOffset % 16, 0u);
  EXPECT_GE(codeOffset, 64 + manifestSize);
  EXPECT_LT(codeOffset, 64 + manifestSize + 16);
  for (uint64_t i = 64 + manifestSize; i < codeOffset; ++i)
    EXPECT_EQ(b[i], 0) << "padding byte " << i;
  // The code objects one after another, each at a multiple of 16.
  uint64_t codeSize = 0;
  for (const CodeObject &o : artifact.codeObjects)
    codeSize = (codeSize + 15) / 16 * 16 + o.bytes.size();
  EXPECT_EQ(u64At(b, 40), codeSize);
  EXPECT_EQ(u64At(b, 48), b.size());
  EXPECT_EQ(b.size(), codeOffset + codeSize + 8);
  EXPECT_EQ(u64At(b, 56), 0u);
  // The code as built, but for the entry descriptors' digests.
  EXPECT_EQ(b.substr(codeOffset, code.size()), artifact.codeObjects[0].bytes);
  EXPECT_EQ(artifact.codeObjects[0].bytes.size(), code.size());
  EXPECT_EQ(u64At(b, b.size() - 8), fnv1a64(b.data(), b.size() - 8));
}

TEST_F(ArtifactTest, ManifestLayoutIsAsDocumented) {
  std::string b = serialize(artifact);
  Layout l = layoutOf(artifact);
  EXPECT_EQ(u32At(b, l.kernelCount), 13u);
  // Kernel `axis1`: name, counts, grid (-2, 2, 1), scratch, binding bytes,
  // binding accesses (read, write).
  size_t k = l.kernels[kAxis1];
  EXPECT_EQ(u32At(b, k), 5u);
  EXPECT_EQ(b.substr(k + 4, 5), "axis1");
  EXPECT_EQ(u32At(b, k + 9), 2u);
  EXPECT_EQ(u32At(b, k + 13), 1u);
  EXPECT_EQ(int64_t(u64At(b, k + 17)), -2);
  EXPECT_EQ(u64At(b, k + 25), 2u);
  EXPECT_EQ(u64At(b, k + 33), 1u);
  EXPECT_EQ(u64At(b, k + 41), 0u);
  EXPECT_EQ(u64At(b, k + 49), 2u * kTestB * 12);
  EXPECT_EQ(u64At(b, k + 57), 2u * 3 * kTestB * 4);
  EXPECT_EQ(uint8_t(b[k + 65]), 1u);
  EXPECT_EQ(uint8_t(b[k + 66]), 2u);
  EXPECT_EQ(u32At(b, l.entryCount), 11u);
  // Entry `twostep`: its batch size, then its schedule.
  size_t t = entryIndex(artifact, "twostep");
  EXPECT_EQ(b.substr(l.entries[t] + 4, 7), "twostep");
  EXPECT_EQ(u32At(b, l.entries[t] + 11), uint32_t(kTestB));
  EXPECT_EQ(u32At(b, l.commandCount[t]), 4u);
  const std::vector<size_t> &c = l.commands[t];
  // dispatch square (input 0, arena + 128) scalars (n)
  EXPECT_EQ(u32At(b, c[0]), 1u); // kind 1, reserved 0
  EXPECT_EQ(u32At(b, c[0] + 4), uint32_t(kSquare));
  EXPECT_EQ(u32At(b, c[0] + 8), 1u);  // input
  EXPECT_EQ(u32At(b, c[0] + 12), 0u); // #0
  EXPECT_EQ(u64At(b, c[0] + 16), 0u);
  EXPECT_EQ(u32At(b, c[0] + 24), 3u); // arena
  EXPECT_EQ(u64At(b, c[0] + 32), 128u);
  EXPECT_EQ(u32At(b, c[0] + 40), 1u); // n
  // loop 2 (body 2), loop 3 (body 1)
  EXPECT_EQ(u32At(b, c[1]), 2u);
  EXPECT_EQ(u64At(b, c[1] + 4), 2u);
  EXPECT_EQ(u32At(b, c[1] + 12), 2u);
  EXPECT_EQ(u64At(b, c[2] + 4), 3u);
  EXPECT_EQ(u32At(b, c[2] + 12), 1u);
  // dispatch accumulate ... scalars (n, loop 0, loop 1)
  EXPECT_EQ(u32At(b, c[3] + 4), uint32_t(kAccumulate));
  EXPECT_EQ(u32At(b, c[3] + 40), 1u);
  EXPECT_EQ(u32At(b, c[3] + 48), 2u);
  EXPECT_EQ(u32At(b, c[3] + 52), 0u);
  EXPECT_EQ(u32At(b, c[3] + 56), 2u);
  EXPECT_EQ(u32At(b, c[3] + 60), 1u);
  // Code objects: kind, level, features, offset, size.
  EXPECT_EQ(u32At(b, l.codeObjectCount), 3u);
  size_t o = l.codeObjects[1];
  EXPECT_EQ(u32At(b, o), 1u);
  EXPECT_EQ(u32At(b, o + 4), 9u);
  EXPECT_EQ(b.substr(o + 8, 9), "x86-64-v3");
  EXPECT_EQ(u32At(b, o + 17), 1u);
  EXPECT_EQ(b.substr(o + 25, 9), "x86-64-v3");
  size_t range = codeRangeOffset(l, artifact, 1);
  EXPECT_EQ(u64At(b, range), (code.size() + 15) / 16 * 16);
  EXPECT_EQ(u64At(b, range + 8), artifact.codeObjects[1].bytes.size());
  EXPECT_EQ(b.substr(u64At(b, 32) + u64At(b, range), u64At(b, range + 8)),
            artifact.codeObjects[1].bytes);
}

TEST_F(ArtifactTest, RoundTrip) {
  artifact.kernels[kProbe].scratchBytes = 4096;
  artifact.entries[1].padsPartialChunks = true;
  std::string b = serialize(artifact);
  Artifact back;
  Status s = parseArtifact(b.data(), b.size(), &back);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(back.kernels.size(), artifact.kernels.size());
  for (size_t i = 0; i < back.kernels.size(); ++i) {
    const KernelInfo &x = artifact.kernels[i], &y = back.kernels[i];
    EXPECT_EQ(y.name, x.name);
    EXPECT_EQ(y.numBindings, x.numBindings);
    EXPECT_EQ(y.numScalars, x.numScalars);
    for (int d = 0; d < 3; ++d)
      EXPECT_EQ(y.workgroupCount[d], x.workgroupCount[d]) << x.name << d;
    EXPECT_EQ(y.scratchBytes, x.scratchBytes);
    EXPECT_EQ(y.bindingBytes, x.bindingBytes);
  }
  ASSERT_EQ(back.entries.size(), artifact.entries.size());
  for (size_t i = 0; i < back.entries.size(); ++i) {
    const EntryInfo &x = artifact.entries[i], &y = back.entries[i];
    EXPECT_EQ(y.name, x.name);
    EXPECT_EQ(y.batchSize, x.batchSize);
    EXPECT_EQ(y.padsPartialChunks, x.padsPartialChunks);
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
    ASSERT_EQ(y.schedule.size(), x.schedule.size()) << x.name;
    for (size_t j = 0; j < x.schedule.size(); ++j) {
      const Command &p = x.schedule[j], &q = y.schedule[j];
      EXPECT_EQ(q.kind, p.kind);
      if (p.kind == Command::Kind::Loop) {
        EXPECT_EQ(q.tripCount, p.tripCount);
        EXPECT_EQ(q.bodySize, p.bodySize);
        continue;
      }
      EXPECT_EQ(q.kernel, p.kernel);
      ASSERT_EQ(q.bindings.size(), p.bindings.size());
      for (size_t m = 0; m < p.bindings.size(); ++m) {
        EXPECT_EQ(q.bindings[m].kind, p.bindings[m].kind);
        EXPECT_EQ(q.bindings[m].index, p.bindings[m].index);
        EXPECT_EQ(q.bindings[m].offset, p.bindings[m].offset);
      }
      ASSERT_EQ(q.scalars.size(), p.scalars.size());
      for (size_t m = 0; m < p.scalars.size(); ++m) {
        EXPECT_EQ(q.scalars[m].kind, p.scalars[m].kind);
        EXPECT_EQ(q.scalars[m].loop, p.scalars[m].loop);
      }
    }
  }
  ASSERT_EQ(back.codeObjects.size(), artifact.codeObjects.size());
  for (size_t i = 0; i < back.codeObjects.size(); ++i) {
    const CodeObject &x = artifact.codeObjects[i], &y = back.codeObjects[i];
    EXPECT_EQ(y.kind, x.kind);
    EXPECT_EQ(y.level, x.level);
    EXPECT_EQ(y.cpuFeatures, x.cpuFeatures);
    EXPECT_TRUE(y.bytes == x.bytes) << x.level;
  }
  EXPECT_EQ(back.entries[0].lowerBoundBytes, 128u);
  EXPECT_EQ(back.entries[2].outputs[1].dtype, DType::Bool);
  EXPECT_TRUE(back.entries[2].inputs[1].shape.empty());
  EXPECT_EQ(back.kernels[kProbe].scratchBytes, 4096u);
  EXPECT_TRUE(back.entries[1].padsPartialChunks);
  // Serializing what was read gives the same bytes.
  EXPECT_EQ(serialize(back), b);
}

TEST_F(ArtifactTest, InPlaceParseViewsTheCodeInTheBytes) {
  std::string b = serialize(artifact);
  Artifact back;
  std::vector<std::string_view> objects;
  ASSERT_TRUE(parseArtifactInPlace(b.data(), b.size(), &back, &objects).ok());
  ASSERT_EQ(objects.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(back.codeObjects[i].bytes.empty());
    EXPECT_GE(objects[i].data(), b.data());
    EXPECT_LE(objects[i].data() + objects[i].size(), b.data() + b.size());
    EXPECT_TRUE(objects[i] == artifact.codeObjects[i].bytes);
  }
}

// The smallest arguments: scalars with one-letter names, in the last entry
// (only the code objects after them in the manifest). Once rejected as "bad
// argument counts" by a too-large minimum argument size.
TEST_F(ArtifactTest, ScalarArgumentsWithShortNamesRoundTrip) {
  EntryInfo e;
  e.name = "s";
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
  e.schedule = {dispatch(kReduceTotal, {inputBinding(0), outputBinding(0)})};
  artifact.entries.push_back(e);
  std::string b = serialize(artifact);
  Artifact back;
  Status s = parseArtifact(b.data(), b.size(), &back);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(back.entries.back().inputs.size(), 1u);
  EXPECT_EQ(back.entries.back().inputs[0].name, "x");
  EXPECT_TRUE(back.entries.back().outputs[0].shape.empty());
  EXPECT_EQ(back.entries.back().schedule.size(), 1u);
}

TEST_F(ArtifactTest, WriteFileMatchesBytes) {
  std::string path = tempPath(".vmapc");
  ASSERT_TRUE(writeArtifactFile(artifact, path).ok());
  EXPECT_EQ(readFileBytes(path), serialize(artifact));
  std::remove(path.c_str());
}

TEST_F(ArtifactTest, EveryTruncationIsRejected) {
  std::string b = serialize(smallArtifact());
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

TEST_F(ArtifactTest, OtherFormatVersionsAreUnimplemented) {
  std::string b = serialize(artifact);
  for (uint32_t version : {1u, 2u, 3u, 4u, 6u, 0xffffffffu}) {
    putU32(b, 8, version);
    reseal(b);
    Status s = parse(b);
    EXPECT_EQ(s.message(), "runtime supports format 5, artifact has " +
                               std::to_string(version));
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
    uint64_t fileSize = 0;
    EXPECT_EQ(checkArtifactHeader(b.data(), 64, &fileSize).message(),
              s.message());
  }
}

TEST_F(ArtifactTest, ReservedHeaderWordsAreZero) {
  for (size_t offset : {12, 56}) {
    std::string b = serialize(artifact);
    b[offset] = 7;
    reseal(b);
    Status s = parse(b);
    EXPECT_EQ(s.message(), "header reserved field is not zero") << offset;
    EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  }
}

TEST_F(ArtifactTest, EveryFlippedByteIsRejected) {
  std::string b = serialize(smallArtifact());
  for (size_t i = 0; i < b.size(); ++i) {
    std::string c = b;
    c[i] = char(c[i] ^ 0x20);
    Status s = parse(c);
    ASSERT_FALSE(s.ok()) << "byte " << i;
    if (i < 8) {
      EXPECT_EQ(s.message(), "bad magic: not a .vmapc artifact");
    } else if (i < 12) {
      EXPECT_NE(s.message().find("runtime supports format 5, artifact has"),
                std::string::npos);
    } else if (i < 48 || i >= 56) {
      // (Bytes 48..55 hold the file size: truncated or trailing bytes.)
      ASSERT_EQ(s.message(), "checksum mismatch: the artifact is corrupt")
          << "byte " << i;
    }
    EXPECT_NE(s.code(), StatusCode::kOk);
  }
}

TEST_F(ArtifactTest, ReaderChecksArgumentsAndHeaderBehindAValidChecksum) {
  std::string b = serialize(artifact);
  Layout l = layoutOf(artifact);
  // Entry affine's first input `x`: its name, then dtype, rank, reserved,
  // mapped axis, staging offset, dims.
  size_t x = l.args[0][0] + 4 + 1;
  ASSERT_EQ(b[x], 1);     // dtype f32
  ASSERT_EQ(b[x + 1], 1); // rank 1
  {
    std::string c = b;
    c[x + 1] = 17;
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' argument 'x': rank 17 exceeds the maximum 16");
    EXPECT_EQ(parse(c).code(), StatusCode::kOutOfRange);
  }
  {
    std::string c = b;
    c[x] = 9;
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' argument 'x': invalid dtype 9");
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
  }
  {
    std::string c = b;
    c[x + 2] = 1;
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' argument 'x': reserved field is not zero");
  }
  {
    std::string c = b;
    putU32(c, x + 4, 5); // mapped axis 5 of a rank-1 input
    reseal(c);
    EXPECT_EQ(parse(c).message(), "entry 'affine' input 'x': mapped axis 5 out "
                                  "of range [0, 1] (or -1 for none)");
    // A rule the writer never breaks: the bytes are not an artifact.
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
  }
  {
    // The input's one dim: a dim that makes the array 2^62 bytes or more is
    // out of range.
    std::string c = b;
    ASSERT_EQ(u64At(c, x + 16), 4u);
    putU64(c, x + 16, uint64_t(1) << 61);
    reseal(c);
    EXPECT_EQ(parse(c).code(), StatusCode::kOutOfRange);
    // A negative dim (2^63 and above as i64) is not an artifact.
    putU64(c, x + 16, uint64_t(1) << 63);
    reseal(c);
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
  }
  {
    std::string c = b;
    putU32(c, l.entryCount, 0xffffffffu);
    reseal(c);
    EXPECT_EQ(parse(c).message(), "bad entry count 4294967295");
  }
  {
    std::string c = b;
    putU32(c, flagsOffset(l, artifact, 0), 2);
    reseal(c);
    EXPECT_EQ(parse(c).message(), "entry 'affine': unknown flags 2");
    EXPECT_EQ(parse(c).code(), StatusCode::kDataLoss);
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
}

// A manifest that ends with zero bytes before the code: the padding is not
// part of the manifest, and a manifest size that takes it in leaves bytes
// unread.
TEST_F(ArtifactTest, ManifestMustBeReadExactly) {
  // Grow a feature name until the manifest is not a multiple of 16.
  Artifact a = smallArtifact();
  while ((kHeaderBytes + layoutOf(a).manifestEnd) % 16 == 0)
    a.codeObjects[0].cpuFeatures.push_back("sse2");
  std::string b = serialize(a);
  putU64(b, 24, u64At(b, 24) + 1);
  reseal(b);
  Status s = parse(b);
  EXPECT_EQ(s.message(), "manifest has 1 trailing bytes");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

TEST_F(ArtifactTest, ReaderChecksKernelsSchedulesAndCodeObjects) {
  const std::string b = serialize(artifact);
  const Layout l = layoutOf(artifact);
  const size_t twostep = entryIndex(artifact, "twostep");
  const size_t square = l.commands[twostep][0];
  const size_t accumulate = l.commands[twostep][3];
  const size_t range1 = codeRangeOffset(l, artifact, 1);
  const uint64_t offset1 = u64At(b, range1);
  const std::string size1 =
      std::to_string(artifact.codeObjects[1].bytes.size());
  const std::string codeSize = std::to_string(u64At(b, 40));
  struct Case {
    std::string expected;
    StatusCode code;
    std::function<void(std::string &)> edit;
  };
  constexpr StatusCode kDataLoss = StatusCode::kDataLoss;
  const Case cases[] = {
      {"bad kernel count 4294967295", kDataLoss,
       [&](std::string &c) { putU32(c, l.kernelCount, 0xffffffffu); }},
      // Kernel affine: its binding and scalar counts, past the limits.
      {"kernel 'affine': bad binding or scalar count", kDataLoss,
       [&](std::string &c) { putU32(c, l.kernels[kAffine] + 4 + 6, 1025); }},
      {"kernel 'affine': bad binding or scalar count", kDataLoss,
       [&](std::string &c) { putU32(c, l.kernels[kAffine] + 4 + 6 + 4, 65); }},
      // Its grid along y, and its scratch.
      {"kernel 'affine': workgroup count 0 along dimension 1 (a constant in "
       "[1, 2^31], or -T for ceil(n / T))",
       kDataLoss,
       [&](std::string &c) { putU64(c, l.kernels[kAffine] + 4 + 6 + 16, 0); }},
      {"kernel 'affine': 67108865 bytes of scratch, more than 67108864",
       StatusCode::kOutOfRange,
       [&](std::string &c) {
         putU64(c, l.kernels[kAffine] + 4 + 6 + 32, (64 << 20) + 1);
       }},
      {"entry 'twostep': bad command count 4294967295", kDataLoss,
       [&](std::string &c) {
         putU32(c, l.commandCount[twostep], 0xffffffffu);
       }},
      {"entry 'twostep' schedule: command reserved bytes are not zero",
       kDataLoss, [&](std::string &c) { c[square + 1] = 1; }},
      {"entry 'twostep' schedule: unknown command kind 7", kDataLoss,
       [&](std::string &c) { c[square] = 7; }},
      {"entry 'twostep' schedule: dispatch of kernel #99, which does not "
       "exist",
       kDataLoss, [&](std::string &c) { putU32(c, square + 4, 99); }},
      {"entry 'twostep' schedule: binding reserved bytes are not zero",
       kDataLoss, [&](std::string &c) { c[square + 8 + 3] = 1; }},
      {"entry 'twostep' schedule command 0 binding 0: unknown binding kind 9",
       kDataLoss, [&](std::string &c) { c[square + 8] = 9; }},
      {"entry 'twostep' schedule command 0 binding 0: input #1 does not exist",
       kDataLoss, [&](std::string &c) { putU32(c, square + 12, 1); }},
      {"entry 'twostep' schedule command 0 binding 1: arena bytes [200, +64) "
       "exceed the arena of 256 bytes",
       kDataLoss, [&](std::string &c) { putU64(c, square + 32, 200); }},
      {"entry 'twostep' schedule: scalar reserved bytes are not zero",
       kDataLoss, [&](std::string &c) { c[square + 40 + 2] = 1; }},
      {"entry 'twostep' schedule command 0 scalar 0: unknown scalar kind 5",
       kDataLoss, [&](std::string &c) { c[square + 40] = 5; }},
      // accumulate reads the index of loop 2, which does not enclose it.
      {"entry 'twostep' schedule command 3 scalar 2: loop 2 does not enclose "
       "it",
       kDataLoss, [&](std::string &c) { putU32(c, accumulate + 60, 2); }},
      // The outer loop's body of 4 commands leaves the schedule.
      {"entry 'twostep' schedule command 1: a loop body of 4 commands leaves "
       "its enclosing body",
       kDataLoss,
       [&](std::string &c) { putU32(c, l.commands[twostep][1] + 12, 4); }},
      // 2 x (2^31 + 1) repeats.
      {"entry 'twostep' schedule command 2: nested loops repeat more than "
       "2^32 times",
       StatusCode::kOutOfRange,
       [&](std::string &c) {
         putU64(c, l.commands[twostep][2] + 4, (uint64_t(1) << 31) + 1);
       }},
      {"bad code object count 17", kDataLoss,
       [&](std::string &c) { putU32(c, l.codeObjectCount, 17); }},
      {"code object #1: unsupported kind 7 (this runtime supports 1 = x86-64 "
       "ELF, 2 = CUDA cubin, 3 = CUDA PTX)",
       StatusCode::kUnimplemented,
       [&](std::string &c) { putU32(c, l.codeObjects[1], 7); }},
      // The level string "x86-64-v3" edited to "x86-64-v5", then "-v4".
      {"code object #1: unknown ISA level 'x86-64-v5' (x86-64, x86-64-v3, "
       "x86-64-v4)",
       StatusCode::kUnimplemented,
       [&](std::string &c) { c[l.codeObjects[1] + 8 + 8] = '5'; }},
      {"code object #2: a second object for level 'x86-64-v4'", kDataLoss,
       [&](std::string &c) { c[l.codeObjects[1] + 8 + 8] = '4'; }},
      {"bad CPU feature count 4294967295", kDataLoss,
       [&](std::string &c) {
         putU32(c, l.codeObjects[1] + 8 + 9, 0xffffffffu);
       }},
      {"code object #1 [8, +" + size1 + ") is not 16-byte aligned", kDataLoss,
       [&](std::string &c) { putU64(c, range1, 8); }},
      {"code object #1 [0, +" + size1 +
           ") overlaps the object before it (objects are in order and "
           "disjoint)",
       kDataLoss, [&](std::string &c) { putU64(c, range1, 0); }},
      {"code object #1 [" + std::to_string(offset1) + ", +0) is empty",
       kDataLoss, [&](std::string &c) { putU64(c, range1 + 8, 0); }},
      {"code object #1 [" + std::to_string(offset1) + ", +" + codeSize +
           ") out of bounds of the code",
       kDataLoss, [&](std::string &c) { putU64(c, range1 + 8, u64At(c, 40)); }},
  };
  for (const Case &k : cases) {
    std::string c = b;
    k.edit(c);
    reseal(c);
    Status s = parse(c);
    EXPECT_EQ(s.message(), k.expected);
    EXPECT_EQ(s.code(), k.code) << k.expected;
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
      // Rank 16 per example: unmapped it is passed as is; mapped, the
      // batched array would have 17 dims.
      {"entry 'affine' input 'x': mapped, its batched array has 17 dims, more "
       "than the maximum 16",
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
      {"entry #0 name contains a NUL byte", kInvalid,
       [](Artifact &a) { a.entries[0].name = std::string("af\0x", 4); }},
      {"artifact has no entries", kInvalid,
       [](Artifact &a) { a.entries.clear(); }},
      {"entry 'affine' has more than 4096 inputs", StatusCode::kOutOfRange,
       [](Artifact &a) {
         a.entries[0].inputs.resize(4097, a.entries[0].inputs[1]);
       }},
      {"code object #0 (x86-64) is not an ELF object", kInvalid,
       [](Artifact &a) { a.codeObjects[0].bytes = "hello"; }},
      {"code object #1 (x86-64-v3) is not an ELF shared object (ET_DYN)",
       kInvalid,
       [](Artifact &a) {
         a.codeObjects[1].bytes[16] = 1; /* ET_REL */
       }},
      {"code object #2 (x86-64-v4) is not an x86-64 ELF object", kInvalid,
       [](Artifact &a) {
         a.codeObjects[2].bytes[18] = char(183); /* EM_AARCH64 */
       }},
      {"code object #1 CPU feature name is empty", kInvalid,
       [](Artifact &a) { a.codeObjects[1].cpuFeatures.push_back(""); }},
      {"artifact has no code objects", kInvalid,
       [](Artifact &a) { a.codeObjects.clear(); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = serializeError(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
    EXPECT_EQ(validateArtifact(a).message(), c.expected);
  }
  // Rank 16 is allowed for an unmapped argument.
  Artifact a = artifact;
  a.entries[0].inputs[1].shape.assign(16, 1);
  a.entries[0].inputs[1].shape.back() = 4;
  EXPECT_TRUE(validateArtifact(a).ok()) << validateArtifact(a).message();
}

// Every rule of kernels, schedules and code objects (ArtifactFormat.h,
// "Semantic rules"), each broken once on an otherwise valid artifact.
TEST_F(ArtifactTest, ValidatorRejectsBadKernelsSchedulesAndCodeObjects) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  constexpr StatusCode kOutOfRange = StatusCode::kOutOfRange;
  const size_t twostep = entryIndex(makeTestArtifact({}), "twostep");
  ASSERT_EQ(twostep, 4u) << "the cases below edit entry #4";
  const Case cases[] = {
      // Kernels.
      {"artifact has no kernels", kInvalid,
       [](Artifact &a) { a.kernels.clear(); }},
      {"duplicate kernel name 'affine'", kInvalid,
       [](Artifact &a) { a.kernels[kAxis1].name = "affine"; }},
      {"kernel name is empty", kInvalid,
       [](Artifact &a) { a.kernels[kAxis1].name = ""; }},
      {"kernel 'a-b': a kernel name is letters, digits and _ only", kInvalid,
       [](Artifact &a) { a.kernels[kAxis1].name = "a-b"; }},
      {"kernel 'affine': 1025 bindings and 1 scalars (at most 1024 and 64)",
       kOutOfRange,
       [](Artifact &a) {
         a.kernels[kAffine].numBindings = 1025;
         a.kernels[kAffine].bindingBytes.resize(1025, 4);
       }},
      {"kernel 'affine': 3 bindings and 65 scalars (at most 1024 and 64)",
       kOutOfRange, [](Artifact &a) { a.kernels[kAffine].numScalars = 65; }},
      {"kernel 'affine': 2 binding sizes for 3 bindings", kInvalid,
       [](Artifact &a) { a.kernels[kAffine].bindingBytes.pop_back(); }},
      {"kernel 'affine': a binding of 2^62 bytes or more", kOutOfRange,
       [](Artifact &a) {
         a.kernels[kAffine].bindingBytes[1] = kMaxArrayBytes;
       }},
      {"kernel 'affine': workgroup count 0 along dimension 2 (a constant in "
       "[1, 2^31], or -T for ceil(n / T))",
       kInvalid, [](Artifact &a) { a.kernels[kAffine].workgroupCount[2] = 0; }},
      {"kernel 'axis1': workgroup count 2147483649 along dimension 1 (a "
       "constant in [1, 2^31], or -T for ceil(n / T))",
       kInvalid,
       [](Artifact &a) {
         a.kernels[kAxis1].workgroupCount[1] = kMaxWorkgroups + 1;
       }},
      {"kernel 'axis1': workgroup count -2147483649 along dimension 0 (a "
       "constant in [1, 2^31], or -T for ceil(n / T))",
       kInvalid,
       [](Artifact &a) {
         a.kernels[kAxis1].workgroupCount[0] = -kMaxWorkgroups - 1;
       }},
      {"entry 'axis1' schedule command 0: kernel 'axis1' has a tile of 5 "
       "examples along dimension 0, more than the batch size 4",
       kInvalid, [](Artifact &a) { a.kernels[kAxis1].workgroupCount[0] = -5; }},
      {"kernel 'probe': 67108865 bytes of scratch, more than 67108864",
       kOutOfRange,
       [](Artifact &a) {
         a.kernels[kProbe].scratchBytes = kMaxScratchBytes + 1;
       }},
      // Schedules.
      {"entry 'affine' schedule command 0: kernel #13 does not exist (13 "
       "kernels)",
       kInvalid, [](Artifact &a) { a.entries[0].schedule[0].kernel = 13; }},
      {"entry 'affine' schedule command 0: kernel 'affine' takes 3 bindings "
       "and 1 scalars, the dispatch gives 2 and 1",
       kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].bindings.pop_back(); }},
      {"entry 'affine' schedule command 0: kernel 'affine' takes 3 bindings "
       "and 1 scalars, the dispatch gives 3 and 0",
       kInvalid, [](Artifact &a) { a.entries[0].schedule[0].scalars.clear(); }},
      {"entry 'affine' schedule command 0: unknown command kind 9", kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].kind = Command::Kind(9); }},
      {"entry 'affine' schedule command 0 binding 1: input #2 does not exist",
       kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].bindings[1].index = 2; }},
      {"entry 'affine' schedule command 0 binding 2: output #1 does not "
       "exist",
       kInvalid,
       [](Artifact &a) { a.entries[0].schedule[0].bindings[2].index = 1; }},
      {"entry 'affine' schedule command 0 binding 0: unknown binding kind 4",
       kInvalid,
       [](Artifact &a) {
         a.entries[0].schedule[0].bindings[0].kind = Binding::Kind(4);
       }},
      // The kernel accesses 64 bytes of `c`, which has 16.
      {"entry 'affine' schedule command 0 binding 1: kernel 'affine' "
       "accesses 64 bytes, the argument has 16",
       kInvalid, [](Artifact &a) { a.kernels[kAffine].bindingBytes[1] = 64; }},
      // The arena binding of twostep, out of the arena and wrapping.
      {"entry 'twostep' schedule command 0 binding 1: arena bytes [224, +64) "
       "exceed the arena of 256 bytes",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[0].bindings[1].offset = 224; }},
      {"entry 'twostep' schedule command 0 binding 1: arena bytes "
       "[18446744073709551600, +64) exceed the arena of 256 bytes",
       kInvalid,
       [](Artifact &a) {
         a.entries[4].schedule[0].bindings[1].offset = ~uint64_t(0) - 15;
       }},
      {"entry 'twostep' schedule command 3 scalar 1: unknown scalar kind 3",
       kInvalid,
       [](Artifact &a) {
         a.entries[4].schedule[3].scalars[1].kind = ScalarSource::Kind(3);
       }},
      {"entry 'twostep' schedule command 3 scalar 2: loop 2 does not enclose "
       "it",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[3].scalars[2].loop = 2; }},
      // The square dispatch reads a loop index outside any loop.
      {"entry 'twostep' schedule command 0 scalar 0: loop 0 does not enclose "
       "it",
       kInvalid,
       [](Artifact &a) { a.entries[4].schedule[0].scalars[0] = loopIndex(0); }},
      // The inner loop's body of 2 leaves the outer loop's body of 2.
      {"entry 'twostep' schedule command 2: a loop body of 2 commands leaves "
       "its enclosing body",
       kInvalid, [](Artifact &a) { a.entries[4].schedule[2].bodySize = 2; }},
      {"entry 'twostep' schedule command 2: nested loops repeat more than "
       "2^32 times",
       kOutOfRange,
       [](Artifact &a) {
         a.entries[4].schedule[1].tripCount = uint64_t(1) << 16;
         a.entries[4].schedule[2].tripCount = (uint64_t(1) << 16) + 1;
       }},
      {"entry 'twostep' schedule command 1: nested loops repeat more than "
       "2^32 times",
       kOutOfRange,
       [](Artifact &a) {
         a.entries[4].schedule[1].tripCount = kMaxTripCount + 1;
       }},
      {"entry 'twostep' schedule command 65: loops nest deeper than 64",
       kOutOfRange,
       [](Artifact &a) {
         std::vector<Command> &s = a.entries[4].schedule;
         s.erase(s.begin() + 1, s.begin() + 3); // the two loops
         for (uint32_t depth = 0; depth < 65; ++depth)
           s.insert(s.begin() + 1, loop(1, depth + 1));
       }},
      {"entry 'twostep' schedule: more than 1048576 commands", kOutOfRange,
       [](Artifact &a) {
         a.entries[4].schedule.resize(kMaxCommands + 1, loop(0, 0));
       }},
      // Code objects.
      {"code object #1: unsupported kind 7 (this runtime supports 1 = x86-64 "
       "ELF, 2 = CUDA cubin, 3 = CUDA PTX)",
       StatusCode::kUnimplemented,
       [](Artifact &a) { a.codeObjects[1].kind = CodeKind(7); }},
      {"code object #1: unknown ISA level 'x86-64-v2' (x86-64, x86-64-v3, "
       "x86-64-v4)",
       StatusCode::kUnimplemented,
       [](Artifact &a) { a.codeObjects[1].level = "x86-64-v2"; }},
      {"code object #2: a second object for level 'x86-64-v3'", kInvalid,
       [](Artifact &a) { a.codeObjects[2].level = "x86-64-v3"; }},
      {"code object #0: more than 256 CPU features", kOutOfRange,
       [](Artifact &a) { a.codeObjects[0].cpuFeatures.resize(257, "sse2"); }},
      {"more than 16 code objects", kOutOfRange,
       [](Artifact &a) { a.codeObjects.resize(17, a.codeObjects[0]); }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
  }
  // The loop depth limit itself is allowed: 64 loops around a dispatch.
  Artifact a = artifact;
  std::vector<Command> &s = a.entries[twostep].schedule;
  s.erase(s.begin() + 1, s.begin() + 3);
  for (uint32_t depth = 0; depth < 64; ++depth)
    s.insert(s.begin() + 1, loop(1, depth + 1));
  s.back().scalars[2] = loopIndex(63);
  EXPECT_TRUE(validateArtifact(a).ok()) << validateArtifact(a).message();
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
      // A binding's bytes.
      {"kernel 'affine': a binding of 2^62 bytes or more",
       StatusCode::kOutOfRange,
       [](Artifact &a) { a.kernels[kAffine].bindingBytes[0] = ~uint64_t(0); }},
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
  e.batchSize = 1;
  e.arenaBytes = 4096;
  e.inputs = {arg("x", DType::F32, {}, 0, 0)};
  for (int i = 0; i < 10; ++i)
    e.outputs.push_back(
        arg("y" + std::to_string(i), DType::F32, {4}, 0, 1000 - 16 * i));
  e.outputs.push_back(arg("z", DType::F32, {4}, 0, 1000 - 16 * 9 + 8));
  // Every output written (reduce_total writes 4 of its bytes).
  for (uint32_t i = 0; i < e.outputs.size(); ++i)
    e.schedule.push_back(
        dispatch(kReduceTotal, {inputBinding(0), outputBinding(i)}));
  artifact.entries.push_back(e);
  Status s = validateArtifact(artifact);
  EXPECT_EQ(s.message(),
            "entry 'many': staging slots overlap at arena offsets 856 and 864");
  artifact.entries.back().outputs.pop_back();
  artifact.entries.back().schedule.pop_back();
  EXPECT_TRUE(validateArtifact(artifact).ok());
}

// A code object is checked as an ELF object before dlopen sees it: its
// header tables, every segment's file bytes and every section's lie inside
// the bytes the manifest gives it (a size shortened below what its program
// headers say once made dlopen fault).
TEST_F(ArtifactTest, CodeObjectsAreCheckedAsElfObjects) {
  const std::string &so = artifact.codeObjects[0].bytes;
  uint64_t phoff = u64At(so, 32), shoff = u64At(so, 40);
  uint32_t shnum = uint32_t(u64At(so, 60) & 0xffff);
  auto refused = [&](std::string bytes) {
    Artifact a = artifact;
    a.codeObjects[0].bytes = std::move(bytes);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
    return s.message();
  };
  // Shortened below its section header table.
  EXPECT_EQ(refused(so.substr(0, 4096)),
            "code object #0 (x86-64): its " + std::to_string(shnum) +
                " section headers (at " + std::to_string(shoff) +
                ") are not 64-byte entries inside its 4096 bytes");
  // A loadable segment's file bytes past the object.
  std::string b = so;
  putU64(b, phoff + 32, so.size()); // p_filesz of the first segment
  putU64(b, phoff + 8, 4096);       // p_offset
  EXPECT_EQ(refused(b).rfind("code object #0 (x86-64): segment 0 (type ", 0),
            0u);
  // A section's bytes past the object.
  b = so;
  putU64(b, shoff + 64 + 32, so.size()); // sh_size of section 1
  EXPECT_EQ(refused(b).rfind("code object #0 (x86-64): section 1 (type ", 0),
            0u);
  // The section name table's index past the table.
  b = so;
  b[62] = char(shnum & 0xff), b[63] = char(shnum >> 8);
  EXPECT_EQ(refused(b), "code object #0 (x86-64): section name table index " +
                            std::to_string(shnum) + " of " +
                            std::to_string(shnum) + " sections");
  // A program header table that wraps around 64 bits.
  b = so;
  putU64(b, 32, ~uint64_t(0) - 8);
  EXPECT_NE(refused(b).find("program headers (at 18446744073709551607) are "
                            "not 56-byte entries inside"),
            std::string::npos);
  // Big-endian or 32-bit.
  b = so;
  b[5] = 2;
  EXPECT_EQ(refused(b), "code object #0 (x86-64) is not an x86-64 ELF object");
}

// Every count derived from a grid is bounded, in checked arithmetic: a
// grid of (2^31, 2^31, 4) workgroups once wrapped to 0 and ran nothing.
TEST_F(ArtifactTest, WorkgroupsPerDispatchAndPerChunkAreBounded) {
  auto refused = [&](auto edit) {
    Artifact a = artifact;
    edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.code(), StatusCode::kOutOfRange) << s.message();
    return s.message();
  };
  EXPECT_EQ(refused([](Artifact &a) {
              a.kernels[kReduceTotal].workgroupCount[0] = kMaxWorkgroups;
              a.kernels[kReduceTotal].workgroupCount[1] = kMaxWorkgroups;
              a.kernels[kReduceTotal].workgroupCount[2] = 4;
            }),
            "entry 'reduce' schedule command 1: kernel 'reduce_total' runs "
            "more than 2^32 workgroups per dispatch");
  // 2^31 workgroups at most per dispatch, 2^20 times: past 2^40 per chunk.
  EXPECT_EQ(refused([](Artifact &a) {
              a.kernels[kReduceTotal].workgroupCount[0] = kMaxWorkgroups;
              EntryInfo &e = a.entries[entryIndex(a, "reduce")];
              e.schedule.insert(e.schedule.begin() + 1,
                                loop(uint64_t(1) << 20, 1));
            }),
            "entry 'reduce' schedule command 2: the schedule runs more than "
            "2^40 workgroups per chunk");
  // At the limits themselves: taken.
  Artifact a = artifact;
  a.kernels[kReduceTotal].workgroupCount[0] = kMaxWorkgroups;
  a.kernels[kReduceTotal].workgroupCount[1] = 2;
  EXPECT_TRUE(validateArtifact(a).ok());
  // A loop of no trips: its dispatches count for nothing, and write
  // nothing.
  a = artifact;
  EntryInfo &e = a.entries[entryIndex(a, "reduce")];
  e.schedule.insert(e.schedule.begin() + 1, loop(0, 1));
  EXPECT_EQ(validateArtifact(a).message(),
            "entry 'reduce' schedule: no dispatch writes output #2 'total'");
}

// The schedule's access rules: an input bound where the kernel writes, an
// output no dispatch writes.
TEST_F(ArtifactTest, InputsAreNeverWrittenAndOutputsAlways) {
  Artifact a = artifact;
  // reduce_total writes its binding 1, here the input s.
  a.entries[entryIndex(a, "reduce")].schedule[1].bindings[1] = inputBinding(1);
  a.entries[entryIndex(a, "reduce")].outputs.pop_back();
  EXPECT_EQ(validateArtifact(a).message(),
            "entry 'reduce' schedule command 1 binding 1: kernel "
            "'reduce_total' writes this binding, which is bound to input #1 "
            "(inputs are the caller's, read only)");
  a = artifact;
  a.entries[entryIndex(a, "reduce")].schedule[1].bindings[1] =
      arenaBinding(192);
  EXPECT_EQ(validateArtifact(a).message(),
            "entry 'reduce' schedule: no dispatch writes output #2 'total'");
  a = artifact;
  a.kernels[kReduceTotal].bindingAccess[1] = BindingAccess(4);
  EXPECT_EQ(validateArtifact(a).message(),
            "kernel 'reduce_total' binding 1: unknown access 4 (1 read, 2 "
            "write, 3 read-write)");
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
  // A code object's offset + size that would wrap.
  Layout l = layoutOf(artifact);
  std::string d = b;
  putU64(d, codeRangeOffset(l, artifact, 2), ~uint64_t(0) - 15);
  reseal(d);
  Status s = parse(d);
  EXPECT_EQ(s.message().rfind("code object #2 [18446744073709551600, +", 0), 0u)
      << s.message();
  EXPECT_NE(s.message().find(") out of bounds of the code"), std::string::npos);
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
  const std::vector<KernelInfo> &kernels = artifact.kernels;
  std::vector<uint64_t> words = entryDescriptorWords(affine, kernels);
  uint64_t digest = scheduleDigest(affine, kernels);
  const std::vector<uint64_t> expected = {
      kEntryDescriptorMagic, 2,  4, 512, 2, 1, digest, 16, 0, 16,
      ~uint64_t(0),          16, 0};
  EXPECT_EQ(words, expected);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(words.data()), 8),
            "VMAPCDSC");
  size_t bytes = words.size() * 8;
  EXPECT_TRUE(checkEntryDescriptor(affine, kernels, words.data(), bytes).ok());

  auto check = [&](const EntryInfo &e, std::vector<uint64_t> w, size_t size) {
    Status s = checkEntryDescriptor(e, kernels, w.data(), size);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.message();
    return s.message();
  };
  EXPECT_EQ(check(affine, words, 48),
            "the code's descriptor is 48 bytes, too small for its header");
  EXPECT_EQ(check(affine, words, bytes - 8),
            "the code's descriptor is 96 bytes, fewer than the 104 its counts "
            "need");
  // Padding after the words (AddressSanitizer's redzone) is allowed.
  words.push_back(0);
  EXPECT_TRUE(
      checkEntryDescriptor(affine, kernels, words.data(), bytes + 8).ok());
  words.pop_back();
  std::vector<uint64_t> w = words;
  w[0] ^= 1;
  EXPECT_EQ(check(affine, w, bytes), "the code's descriptor has a bad magic");
  w = words;
  w[1] = 1;
  EXPECT_EQ(check(affine, w, bytes),
            "the code's descriptor has version 1 (this runtime reads 2)");
  w = words;
  w[4] = 4097; // a count that would make the expected size large
  EXPECT_EQ(check(affine, w, bytes),
            "the manifest disagrees with the code: input count: 2 in the "
            "manifest, 4097 in the code");
  w = words;
  w[11] = 12;
  EXPECT_EQ(check(affine, w, bytes),
            "the manifest disagrees with the code: bytes per example of output "
            "'y': 16 in the manifest, 12 in the code");

  // Each field the digest covers, edited in the manifest alone, is refused.
  auto refused = [&](const char *what, auto edit) {
    EntryInfo e = affine;
    edit(e);
    EXPECT_NE(scheduleDigest(e, kernels), digest) << what;
    EXPECT_NE(check(e, words, bytes)
                  .find("the manifest's schedule, arguments "
                        "or arena are not those the code "
                        "was compiled for (digest "),
              std::string::npos)
        << what;
  };
  refused("staging offset",
          [](EntryInfo &e) { e.inputs[0].stagingOffset = 64; });
  refused("binding kind",
          [](EntryInfo &e) { e.schedule[0].bindings[2] = arenaBinding(256); });
  refused("binding index",
          [](EntryInfo &e) { e.schedule[0].bindings[0] = inputBinding(1); });
  refused("kernel", [](EntryInfo &e) { e.schedule[0].kernel = kSquare; });
  refused("scalar",
          [](EntryInfo &e) { e.schedule[0].scalars[0] = loopIndex(0); });
  refused("a loop", [](EntryInfo &e) {
    e.schedule.insert(e.schedule.begin(), loop(2, 1));
  });
  refused("dtype", [](EntryInfo &e) { e.inputs[1].dtype = DType::I32; });
  refused("shape", [](EntryInfo &e) { e.inputs[1].shape = {2, 2}; });
  refused("padding", [](EntryInfo &e) { e.padsPartialChunks = true; });
  // A kernel's name is what the schedule names, not its index.
  std::vector<KernelInfo> swapped = kernels;
  std::swap(swapped[kAffine].name, swapped[kSquare].name);
  EXPECT_NE(scheduleDigest(affine, swapped), digest);
}

TEST_F(ArtifactTest, KernelDescriptorChecks) {
  const KernelInfo &affine = artifact.kernels[kAffine];
  struct {
    uint32_t header[4];
    int64_t grid[3];
    uint64_t scratch;
    uint32_t launch[4];
    uint64_t bytes[3];
    uint64_t access[4]; // one u64 of padding after the three bindings
  } d = {{kKernelDescriptorMagic, 3, 1, 0},
         {-1, 1, 1},
         0,
         {1, 1, 1, 0},
         {64, 16, 64},
         {1, 1, 2, 0}};
  static_assert(sizeof(d) == offsetof(KernelDescriptor, bindings) + 56,
                "the header, then u64 words");
  const size_t header = offsetof(KernelDescriptor, bindings);
  const size_t size = header + 6 * 8;
  EXPECT_TRUE(checkKernelDescriptor(affine, &d, size).ok());
  // Padding after the bytes (AddressSanitizer's redzone) is allowed.
  EXPECT_TRUE(checkKernelDescriptor(affine, &d, size + 8).ok());
  auto check = [&](const void *data, size_t n) {
    Status s = checkKernelDescriptor(affine, data, n);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.message();
    return s.message();
  };
  // Shorter than its header, or than the bindings its header counts.
  for (size_t n : {size_t(0), size_t(15), header - 1, header, size - 1})
    EXPECT_EQ(check(&d, n), "kernel 'affine': the code's descriptor is " +
                                std::to_string(n) + " bytes, fewer than the " +
                                std::to_string(n < header ? header : size) +
                                " its header needs");
  EXPECT_EQ(check(nullptr, size),
            "kernel 'affine': the code's descriptor is " +
                std::to_string(size) + " bytes, fewer than the " +
                std::to_string(header) + " its header needs");
  auto edited = d;
  edited.header[0] ^= 1;
  EXPECT_EQ(check(&edited, size),
            "kernel 'affine': the code's descriptor has a bad magic");
  edited = d;
  edited.header[1] = 2;
  EXPECT_EQ(check(&edited, size),
            "kernel 'affine': the manifest disagrees with the code: binding "
            "count: 3 in the manifest, 2 in the code");
  edited = d;
  edited.header[2] = 0;
  EXPECT_EQ(check(&edited, size),
            "kernel 'affine': the manifest disagrees with the code: scalar "
            "count: 1 in the manifest, 0 in the code");
  edited = d;
  edited.bytes[2] = 48;
  EXPECT_EQ(check(&edited, size),
            "kernel 'affine': the manifest disagrees with the code: bytes of "
            "binding 2: 64 in the manifest, 48 in the code");
  // A tile edited in the manifest would skip examples; a grid that grows
  // would run workgroups past the arrays.
  KernelInfo k = affine;
  k.workgroupCount[0] = -2;
  Status s = checkKernelDescriptor(k, &d, size);
  EXPECT_EQ(s.message(), "kernel 'affine': the manifest disagrees with the "
                         "code: workgroup count along dimension 0: -2 in the "
                         "manifest, -1 in the code");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  // An output bound where the code reads only, or an input where it writes.
  k = affine;
  k.bindingAccess[2] = BindingAccess::Read;
  EXPECT_EQ(checkKernelDescriptor(k, &d, size).message(),
            "kernel 'affine': the manifest disagrees with the code: access of "
            "binding 2 (1 read, 2 write, 3 read-write): 1 in the manifest, 2 "
            "in the code, which does more");
  // The manifest's access is every object's together: more is allowed,
  // and the code's own is what the loader checks the schedule with.
  k = affine;
  k.bindingAccess[2] = BindingAccess::ReadWrite;
  std::vector<BindingAccess> code;
  EXPECT_TRUE(checkKernelDescriptor(k, &d, size, &code).ok());
  EXPECT_EQ(code, (std::vector<BindingAccess>{BindingAccess::Read,
                                              BindingAccess::Read,
                                              BindingAccess::Write}));
  edited = d;
  edited.access[0] = 0;
  EXPECT_EQ(check(&edited, size),
            "kernel 'affine': the manifest disagrees with the code: access of "
            "binding 0 (1 read, 2 write, 3 read-write): 1 in the manifest, 0 "
            "in the code, which does more");
  // Scratch: the manifest may give more than the code needs, never less
  // (a CPU worker's stack is sized from it).
  edited = d;
  edited.scratch = 4096;
  EXPECT_EQ(check(&edited, size), "kernel 'affine': the manifest gives 0 "
                                  "bytes of scratch, the code needs 4096");
  k = affine;
  k.scratchBytes = 8192;
  EXPECT_TRUE(checkKernelDescriptor(k, &edited, size).ok());
  // The launch record: a CUDA object's is the code's, a CPU object's is
  // 1 x 1 x 1 with 0 shared bytes.
  GpuLaunch launch;
  launch.block[0] = 256;
  launch.sharedBytes = 1024;
  EXPECT_EQ(checkKernelDescriptor(affine, &d, size, nullptr, launch).message(),
            "kernel 'affine': the manifest disagrees with the code: launch: "
            "block 256 x 1 x 1 with 1024 shared bytes in the manifest, 1 x 1 "
            "x 1 with 0 in the code");
  edited = d;
  edited.launch[0] = 256;
  edited.launch[3] = 1024;
  EXPECT_TRUE(
      checkKernelDescriptor(affine, &edited, size, nullptr, launch).ok());
  EXPECT_NE(check(&edited, size).find("launch: block 1 x 1 x 1"),
            std::string::npos);
}

TEST_F(ArtifactTest, DescribeSchedule) {
  const EntryInfo &twostep = artifact.entries[entryIndex(artifact, "twostep")];
  EXPECT_EQ(describeSchedule(twostep.schedule, artifact.kernels),
            "dispatch square grid(ceil(n/1), 1, 1) (input 0, arena+128) "
            "scalars(n)\n"
            "loop 2\n"
            "  loop 3\n"
            "    dispatch accumulate grid(ceil(n/2), 1, 1) (arena+128, "
            "output 0) scalars(n, i0, i1)\n");
  EXPECT_EQ(describeSchedule(artifact.entries[1].schedule, artifact.kernels),
            "dispatch axis1 grid(ceil(n/2), 2, 1) (input 0, output 0) "
            "scalars(n)\n");
  // Kernels not known (yet), as vmapc-opt prints a schedule before tiling.
  std::vector<KernelInfo> kernels = {kernel("k", {4}, "w", 0, 0, 1, 1)};
  EXPECT_EQ(describeSchedule({dispatch(0, {outputBinding(0)}),
                              dispatch(7, {inputBinding(1)})},
                             kernels),
            "dispatch k grid(?, 1, 1) (output 0)\n"
            "dispatch kernel#7 (input 1)\n");
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

TEST(WorkgroupsFor, ConstantOrCeilOfN) {
  EXPECT_EQ(workgroupsFor(3, 100), 3u);
  EXPECT_EQ(workgroupsFor(-1, 7), 7u);
  EXPECT_EQ(workgroupsFor(-4, 0), 0u);
  EXPECT_EQ(workgroupsFor(-4, 9), 3u);
  EXPECT_EQ(workgroupsFor(-4, 8), 2u);
}

TEST_F(ArtifactTest, ExampleBytes) {
  EXPECT_EQ(exampleBytes(arg("a", DType::F32, {2, 3}, 0)), 24);
  EXPECT_EQ(exampleBytes(arg("a", DType::Bool, {}, 0)), 1);
  EXPECT_EQ(exampleBytes(arg("a", DType::I32, {5, 0}, 0)), 0);
  EXPECT_EQ(exampleBytes(arg("a", DType::I32, {int64_t(1) << 62}, 0)), -1);
  EXPECT_EQ(exampleBytes(arg("a", DType::I32, {-1}, 0)), -1);
}

//===----------------------------------------------------------------------===//
// CUDA code objects (format 5)
//===----------------------------------------------------------------------===//

/// The test artifact with CPU code and, after it, an sm_90 cubin and PTX:
/// what `vmapc compile --target=cpu,cuda` writes.
class CudaArtifactTest : public ArtifactTest {
protected:
  void SetUp() override {
    ArtifactTest::SetUp();
    giveEveryArgumentASlot(artifact);
    size_t k = artifact.kernels.size();
    artifact.codeObjects.push_back(cudaCodeObject(
        CodeKind::CudaCubin, "sm_90", cubinElfHeader() + "cubin body", k));
    artifact.codeObjects.push_back(cudaCodeObject(
        CodeKind::CudaPtx, "sm_90", ".version 8.0\n.target sm_90\n", k));
  }
  static constexpr size_t kCubin = 3, kPtx = 4;
};

TEST_F(ArtifactTest, KernelDescriptorMagicIsVMK5) {
  uint32_t magic = kKernelDescriptorMagic;
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(&magic), 4), "VMK5");
  // A descriptor of format 4 ("VMK4": no grid, scratch or accesses) is
  // refused.
  struct {
    uint32_t header[4];
    uint64_t bytes[7];
  } d = {{0x344b4d56, 3, 1, 0}, {64, 16, 64}};
  Status s = checkKernelDescriptor(artifact.kernels[kAffine], &d, sizeof(d));
  EXPECT_EQ(s.message(), "kernel 'affine': the code's descriptor has a bad "
                         "magic");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

TEST_F(ArtifactTest, CodeKindNames) {
  EXPECT_STREQ(codeKindName(CodeKind::CpuElf), "x86-64 ELF");
  EXPECT_STREQ(codeKindName(CodeKind::CudaCubin), "CUDA cubin");
  EXPECT_STREQ(codeKindName(CodeKind::CudaPtx), "CUDA PTX");
  EXPECT_STREQ(codeKindName(CodeKind(9)), "unknown");
  EXPECT_FALSE(isCudaCode(CodeKind::CpuElf));
  EXPECT_TRUE(isCudaCode(CodeKind::CudaCubin));
  EXPECT_TRUE(isCudaCode(CodeKind::CudaPtx));
}

TEST_F(CudaArtifactTest, LaunchRecordsAreLaidOutAsDocumented) {
  std::string b = serialize(artifact);
  Layout l = layoutOf(artifact);
  EXPECT_EQ(64 + u64At(b, 24), l.manifestEnd);
  // The cubin: kind 2, level "sm_90", no features, then 16 bytes per
  // kernel: block x, y, z and the shared bytes.
  size_t o = l.codeObjects[kCubin];
  EXPECT_EQ(u32At(b, o), 2u);
  EXPECT_EQ(u32At(b, o + 4), 5u);
  EXPECT_EQ(b.substr(o + 8, 5), "sm_90");
  EXPECT_EQ(u32At(b, o + 13), 0u);
  size_t records = o + 17;
  for (size_t k = 0; k < artifact.kernels.size(); ++k) {
    const GpuLaunch &want = artifact.codeObjects[kCubin].launches[k];
    EXPECT_EQ(u32At(b, records + 16 * k), want.block[0]) << k;
    EXPECT_EQ(u32At(b, records + 16 * k + 4), want.block[1]) << k;
    EXPECT_EQ(u32At(b, records + 16 * k + 8), want.block[2]) << k;
    EXPECT_EQ(u32At(b, records + 16 * k + 12), want.sharedBytes) << k;
  }
  EXPECT_EQ(u32At(b, records + 16 * 2), 96u); // kernel 2: 96 x 2 x 1
  EXPECT_EQ(u32At(b, records + 16 * 2 + 12), 2048u);
  size_t range = codeRangeOffset(l, artifact, kCubin);
  EXPECT_EQ(range, records + 16 * artifact.kernels.size());
  EXPECT_EQ(b.substr(u64At(b, 32) + u64At(b, range), u64At(b, range + 8)),
            artifact.codeObjects[kCubin].bytes);
  // The PTX: kind 3, its text as it is (no terminator).
  o = l.codeObjects[kPtx];
  EXPECT_EQ(u32At(b, o), 3u);
  range = codeRangeOffset(l, artifact, kPtx);
  EXPECT_EQ(b.substr(u64At(b, 32) + u64At(b, range), u64At(b, range + 8)),
            ".version 8.0\n.target sm_90\n");
}

TEST_F(CudaArtifactTest, RoundTrip) {
  std::string b = serialize(artifact);
  Artifact back;
  Status s = parseArtifact(b.data(), b.size(), &back);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(back.codeObjects.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    const CodeObject &x = artifact.codeObjects[i], &y = back.codeObjects[i];
    EXPECT_EQ(y.kind, x.kind);
    EXPECT_EQ(y.level, x.level);
    EXPECT_TRUE(y.bytes == x.bytes) << i;
    ASSERT_EQ(y.launches.size(), x.launches.size()) << i;
    for (size_t k = 0; k < x.launches.size(); ++k) {
      for (int d = 0; d < 3; ++d)
        EXPECT_EQ(y.launches[k].block[d], x.launches[k].block[d]);
      EXPECT_EQ(y.launches[k].sharedBytes, x.launches[k].sharedBytes);
    }
  }
  EXPECT_TRUE(back.codeObjects[0].launches.empty());
  EXPECT_EQ(back.entries[0].inputs[1].stagingOffset,
            artifact.entries[0].inputs[1].stagingOffset);
  EXPECT_EQ(serialize(back), b);
  // A CUDA-only artifact is valid too.
  artifact.codeObjects.erase(artifact.codeObjects.begin(),
                             artifact.codeObjects.begin() + 3);
  EXPECT_TRUE(parse(serialize(artifact)).ok());
}

TEST_F(CudaArtifactTest, LimitsOfALaunchAreAllowed) {
  GpuLaunch &l = artifact.codeObjects[kCubin].launches[0];
  l.block[0] = 16, l.block[1] = 16, l.block[2] = 4;
  l.sharedBytes = kMaxGpuSharedBytes;
  EXPECT_TRUE(validateArtifact(artifact).ok())
      << validateArtifact(artifact).message();
  artifact.codeObjects[kPtx].launches[1].block[2] = 1024;
  artifact.codeObjects[kPtx].launches[1].block[0] = 1;
  artifact.codeObjects[kPtx].launches[1].block[1] = 1;
  EXPECT_TRUE(validateArtifact(artifact).ok())
      << validateArtifact(artifact).message();
  for (const char *level : {"sm_50", "sm_100", "sm_121"}) {
    artifact.codeObjects[kPtx].level = level;
    EXPECT_TRUE(validateArtifact(artifact).ok()) << level;
  }
}

// Every rule of CUDA code objects and of the staging they need, each broken
// once on an otherwise valid artifact.
TEST_F(CudaArtifactTest, ValidatorRejectsBadCudaObjects) {
  struct Case {
    const char *expected;
    StatusCode code;
    void (*edit)(Artifact &);
  };
  constexpr StatusCode kInvalid = StatusCode::kInvalidArgument;
  constexpr StatusCode kOutOfRange = StatusCode::kOutOfRange;
  const Case cases[] = {
      {"code object #3: SM architecture 'sm_9' is not sm_ and 2 or 3 digits "
       "(sm_90)",
       kInvalid, [](Artifact &a) { a.codeObjects[kCubin].level = "sm_9"; }},
      {"code object #3: SM architecture 'sm_1000' is not sm_ and 2 or 3 "
       "digits (sm_90)",
       kInvalid, [](Artifact &a) { a.codeObjects[kCubin].level = "sm_1000"; }},
      {"code object #4: SM architecture 'sm_90a' is not sm_ and 2 or 3 "
       "digits (sm_90)",
       kInvalid, [](Artifact &a) { a.codeObjects[kPtx].level = "sm_90a"; }},
      {"code object #4: SM architecture 'compute_90' is not sm_ and 2 or 3 "
       "digits (sm_90)",
       kInvalid, [](Artifact &a) { a.codeObjects[kPtx].level = "compute_90"; }},
      {"code object #3: SM architecture 'x86-64' is not sm_ and 2 or 3 "
       "digits (sm_90)",
       kInvalid, [](Artifact &a) { a.codeObjects[kCubin].level = "x86-64"; }},
      // A CPU object's level stays an ISA level.
      {"code object #0: unknown ISA level 'sm_90' (x86-64, x86-64-v3, "
       "x86-64-v4)",
       StatusCode::kUnimplemented,
       [](Artifact &a) { a.codeObjects[0].level = "sm_90"; }},
      {"code object #4: a second CUDA cubin object for level 'sm_90'", kInvalid,
       [](Artifact &a) { a.codeObjects[kPtx] = a.codeObjects[kCubin]; }},
      {"code object #3 (sm_90): a CUDA object has no CPU features, it has 1",
       kInvalid,
       [](Artifact &a) { a.codeObjects[kCubin].cpuFeatures = {"avx2"}; }},
      {"code object #1 (x86-64-v3): a CPU object has no launch records, it "
       "has 1",
       kInvalid, [](Artifact &a) { a.codeObjects[1].launches.resize(1); }},
      {"code object #3 (sm_90): 12 launch records for 13 kernels", kInvalid,
       [](Artifact &a) { a.codeObjects[kCubin].launches.pop_back(); }},
      {"code object #4 (sm_90): 14 launch records for 13 kernels", kInvalid,
       [](Artifact &a) { a.codeObjects[kPtx].launches.resize(14); }},
      {"code object #3 (sm_90): kernel 'axis1': block dimension y is 0 (each "
       "is at least 1)",
       kInvalid,
       [](Artifact &a) { a.codeObjects[kCubin].launches[1].block[1] = 0; }},
      {"code object #3 (sm_90): kernel 'affine': a block of 32 x 2 x 17 "
       "threads, more than 1024",
       kOutOfRange,
       [](Artifact &a) { a.codeObjects[kCubin].launches[0].block[2] = 17; }},
      // A dimension that alone would overflow a 32-bit product.
      {"code object #4 (sm_90): kernel 'affine': a block of 32 x 4294967295 "
       "x 4294967295 threads, more than 1024",
       kOutOfRange,
       [](Artifact &a) {
         a.codeObjects[kPtx].launches[0].block[1] = 0xffffffffu;
         a.codeObjects[kPtx].launches[0].block[2] = 0xffffffffu;
       }},
      {"code object #3 (sm_90): kernel 'reduce_rows': 232449 bytes of dynamic "
       "shared memory, more than 232448",
       kOutOfRange,
       [](Artifact &a) {
         a.codeObjects[kCubin].launches[kReduceRows].sharedBytes =
             kMaxGpuSharedBytes + 1;
       }},
      {"code object #3 (sm_90) is not a CUDA cubin (an ELF object for NVIDIA "
       "GPUs, EM_CUDA)",
       kInvalid,
       [](Artifact &a) {
         a.codeObjects[kCubin].bytes = a.codeObjects[0].bytes; // x86-64
       }},
      {"code object #3 (sm_90) is not a CUDA cubin (an ELF object for NVIDIA "
       "GPUs, EM_CUDA)",
       kInvalid,
       [](Artifact &a) { a.codeObjects[kCubin].bytes = ".version 8.0\n"; }},
      {"code object #4 (sm_90) is PTX with a NUL byte at offset 12", kInvalid,
       [](Artifact &a) { a.codeObjects[kPtx].bytes[12] = '\0'; }},
      // With a CUDA object, every argument needs a staging slot, mapped or
      // not, input or output.
      {"input 'c' of entry 'affine' has no staging slot, which a CUDA code "
       "object needs",
       kInvalid,
       [](Artifact &a) { a.entries[0].inputs[1].stagingOffset = kNoStaging; }},
      {"output 'total' of entry 'reduce' has no staging slot, which a CUDA "
       "code object needs",
       kInvalid,
       [](Artifact &a) { a.entries[2].outputs[2].stagingOffset = kNoStaging; }},
  };
  for (const Case &c : cases) {
    Artifact a = artifact;
    c.edit(a);
    Status s = validateArtifact(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
    EXPECT_EQ(serializeError(a).message(), c.expected);
  }
  // Without CUDA code, unmapped arguments need no slot (as in
  // makeTestArtifact).
  Artifact cpu = artifact;
  cpu.codeObjects.resize(3);
  cpu.entries[0].inputs[1].stagingOffset = kNoStaging;
  EXPECT_TRUE(validateArtifact(cpu).ok()) << validateArtifact(cpu).message();
}

TEST_F(CudaArtifactTest, ReaderChecksCudaObjects) {
  const std::string b = serialize(artifact);
  const Layout l = layoutOf(artifact);
  const size_t records = l.codeObjects[kCubin] + 17;
  struct Case {
    std::string expected;
    StatusCode code;
    std::function<void(std::string &)> edit;
  };
  const Case cases[] = {
      // An unknown kind stops the reader: its fields are unknown.
      {"code object #3: unsupported kind 4 (this runtime supports 1 = x86-64 "
       "ELF, 2 = CUDA cubin, 3 = CUDA PTX)",
       StatusCode::kUnimplemented,
       [&](std::string &c) { putU32(c, l.codeObjects[kCubin], 4); }},
      {"code object #3 (sm_90): kernel 'affine': block dimension x is 0 (each "
       "is at least 1)",
       StatusCode::kDataLoss, [&](std::string &c) { putU32(c, records, 0); }},
      {"code object #3 (sm_90): kernel 'axis1': 300000 bytes of dynamic "
       "shared memory, more than 232448",
       StatusCode::kOutOfRange,
       [&](std::string &c) { putU32(c, records + 16 + 12, 300000); }},
      // The cubin read as PTX: its ELF header holds NUL bytes.
      {"code object #3 (sm_90) is PTX with a NUL byte at offset 7",
       StatusCode::kDataLoss,
       [&](std::string &c) { putU32(c, l.codeObjects[kCubin], 3); }},
      // A CUDA kind on a CPU object: its "launch records" are the bytes
      // after it, so the manifest no longer reads (here the next object's
      // kind is read from inside a level string).
      {"code object #1: unsupported kind 1310720 (this runtime supports 1 = "
       "x86-64 ELF, 2 = CUDA cubin, 3 = CUDA PTX)",
       StatusCode::kUnimplemented,
       [&](std::string &c) { putU32(c, l.codeObjects[0], 2); }},
  };
  for (const Case &k : cases) {
    std::string c = b;
    k.edit(c);
    reseal(c);
    Status s = parse(c);
    EXPECT_EQ(s.message(), k.expected);
    EXPECT_EQ(s.code(), k.code) << s.message();
  }
}

TEST_F(CudaArtifactTest, EveryTruncationIsRejected) {
  // The CPU objects dropped: small, and ending in the launch records.
  artifact.codeObjects.erase(artifact.codeObjects.begin(),
                             artifact.codeObjects.begin() + 3);
  std::string b = serialize(artifact);
  for (size_t n = 0; n < b.size(); ++n) {
    Status s = parse(b.substr(0, n));
    ASSERT_FALSE(s.ok()) << n;
    ASSERT_NE(s.message().find("truncated artifact"), std::string::npos)
        << n << ": " << s.message();
  }
}

} // namespace
