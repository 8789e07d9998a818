//===- ArtifactFormatTest.cpp - the format, written and read --------------===//
//
// Tests of the artifact's bytes as ArtifactFormat.h documents them, written
// and read back: the header and manifest layouts, round trips, the types'
// helpers (sizes, checked arithmetic, shapes, names) and the schedule's
// listing.
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
  EXPECT_EQ(u32At(b, 8), 7u);  // version
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
  EXPECT_EQ(u32At(b, l.entryCount), 12u);
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
    EXPECT_EQ(y.alignedLowerBoundBytes, x.alignedLowerBoundBytes);
    EXPECT_EQ(y.naiveSumBytes, x.naiveSumBytes);
    EXPECT_EQ(y.inPlaceCount, x.inPlaceCount);
    EXPECT_EQ(y.arenaAlignment, x.arenaAlignment);
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
  EXPECT_EQ(back.entries[0].arenaAlignment, 1u);
  const EntryInfo &twostep = back.entries[entryIndex(back, "twostep")];
  EXPECT_EQ(twostep.alignedLowerBoundBytes, 192u);
  EXPECT_EQ(twostep.arenaAlignment, 64u);
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

} // namespace
