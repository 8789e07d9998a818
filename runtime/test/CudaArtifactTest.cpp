//===- CudaArtifactTest.cpp - CUDA code objects ---------------------------===//
//
// Tests of artifacts with CUDA code objects (cubin and PTX with launch
// records): their layout, round trip, limits, and every rule of the
// validator and the reader.
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
