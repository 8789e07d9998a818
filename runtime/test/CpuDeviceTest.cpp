//===- CpuDeviceTest.cpp - The CPU device: options, ISA levels, threads ---===//

#include "vmapc/cpu/CpuDevice.h"
#include "RuntimeTestUtil.h"
#include "TestUtil.h"
#include "vmapc/cpu/SharedObject.h"
#include "vmapc/cpu/ThreadPool.h"

#include <gtest/gtest.h>

#include <cstring>
#include <pthread.h>
#include <vector>

using namespace vmapc;
using namespace vmapc_test;

namespace {

/// The index in kCpuIsaLevels of the best level the host runs.
int bestHostLevel() {
  if (cpu::hostSupports("x86-64-v4"))
    return 2;
  if (cpu::hostSupports("x86-64-v3"))
    return 1;
  return 0;
}

bool hostRuns(int level) { return level <= bestHostLevel(); }

/// How Device::describe() names a level, with its vector extension.
std::string levelText(const std::string &level) {
  static const char *const extensions[] = {"SSE2", "AVX2 + FMA", "AVX-512"};
  for (int i = 0; i < 3; ++i)
    if (level == kCpuIsaLevels[i])
      return level + " (" + extensions[i] + ")";
  return level;
}
/// ", LEVEL (EXTENSION)" of the host's best level, as describe() ends when
/// no level is forced.
std::string best() { return ", " + levelText(kCpuIsaLevels[bestHostLevel()]); }
/// ", LEVEL (EXTENSION), forced".
std::string forced(const std::string &level) {
  return ", " + levelText(level) + ", forced";
}

class CpuDeviceTest : public RuntimeTest {};

TEST_F(CpuDeviceTest, BestLevelTheHostRunsIsChosen) {
  const int best = bestHostLevel();
  EXPECT_EQ(exe->codeLevel(), kCpuIsaLevels[best]);
  EXPECT_EQ(runWhoami(*exe), best);
  // The choice is by level, not by position in the artifact.
  Artifact a = makeTestArtifact();
  std::swap(a.codeObjects[0], a.codeObjects[2]);
  std::unique_ptr<Executable> reordered = load(a);
  ASSERT_NE(reordered, nullptr);
  EXPECT_EQ(reordered->codeLevel(), kCpuIsaLevels[best]);
  EXPECT_EQ(runWhoami(*reordered), best);
}

TEST_F(CpuDeviceTest, ForcedLevelIsUsed) {
  int tried = 0;
  for (int level = 0; level < 3; ++level) {
    if (!hostRuns(level))
      continue;
    ++tried;
    std::string spec = std::string("cpu:isa=") + kCpuIsaLevels[level];
    Device d = openCpu(spec.c_str());
    EXPECT_EQ(d.describe(), "cpu: " + std::to_string(cpu::hardwareThreads()) +
                                " threads" + forced(kCpuIsaLevels[level]));
    std::unique_ptr<Executable> e = load(makeTestArtifact(), d);
    ASSERT_NE(e, nullptr) << spec;
    EXPECT_EQ(e->codeLevel(), kCpuIsaLevels[level]);
    EXPECT_EQ(runWhoami(*e), level) << spec;
    EXPECT_EQ(runAffineOnce(*e), 2.0f) << spec;
    // A schedule of several dispatches at this level.
    float x[6 * 4], y[6 * 4];
    for (int i = 0; i < 6 * 4; ++i)
      x[i] = float(i % 7) - 3.0f;
    ASSERT_TRUE(e->run("twostep", {HostArray{x, DType::F32, {6, 4}}},
                       {MutableHostArray{y, DType::F32, {6, 4}}})
                    .ok());
    for (int i = 0; i < 6 * 4; ++i)
      ASSERT_EQ(y[i], 6 * x[i] * x[i] + 36) << spec << ", element " << i;
  }
  EXPECT_GE(tried, 1); // x86-64 itself
}

TEST_F(CpuDeviceTest, ForcedLevelTheArtifactLacksIsNotFound) {
  Device d = openCpu("cpu:isa=x86-64-v3");
  Status s = loadError(
      makeTestArtifact({testCodeObject("x86-64", testKernelBytes())}), &d);
  EXPECT_EQ(s.message(), "the artifact has no code for ISA level 'x86-64-v3'");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
}

// A code object needing what the host lacks is refused when forced and
// skipped otherwise.
TEST_F(CpuDeviceTest, LevelTheHostLacksIsRefusedWhenForcedAndSkippedElse) {
  std::string lacking;
  for (const std::string &f : cpu::knownCpuFeatures())
    if (!cpu::hostSupports(f)) {
      lacking = f;
      break;
    }
  ASSERT_FALSE(lacking.empty()) << "no x86 CPU has every known feature";
  Artifact a = makeTestArtifact();
  a.codeObjects[2].cpuFeatures.push_back(lacking);
  // The message names the object's first feature the host lacks: its own
  // level's name on a host without AVX-512, else `lacking`.
  std::string first;
  for (const std::string &f : a.codeObjects[2].cpuFeatures)
    if (first.empty() && !cpu::hostSupports(f))
      first = f;
  Device v4 = openCpu("cpu:isa=x86-64-v4");
  Status s = loadError(a, &v4);
  EXPECT_EQ(s.message(), "ISA level x86-64-v4: the code needs CPU feature '" +
                             first + "', which this CPU lacks");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  std::unique_ptr<Executable> e = load(a);
  ASSERT_NE(e, nullptr);
  int best = std::min(bestHostLevel(), 1);
  EXPECT_EQ(e->codeLevel(), kCpuIsaLevels[best]);
  EXPECT_EQ(runWhoami(*e), best);
}

TEST(ChooseCodeObject, PicksTheBestLevelTheHostRuns) {
  Artifact a;
  for (const char *level : {"x86-64-v4", "x86-64", "x86-64-v3"})
    a.codeObjects.push_back(testCodeObject(level, ""));
  using Supports = bool (*)(const std::string &);
  Supports baseline = [](const std::string &f) { return f == "sse2"; };
  Supports v3 = [](const std::string &f) {
    return f == "sse2" || f == "x86-64-v3";
  };
  Supports v4 = [](const std::string &f) {
    return f == "sse2" || f == "x86-64-v3" || f == "x86-64-v4";
  };
  Supports none = [](const std::string &) { return false; };
  size_t index = 99;
  ASSERT_TRUE(cpu::chooseCodeObject(a, "", &index, baseline).ok());
  EXPECT_EQ(index, 1u);
  ASSERT_TRUE(cpu::chooseCodeObject(a, "", &index, v3).ok());
  EXPECT_EQ(index, 2u);
  ASSERT_TRUE(cpu::chooseCodeObject(a, "", &index, v4).ok());
  EXPECT_EQ(index, 0u);
  ASSERT_TRUE(cpu::chooseCodeObject(a, "x86-64", &index, v4).ok());
  EXPECT_EQ(index, 1u);
  ASSERT_TRUE(cpu::chooseCodeObject(a, "x86-64-v3", &index, v4).ok());
  EXPECT_EQ(index, 2u);

  index = 99;
  Status s = cpu::chooseCodeObject(a, "x86-64-v4", &index, v3);
  EXPECT_EQ(s.message(), "ISA level x86-64-v4: the code needs CPU feature "
                         "'x86-64-v4', which this CPU lacks");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  s = cpu::chooseCodeObject(a, "", &index, none);
  EXPECT_EQ(s.message(), "this CPU can run none of the artifact's code: the "
                         "code needs CPU feature 'x86-64-v4', which this CPU "
                         "lacks");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  a.codeObjects.erase(a.codeObjects.begin() + 2);
  s = cpu::chooseCodeObject(a, "x86-64-v3", &index, v4);
  EXPECT_EQ(s.message(), "the artifact has no code for ISA level 'x86-64-v3'");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(index, 99u);
}

TEST(ChooseCodeObject, SkipsCudaObjects) {
  Artifact a;
  a.codeObjects.push_back(
      cudaCodeObject(CodeKind::CudaCubin, "sm_90", cubinElfHeader(), 0));
  a.codeObjects.push_back(testCodeObject("x86-64", ""));
  a.codeObjects.push_back(
      cudaCodeObject(CodeKind::CudaPtx, "sm_90", ".version 8.0\n", 0));
  auto any = [](const std::string &) { return true; };
  size_t index = 99;
  ASSERT_TRUE(cpu::chooseCodeObject(a, "", &index, any).ok());
  EXPECT_EQ(index, 1u);
  // A CUDA object's level is no ISA level.
  Status s = cpu::chooseCodeObject(a, "sm_90", &index, any);
  EXPECT_EQ(s.message(), "the artifact has no code for ISA level 'sm_90'");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  a.codeObjects.erase(a.codeObjects.begin() + 1);
  s = cpu::chooseCodeObject(a, "", &index, any);
  EXPECT_EQ(s.message(), "the artifact has no code for the CPU (it was "
                         "compiled with --target=cuda)");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  s = cpu::chooseCodeObject(a, "x86-64", &index, any);
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(index, 1u);
}

// An artifact compiled with --target=cpu,cuda runs on the CPU from its CPU
// code (entries whose arguments are all mapped: their staging slots are the
// ones the stand-in code's descriptors were written for).
TEST_F(CpuDeviceTest, ArtifactWithCudaCodeRunsOnTheCpu) {
  Artifact a = makeTestArtifact();
  std::vector<EntryInfo> entries;
  for (const EntryInfo &e : a.entries)
    if (e.name == "twostep" || e.name == "axis1")
      entries.push_back(e);
  a.entries = entries;
  size_t k = a.kernels.size();
  a.codeObjects.insert(
      a.codeObjects.begin(),
      cudaCodeObject(CodeKind::CudaCubin, "sm_90", cubinElfHeader(), k));
  a.codeObjects.push_back(
      cudaCodeObject(CodeKind::CudaPtx, "sm_90", ".version 8.0\n", k));
  std::unique_ptr<Executable> e = load(a);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->codeLevel(), kCpuIsaLevels[bestHostLevel()]);
  float x[4] = {1, 2, 3, 4}, y[4] = {};
  Status s = e->run("twostep", {HostArray{x, DType::F32, {1, 4}}},
                    {MutableHostArray{y, DType::F32, {1, 4}}});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(y[i], 6 * x[i] * x[i] + 36) << i;
  // Without its CPU code, the CPU device refuses it.
  a.codeObjects = {a.codeObjects.front(), a.codeObjects.back()};
  s = loadError(a);
  EXPECT_EQ(s.message(), "the artifact has no code for the CPU (it was "
                         "compiled with --target=cuda)");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
}

TEST(CpuDeviceOptions, ValuesAndErrors) {
  ScopedEnv isa("VMAPC_CPU_ISA", nullptr);
  ScopedEnv threads("VMAPC_CPU_THREADS", nullptr);
  const unsigned all = cpu::hardwareThreads();
  struct Good {
    const char *spec;
    std::string describe;
  };
  const Good good[] = {
      {"cpu", "cpu: " + std::to_string(all) + " threads" + best()},
      {"cpu:", "cpu: " + std::to_string(all) + " threads" + best()},
      {"cpu:threads=3", "cpu: 3 threads" + best()},
      {"cpu:threads=1", "cpu: 1 thread" + best()},
      {"cpu:isa=x86-64",
       "cpu: " + std::to_string(all) + " threads, x86-64 (SSE2), forced"},
      {"cpu:threads=2,isa=x86-64-v4",
       "cpu: 2 threads, x86-64-v4 (AVX-512), forced"},
      {"cpu:isa=x86-64-v3,threads=2",
       "cpu: 2 threads, x86-64-v3 (AVX2 + FMA), forced"},
  };
  for (const Good &g : good) {
    Device d;
    Status s = Device::open(g.spec, &d);
    ASSERT_TRUE(s.ok()) << g.spec << ": " << s.message();
    EXPECT_EQ(d.describe(), g.describe) << g.spec;
    EXPECT_EQ(d.name(), g.spec);
  }
  struct Bad {
    const char *spec;
    const char *expected;
  };
  const Bad bad[] = {
      {"cpu:threads=0",
       "cpu device: threads must be an integer in [1, 1024], got '0'"},
      {"cpu:threads=1025",
       "cpu device: threads must be an integer in [1, 1024], got '1025'"},
      {"cpu:threads=-2",
       "cpu device: threads must be an integer in [1, 1024], got '-2'"},
      {"cpu:threads=2x",
       "cpu device: threads must be an integer in [1, 1024], got '2x'"},
      {"cpu:threads=",
       "cpu device: threads must be an integer in [1, 1024], got ''"},
      {"cpu:threads=99999999999999999999",
       "cpu device: threads must be an integer in [1, 1024], got "
       "'99999999999999999999'"},
      {"cpu:isa=x86-64-v2", "cpu device: isa must be x86-64, x86-64-v3 or "
                            "x86-64-v4, got 'x86-64-v2'"},
      {"cpu:isa=avx2", "cpu device: isa must be x86-64, x86-64-v3 or "
                       "x86-64-v4, got 'avx2'"},
      {"cpu:fast=1",
       "cpu device: unknown option 'fast=1' (options: threads=K, isa=LEVEL)"},
      {"cpu:threads=2,,isa=x86-64",
       "cpu device: unknown option '' (options: threads=K, isa=LEVEL)"},
  };
  for (const Bad &b : bad) {
    Device d;
    Status s = Device::open(b.spec, &d);
    EXPECT_EQ(s.message(), b.expected) << b.spec;
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << b.spec;
  }
}

TEST(CpuDeviceOptions, EnvironmentSetsWhatTheStringDoesNot) {
  ScopedEnv isa("VMAPC_CPU_ISA", "x86-64");
  ScopedEnv threads("VMAPC_CPU_THREADS", "3");
  Device d;
  ASSERT_TRUE(Device::open("cpu", &d).ok());
  EXPECT_EQ(d.describe(), "cpu: 3 threads, x86-64 (SSE2), forced");
  std::string bytes = serialize(makeTestArtifact());
  std::unique_ptr<Executable> e;
  ASSERT_TRUE(Executable::loadBytes(d, bytes.data(), bytes.size(), &e).ok());
  EXPECT_EQ(e->codeLevel(), "x86-64");
  EXPECT_EQ(runWhoami(*e), 0);
  // The string wins over the environment, option by option.
  ASSERT_TRUE(Device::open("cpu:threads=2", &d).ok());
  EXPECT_EQ(d.describe(), "cpu: 2 threads" + forced("x86-64"));
  ASSERT_TRUE(Device::open("cpu:isa=x86-64-v3", &d).ok());
  EXPECT_EQ(d.describe(), "cpu: 3 threads" + forced("x86-64-v3"));
  // An empty variable is unset.
  ScopedEnv emptyIsa("VMAPC_CPU_ISA", "");
  ASSERT_TRUE(Device::open("cpu", &d).ok());
  EXPECT_EQ(d.describe(), "cpu: 3 threads" + best());
}

TEST(CpuDeviceOptions, BadEnvironmentValuesNameTheVariable) {
  ScopedEnv isa("VMAPC_CPU_ISA", nullptr);
  Device d;
  {
    ScopedEnv threads("VMAPC_CPU_THREADS", "many");
    Status s = Device::open("cpu", &d);
    EXPECT_EQ(s.message(), "VMAPC_CPU_THREADS: cpu device: threads must be "
                           "an integer in [1, 1024], got 'many'");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    // The string's option replaces the variable's: no error then.
    EXPECT_TRUE(Device::open("cpu:threads=2", &d).ok());
  }
  ScopedEnv badIsa("VMAPC_CPU_ISA", "x86-64-v9");
  Status s = Device::open("cpu", &d);
  EXPECT_EQ(s.message(), "VMAPC_CPU_ISA: cpu device: isa must be x86-64, "
                         "x86-64-v3 or x86-64-v4, got 'x86-64-v9'");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Device::open("cpu:isa=x86-64", &d).ok());
  // A variable holds one value: a comma in it does not start an option.
  ScopedEnv twoOptions("VMAPC_CPU_ISA", "x86-64,threads=7");
  EXPECT_EQ(Device::open("cpu", &d).message(),
            "VMAPC_CPU_ISA: cpu device: isa must be x86-64, x86-64-v3 or "
            "x86-64-v4, got 'x86-64,threads=7'");
}

/// Fills `v` with values from a fixed linear congruential sequence.
template <typename T> void fill(std::vector<T> &v, uint32_t seed) {
  for (T &x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = T(int32_t(seed >> 8) % 2001 - 1000) / T(7);
  }
}

/// Runs affine, axis1, reduce, twostep and count on `n` examples; returns
/// every output's bytes, one after another.
std::string runEverything(Executable &e, int64_t n) {
  std::vector<float> x4(n * 4), c(4), x3(n * 3);
  std::vector<int32_t> xi(2 * n * 3);
  fill(x4, 1);
  fill(c, 2);
  fill(x3, 3);
  fill(xi, 4);
  float s = -0.75f;
  std::vector<float> y4(n * 4), y1(n), t4(n * 4);
  std::vector<int32_t> yi(2 * n * 3), seen(n);
  std::vector<unsigned char> pos(n);
  float total = 0;
  int32_t overrun = 0;
  auto check = [](Status st) { EXPECT_TRUE(st.ok()) << st.message(); };
  check(e.run("affine",
              {HostArray{x4.data(), DType::F32, {n, 4}},
               HostArray{c.data(), DType::F32, {4}}},
              {MutableHostArray{y4.data(), DType::F32, {n, 4}}}));
  check(e.run("axis1", {HostArray{xi.data(), DType::I32, {2, n, 3}}},
              {MutableHostArray{yi.data(), DType::I32, {2, 3, n}}}));
  check(e.run(
      "reduce",
      {HostArray{x3.data(), DType::F32, {n, 3}}, HostArray{&s, DType::F32, {}}},
      {MutableHostArray{y1.data(), DType::F32, {n}},
       MutableHostArray{pos.data(), DType::Bool, {n}},
       MutableHostArray{&total, DType::F32, {}}}));
  check(e.run("twostep", {HostArray{x4.data(), DType::F32, {n, 4}}},
              {MutableHostArray{t4.data(), DType::F32, {n, 4}}}));
  check(e.run("count", {},
              {MutableHostArray{seen.data(), DType::I32, {n}},
               MutableHostArray{&overrun, DType::I32, {}}}));
  std::string out;
  auto append = [&](const void *p, size_t bytes) {
    out.append(static_cast<const char *>(p), bytes);
  };
  append(y4.data(), y4.size() * 4);
  append(yi.data(), yi.size() * 4);
  append(y1.data(), y1.size() * 4);
  append(pos.data(), pos.size());
  append(&total, 4);
  append(t4.data(), t4.size() * 4);
  append(seen.data(), seen.size() * 4);
  append(&overrun, 4);
  return out;
}

TEST_F(CpuDeviceTest, ResultsAreBitwiseIdenticalWith1And4Threads) {
  Device one = openCpu("cpu:threads=1"), four = openCpu("cpu:threads=4");
  std::unique_ptr<Executable> e1 = load(makeTestArtifact(), one);
  std::unique_ptr<Executable> e4 = load(makeTestArtifact(), four);
  ASSERT_NE(e1, nullptr);
  ASSERT_NE(e4, nullptr);
  const int64_t n = 1000 * kTestB + 3;
  std::string r1 = runEverything(*e1, n);
  std::string r4 = runEverything(*e4, n);
  ASSERT_EQ(r1.size(), r4.size());
  EXPECT_TRUE(r1 == r4) << "results differ between 1 and 4 threads";
  // And they are the right ones (the first affine output).
  float y0, x0, c0;
  std::vector<float> x(4), c(4);
  fill(x, 1);
  fill(c, 2);
  x0 = x[0];
  c0 = c[0];
  std::memcpy(&y0, r4.data(), 4);
  EXPECT_EQ(y0, 2 * x0 + c0);
}

// A kernel whose per-workgroup scratch is too large for the caller's stack
// runs on a worker of the pool, also on a pool of one thread; a small one
// dispatched as a single workgroup runs on the caller.
TEST_F(CpuDeviceTest, ScratchTooLargeForTheCallerRunsOnAWorker) {
  uintptr_t self = uintptr_t(pthread_self());
  for (const char *spec : {"cpu:threads=1", "cpu:threads=2"}) {
    Device d = openCpu(spec);
    for (uint64_t scratch : {uint64_t(0), uint64_t(1) << 20}) {
      Artifact a = makeTestArtifact();
      a.kernels[kThreadId].scratchBytes = scratch;
      std::unique_ptr<Executable> e = load(a, d);
      ASSERT_NE(e, nullptr);
      int32_t tid[2] = {};
      ASSERT_TRUE(
          e->run("where", {}, {MutableHostArray{tid, DType::I32, {2}}}).ok());
      if (scratch == 0)
        EXPECT_EQ(joinAddress(tid), self) << spec;
      else
        EXPECT_NE(joinAddress(tid), self) << spec << ", scratch " << scratch;
    }
  }
}

// A manifest that labels one level's code as another's (here the v4 bytes
// as baseline x86-64, which a CPU without AVX-512 would run and fault on) is
// refused: the object says what it was compiled for.
TEST_F(CpuDeviceTest, CodeOfAnotherLevelIsRefused) {
  Artifact a = makeTestArtifact(
      {testCodeObject("x86-64", readFileBytes(VMAPC_TEST_KERNELS_V4))});
  std::string b = serialize(a);
  std::unique_ptr<Executable> e;
  Status s = Executable::loadBytes(cpu, b.data(), b.size(), &e);
  EXPECT_EQ(s.message(), "code object #0: compiled for ISA level "
                         "'x86-64-v4', the manifest says 'x86-64'");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

} // namespace
