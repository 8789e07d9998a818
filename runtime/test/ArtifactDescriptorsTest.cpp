//===- ArtifactDescriptorsTest.cpp - the code's descriptors ---------------===//
//
// Tests of the descriptors a code object carries (ArtifactDescriptors.h, and
// the words ArtifactWriter.h writes): every field checked against the
// manifest.
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

} // namespace
