//===- make_artifact_seeds.cpp - Small artifacts for the reader's corpus --===//
//
// Usage: make_artifact_seeds OUTDIR
//
// Writes a few .vmapc artifacts whose code is only a 64-byte x86-64 ET_DYN
// ELF header (all the reader checks of the code), so that nearly every byte
// of a seed is header or manifest: the manifests of the runtime tests'
// kernels (one entry each and all together), every dtype, ranks 0-3, mapped
// axes first, inner and last, unmapped arguments with and without staging
// slots, shared input/output slots, CPU features. Made with the current
// writer, so the seeds follow the format version of the tree. The build also
// compiles real programs into seeds (fuzz/CMakeLists.txt).
//
//===----------------------------------------------------------------------===//

#include "vmapc/ArtifactFormat.h"

#include <cstdio>
#include <string>

using namespace vmapc;

namespace {

std::string elfHeader() {
  std::string h(64, '\0');
  h[0] = 0x7f, h[1] = 'E', h[2] = 'L', h[3] = 'F';
  h[4] = 2;   // ELFCLASS64
  h[5] = 1;   // ELFDATA2LSB
  h[6] = 1;   // EV_CURRENT
  h[16] = 3;  // ET_DYN
  h[18] = 62; // EM_X86_64
  h[20] = 1;  // e_version
  h[52] = 64; // e_ehsize
  return h;
}

ArgInfo arg(const char *name, DType dtype, std::vector<int64_t> shape,
            int32_t axis, uint64_t staging = kNoStaging) {
  ArgInfo a;
  a.name = name;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.mappedAxis = axis;
  a.stagingOffset = staging;
  return a;
}

EntryInfo entry(const char *name, uint32_t batch, uint64_t arena,
                std::vector<ArgInfo> inputs, std::vector<ArgInfo> outputs) {
  EntryInfo e;
  e.name = name;
  e.symbol = std::string("sym_") + name;
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
  std::vector<EntryInfo> entries = {
      entry("affine", 4, 512,
            {arg("x", f32, {4}, 0, 0), arg("c", f32, {4}, kNoAxis)},
            {arg("y", f32, {4}, 0, 256)}),
      entry("axis1", 4, 256, {arg("x", i32, {2, 3}, 1, 0)},
            {arg("y", i32, {2, 3}, 2, 128)}),
      entry("reduce", 4, 256,
            {arg("x", f32, {3}, 0, 0), arg("s", f32, {}, kNoAxis)},
            {arg("y", f32, {}, 0, 64), arg("pos", b1, {}, 0, 128),
             arg("total", f32, {}, kNoAxis)}),
      entry("shared", 2, 96,
            {arg("a", b1, {2, 2, 2}, 3, 0), arg("b", i32, {3}, kNoAxis, 64)},
            {arg("o", f32, {2}, 0, 0)}),
      entry("nothing", 1, 0, {}, {arg("k", i32, {1, 5}, kNoAxis)}),
  };
  bool ok = true;
  for (const EntryInfo &e : entries) {
    Artifact a;
    a.code = elfHeader();
    a.entries = {e};
    ok &= write(dir, e.name.c_str(), a);
  }
  Artifact all;
  all.code = elfHeader();
  all.cpuFeatures = {"sse2", "avx2", "fma"};
  all.entries = entries;
  ok &= write(dir, "all", all);
  return ok ? 0 : 1;
}
