//===- RuntimeTest.cpp - Loading and chunked execution tests --------------===//
//
// The executable over the CPU device, with the stand-in code objects of
// TestKernels.h: chunking, staging, schedules, descriptors, loading errors.
// CpuDeviceTest.cpp has the device's own options, ISA levels and threads.
//
//===----------------------------------------------------------------------===//

#include "vmapc/Runtime.h"
#include "AllocHook.h"
#include "RuntimeTestUtil.h"
#include "TestUtil.h"
#include "vmapc/ArtifactValidator.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/cpu/SharedObject.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <vector>

using namespace vmapc;
using namespace vmapc_test;

namespace {

TEST(Device, OpenCpuAndUnknown) {
  Device d;
  ASSERT_TRUE(Device::open("cpu", &d).ok());
  EXPECT_EQ(d.name(), "cpu");
  Status s = Device::open("tpu:7", &d);
  EXPECT_EQ(s.message(), "unknown device 'tpu:7' (available: cpu, cuda)");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
}

#if !VMAPC_TEST_CUDA
// (With CUDA support, CudaDeviceTest.cpp tests the cuda device.)
TEST(Device, CudaWithoutCudaSupportSaysSo) {
  Device d;
  for (const char *name : {"cuda", "cuda:0", "cuda:3"}) {
    Status s = Device::open(name, &d);
    EXPECT_EQ(s.message(), "no CUDA device: this runtime was built without "
                           "CUDA support (no cuda.h at build time, or "
                           "VMAPC_CUDA=OFF)");
    EXPECT_EQ(s.code(), StatusCode::kUnimplemented);
  }
}
#endif

TEST_F(RuntimeTest, EntriesAndInfo) {
  ASSERT_EQ(exe->numEntries(), 12u);
  EXPECT_EQ(exe->entry(0).name(), "affine");
  const Entry &r = entry("reduce");
  EXPECT_EQ(r.numInputs(), 2u);
  EXPECT_EQ(r.numOutputs(), 3u);
  EXPECT_EQ(r.batchSize(), 4u);
  EXPECT_EQ(r.info().outputs[1].dtype, DType::Bool);
  ASSERT_EQ(entry("twostep").info().schedule.size(), 4u);
  EXPECT_EQ(entry("twostep").info().schedule[2].tripCount, 3u);
  const Artifact &a = exe->artifact();
  ASSERT_EQ(a.kernels.size(), 13u);
  EXPECT_EQ(a.kernels[kAccumulate].name, "accumulate");
  EXPECT_EQ(a.kernels[kAxis1].workgroupCount[1], 2);
  // The manifest is kept, the code is not.
  ASSERT_EQ(a.codeObjects.size(), 3u);
  for (const CodeObject &o : a.codeObjects)
    EXPECT_TRUE(o.bytes.empty()) << o.level;
  EXPECT_EQ(a.codeObjects[2].level, "x86-64-v4");
  Stats st = exe->stats();
  EXPECT_EQ(st.allocations, 1u);
  EXPECT_EQ(st.arenaBytes, 512u); // the largest arena, rounded to 256
  EXPECT_EQ(st.calls, 0u);
  EXPECT_EQ(st.launches, 0u);
}

// An entry whose kernels compute all B lanes gets n = B for its partial
// chunk, and its padding lanes repeat the last example.
TEST_F(RuntimeTest, PaddedEntryComputesEveryLaneOfAPartialChunk) {
  Artifact a = makeTestArtifact();
  for (EntryInfo &e : a.entries)
    e.padsPartialChunks = true;
  sealEntryDescriptors(a); // as the compiler of padding kernels would
  std::unique_ptr<Executable> padded = load(a);
  ASSERT_NE(padded, nullptr);
  const int64_t n = 2 * kTestB + 3;
  std::vector<int32_t> seen(n, -1);
  int32_t overrun = 0;
  ASSERT_TRUE(padded
                  ->run("count", {},
                        {MutableHostArray{seen.data(), DType::I32, {n}},
                         MutableHostArray{&overrun, DType::I32, {}}})
                  .ok());
  for (int64_t b = 0; b < n; ++b)
    ASSERT_EQ(seen[b], kTestB) << "example " << b;
  EXPECT_EQ(overrun, 0);
  // probe copies all B lanes of its padded input: the last real example.
  std::vector<float> x(n * 2), y(n * 2), c(3);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  int32_t addrs[6];
  ASSERT_TRUE(padded
                  ->run("probe",
                        {HostArray{x.data(), DType::F32, {n, 2}},
                         HostArray{c.data(), DType::F32, {3}}},
                        {MutableHostArray{y.data(), DType::F32, {n, 2}},
                         MutableHostArray{addrs, DType::I32, {6}}})
                  .ok());
  EXPECT_EQ(y, x);
  const auto *slot = reinterpret_cast<const float *>(joinAddress(addrs + 4));
  for (int b = 3; b < kTestB; ++b)
    EXPECT_EQ(slot[b * 2 + 1], x[(n - 1) * 2 + 1]) << "padding lane " << b;
}

TEST_F(RuntimeTest, UnmappedInputPassedOnceAndFullChunksInPlace) {
  // N = 2B: every chunk is full, so x is passed in place; c always is.
  const int64_t n = 2 * kTestB;
  std::vector<float> x(n * 2), y(n * 2), c = {1, 2, 3};
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i);
  int32_t addrs[6] = {};
  const Entry &probe = entry("probe");
  ASSERT_TRUE(exe->run(probe,
                       {HostArray{x.data(), DType::F32, {n, 2}},
                        HostArray{c.data(), DType::F32, {3}}},
                       {MutableHostArray{y.data(), DType::F32, {n, 2}},
                        MutableHostArray{addrs, DType::I32, {6}}})
                  .ok());
  EXPECT_EQ(y, x);
  EXPECT_EQ(joinAddress(addrs), uintptr_t(c.data()));
  // The arena binding is arena + 128; the arena is 256-byte aligned.
  uintptr_t arena = joinAddress(addrs + 2) - 128;
  EXPECT_EQ(arena % 256, 0u);
  // The last launch saw x at example B of the user's buffer.
  EXPECT_EQ(joinAddress(addrs + 4), uintptr_t(x.data() + kTestB * 2));

  // N = 2B + 1: the last chunk is partial, so x goes through its staging
  // slot (offset 0 of the arena), and c is still the user's pointer.
  const int64_t m = n + 1;
  std::vector<float> x2(m * 2, 4.0f), y2(m * 2, 0.0f);
  ASSERT_TRUE(exe->run(probe,
                       {HostArray{x2.data(), DType::F32, {m, 2}},
                        HostArray{c.data(), DType::F32, {3}}},
                       {MutableHostArray{y2.data(), DType::F32, {m, 2}},
                        MutableHostArray{addrs, DType::I32, {6}}})
                  .ok());
  EXPECT_EQ(y2, x2);
  EXPECT_EQ(joinAddress(addrs), uintptr_t(c.data()));
  EXPECT_EQ(joinAddress(addrs + 2), arena + 128);
  EXPECT_EQ(joinAddress(addrs + 4), arena);
  EXPECT_EQ(exe->stats().launches, 2u + 3u);
  EXPECT_EQ(exe->stats().examples, uint64_t(n + m));
}

// An entry that asks for more than 256-byte alignment (up to a page) gets
// the executable's one arena at that alignment: probe's arena binding at
// offset 128 then lies 128 bytes past a multiple of 4096.
TEST_F(RuntimeTest, ArenaIsAlignedAsTheEntryAsks) {
  Artifact a = makeTestArtifact();
  // whoami has no arena offsets, so any alignment suits it.
  a.entries[entryIndex(a, "whoami")].arenaAlignment = 4096;
  std::unique_ptr<Executable> e = load(a, cpu);
  ASSERT_NE(e, nullptr);
  std::vector<float> x(kTestB * 2, 1.0f), y(kTestB * 2), c = {1, 2, 3};
  int32_t addrs[6] = {};
  const Entry *probe = nullptr;
  ASSERT_TRUE(e->findEntry("probe", &probe).ok());
  ASSERT_TRUE(e->run(*probe,
                     {HostArray{x.data(), DType::F32, {kTestB, 2}},
                      HostArray{c.data(), DType::F32, {3}}},
                     {MutableHostArray{y.data(), DType::F32, {kTestB, 2}},
                      MutableHostArray{addrs, DType::I32, {6}}})
                  .ok());
  EXPECT_EQ(y, x);
  EXPECT_EQ(joinAddress(addrs + 2) % 4096, 128u);
  // The arena rounds up to the alignment too.
  EXPECT_EQ(e->stats().arenaBytes % 4096, 0u);
}

// After the first call, a run allocates nothing, on a device of 2 threads
// whose workers run the workgroups.
TEST_F(RuntimeTest, NoHeapAllocationAcrossRepeatedRuns) {
  Device two = openCpu("cpu:threads=2");
  std::unique_ptr<Executable> e = load(makeTestArtifact(), two);
  ASSERT_NE(e, nullptr);
  const int64_t n = 2 * kTestB + 3;
  std::vector<float> x(n * 4, 1.0f), c(4, 2.0f), y(n * 4), y2(n * 4);
  std::vector<int32_t> xi(2 * n * 3, 5), yi(2 * n * 3);
  HostArray in[2] = {{x.data(), DType::F32, {n, 4}},
                     {c.data(), DType::F32, {4}}};
  MutableHostArray out[1] = {{y.data(), DType::F32, {n, 4}}};
  HostArray in1[1] = {{xi.data(), DType::I32, {2, n, 3}}};
  MutableHostArray out1[1] = {{yi.data(), DType::I32, {2, 3, n}}};
  MutableHostArray out2[1] = {{y2.data(), DType::F32, {n, 4}}};
  const Entry *affine, *axis1, *twostep;
  ASSERT_TRUE(e->findEntry("affine", &affine).ok());
  ASSERT_TRUE(e->findEntry("axis1", &axis1).ok());
  ASSERT_TRUE(e->findEntry("twostep", &twostep).ok());
  bool allOk = e->run(*affine, {in, 2}, {out, 1}).ok(); // the first call
  startCountingAllocations();
  for (int i = 0; i < 100; ++i) {
    allOk &= e->run(*affine, {in, 2}, {out, 1}).ok();
    allOk &= e->run(*axis1, {in1, 1}, {out1, 1}).ok();
    allOk &= e->run(*twostep, {in, 1}, {out2, 1}).ok();
    allOk &= e->run("affine", {in, 2}, {out, 1}).ok();
  }
  uint64_t allocations = stopCountingAllocations();
  EXPECT_TRUE(allOk);
  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(y[0], 4.0f);
  EXPECT_EQ(yi[0], 16);
  EXPECT_EQ(y2[0], 42.0f);
  Stats st = e->stats();
  EXPECT_EQ(st.calls, 401u);
  EXPECT_EQ(st.launches, 3u + 100 * 3 * (1 + 1 + 7 + 1));
  EXPECT_EQ(st.examples, 401u * uint64_t(n));
  EXPECT_EQ(st.allocations, 1u);
}

TEST_F(RuntimeTest, AllocHookCounts) {
  startCountingAllocations();
  std::string *volatile s = new std::string(100, 'x');
  void *volatile p = std::malloc(64);
  std::free(p);
  delete s;
  EXPECT_GE(stopCountingAllocations(), 3u);
}

TEST_F(RuntimeTest, LoadFromFile) {
  std::string path = tempPath(".vmapc");
  ASSERT_TRUE(writeArtifactFile(makeTestArtifact(), path).ok());
  std::unique_ptr<Executable> fromFile;
  Status s = Executable::loadFile(cpu, path, &fromFile);
  ASSERT_TRUE(s.ok()) << s.message();
  float x[4] = {1, 2, 3, 4}, c[4] = {1, 1, 1, 1}, y[4] = {};
  ASSERT_TRUE(fromFile
                  ->run("affine",
                        {HostArray{x, DType::F32, {1, 4}},
                         HostArray{c, DType::F32, {4}}},
                        {MutableHostArray{y, DType::F32, {1, 4}}})
                  .ok());
  EXPECT_EQ(y[3], 9.0f);

  // Truncated file: the error names the file.
  writeFileBytes(path, bytes.substr(0, bytes.size() / 2));
  s = Executable::loadFile(cpu, path, &fromFile);
  EXPECT_EQ(s.message(), path + ": truncated artifact: header says " +
                             std::to_string(bytes.size()) + " bytes, got " +
                             std::to_string(bytes.size() / 2));
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  std::remove(path.c_str());
  s = Executable::loadFile(cpu, path, &fromFile);
  EXPECT_EQ(s.message(), path + ": cannot open: No such file or directory");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);

  // A device that never ends is refused at its first bytes.
  s = Executable::loadFile(cpu, "/dev/zero", &fromFile);
  EXPECT_EQ(s.message(), "/dev/zero: bad magic: not a .vmapc artifact");
  s = Executable::loadFile(cpu, "/", &fromFile);
  EXPECT_EQ(s.message(), "/: is a directory");
}

TEST_F(RuntimeTest, ArenaBeyondMemoryIsRefusedBeforeAllocating) {
  Artifact a = makeTestArtifact();
  a.entries[0].name = "affine_huge"; // code for an arena of 2^61 bytes
  a.entries[0].arenaBytes = uint64_t(1) << 61; // below the format's limit
  sealEntryDescriptors(a);
  Status s = loadError(a);
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message().rfind("the arena would take 2305843009213693952 "
                              "bytes, more than the " +
                                  std::to_string(hostMemoryLimitBytes()) +
                                  " bytes this process may use",
                              0),
            0u)
      << s.message();
}

TEST_F(RuntimeTest, ArenaAllocationFailureIsAnErrorStatus) {
  if (!canFailAllocations())
    GTEST_SKIP() << "allocation failures cannot be injected in this build "
                    "(ASan without the --wrap link flags)";
  Artifact a = makeTestArtifact();
  a.entries[0].name = "affine_4mib"; // code for an arena of 4 MiB
  a.entries[0].arenaBytes = 4 << 20;
  sealEntryDescriptors(a);
  std::string b = serialize(a);
  std::unique_ptr<Executable> other;
  failMallocFamily(1 << 20);
  Status s = Executable::loadBytes(cpu, b.data(), b.size(), &other);
  stopFailingAllocations();
  EXPECT_EQ(s.message(),
            "cannot allocate the arena (4194304 bytes): out of memory");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(other, nullptr);
}

// The code's descriptors of each entry and each kernel are checked against
// the manifest: a manifest edited apart from its code is refused, naming
// the field. Every edit keeps the manifest valid on its own.
TEST_F(RuntimeTest, ManifestThatDisagreesWithItsCodeIsRefused) {
  struct Case {
    const char *expected;
    void (*edit)(Artifact &);
  };
  const Case cases[] = {
      {"entry 'affine': the manifest disagrees with the code: batch size: 8 "
       "in the manifest, 4 in the code",
       [](Artifact &a) { a.entries[0].batchSize = 8; }},
      {"entry 'affine': the manifest disagrees with the code: arena bytes: "
       "1024 in the manifest, 512 in the code",
       [](Artifact &a) { a.entries[0].arenaBytes = 1024; }},
      {"entry 'affine': the manifest disagrees with the code: arena bytes: "
       "384 in the manifest, 512 in the code",
       [](Artifact &a) { a.entries[0].arenaBytes = 384; }},
      {"entry 'affine': the manifest disagrees with the code: input count: 1 "
       "in the manifest, 2 in the code",
       [](Artifact &a) {
         a.entries[0].inputs.pop_back();
         a.entries[0].schedule[0].bindings[1] = arenaBinding(320);
       }},
      {"entry 'reduce': the manifest disagrees with the code: output count: "
       "2 in the manifest, 3 in the code",
       [](Artifact &a) {
         a.entries[2].outputs.pop_back();
         a.entries[2].schedule[1].bindings[1] = arenaBinding(192);
       }},
      {"entry 'affine': the manifest disagrees with the code: bytes per "
       "example of input 'c': 32 in the manifest, 16 in the code",
       [](Artifact &a) { a.entries[0].inputs[1].shape = {8}; }},
      {"entry 'reduce': the manifest disagrees with the code: bytes per "
       "example of output 'pos': 4 in the manifest, 1 in the code",
       [](Artifact &a) { a.entries[2].outputs[1].dtype = DType::I32; }},
      {"entry 'axis1': the manifest disagrees with the code: mapped axis of "
       "input 'x': 0 in the manifest, 1 in the code",
       [](Artifact &a) { a.entries[1].inputs[0].mappedAxis = 0; }},
      {"entry 'affine': the manifest disagrees with the code: mapped axis of "
       "input 'c': 0 in the manifest, -1 in the code",
       [](Artifact &a) {
         a.entries[0].inputs[1].mappedAxis = 0;
         a.entries[0].inputs[1].stagingOffset = 128;
       }},
      // The name of another entry: its descriptor is another's too.
      {"entry 'axis1': the manifest disagrees with the code: arena bytes: "
       "512 in the manifest, 256 in the code",
       [](Artifact &a) { std::swap(a.entries[0].name, a.entries[1].name); }},
      {"entry 'affine_undescribed': symbol "
       "'vmapc_entry_affine_undescribed_descriptor' not found in the code "
       "object",
       [](Artifact &a) { a.entries[0].name = "affine_undescribed"; }},
      // Kernels.
      {"kernel 'affine': the manifest disagrees with the code: bytes of "
       "binding 0: 48 in the manifest, 64 in the code",
       [](Artifact &a) { a.kernels[kAffine].bindingBytes[0] = 48; }},
      {"kernel 'affine': the manifest disagrees with the code: scalar count: "
       "2 in the manifest, 1 in the code",
       [](Artifact &a) {
         a.kernels[kAffine].numScalars = 2;
         a.entries[0].schedule[0].scalars.push_back(numExamples());
         a.entries[entryIndex(a, "donate")].schedule[0].scalars.push_back(
             numExamples());
       }},
      {"kernel 'reduce_total': the manifest disagrees with the code: binding "
       "count: 3 in the manifest, 2 in the code",
       [](Artifact &a) {
         a.kernels[kReduceTotal].numBindings = 3;
         a.kernels[kReduceTotal].bindingBytes.push_back(4);
         a.kernels[kReduceTotal].bindingAccess.push_back(BindingAccess::Read);
         a.entries[2].schedule[1].bindings.push_back(arenaBinding(0));
       }},
      {"kernel 'square': the manifest disagrees with the code: binding "
       "count: 3 in the manifest, 2 in the code",
       [](Artifact &a) {
         std::swap(a.kernels[kAffine].name, a.kernels[kSquare].name);
       }},
      {"symbol 'vmapc_kernel_undescribed_descriptor' not found in the code "
       "object",
       [](Artifact &a) { a.kernels[kAffine].name = "undescribed"; }},
      {"kernel 'truncated': the code's descriptor is 16 bytes, fewer than "
       "the 64 its header needs",
       [](Artifact &a) { a.kernels[kAffine].name = "truncated"; }},
      {"kernel 'badmagic': the code's descriptor has a bad magic",
       [](Artifact &a) { a.kernels[kAffine].name = "badmagic"; }},
      // A tile edited: the kernel's workgroups would skip examples.
      {"kernel 'affine': the manifest disagrees with the code: workgroup "
       "count along dimension 0: -2 in the manifest, -1 in the code",
       [](Artifact &a) { a.kernels[kAffine].workgroupCount[0] = -2; }},
      // An output the kernel writes, recorded as read (the schedule's one
      // write of it would be gone).
      {"kernel 'count': the manifest disagrees with the code: access of "
       "binding 1 (1 read, 2 write, 3 read-write): 1 in the manifest, 3 in "
       "the code, which does more",
       [](Artifact &a) {
         a.kernels[kCount].bindingAccess[1] = BindingAccess::Read;
         a.entries[entryIndex(a, "count")].outputs.pop_back();
         a.entries[entryIndex(a, "count")].schedule[0].bindings[1] =
             arenaBinding(128);
       }},
      // The schedule edited apart from the code, each field the digest
      // covers: where an output is written, a staging offset, a trip count.
      {"entry 'probe': the manifest's schedule, arguments or arena are not "
       "those the code was compiled for",
       [](Artifact &a) {
         a.entries[entryIndex(a, "probe")].schedule[0].bindings[2] =
             arenaBinding(192);
       }},
      {"entry 'affine': the manifest's schedule, arguments or arena are not "
       "those the code was compiled for",
       [](Artifact &a) { a.entries[0].outputs[0].stagingOffset = 384; }},
      {"entry 'twostep': the manifest's schedule, arguments or arena are not "
       "those the code was compiled for",
       [](Artifact &a) {
         a.entries[entryIndex(a, "twostep")].schedule[1].tripCount = 1;
       }},
      {"symbol 'vmapc_kernel_nope' not found in the code object",
       [](Artifact &a) { a.kernels[kAxis1].name = "nope"; }},
      {"symbol 'vmapc_kernel_affine_descriptor' is not a function",
       [](Artifact &a) { a.kernels[kAffine].name = "affine_descriptor"; }},
  };
  for (const Case &c : cases) {
    Artifact a = makeTestArtifact();
    c.edit(a);
    Status valid = validateArtifact(a);
    ASSERT_TRUE(valid.ok()) << c.expected << ": " << valid.message();
    Status s = loadError(a);
    // The digest's message ends with the two digests.
    std::string expected = c.expected;
    EXPECT_EQ(s.message().substr(0, expected.size()), expected);
    EXPECT_EQ(s.message().find(" (digest ") == std::string::npos,
              s.message().size() == expected.size())
        << s.message();
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << c.expected;
  }
}

TEST(SharedObjectTest, LookupResolvesOnlyTheObjectsOwnSymbolsOfTheirKind) {
  std::string code = testKernelBytes();
  std::unique_ptr<cpu::SharedObject> so;
  ASSERT_TRUE(cpu::SharedObject::load(code.data(), code.size(), &so).ok());
  const void *fn = nullptr, *data = nullptr;
  size_t size = 0;
  EXPECT_TRUE(so->lookup("vmapc_kernel_affine", &fn).ok());
  EXPECT_NE(fn, nullptr);
  ASSERT_TRUE(
      so->lookupData("vmapc_kernel_affine_descriptor", &data, &size).ok());
  // The descriptor's 40 bytes (more under AddressSanitizer: a redzone).
  EXPECT_GE(size, 16u + 3 * 8);
  EXPECT_EQ(so->lookup("cos", &fn).message(), // libm's
            "symbol 'cos' is not defined by the code object");
  EXPECT_EQ(so->lookupData("vmapc_kernel_affine", &data, &size).message(),
            "symbol 'vmapc_kernel_affine' is not a data object");
  Status s = so->lookup("vmapc_entry_affine_descriptor", &fn);
  EXPECT_EQ(s.message(),
            "symbol 'vmapc_entry_affine_descriptor' is not a function");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_EQ(cpu::SharedObject::load("hello", 5, &so).code(),
            StatusCode::kDataLoss);
}

TEST_F(RuntimeTest, CpuFeatures) {
  // One code object, which needs a feature no CPU has.
  Artifact a = makeTestArtifact({testCodeObject("x86-64", testKernelBytes())});
  a.codeObjects[0].cpuFeatures = {"sse2", "warp-drive"};
  Status unknown = loadError(a);
  EXPECT_EQ(unknown.message(), "this CPU can run none of the artifact's "
                               "code: unknown CPU feature 'warp-drive'");
  EXPECT_EQ(unknown.code(), StatusCode::kUnimplemented);

  auto lacksAvx2 = [](const std::string &f) { return f != "avx2"; };
  EXPECT_TRUE(cpu::checkCpuFeatures({"sse2", "avx"}, lacksAvx2).ok());
  Status lacking2 = cpu::checkCpuFeatures({"sse2", "avx2"}, lacksAvx2);
  EXPECT_EQ(lacking2.message(),
            "the code needs CPU feature 'avx2', which this CPU lacks");
  EXPECT_EQ(lacking2.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(cpu::hostSupports("sse2")); // x86-64 baseline
  EXPECT_FALSE(cpu::hostSupports("warp-drive"));

  // Every known feature the host lacks is rejected at load (no x86 CPU has
  // them all: "sse4a", "fma4" and "xop" are AMD-only and were dropped in
  // Zen, the avx512 ones are missing on most AMD and client Intel parts).
  int lacking = 0;
  for (const std::string &f : cpu::knownCpuFeatures()) {
    a.codeObjects[0].cpuFeatures = {"sse2", f};
    if (cpu::hostSupports(f)) {
      std::unique_ptr<Executable> ok = load(a);
      EXPECT_NE(ok, nullptr) << f;
      continue;
    }
    ++lacking;
    Status s = loadError(a);
    EXPECT_EQ(s.message(), "this CPU can run none of the artifact's code: the "
                           "code needs CPU feature '" +
                               f + "', which this CPU lacks");
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << f;
  }
  EXPECT_GT(lacking, 0);
}

TEST_F(RuntimeTest, ManyExecutablesLoadedAtOnce) {
  // Each keeps its code's memfd open, so each is loaded from its own path.
  std::vector<std::unique_ptr<Executable>> loaded(200);
  for (auto &e : loaded) {
    Status s = Executable::loadBytes(cpu, bytes.data(), bytes.size(), &e);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  for (auto &e : loaded)
    ASSERT_EQ(runAffineOnce(*e), 2.0f);
}

TEST_F(RuntimeTest, EachLoadGetsItsOwnCode) {
  // Variant 2 has the same symbols but computes 3x + c. The memfd of the
  // first load is closed, so the second reuses its fd number: the loader must
  // still load the new code rather than return the first object.
  std::string code1 = testKernelBytes();
  std::string code2 = readFileBytes(VMAPC_TEST_KERNELS2);
  ASSERT_FALSE(code2.empty());
  std::string bytes1 =
      serialize(makeTestArtifact({testCodeObject("x86-64", code1)}));
  std::string bytes2 =
      serialize(makeTestArtifact({testCodeObject("x86-64", code2)}));
  std::unique_ptr<Executable> first, second, third;
  ASSERT_TRUE(
      Executable::loadBytes(cpu, bytes1.data(), bytes1.size(), &first).ok());
  ASSERT_TRUE(
      Executable::loadBytes(cpu, bytes2.data(), bytes2.size(), &second).ok());
  EXPECT_EQ(runAffineOnce(*first), 2.0f);
  EXPECT_EQ(runAffineOnce(*second), 3.0f);
  first.reset();
  ASSERT_TRUE(
      Executable::loadBytes(cpu, bytes1.data(), bytes1.size(), &third).ok());
  EXPECT_EQ(runAffineOnce(*third), 2.0f);
  EXPECT_EQ(runAffineOnce(*second), 3.0f);
}

} // namespace
