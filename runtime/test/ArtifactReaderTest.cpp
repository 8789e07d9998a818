//===- ArtifactReaderTest.cpp - the artifact reader -----------------------===//
//
// Tests of the reader (ArtifactReader.h): truncated, trailing, corrupt and
// edited bytes, fields out of bounds behind a valid checksum, files read
// header first.
//
//===----------------------------------------------------------------------===//

#include "ArtifactTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace vmapc;
using namespace vmapc_test;

namespace {

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
  for (uint32_t version : {1u, 2u, 3u, 4u, 5u, 6u, 8u, 0xffffffffu}) {
    putU32(b, 8, version);
    reseal(b);
    Status s = parse(b);
    EXPECT_EQ(s.message(), "runtime supports format 7, artifact has " +
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
      EXPECT_NE(s.message().find("runtime supports format 7, artifact has"),
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
    c[x + 2] = 1; // the donor field: inputs have none
    reseal(c);
    EXPECT_EQ(parse(c).message(),
              "entry 'affine' input 'x': an input has no donor (donor 0)");
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
       kDataLoss, [&](std::string &c) { c[square + 2] = 1; }},
      {"entry 'twostep' schedule: unknown command flags 2", kDataLoss,
       [&](std::string &c) { c[square + 1] = 2; }},
      // Run once per call, the first dispatch would use the first chunk's
      // n in every chunk.
      {"entry 'twostep' schedule command 0: a dispatch run once per call is "
       "given scalars, which differ between its runs",
       kDataLoss, [&](std::string &c) { c[square + 1] = kOncePerCallFlag; }},
      {"entry 'twostep' schedule: unknown command flags 1", kDataLoss,
       [&](std::string &c) { c[l.commands[twostep][1] + 1] = 1; }},
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

} // namespace
