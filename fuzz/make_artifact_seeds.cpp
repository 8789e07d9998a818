//===- make_artifact_seeds.cpp - Small artifacts for the reader's corpus --===//
//
// Usage: make_artifact_seeds OUTDIR
//
// Writes a few .vmapc artifacts whose code objects are only a 64-byte x86-64
// ET_DYN ELF header (all the reader checks of the code), so that nearly
// every byte of a seed is header or manifest: kernels of every grid kind
// (constants, tiles of n, three dimensions), scratch, schedules of
// dispatches and nested loops binding inputs, outputs and arena offsets and
// passing n and loop indices; every dtype, ranks 0-3, mapped axes first,
// inner and last, unmapped arguments with and without staging slots, shared
// input/output slots, an entry that pads; one entry each and all together
// with a code object per ISA level; all together with CUDA code alone (a
// cubin, which is a 64-byte ELF header for NVIDIA GPUs, and PTX text, with
// their launch records) and with CPU and CUDA code, every argument given a
// staging slot as CUDA code needs. Built with the runtime's test generator
// (runtime/test/ArtifactBuilder.h) and made with the current writer, so the
// seeds follow the format version of the tree. The build also compiles
// real programs into seeds (fuzz/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "ArtifactBuilder.h"
#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactWriter.h"

#include <cstdio>
#include <string>

using namespace vmapc;
using namespace vmapc_test;

namespace {

Binding in(uint32_t i) { return inputBinding(i); }
Binding out(uint32_t i) { return outputBinding(i); }
Binding arena(uint64_t offset) { return arenaBinding(offset); }
ScalarSource n() { return numExamples(); }

/// A CUDA object (sm_90) with launch records of various blocks and shared
/// bytes.
CodeObject cudaObject(CodeKind kind, std::string bytes, size_t numKernels) {
  std::vector<GpuLaunch> launches;
  for (size_t k = 0; k < numKernels; ++k) {
    GpuLaunch l;
    l.block[0] = uint32_t(32 << (k % 4));
    l.block[1] = uint32_t(1 + k % 2);
    l.sharedBytes = uint32_t(512 * k);
    launches.push_back(l);
  }
  return cudaCodeObject(kind, "sm_90", std::move(bytes), std::move(launches));
}

/// Gives each argument without a staging slot one after the entry's arena.
EntryInfo withEverySlot(EntryInfo e) {
  giveEveryArgumentASlot(e, 64);
  return e;
}

CodeObject codeObject(const char *level, std::vector<std::string> features) {
  return cpuCodeObject(level, std::move(features), smallestSharedObject());
}

EntryInfo entry(const char *name, uint32_t batch, uint64_t arena,
                std::vector<ArgInfo> inputs, std::vector<ArgInfo> outputs,
                std::vector<Command> schedule) {
  EntryInfo e;
  e.name = name;
  e.schedule = std::move(schedule);
  e.batchSize = batch;
  e.arenaBytes = arena;
  e.lowerBoundBytes = arena / 2;
  e.naiveSumBytes = arena * 2;
  e.inPlaceCount = 1;
  e.inputs = std::move(inputs);
  e.outputs = std::move(outputs);
  return e;
}

bool write(const std::string &dir, const char *name, const Artifact &a) {
  Status s = writeArtifactFile(a, dir + "/" + name + ".vmapc");
  if (!s.ok())
    std::fprintf(stderr, "make_artifact_seeds: %s: %s\n", name,
                 s.message().c_str());
  return s.ok();
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_artifact_seeds OUTDIR\n");
    return 2;
  }
  std::string dir = argv[1];
  const DType f32 = DType::F32, i32 = DType::I32, b1 = DType::Bool;
  enum : uint32_t {
    kAffine,
    kAxis1,
    kRows,
    kTotal,
    kShared,
    kConst,
    kSquare,
    kAccumulate
  };
  std::vector<KernelInfo> kernels = {
      kernel("affine", {64, 16, 64}, "rrw", 1, -1),
      kernel("axis1", {96, 96}, "rw", 1, -2, 2),
      kernel("reduce_rows", {48, 4, 16, 4}, "rrww", 1, -4),
      kernel("reduce_total", {4, 4}, "rw", 0, 1),
      kernel("shared", {16, 12, 16, 16}, "rrwb", 2, -2, 1, 3),
      kernel("constant", {20}, "w", 0, 2),
      kernel("square", {64, 64}, "rw", 1, -1),
      kernel("accumulate", {64, 64}, "rb", 3, -2),
  };
  kernels[kShared].scratchBytes = 4096;
  std::vector<EntryInfo> entries = {
      entry("affine", 4, 512,
            {arg("x", f32, {4}, 0, 0), arg("c", f32, {4}, kNoAxis)},
            {arg("y", f32, {4}, 0, 256)},
            {dispatch(kAffine, {in(0), in(1), out(0)}, {n()})}),
      entry("axis1", 4, 256, {arg("x", i32, {2, 3}, 1, 0)},
            {arg("y", i32, {2, 3}, 2, 128)},
            {dispatch(kAxis1, {in(0), out(0)}, {n()})}),
      entry("reduce", 4, 256,
            {arg("x", f32, {3}, 0, 0), arg("s", f32, {}, kNoAxis)},
            {arg("y", f32, {}, 0, 64), arg("pos", b1, {}, 0, 128),
             arg("total", f32, {}, kNoAxis)},
            {dispatch(kRows, {in(0), in(1), out(0), out(1)}, {n()}),
             dispatch(kTotal, {in(1), out(2)})}),
      entry("shared", 2, 96,
            {arg("a", b1, {2, 2, 2}, 3, 0), arg("b", i32, {3}, kNoAxis, 64)},
            {arg("o", f32, {2}, 0, 0)},
            {loop(3, 1), dispatch(kShared, {in(0), in(1), out(0), arena(64)},
                                  {n(), loopIndex(0)})}),
      entry("nothing", 1, 0, {}, {arg("k", i32, {1, 5}, kNoAxis)},
            {dispatch(kConst, {out(0)})}),
      entry("twostep", 4, 256, {arg("x", f32, {4}, 0, 0)},
            {arg("y", f32, {4}, 0, 64)},
            {dispatch(kSquare, {in(0), arena(128)}, {n()}), loop(2, 2),
             loop(3, 1),
             dispatch(kAccumulate, {arena(128), out(0)},
                      {n(), loopIndex(0), loopIndex(1)})}),
  };
  entries[1].padsPartialChunks = true;
  bool ok = true;
  for (const EntryInfo &e : entries) {
    Artifact a;
    a.kernels = kernels;
    a.entries = {e};
    a.codeObjects = {codeObject("x86-64", {"sse2"})};
    ok &= write(dir, e.name.c_str(), a);
  }
  Artifact all;
  all.kernels = kernels;
  all.entries = entries;
  all.codeObjects = {codeObject("x86-64", {"sse2"}),
                     codeObject("x86-64-v3", {"x86-64-v3", "avx2", "fma"}),
                     codeObject("x86-64-v4", {"x86-64-v4"})};
  ok &= write(dir, "all", all);
  Artifact cuda;
  cuda.kernels = kernels;
  for (const EntryInfo &e : entries)
    cuda.entries.push_back(withEverySlot(e));
  cuda.codeObjects = {
      cudaObject(CodeKind::CudaCubin, cubinElfHeader(), kernels.size()),
      cudaObject(CodeKind::CudaPtx, ".version 8.0\n.target sm_90\n",
                 kernels.size())};
  ok &= write(dir, "cuda", cuda);
  cuda.codeObjects.insert(cuda.codeObjects.begin(),
                          codeObject("x86-64", {"sse2"}));
  ok &= write(dir, "cpu-cuda", cuda);
  return ok ? 0 : 1;
}
